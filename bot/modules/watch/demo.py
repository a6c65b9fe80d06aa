"""The Watches' offline demo (``python -m bot.demo --module watch``, :mod:`bot.demo.modules`):
the Watches on the night-demo map with four heroes and the NPC marker; the heroes go to the
Metro, hands are dealt, and the duel is played step by step with buttons until a hero falls;
Red wins on sectors. The duel's spells are chosen from the hands as dealt (the GM's /hand shows
them all), so that one hero falls whatever the deal."""

from __future__ import annotations

import re
from collections.abc import Callable

from aiogram.utils.i18n import gettext as _

from bot.demo.modules import (
    DemoStory,
    People,
    Section,
    Words,
    create,
    join_all,
    monday,
    setup_press,
)
from bot.modules.watch.duel_screens import DuelPress
from tests.e2e import scenario as s

TITLES = {"en": "Night Moscow", "ru": "Ночная Москва"}


def about() -> str:
    """What the story shows, for ``--help``."""
    return _("a duel of spells step by step, a hero falls")


HEROES = (  # name, side (0 Red, 1 Blue), initiative, start (English, Russian)
    ("Лариса", 0, 2, "Hairdresser's", "Парикмахерская"),
    ("Андрей", 1, 4, "Entrance", "Подъезд"),
    ("Антон", 1, 7, "Metro", "Метро"),
    ("Завулон", 0, 9, "Cafe", "Кафе"),
)
STEPS = [hero[0] for hero in sorted(HEROES, key=lambda hero: hero[2])]
SPELL = re.compile(r"(attack|defence) (\d+)")
Plays = dict[str, list[tuple[str, str]]]  # hero -> [(card, target hero)]


def read_hands(text: str) -> dict[str, list[str]]:
    """Every hero's hand on the GM's /hand screen (English): «🧙 Лариса (side «Red», …)»,
    then «hand: attack 3, defence 2» -> {"Лариса": ["A3", "D2"]}."""
    hands: dict[str, list[str]] = {}
    hero = None
    for line in text.splitlines():
        named = re.match(r"🧙 (\S+) \(side", line)
        if named:
            hero = named.group(1)
        elif line.strip().startswith("hand:") and hero is not None:
            hands[hero] = [
                ("A" if kind == "attack" else "D") + power for kind, power in SPELL.findall(line)
            ]
    return hands


def duel_plan(hands: dict[str, list[str]]) -> Plays:
    """Spells that kill a hero whatever the deal: the side whose heroes hold more attack lays
    every attack on the other side's first hero and its defences on its own heroes; the other
    side attacks back and lays its defences on its hero that is not the target. The whole deck
    (15 attack, 13 defence) is dealt, so the stronger side holds at least 8 attack: more than
    the 4 wounds that kill."""
    side_of = {hero[0]: hero[1] for hero in HEROES}

    def attack(side: int) -> int:
        return sum(
            int(card[1:])
            for h, cards in hands.items()
            if side_of[h] == side
            for card in cards
            if card.startswith("A")
        )

    killers = 0 if attack(0) >= attack(1) else 1
    victim = next(hero for hero in STEPS if side_of[hero] != killers)
    keeper = next(hero for hero in STEPS if side_of[hero] != killers and hero != victim)
    target = next(hero for hero in STEPS if side_of[hero] == killers)
    plays: Plays = {}
    for hero in STEPS:
        laid = []
        for card in hands.get(hero, []):
            if side_of[hero] == killers:
                laid.append((card, victim if card.startswith("A") else hero))
            else:
                laid.append((card, target if card.startswith("A") else keeper))
        plays[hero] = laid
    return plays


def _duel(action: str, step: int, card: str = "", name: str = "") -> Callable[[str, str], bool]:
    def check(text: str, data: str) -> bool:
        if not data.startswith(f"{DuelPress.__prefix__}:"):
            return False
        pressed = DuelPress.unpack(data)
        return (
            pressed.s == step
            and pressed.a == action
            and (not card or pressed.k == card)
            and (not name or text == name)
        )

    return check


