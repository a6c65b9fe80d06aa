"""The offline demo of each rule module: ``python -m bot.demo --module siege|contact|watch``
(``./run -- --module siege``), played like the core demo (:mod:`bot.demo`) by scripted people
against the real bot process on the test clock, with the module's own moments:

- ``siege``: the GM switches the Midnight Siege on in the wizard (two fortifications, the
  weather steered from the Equator); the last side picks the starting weather; Red assaults a
  fortification for a step of the weather (its roll on the battle list) and steers the
  weather, Blue attacks; the wind rose turns on Monday; in turn 2 Red wins on sectors.
- ``contact``: three sides, defences picked by owner in the wizard, 4 VP to win; in turn 1
  Red's and Green's groups move into Blue's East: zombie cards, a chain of two battles (the
  winner of battle 1 defends battle 2), Blue and Green retreat exhausted and East's defences
  are ruined (+1 VP); in turn 2 Red's group catches Blue in the Equator and slays its warlord
  (+3 VP): Red wins on victory points.
- ``watch``: the Watches on the night-demo map with four heroes and the NPC marker; the
  heroes go to the Metro, hands are dealt, and the duel is played step by step with buttons
  until a hero falls; Red wins on sectors.

Each story is short (one or two turns) and does not depend on the seeds: the assault's force
beats any roll, every group beats any zombie card, and the duel's spells are chosen from the
hands as dealt (the GM's /hand shows them all), so that one hero falls whatever the deal.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiogram.utils.i18n import gettext as _

from bot.callbacks import WeatherPick
from bot.handlers.group.setup import SetupPress
from bot.modules.watch.duel_screens import DuelPress
from tests.e2e import scenario as s

MODULES = ("siege", "contact", "watch")


@dataclass(frozen=True)
class Words:
    """A module demo's words in one language: sides, heroes, typed orders."""

    language: str
    red: str
    blue: str
    green: str


WORDS = {
    "en": Words("en", "Red", "Blue", "Green"),
    "ru": Words("ru", "Красные", "Синие", "Зелёные"),
}
TITLES = {
    "en": {"siege": "Midnight Siege", "contact": "Day of the Dead", "watch": "Night Moscow"},
    "ru": {"siege": "Полуночная осада", "contact": "День мертвецов", "watch": "Ночная Москва"},
}


class Section:
    """What a story needs from the demo's transcript printer: headings and flushes."""

    def __init__(self, section: Callable[[str], None], flush: Callable[[], None]) -> None:
        self.section = section
        self.flush = flush

    def __call__(self, title: str) -> None:
        self.flush()
        self.section(title)


@dataclass
class People:
    """The GM and the players of a module demo."""

    gm: s.Player
    red: s.Player  # Red's strategist, who also plays Red's battles
    blue: s.Player  # Blue's strategist (a Russian app)
    blue_tactician: s.Player  # Blue's tactician (a Russian app)
    green: s.Player  # Green's strategist, contact only


def _setup(action: str, value: str | None = None) -> Callable[[str, str], bool]:
    """A button of the setup wizard by what it does and its value (any language)."""

    def check(_text: str, data: str) -> bool:
        if not data.startswith(f"{SetupPress.__prefix__}:"):
            return False
        pressed = SetupPress.unpack(data)
        return pressed.a == action and (value is None or pressed.v == value)

    return check


def _owner(side: str) -> Callable[[str, str], bool]:
    """The owner screen's button of ``side`` (by its name)."""
    pick = _setup("cdo")
    return lambda text, data: pick(text, data) and text.removeprefix("✔ ") == side


async def play(
    module: str,
    table: s.Table,
    people: People,
    words: Words,
    section: Section,
) -> int:
    """Play ``module``'s story; the number of turns played."""
    stories: dict[str, Callable[[s.Table, People, Words, Section], Awaitable[int]]] = {
        "siege": _siege,
        "contact": _contact,
        "watch": _watch,
    }
    return await stories[module](table, people, words, section)


async def _create(
    table: s.Table,
    module: str,
    words: Words,
    sides: list[str],
    rules: str,
    settings: Callable[[], Awaitable[None]],
) -> None:
    await s.create_campaign(
        table,
        TITLES[words.language][module],
        sides,
        zone="Moscow",
        rules=rules,
        language="Русский" if words.language == "ru" else None,
        before_open=settings,
    )


