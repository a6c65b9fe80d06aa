"""A Night Watch campaign through the real bot process, from /newcampaign to a winner, mixed
with the core's armies; then the turn replays through ``python -m rules`` with its rolls and
its deal verified, and no hand reached a chat it does not belong to before the end.

The GM switches the Night Watch on in the wizard, picks the night-demo map, types four heroes
(two a side, Russian names) and the NPC marker; duels go step by step (initiative mode). Both
sides deploy armies; as the orders open the heroes are dealt, and each side reads its hands
with /hand in private (the GM, without a side, reads every hand). Red moves its two heroes into
the Metro with buttons and attacks Blue's armies there; Blue's Russian strategist types his
hero's move in Russian, and both sides move armies. The battle list names the duel in the
Metro; its four steps are played with buttons in initiative order, posted in the group as each
closes, and one step times out (the test clock moves past its deadline). The table battle is
reported and confirmed; on Monday a hero has fallen, another is wounded, and Red's two captured
sectors win the campaign, when the deal seed is revealed.

The hands come from the turn's deal seed, so the players choose their spells from the hands
they read (:func:`_duel_plan`): with four heroes of three cards each the whole 12-card deck is
dealt, and every such deal lets one step time out while the other heroes' attacks kill one
hero and wound another (checked over every deal when this test was written).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp

from bot.modules.watch.duel_screens import DuelPress
from rules import commitment
from rules.dice import shuffle
from rules.modules.watch.deal import deal_label
from storage import CampaignStatus, Phase, SqliteCampaignStore
from tests.e2e.conftest import ROOT, BotService, RecordedRequest
from tests.e2e.harness import Chat, ScriptedTelegram, User
from tests.e2e.scenario import (
    BotMessage,
    ClockClient,
    Player,
    Table,
    confirm_result,
    create_campaign,
    deploy_typed,
    join,
    orders_typed,
    report_result,
)

GROUP = Chat(id=-1004300, type="supergroup", title="Night Watch table")
GM = Player(User(id=4300, first_name="Marta"))
ANNA = Player(User(id=4301, first_name="Anna"))  # Red, strategist
CARL = Player(User(id=4302, first_name="Carl"))  # Red, tactician
GLEB = Player(User(id=4303, first_name="Глеб"), "ru")  # Blue, strategist, Russian app
VERA = Player(User(id=4304, first_name="Vera"))  # Blue, tactician
RED, BLUE = "Red", "Blue"
SIDE_CHATS = {RED: {ANNA.chat_id, CARL.chat_id}, BLUE: {GLEB.chat_id, VERA.chat_id}}
HEROES = (  # name, side, initiative, start (the wizard names them h01, h02, ... in this order)
    ("Лариса", RED, 2, "Hairdresser"),
    ("Андрей", BLUE, 4, "Entrance"),
    ("Завулон", RED, 9, "Cafe"),
    ("Антон", BLUE, 7, "Metro"),
)
SIDE_OF = {name: side for name, side, _i, _s in HEROES}
STEPS = [name for name, *_ in sorted(HEROES, key=lambda hero: hero[2])]
STRATEGIST = {RED: ANNA, BLUE: GLEB}
STEP_HOURS = 6
WOUNDS_TO_KILL = 4
DECK = ("A1", "A2", "A2", "A3", "A3", "A4", "D1", "D2", "D2", "D3", "D3", "D4")
"""The default spell deck (W3): four heroes of three cards are dealt all of it."""
HAND_MARKERS = ("hand:", "In hand:", "на руке:", "На руке:")
"""How the bot introduces a hand (/hand, the heroes screen, a duel step screen; en and ru)."""

Plays = dict[str, list[tuple[str, str]]]  # hero name -> [(card, target hero name)]


def utc(month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


def _cli(command: str, document: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules", command],
        input=document,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=60,
    )


# ---- reading hands and choosing spells, as the players do -----------------------------------

SPELL = re.compile(r"(attack|defence) (\d+)")


def _read_hands(text: str) -> dict[str, list[str]]:
    """Every hero's hand on a /hand screen in English: «🧙 Лариса (side «Red», …)» then
    «hand: attack 3, defence 2» -> {"Лариса": ["A3", "D2"]}."""
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


def _duel_plan(hands: Mapping[str, Sequence[str]]) -> tuple[str, Plays]:
    """Whose step times out, and what the others play, so that one hero falls and another
    living one is wounded: attacks go on heroes of the other side, defences on the hero's own
    side. Of those stories, the one where the most cards are played; the steps after the first
    are tried first for the timeout (the first step is played by buttons)."""
    best: tuple[int, str, Plays] | None = None
    for late in [*STEPS[1:], STEPS[0]]:
        cards = [(hero, card) for hero in STEPS if hero != late for card in hands[hero]]
        choices = [
            [
                None,
                *(
                    other
                    for other in STEPS
                    if (SIDE_OF[other] != SIDE_OF[hero]) == card.startswith("A")
                ),
            ]
            for hero, card in cards
        ]
        for targets in itertools.product(*choices):
            played = sum(target is not None for target in targets)
            if best is not None and played <= best[0]:
                continue
            plays = _grouped(
                (hero, card, to) for (hero, card), to in zip(cards, targets, strict=True)
            )
            wounds = _wounds(plays)
            if any(n >= WOUNDS_TO_KILL for n in wounds.values()) and any(
                0 < n < WOUNDS_TO_KILL for n in wounds.values()
            ):
                best = (played, late, {hero: plays.get(hero, []) for hero in STEPS if hero != late})
        if best is not None:
            return best[1], best[2]
    raise AssertionError(f"no duel story for the hands {hands}")


def _grouped(laid: Iterable[tuple[str, str, str | None]]) -> Plays:
    plays: Plays = {}
    for hero, card, target in laid:
        if target is not None:
            plays.setdefault(hero, []).append((card, target))
    return plays


def _wounds(plays: Plays) -> dict[str, int]:
    """Wounds added per hero (W6: attacks on it less defences on it, never below 0)."""
    total = dict.fromkeys(STEPS, 0)
    for laid in plays.values():
        for card, target in laid:
            total[target] += int(card[1:]) if card.startswith("A") else -int(card[1:])
    return {hero: max(0, n) for hero, n in total.items()}


def _duel(action: str, step: int, card: str = "", name: str = "") -> Callable[[str, str], bool]:
    """A duel step button of step ``step`` by what it does (a target by the hero's name)."""

    def check(text: str, data: str) -> bool:
        if not data.startswith(f"{DuelPress.__prefix__}:"):
            return False
        button = DuelPress.unpack(data)
        return (
            button.s == step
            and button.a == action
            and (not card or button.k == card)
            and (not name or text == name)
        )

    return check


async def _step_screen(table: Table, hero: str) -> tuple[Player, int]:
    """The step screen of ``hero`` in its side's strategist's chat: who plays it, its id."""
    player = STRATEGIST[SIDE_OF[hero]]

    def open_step(message: BotMessage) -> bool:
        return hero in message.text.splitlines()[0] and any(
            data.startswith(f"{DuelPress.__prefix__}:")
            for row in message.buttons
            for _t, data in row
        )

    screen = await table.wait_for_message(player.chat_id, open_step, what=f"{hero}'s step")
    data = next(d for row in screen.buttons for _t, d in row if d.startswith("wd:"))
    return player, DuelPress.unpack(data).s


async def _play_step(table: Table, hero: str, plays: Sequence[tuple[str, str]]) -> None:
    """The side's strategist lays each card on its target with buttons, then plays them (or
    plays nothing)."""
    player, step = await _step_screen(table, hero)
    for card, target in plays:
        await table.press(player, _duel("c", step, card))
        await table.press(player, _duel("t", step, card, target))
    await table.press(player, _duel("p" if plays else "n", step))


# ---- the campaign -------------------------------------------------------------------------


async def _play(table: Table) -> tuple[int, str, Plays]:
    async def watch_on() -> None:
        await table.press(GM, "🌃 Watches", chat_id=GROUP.id)
        await table.press(GM, "🗺 Night demo map", chat_id=GROUP.id)
        await table.press(GM, "Switch the Watches on", chat_id=GROUP.id)
        await table.press(GM, "🧙 Add heroes", chat_id=GROUP.id)
        prompt = await table.wait_for_text(GROUP.id, "reply with the heroes")
        listed = "\n".join(f"{n}, {side}, {i}, {start}" for n, side, i, start in HEROES)
        screen = (await table.reply(GM, prompt, listed))[GROUP.id][-1]
        assert "• Лариса (side «Red»), initiative 2, starts in" in screen.text
        await table.press(GM, "👤 NPC marker", chat_id=GROUP.id)
        prompt = await table.wait_for_text(GROUP.id, "reply with the NPC marker")
        screen = (await table.reply(GM, prompt, "Егор, Apartment"))[GROUP.id][-1]
        assert "NPC marker: Егор, starts in" in screen.text
        assert "Duels: " in screen.text
        await table.press(GM, "Back", chat_id=GROUP.id)
        summary = (await table.bot_messages(GROUP.id))[-1]
        assert "Watches: on, 4 heroes, duels step by step" in summary.text

    await table.command(GM, "/start")
    campaign_id = await create_campaign(
        table, "Night Moscow", [RED, BLUE], rules="sectors_to_win=2", before_open=watch_on
    )
    for person, side, role in (
        (ANNA, RED, "strategist"),
        (CARL, RED, "tactician"),
        (GLEB, BLUE, "strategist"),
        (VERA, BLUE, "tactician"),
    ):
        await join(table, person, side, role)
    await deploy_typed(table, ANNA, "metro:3 hairdresser:4 cafe:3")
    await deploy_typed(table, GLEB, "метро:5 подъезд:3 крыша:2")

    await table.move_clock(utc(3, 3, 8))  # Tuesday: the orders window is open
    # Each side reads its own hands in private; the GM (no side) reads every side's.
    own = (await table.command(ANNA, "/hand"))[ANNA.chat_id][-1].text
    assert "Secret: the heroes of side «Red» and their spells, turn 1." in own
    assert "Андрей" not in own
    russian = (await table.command(GLEB, "/hand"))[GLEB.chat_id][-1].text
    assert "Секретно: Иные стороны «Blue» и их заклинания, ход 1." in russian
    assert "Лариса" not in russian
    asked = await table.command(CARL, "/hand", GROUP)  # in the group: only a pointer
    assert "works in a private chat" in asked[GROUP.id][-1].text
    hands = _read_hands((await table.command(GM, "/hand"))[GM.chat_id][-1].text)
    assert sorted(hands) == sorted(STEPS)
    assert sorted(card for hand in hands.values() for card in hand) == sorted(DECK)
    assert set(hands) >= set(_read_hands(own))
    assert all(hands[hero] == cards for hero, cards in _read_hands(own).items())
    late, plays = _duel_plan(hands)

    # Red's heroes go to the Metro by buttons (only legal destinations are offered).
    await table.command(ANNA, "/orders")
    heroes = await table.press(ANNA, "Heroes and spells")
    offered = [label for m in heroes[ANNA.chat_id] for label in m.labels() if "→" in label]
    assert offered == ["Лариса → Metro", "Завулон → Metro"]
    await table.press(ANNA, "Лариса → Metro")
    done = await table.press(ANNA, "Завулон → Metro")
    assert "• hero Завулон to Metro" in done[ANNA.chat_id][-1].text
    await orders_typed(table, ANNA, "attack Blue in metro\nhairdresser -> metro x1")
    # Blue's strategist types his hero's move in Russian, then his armies' move.
    typed = await table.say(GLEB, "Иной Андрей в Метро")
    assert "Иной «Андрей» — в локацию «Метро»" in "\n".join(typed.texts(GLEB.chat_id))
    await orders_typed(table, GLEB, "крыша -> подъезд x1")

    await table.move_clock(utc(3, 5, 21))  # the orders close
    await table.move_clock(utc(3, 6, 9))  # Friday: the battle list, the duel's first step
    listed = await table.wait_for_text(GROUP.id, "⚡ Duel in Metro")
    assert "⚡ Duel in Metro; steps: Лариса, Андрей, Антон, Завулон." in listed.text
    assert "2. Андрей: Entrance → Metro" in listed.text
    assert "👤 The NPC marker stands in Egor's Apartment." in listed.text
    for hero in STEPS:
        if hero == late:
            player, _step = await _step_screen(table, hero)  # its side was told; nobody plays
            await table.move_clock(await table.clock.now() + timedelta(hours=STEP_HOURS - 1))
            reminder = await table.wait_for_text(player.chat_id, "⏰")  # the step's title first
            assert hero in reminder.text.splitlines()[0]
            await table.move_clock(await table.clock.now() + timedelta(hours=1))
            post = await table.wait_for_text(GROUP.id, f"{hero}'s step.\nNothing played")
            assert "Nothing played: the step's deadline passed." in post.text
            continue
        await _play_step(table, hero, plays[hero])
        post = await table.wait_for_text(GROUP.id, f"{hero}'s step.\n")
        laid = ", ".join(f"{_card_name(card, 'en')} → {to}" for card, to in plays[hero])
        assert (f"Played: {laid}." if laid else "Nothing played.") in post.text

    await table.move_clock(utc(3, 7, 10))  # Saturday: the table battle
    await report_result(table, CARL, 1, "solid", RED)
    await confirm_result(table, VERA, 1)
    await table.move_clock(utc(3, 9, 9))  # Monday
    monday = await table.wait_for_message(
        GROUP.id, lambda m: m.photo is not None and "Turn 1 resolved" in m.text, what="Monday"
    )
    wounds = _wounds(plays)
    assert any(n >= WOUNDS_TO_KILL for n in wounds.values())  # a hero falls,
    assert any(0 < n < WOUNDS_TO_KILL for n in wounds.values())  # another is wounded
    for hero, added in wounds.items():
        if added >= WOUNDS_TO_KILL:
            assert f"✝ {hero} has fallen." in monday.text
        elif added:
            assert f"🩸 {hero}: +{added} wound" in monday.text
    assert "Red wins the campaign!" in monday.text
    return campaign_id, late, plays


# ---- the checks after the end -------------------------------------------------------------


def _spell_words(card: str, language: str) -> str:
    words = {"en": ("attack {}", "defence {}"), "ru": ("Атака-{}", "Защита-{}")}[language]
    return (words[0] if card.startswith("A") else words[1]).format(card[1:])


def _card_name(card: str, language: str) -> str:
    words = {"en": ("Attack {}", "Defence {}"), "ru": ("Атака-{}", "Защита-{}")}[language]
    return (words[0] if card.startswith("A") else words[1]).format(card[1:])


def _assert_hands_kept_secret(
    requests: Sequence[RecordedRequest], start_hands: Mapping[str, tuple[str, ...]], deal: str
) -> None:
    """No hand (as /hand, the heroes screen or a step screen writes it, in either language,
    nor a hand's heading) reaches the group or another side's chat before the campaign ends,
    nor the deal seed any chat; the group gets the deal seed at the end."""
    ended = next(
        r.seq for r in requests if "Red wins the campaign!" in r.words() and r.chat_id == GROUP.id
    )
    renderings: dict[str, set[str]] = {RED: set(), BLUE: set()}
    for hero, hand in start_hands.items():
        for language in ("en", "ru"):
            for write in (_spell_words, _card_name):
                renderings[SIDE_OF[hero]].add(", ".join(write(c, language) for c in hand))
    for side, chats in SIDE_CHATS.items():  # the words looked for are the words shown
        assert any(
            shown in request.words()
            for request in requests
            if request.chat_id in chats
            for shown in renderings[side]
        ), side
    checked = 0
    for request in requests:
        if request.seq >= ended or request.chat_id is None or request.method.startswith("get"):
            continue
        words = request.words()
        assert deal not in words, words
        for side, chats in SIDE_CHATS.items():
            if request.chat_id in chats or request.chat_id == GM.chat_id:
                continue
            assert not any(shown in words for shown in renderings[side]), (side, words)
        if request.chat_id == GROUP.id:
            assert not any(marker in words for marker in HAND_MARKERS), words
        checked += 1
    assert checked > 50
    assert any(
        request.chat_id == GROUP.id and f"deal seed: {deal}" in request.words()
        for request in requests
        if request.seq >= ended
    )


def _assert_monday_map(requests: Sequence[RecordedRequest], record: Path, plays: Plays) -> None:
    """The Monday map in the group (found by its bytes among the maps the bot recorded
    drawing) draws the heroes where they moved, their wounds and the fallen, and the marker."""
    drawn = {}
    for line in record.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        drawn[entry["sha256"]] = entry["view"]
    [photo] = [
        request
        for request in requests
        if request.method == "sendPhoto"
        and request.ok
        and request.chat_id == GROUP.id
        and "Turn 1 resolved" in request.params.get("caption", "")
    ]
    (data,) = photo.files.values()
    view = drawn[hashlib.sha256(data).hexdigest()]
    expected = _wounds(plays)
    heroes = {hero["name"]: hero for hero in view["heroes"]}
    assert sorted(heroes) == sorted(STEPS)
    for name, hero in heroes.items():
        assert hero["sector"] == "metro"
        assert hero["killed"] == (expected[name] >= WOUNDS_TO_KILL), hero
        if hero["killed"]:
            assert hero["wounds"] >= WOUNDS_TO_KILL, hero
        else:
            assert hero["wounds"] == expected[name], hero
    assert [move["to"] for move in view["hero_moves"]] == ["metro"] * 3
    assert view["npc"] == {"name": "Егор", "sector": "apartment"}


async def test_a_night_watch_campaign_to_a_winner_replays_and_keeps_hands_secret(
    telegram: ScriptedTelegram, bot_service: BotService, tmp_path: Path
) -> None:
    await bot_service.start()
    async with aiohttp.ClientSession() as session:
        table = Table(telegram, ClockClient(bot_service.clock_url, session), GROUP, GM)
        try:
            campaign_id, late, plays = await _play(table)
        finally:
            (tmp_path / "transcript.txt").write_text(
                "\n".join(
                    f"[{table.chat_name(s.chat_id)}] {s.who} {s.action}: {s.text}"
                    for s in table.transcript
                )
            )
    bot_service.stop()
    store = await SqliteCampaignStore.open(bot_service.database)
    try:
        campaign = await store.campaign(campaign_id)
        assert campaign is not None
        assert (campaign.status, campaign.phase) == (CampaignStatus.FINISHED, Phase.FINISHED)
        exported: dict[str, Any] = json.loads(json.dumps(await store.export_campaign(campaign_id)))
    finally:
        await store.close()
    [turn] = [t for t in exported["turns"] if t["turn"] == 1]
    # The deal seed is public now, matches its commitment and gives exactly the hands dealt.
    seeds = turn["seeds"]
    assert seeds["deal"] is not None
    assert turn["commitments"]["deal"] == commitment(seeds["deal"])
    start = turn["document"]["state"]["modules"]["watch"]
    names = {hero["id"]: hero["name"] for hero in start["heroes"]}
    dealt = {names[hero["id"]]: tuple(hero["hand"]) for hero in start["heroes"]}
    order = [
        hero["id"] for hero in sorted(start["heroes"], key=lambda h: (h["initiative"], h["id"]))
    ]
    deck = shuffle(seeds["deal"], deal_label(1), DECK)
    assert [card for hero in order for card in dealt[names[hero]]] == deck
    deal_rolls = [roll for roll in turn["rolls"] if roll["seed"] == "deal"]
    assert [roll["label"] for roll in deal_rolls] == [
        f"{deal_label(1)}/{i}" for i in range(len(DECK) - 1, 0, -1)
    ]
    # ``python -m rules start`` deals the same hands from the state before the deal.
    before = copy.deepcopy(turn["document"])
    watch_before = before["state"]["modules"]["watch"]
    watch_before["begun"] = 0
    for hero in watch_before["heroes"]:
        hero["hand"] = []
    before["seeds"] = seeds
    started = _cli("start", json.dumps(before))
    assert started.returncode == 0, started.stderr
    started_answer = json.loads(started.stdout)
    assert started_answer["state"]["modules"]["watch"] == start
    assert started_answer["rolls"] == deal_rolls
    # The turn replays to the stored state, with the duel as it was played.
    replayed = _cli("resolve", json.dumps(turn["document"]))
    assert replayed.returncode == 0, replayed.stderr
    answer = json.loads(replayed.stdout)
    assert answer["state"] == turn["state_after"]
    red = next(side["id"] for side in exported["sides"] if side["name"] == RED)
    assert answer["winner"] == turn["winner"] == red
    report = answer["modules"]["watch"]
    by_name = {name: hero for hero, name in names.items()}
    expected = _wounds(plays)
    assert report["killed"] == [by_name[h] for h in STEPS if expected[h] >= WOUNDS_TO_KILL]
    assert report["wounds"] == {by_name[h]: n for h, n in expected.items() if n}
    assert [step["hero"] for step in report["steps"]] == [by_name[h] for h in STEPS]
    assert next(s for s in report["steps"] if s["hero"] == by_name[late])["plays"] == []
    verified = _cli("verify-rolls", json.dumps(exported))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["failed"] == []
    _assert_hands_kept_secret(bot_service.recorder.requests, dealt, seeds["deal"])
    _assert_monday_map(bot_service.recorder.requests, bot_service.map_record, plays)
    log = bot_service.log_text()
    assert "Traceback" not in log
    assert " ERROR " not in log