async def _play_step(table: s.Table, people: People, hero: str, plays: Plays) -> None:
    """The hero's side's strategist lays each spell on its target, then plays them."""
    side = next(h[1] for h in HEROES if h[0] == hero)
    player = people.red if side == 0 else people.blue

    def open_step(message: s.BotMessage) -> bool:
        return hero in message.text.splitlines()[0] and any(
            data.startswith(f"{DuelPress.__prefix__}:")
            for row in message.buttons
            for _t, data in row
        )

    screen = await table.wait_for_message(player.chat_id, open_step, what=f"{hero}'s step")
    data = next(d for row in screen.buttons for _t, d in row if d.startswith("wd:"))
    step = DuelPress.unpack(data).s
    for card, target in plays[hero]:
        await table.press(player, _duel("c", step, card))
        await table.press(player, _duel("t", step, card, target))
    await table.press(player, _duel("p" if plays[hero] else "n", step))


async def play(table: s.Table, people: People, words: Words, section: Section) -> int:
    gm, group = table.gm, table.group.id
    ru = words.language == "ru"
    sides = (words.red, words.blue)

    async def watch_on() -> None:
        await table.press(gm, setup_press("go", "watch"), chat_id=group)
        await table.press(gm, setup_press("wmap"), chat_id=group)
        await table.press(gm, setup_press("wt", "on"), chat_id=group)
        asked = await table.press(gm, setup_press("ask", "heroes"), chat_id=group)
        listed = "\n".join(
            f"{name}, {sides[side]}, {initiative}, {russian if ru else english}"
            for name, side, initiative, english, russian in HEROES
        )
        await table.reply(gm, asked[group][-1], listed)
        asked = await table.press(gm, setup_press("ask", "npc"), chat_id=group)
        await table.reply(
            gm, asked[group][-1], "Егор, " + ("Квартира Егора" if ru else "Apartment")
        )
        await table.press(gm, setup_press("go", "summary"), chat_id=group)

    section(_("The GM sets up the campaign and the Watches in the group"))
    await create(table, TITLES[words.language], words, list(sides), "sectors_to_win=2", watch_on)
    section(_("Players join and deploy"))
    people = await join_all(table, people, words)
    await s.deploy_typed(table, people.red, "metro:3 hairdresser:4 cafe:3")
    await s.deploy_typed(table, people.blue, "метро:5 подъезд:3 крыша:2")

    section(_("Turn {turn}: the orders window opens (Tuesday 00:00)").format(turn=1))
    await s.move_to(table, s.ORDERS_OPEN)
    section(_("Turn {turn}: hands are dealt; the heroes go to the Metro").format(turn=1))
    await table.command(people.red, "/hand")
    hands = read_hands((await table.command(gm, "/hand"))[gm.chat_id][-1].text)
    plays = duel_plan(hands)
    red = (
        "Иной Лариса в Метро\nИной Завулон в Метро\nатака на синих в метро\n"
        "парикмахерская -> метро x1"
        if ru
        else "hero Лариса to Metro\nhero Завулон to Metro\nattack blue in metro\n"
        "hairdresser -> metro x1"
    )
    await s.orders_typed(table, people.red, red)
    await s.orders_typed(table, people.blue, "Иной Андрей в Метро\nкрыша -> подъезд x1")
    section(_("Turn {turn}: the orders window closes (Thursday 23:59)").format(turn=1))
    await s.move_to(table, s.ORDERS_CLOSE)
    section(_("Turn {turn}: the battle list and the duel, step by step").format(turn=1))
    await s.move_to(table, s.BATTLE_LIST)
    for hero in STEPS:
        await _play_step(table, people, hero, plays)
    section(_("Turn {turn}: battles are played and reported").format(turn=1))
    await s.report_result(table, people.red, 1, "solid", words.red)
    await s.confirm_result(table, people.blue_tactician, 1)
    await monday(table, 1, section)
    return 1


STORY = DemoStory(TITLES, about, play)