async def _week(
    table: s.Table, turn: int, section: Section, orders: Callable[[], Awaitable[None]]
) -> None:
    """Turn ``turn`` up to its battle list: the window opens, ``orders`` are given, the window
    closes and the list goes out on Friday."""
    section(_("Turn {turn}: the orders window opens (Tuesday 00:00)").format(turn=turn))
    await s.move_to(table, s.ORDERS_OPEN)
    section(_("Turn {turn}: secret orders in private chats").format(turn=turn))
    await orders()
    section(_("Turn {turn}: the orders window closes (Thursday 23:59)").format(turn=turn))
    await s.move_to(table, s.ORDERS_CLOSE)
    section(_("Turn {turn}: the battle list (Friday 12:00)").format(turn=turn))
    await s.move_to(table, s.BATTLE_LIST)


async def _monday(table: s.Table, turn: int, section: Section) -> None:
    section(_("Turn {turn}: resolution (Monday 12:00)").format(turn=turn))
    await s.move_to(table, s.RESOLUTION)


async def _join_all(table: s.Table, people: People, words: Words, green: bool = False) -> People:
    await s.join(table, people.red, words.red, "strategist")
    await s.join(table, people.blue, words.blue, "strategist")
    await s.join(table, people.blue_tactician, words.blue, "tactician")
    if green:
        await s.join(table, people.green, words.green, "strategist")
    return People(
        people.gm,
        table.player(people.red.name),
        table.player(people.blue.name),
        table.player(people.blue_tactician.name),
        table.player(people.green.name) if green else people.green,
    )


# ---- Midnight Siege -----------------------------------------------------------------------


async def _siege(table: s.Table, people: People, words: Words, section: Section) -> int:
    gm, group = table.gm, table.group.id
    ru = words.language == "ru"

    async def siege_on() -> None:
        await table.press(gm, _setup("go", "siege"), chat_id=group)
        await table.press(gm, _setup("sg", "on"), chat_id=group)
        await table.press(gm, _setup("tok", "f.2"), chat_id=group)  # F1 in West
        await table.press(gm, _setup("tok", "f.3"), chat_id=group)  # F2 in East
        await table.press(gm, _setup("wc", "1"), chat_id=group)  # steered from the Equator
        await table.press(gm, _setup("go", "summary"), chat_id=group)

    section(_("The GM sets up the campaign and the Midnight Siege in the group"))
    await _create(table, "siege", words, [words.red, words.blue], "sectors_to_win=2", siege_on)
    section(_("Players join; deployment: Red by a typed line, Blue in Russian"))
    people = await _join_all(table, people, words)
    await s.deploy_typed(table, people.red, "1:3 2:5 4:2")
    await s.deploy_typed(table, people.blue, "экватор:4 восток:5 5:1")
    section(_("The last side picks the starting weather"))
    await table.press(
        people.blue,
        lambda _text, data: (
            data.startswith(f"{WeatherPick.__prefix__}:") and WeatherPick.unpack(data).w == 0
        ),
    )

    async def first_orders() -> None:
        red = (
            "поворот погоды из 1\nштурм F1 в 2 за погоду\nподкрепление в 4"
            if ru
            else "steer weather from 1\nassault F1 in 2 for weather\nreinforce 4"
        )
        await s.orders_typed(table, people.red, red)
        await s.orders_typed(table, people.blue, f"атака {words.red} 1\nподкрепление экватор")

    await _week(table, 1, section, first_orders)
    section(_("Turn {turn}: battles are played and reported").format(turn=1))
    await s.report_result(table, people.blue_tactician, 1, "solid", words.blue)
    await s.confirm_result(table, people.red, 1)
    await _monday(table, 1, section)

    async def second_orders() -> None:
        red = "атака на синих в 1" if ru else "attack blue in 1"
        await s.orders_typed(table, people.red, red)

    await _week(table, 2, section, second_orders)
    section(_("Turn {turn}: battles are played and reported").format(turn=2))
    await s.report_result(table, people.red, 1, "crushing", words.red)
    await s.confirm_result(table, people.blue_tactician, 1)
    await _monday(table, 2, section)
    return 2


# ---- contact ------------------------------------------------------------------------------


async def _contact(table: s.Table, people: People, words: Words, section: Section) -> int:
    gm, group = table.gm, table.group.id
    ru = words.language == "ru"

    async def contact_on() -> None:
        await table.press(gm, _setup("go", "contact"), chat_id=group)
        await table.press(gm, _setup("ct", "on"), chat_id=group)
        await table.press(gm, _setup("cdl", "4"), chat_id=group)  # a barricade in North Pole
        await table.press(gm, _setup("cdp", "4"), chat_id=group)
        await table.press(gm, _owner(words.red), chat_id=group)
        await table.press(gm, _setup("cdl", "3"), chat_id=group)  # a barricade in East
        await table.press(gm, _setup("cdp", "3"), chat_id=group)
        await table.press(gm, _owner(words.blue), chat_id=group)
        for _vp in range(4):
            await table.press(gm, _setup("cvp", "+"), chat_id=group)
        await table.press(gm, _setup("go", "summary"), chat_id=group)

    section(_("The GM sets up the campaign and contact in the group"))
    await _create(
        table,
        "contact",
        words,
        [words.red, words.blue, words.green],
        "start_sectors=1 start_armies=7",
        contact_on,
    )
    section(_("Players join and deploy"))
    people = await _join_all(table, people, words, green=True)
    await s.deploy_typed(table, people.red, "4:7")
    await s.deploy_typed(table, people.blue, "3:7")
    await s.deploy_typed(table, people.green, "5:7")

    async def first_orders() -> None:
        red = "переместить 5 армий из 4 в 3" if ru else "move 5 from 4 to 3"
        green = "переместить 4 армии из 5 в 3" if ru else "move 4 from 5 to 3"
        await s.orders_typed(table, people.red, red)
        await s.orders_typed(table, people.blue, "отступление из 3 в 1", ready=False)
        await s.orders_typed(table, people.green, green)

    await _week(table, 1, section, first_orders)
    section(_("Turn {turn}: the chain is played battle by battle").format(turn=1))
    await s.report_result(table, people.red, 1, "solid", words.red, warlords="0")
    await s.confirm_result(table, people.blue_tactician, 1)
    await s.report_result(table, people.red, 2, "solid", words.red, warlords="0")
    await s.confirm_result(table, people.green, 2)
    await _monday(table, 1, section)

    async def second_orders() -> None:
        red = "переместить 4 армии из 3 в 1" if ru else "move 4 from 3 to 1"
        await s.orders_typed(table, people.red, red)

    await _week(table, 2, section, second_orders)
    section(_("Turn {turn}: battles are played and reported").format(turn=2))
    await s.report_result(table, people.red, 1, "crushing", words.red, warlords="2")
    await s.confirm_result(table, people.blue_tactician, 1)
    await _monday(table, 2, section)
    return 2


# ---- the Watches --------------------------------------------------------------------------

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


async def _watch(table: s.Table, people: People, words: Words, section: Section) -> int:
    gm, group = table.gm, table.group.id
    ru = words.language == "ru"
    sides = (words.red, words.blue)

    async def watch_on() -> None:
        await table.press(gm, _setup("go", "watch"), chat_id=group)
        await table.press(gm, _setup("wmap"), chat_id=group)
        await table.press(gm, _setup("wt", "on"), chat_id=group)
        asked = await table.press(gm, _setup("ask", "heroes"), chat_id=group)
        listed = "\n".join(
            f"{name}, {sides[side]}, {initiative}, {russian if ru else english}"
            for name, side, initiative, english, russian in HEROES
        )
        await table.reply(gm, asked[group][-1], listed)
        asked = await table.press(gm, _setup("ask", "npc"), chat_id=group)
        await table.reply(
            gm, asked[group][-1], "Егор, " + ("Квартира Егора" if ru else "Apartment")
        )
        await table.press(gm, _setup("go", "summary"), chat_id=group)

    section(_("The GM sets up the campaign and the Watches in the group"))
    await _create(table, "watch", words, list(sides), "sectors_to_win=2", watch_on)
    section(_("Players join and deploy"))
    people = await _join_all(table, people, words)
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
    await _monday(table, 1, section)
    return 1
