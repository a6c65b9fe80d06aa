"""watch's duel steps with deadlines through the real dispatcher (issue 19, MODULES.md W6).

Two duels side by side on the night-demo map: Larisa (Day) and Andrey (Night) in the Metro,
Anton (Night) and Zavulon (Day) in the Cafe. In ``initiative`` mode a step is submitted with
buttons, another times out when the test clock passes its deadline, and the group gets each
step's cards in order; in ``sealed`` mode the plays stay private until the last step closes,
then one post shows them all. Refusals (the wrong side, a closed step, a stale screen, a card
not in hand, a target not there) and the GM's close are checked, and over every request the
bot sent, no hand and no sealed play reaches the group or the other side before it is public.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from aiogram.types import User
from aiogram.utils.i18n import I18n

from bot.modules.siege.screens import late_screen
from bot.modules.watch import duels as duels_service
from bot.modules.watch.duel_screens import DuelPress
from bot.modules.watch.handlers.duels_gm import DuelGmPress
from bot.modules.watch.handlers.gm import WatchCardPress
from bot.runtime.clock import ManualClock
from bot.screens.callbacks import LatePress
from bot.services import campaigns, running_changes, timekeeping
from bot.services import late as late_service
from bot.services.clockwork import advance
from bot.services.late import LateRefusal, late_desk, take_back_late_order
from bot.services.schedule import CampaignScheduler
from rules.modules.watch.state import load
from storage import (
    AuditAction,
    CampaignSettings,
    DuelCloser,
    DuelPlay,
    DuelStep,
    Language,
    NewCampaign,
    NewSide,
    Phase,
    Role,
    Store,
)
from tests.bot.private_campaign import GM, GROUP, Table, alert, screen
from tests.bot.telegram import FakeTelegram, Sent
from tests.secrecy import (
    assert_log_keeps,
    hand_forms,
    logfmt,
    play_forms,
    printed_forms,
    read_the_log,
)

DAY, NIGHT = 501, 502  # the two sides' strategists
HEROES = [
    {"id": "larisa", "side": "day", "name": "Larisa", "initiative": 2, "start": "metro"},
    {"id": "andrey", "side": "night", "name": "Andrey", "initiative": 4, "start": "metro"},
    {"id": "anton", "side": "night", "name": "Anton", "initiative": 7, "start": "cafe"},
    {"id": "zavulon", "side": "day", "name": "Zavulon", "initiative": 9, "start": "cafe"},
]
PLACEMENTS = {
    "day": {"hairdresser": 4, "roof": 3, "metro": 3},
    "night": {"apartment": 4, "entrance": 3, "cafe": 3},
}
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "attack": "Attack ",
        "defence": "Defence ",
        "in_hand": "In hand:",
        "play": "Play",
        "nothing": "Play nothing",
        "metro_step": "⚔️ Duel in «Metro», turn 1: Larisa's step.",
        "next_andrey": "Next: Andrey's step.",
        "timed_out": "Nothing played: the step's deadline passed.",
        "gm_closed": "Nothing played: the GM closed the step.",
        "played": "Played:",
        "reminder": "⏰ Your step ends at",
        "revealed": "⚔️ Turn 1: the sealed duels are shown.",
        "closed": "This step is closed",
        "wrong_side": "another side",
        "stale": "This screen is out of date",
        "no_card": "has no",
        "not_there": "is not in this duel",
        "not_open": "This step is not open yet",
    },
    "ru": {
        "attack": "Атака-",
        "defence": "Защита-",
        "in_hand": "На руке:",
        "play": "Сыграть",
        "nothing": "Ничего не играть",
        "metro_step": "⚔️ Поединок в локации «Метро», ход 1: шаг Иного «Larisa».",
        "next_andrey": "Следующий шаг: Иной «Andrey».",
        "timed_out": "Ничего не сыграно: срок шага вышел.",
        "gm_closed": "Ничего не сыграно: мастер закрыл шаг.",
        "played": "Сыграно:",
        "reminder": "⏰ Срок вашего шага",
        "revealed": "⚔️ Ход 1: тайные поединки раскрыты.",
        "closed": "Этот шаг закрыт",
        "wrong_side": "другой стороны",
        "stale": "Этот экран устарел",
        "no_card": "не осталось",
        "not_there": "нет в этом поединке",
        "not_open": "Этот шаг ещё не открыт",
    },
}


def _ruleset(mode: str, heroes: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "modules": ["watch"],
        "module_settings": {
            "watch": {"heroes": heroes, "duel_mode": mode, "duel_step_hours": 6},
        },
    }


async def _watch_table(
    telegram: FakeTelegram,
    store: Store,
    clock: ManualClock,
    mode: str,
    language: Language,
    heroes: list[dict[str, Any]] | None = None,
    side_names: tuple[str, str] = ("Day", "Night"),
    title: str = "Night Watch",
) -> Table:
    """A night-demo campaign ``title`` with watch in ``mode``, deployed, in its first orders
    window; the sides ``day`` and ``night`` are called ``side_names``."""
    now = clock.now()
    await store.see_person(GM, "Game Master", None, language, True, now)
    campaign = await store.create_campaign(
        NewCampaign(
            chat_id=GROUP,
            title=title,
            created_by=GM,
            creator_name="Game Master",
            ruleset_overrides=_ruleset(mode, HEROES if heroes is None else heroes),
            map="night-demo",
        ),
        now,
    )
    users: dict[int, User] = {GM: telegram.user(GM, "Game Master", language)}
    telegram.group(GROUP, "Night Moscow")
    for new_side in (
        NewSide(id="day", name=side_names[0], colour="#e0b000"),
        NewSide(id="night", name=side_names[1], colour="#202060"),
    ):
        await store.add_side(campaign.id, new_side, GM, now)
    for user_id, name, side_id in ((DAY, "Dasha", "day"), (NIGHT, "Nikita", "night")):
        await store.see_person(user_id, name, None, language, True, now)
        await store.put_member(
            campaign.id, user_id, name, frozenset({Role.STRATEGIST}), side_id, GM, now
        )
        users[user_id] = telegram.user(user_id, name, language)
    await store.update_settings(campaign.id, CampaignSettings(language=language), GM, now)
    assert (await advance(store, campaign.id, 0, Phase.SETUP, GM, now)).advanced
    found = await store.campaign(campaign.id)
    assert found is not None
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, found, side, placement, GM, now)
    assert (await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    table = Table(found, telegram, store, clock, users)
    await telegram.deliver()
    table.take()
    return table


async def _hands(table: Table) -> dict[str, tuple[str, ...]]:
    state = await table.store.turn_start(table.campaign.id, 1)
    assert state is not None
    return {hero.id: hero.hand for hero in load(state.modules["watch"]).heroes}


def _card(words: dict[str, str], card: str) -> str:
    kind = words["attack"] if card.startswith("A") else words["defence"]
    return f"{kind}{card[1:]}"


def _screens(sent: list[Sent], user: int) -> list[Sent]:
    return [s for s in sent if s.chat_id == user and any("wd:" in d for _t, d in s.buttons())]


def _group(sent: list[Sent]) -> list[str]:
    return [s.text for s in sent if s.chat_id == GROUP]


async def _steps(table: Table) -> dict[str, DuelStep]:
    return {s.hero: s for s in await table.store.duel_steps(table.campaign.id, 1)}


async def _deliver(table: Table) -> list[Sent]:
    await table.telegram.deliver()
    return table.take()


def _assert_secret(table: Table, words: dict[str, str], hands: dict[str, tuple[str, ...]]) -> None:
    """Over every request of the test: no hand reaches the group or the GM; a side's chat sees
    only its own heroes' hands; a step's buttons reach only its own side."""
    own = {DAY: ("Larisa", "Zavulon"), NIGHT: ("Andrey", "Anton")}
    hand_lines = {
        hero: f"{words['in_hand']} {', '.join(_card(words, c) for c in cards)}."
        for hero, cards in hands.items()
    }
    shown = 0
    for sent in table.log:
        if sent.chat_id in (GROUP, GM):
            assert words["in_hand"] not in sent.text, sent.text
        if sent.chat_id in own and words["in_hand"] in sent.text:
            shown += 1
            title = sent.text.splitlines()[0]
            assert any(hero in title for hero in own[sent.chat_id]), sent.text
            others = [h for h in hands if h.capitalize() not in own[sent.chat_id]]
            for hero in others:
                assert hand_lines[hero] not in sent.text or hand_lines[hero] in (
                    hand_lines[h.lower()] for h in own[sent.chat_id]
                ), sent.text
        for _text, data in sent.buttons():
            if data.startswith("wd:"):
                assert sent.chat_id in own, data
    assert shown >= 2


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_initiative_steps_submitted_timed_out_and_posted_in_order(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: Language
) -> None:
    words = WORDS[language]
    table = await _watch_table(telegram, store, clock, "initiative", language)
    hands = await _hands(table)
    campaign_id = table.campaign.id
    opened_at = clock.now()
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, opened_at)).advanced
    listed = await _deliver(table)

    # Both duels open their first step: Larisa's (Day) in the Metro, Anton's (Night) in the Cafe.
    steps = await _steps(table)
    assert steps["larisa"].deadline == opened_at + timedelta(hours=6)
    assert [s.state.value for s in steps.values()] == ["open", "pending", "open", "pending"]
    [day_screen] = _screens(listed, DAY)
    [night_screen] = _screens(listed, NIGHT)
    assert "Larisa" in day_screen.text.splitlines()[0]
    assert "Anton" in night_screen.text.splitlines()[0]
    assert ", ".join(_card(words, c) for c in hands["larisa"]) in day_screen.text

    # The wrong side and a card not in hand are refused; a target not in the duel too.
    wrong = await table.forged(NIGHT, DuelPress(s=steps["larisa"].id, v=0, a="p").pack())
    assert words["wrong_side"] in alert(wrong)
    missing = next(c for c in ("A9", "D9") if c not in hands["larisa"])
    forged = DuelPress(s=steps["larisa"].id, v=0, a="t", k=missing, h="andrey").pack()
    assert words["no_card"] in alert(await table.forged(DAY, forged))
    card = hands["larisa"][0]
    far = DuelPress(s=steps["larisa"].id, v=0, a="t", k=card, h="anton").pack()
    assert words["not_there"] in alert(await table.forged(DAY, far))
    waiting = DuelPress(s=steps["andrey"].id, v=0, a="n").pack()
    assert words["not_open"] in alert(await table.forged(NIGHT, waiting))

    # An hour on, Day lays a card on Andrey and plays it: the group sees the cards, Night's
    # Andrey is next, with six hours from now.
    clock.set(opened_at + timedelta(hours=1))
    chosen = screen(await table.tap(DAY, day_screen, _card(words, card)))
    laid = screen(await table.tap(DAY, chosen, "Andrey"))
    assert "Andrey" in laid.text
    played = await table.tap(DAY, laid, f"✅ {words['play']}")
    assert alert(played)
    posted = await _deliver(table)
    [metro_post] = _group(posted)
    assert metro_post.startswith(words["metro_step"])
    assert _card(words, card) in metro_post
    assert words["next_andrey"] in metro_post
    [andrey_screen] = _screens(posted, NIGHT)
    assert "Andrey" in andrey_screen.text.splitlines()[0]

    # The old screen's buttons are stale now: the step is closed.
    assert words["closed"] in alert(await table.tap(DAY, day_screen, words["nothing"]))

    # Five hours on: Anton's side is reminded; at six his step times out, Zavulon's opens.
    scheduler = CampaignScheduler(store, clock)
    clock.set(opened_at + timedelta(hours=5, minutes=1))
    await scheduler.run_due()
    reminded = await _deliver(table)
    assert any(
        words["reminder"] in s.text and "Anton" in s.text for s in reminded if s.chat_id == NIGHT
    )
    clock.set(opened_at + timedelta(hours=6))
    await scheduler.run_due()
    timed = await _deliver(table)
    anton_post = next(t for t in _group(timed) if "Anton" in t.splitlines()[0])
    assert words["timed_out"] in anton_post
    [zavulon_screen] = _screens(timed, DAY)
    # A restarted bot (a new scheduler, every job rebuilt from the database) and a second
    # process running the same moment do nothing twice.
    await CampaignScheduler(store, clock).rebuild()
    await CampaignScheduler(store, clock).run_due()
    assert await _deliver(table) == []
    assert "Zavulon" in zavulon_screen.text.splitlines()[0]
    steps = await _steps(table)
    assert steps["anton"].closed_by is DuelCloser.TIMEOUT
    assert steps["zavulon"].deadline == clock.now() + timedelta(hours=6)

    # Night plays nothing for Andrey; the GM closes Zavulon's step from the panel.
    assert alert(await table.tap(NIGHT, andrey_screen, words["nothing"]))
    assert (await _steps(table))["andrey"].closed_by is DuelCloser.SUBMIT
    closing = DuelGmPress(c=campaign_id, t=1, p="battles", s=steps["zavulon"].id).pack()
    refused = await table.forged(DAY, closing)
    assert alert(refused)
    assert (await _steps(table))["zavulon"].closed_by is None
    assert alert(await table.forged(GM, closing))
    closed = await _deliver(table)
    assert any(words["gm_closed"] in t for t in _group(closed))
    log = await store.audit_log(campaign_id)
    assert AuditAction.DUEL_STEP_CLOSED in {entry.action for entry in log}

    # The group's posts came in the order the steps closed.
    order = [
        next(h for h in ("Larisa", "Andrey", "Anton", "Zavulon") if h in text.splitlines()[0])
        for text in _group(table.log)
        if text.startswith("⚔️")
    ]
    assert order == ["Larisa", "Anton", "Andrey", "Zavulon"]

    # The plays are the sides' late orders for the resolution.
    late = await store.late_orders(campaign_id, 1)
    day_steps = [o.data for o in late["day"].orders]
    assert {
        "order": "duel_step",
        "hero": "larisa",
        "plays": [{"card": card, "target": "andrey"}],
    } in day_steps
    assert {"order": "duel_step", "hero": "andrey", "plays": []} in [
        o.data for o in late["night"].orders
    ]

    # The resolution uses them: Larisa's card is in the turn's report, gone from her hand.
    assert (await advance(store, campaign_id, 1, Phase.BATTLES, GM, clock.now())).advanced
    [resolved] = await store.resolutions(campaign_id, 1)
    report = resolved.report.modules["watch"]
    assert isinstance(report, dict)
    steps_played = report["steps"]
    assert isinstance(steps_played, list)
    larisa_step = next(s for s in steps_played if isinstance(s, dict) and s["hero"] == "larisa")
    assert isinstance(larisa_step, dict)
    larisa_plays = larisa_step["plays"]
    assert isinstance(larisa_plays, list)
    assert [p["card"] for p in larisa_plays if isinstance(p, dict)] == [card]
    after = load(resolved.state_after.modules["watch"])
    larisa_after = next(h for h in after.heroes if h.id == "larisa")
    assert list(larisa_after.hand) == list(hands["larisa"][1:])
    table.take()
    _assert_secret(table, words, hands)


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_sealed_steps_stay_private_until_all_are_revealed_together(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: Language
) -> None:
    words = WORDS[language]
    table = await _watch_table(telegram, store, clock, "sealed", language)
    hands = await _hands(table)
    campaign_id = table.campaign.id
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, clock.now())).advanced
    listed = await _deliver(table)
    steps = await _steps(table)
    assert {s.state.value for s in steps.values()} == {"open"}
    assert len({s.deadline for s in steps.values()}) == 1
    day = {s.text.splitlines()[0]: s for s in _screens(listed, DAY)}
    night = {s.text.splitlines()[0]: s for s in _screens(listed, NIGHT)}
    assert len(day) == 2
    assert len(night) == 2

    async def play(user: int, under: Sent, card: str, target: str) -> None:
        chosen = screen(await table.tap(user, under, _card(words, card)))
        laid = screen(await table.tap(user, chosen, target))
        assert alert(await table.tap(user, laid, f"✅ {words['play']}"))

    larisa = next(s for title, s in day.items() if "Larisa" in title)
    zavulon = next(s for title, s in day.items() if "Zavulon" in title)
    andrey = next(s for title, s in night.items() if "Andrey" in title)
    anton = next(s for title, s in night.items() if "Anton" in title)
    await play(DAY, larisa, hands["larisa"][0], "Andrey")
    await play(NIGHT, anton, hands["anton"][0], "Zavulon")
    assert alert(await table.tap(DAY, zavulon, words["nothing"]))
    before = await _deliver(table)
    assert _group(before) == []  # three of four closed: nothing is public yet
    for sent in table.log:
        if sent.chat_id == GROUP or (sent.chat_id == NIGHT and words["played"] in sent.text):
            assert _card(words, hands["larisa"][0]) + " → Andrey" not in sent.text
    await play(NIGHT, andrey, hands["andrey"][0], "Larisa")
    [reveal] = _group(await _deliver(table))
    assert reveal.startswith(words["revealed"])
    assert f"{_card(words, hands['larisa'][0])} → Andrey" in reveal
    assert f"{_card(words, hands['anton'][0])} → Zavulon" in reveal
    assert f"{_card(words, hands['andrey'][0])} → Larisa" in reveal
    table.take()
    _assert_secret(table, words, hands)


async def _play_first_step(table: Table, words: dict[str, str]) -> tuple[Sent, str]:
    """Orders window -> battles; Day plays Larisa's first card on Andrey. Returns Day's first
    screen and the card."""
    hands = await _hands(table)
    assert (
        await advance(table.store, table.campaign.id, 1, Phase.ORDERS, GM, table.clock.now())
    ).advanced
    listed = await _deliver(table)
    [day_screen] = _screens(listed, DAY)
    card = hands["larisa"][0]
    chosen = screen(await table.tap(DAY, day_screen, _card(words, card)))
    laid = screen(await table.tap(DAY, chosen, "Andrey"))
    assert alert(await table.tap(DAY, laid, f"✅ {words['play']}"))
    return day_screen, card


async def test_a_played_duel_step_cannot_be_taken_back_as_a_late_order(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    words = WORDS["en"]
    table = await _watch_table(telegram, store, clock, "initiative", "en")
    await _play_first_step(table, words)
    campaign_id = table.campaign.id
    before = await store.late_orders(campaign_id, 1)
    [played] = before["day"].orders
    assert played.data["order"] == "duel_step"

    # The late screen lists no duel step and offers no «✖» for it.
    desk = await late_desk(store, campaign_id, "day", 1)
    assert desk is not None
    with i18n.context(), i18n.use_locale("en"):
        text, keyboard = late_screen(desk, {"day": "Day", "night": "Night"}, "en")
    assert "✖" not in str(keyboard.inline_keyboard)
    assert "larisa" not in text.lower()

    # A forged «✖» press and the service itself refuse; the late order stays.
    forged = await table.forged(DAY, LatePress(c=campaign_id, t=1, a="x", k=0).pack())
    assert "not valid" in alert(forged)
    taken = await take_back_late_order(store, campaign_id, "day", 0, played, DAY, clock.now(), 1)
    assert taken.refusal is LateRefusal.FINAL
    assert not taken.changed
    assert (await store.late_orders(campaign_id, 1))["day"].orders == (played,)


async def test_a_step_screen_queued_to_a_strategist_who_changed_sides_is_dropped(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    words = WORDS["en"]
    table = await _watch_table(telegram, store, clock, "initiative", "en")
    hands = await _hands(table)
    campaign_id = table.campaign.id
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, clock.now())).advanced
    # Before the queued screens go out, Dasha (Day) moves to Night.
    await store.put_member(
        campaign_id, DAY, "Dasha", frozenset({Role.STRATEGIST}), "night", GM, clock.now()
    )
    sent = await _deliver(table)
    assert _screens(sent, DAY) == []
    larisa = ", ".join(_card(words, c) for c in hands["larisa"])
    assert all(larisa not in s.text for s in sent if s.chat_id == DAY)
    assert [s.text.splitlines()[0] for s in _screens(sent, NIGHT)] == [
        "⚔️ Duel in «Cafe», turn 1: Anton's step.",
    ]

    # Back on Day, she is reminded of Larisa's step; leaving before it is sent, she is not.
    await store.put_member(
        campaign_id, DAY, "Dasha", frozenset({Role.STRATEGIST}), "day", GM, clock.now()
    )
    clock.set(clock.now() + timedelta(hours=5, minutes=1))
    await CampaignScheduler(store, clock).run_due()
    queued = [m for m in await store.outbox_messages(campaign_id) if m.chat_id == DAY]
    assert queued[-1].kind == "duel_reminder"
    await store.remove_member(campaign_id, DAY, GM, clock.now())
    reminded = await _deliver(table)
    assert all(s.chat_id != DAY for s in reminded)


async def test_sealed_steps_are_revealed_when_the_last_closes_at_the_resolution(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    words = WORDS["en"]
    table = await _watch_table(telegram, store, clock, "sealed", "en")
    hands = await _hands(table)
    campaign_id = table.campaign.id
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, clock.now())).advanced
    listed = await _deliver(table)
    larisa = next(s for s in _screens(listed, DAY) if "Larisa" in s.text.splitlines()[0])
    chosen = screen(await table.tap(DAY, larisa, _card(words, hands["larisa"][0])))
    laid = screen(await table.tap(DAY, chosen, "Andrey"))
    assert alert(await table.tap(DAY, laid, f"✅ {words['play']}"))
    assert _group(await _deliver(table)) == []

    # The GM resolves with three steps still open: they close with nothing played, and the
    # reveal (queued while the turn was 1, sent when it is 2) shows all four.
    assert (await advance(store, campaign_id, 1, Phase.BATTLES, GM, clock.now())).advanced
    assert (await table.now_campaign()).turn == 2
    [reveal] = [t for t in _group(await _deliver(table)) if t.startswith(words["revealed"])]
    assert f"{_card(words, hands['larisa'][0])} → Andrey" in reveal
    assert reveal.count("Nothing played: the results deadline came first.") == 3


async def test_a_waiting_step_closed_by_the_gm_keeps_the_initiative_order(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    words = WORDS["en"]
    olga = {"id": "olga", "side": "night", "name": "Olga", "initiative": 3, "start": "metro"}
    table = await _watch_table(telegram, store, clock, "initiative", "en", [*HEROES, olga])
    campaign_id = table.campaign.id
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, clock.now())).advanced
    listed = await _deliver(table)
    steps = await _steps(table)
    assert [steps[h].state.value for h in ("larisa", "olga", "andrey")] == [
        "open",
        "pending",
        "pending",
    ]

    # The GM closes Olga's waiting step: nothing opens, Larisa's is still the one played.
    closing = DuelGmPress(c=campaign_id, t=1, p="battles", s=steps["olga"].id).pack()
    assert alert(await table.forged(GM, closing))
    steps = await _steps(table)
    assert [steps[h].state.value for h in ("larisa", "olga", "andrey")] == [
        "open",
        "closed",
        "pending",
    ]
    closed = await _deliver(table)
    assert _screens(closed, NIGHT) == []
    [olga_post] = [t for t in _group(closed) if "Olga" in t.splitlines()[0]]
    assert words["gm_closed"] in olga_post
    assert "Next" not in olga_post

    # Larisa's step closes: the chain skips Olga's and opens Andrey's.
    [day_screen] = _screens(listed, DAY)
    assert alert(await table.tap(DAY, day_screen, words["nothing"]))
    steps = await _steps(table)
    assert steps["andrey"].state.value == "open"
    moved = await _deliver(table)
    [larisa_post] = [t for t in _group(moved) if "Larisa" in t.splitlines()[0]]
    assert words["next_andrey"] in larisa_post
    [andrey_screen] = _screens(moved, NIGHT)
    assert "Andrey" in andrey_screen.text.splitlines()[0]


async def test_a_pause_and_an_extension_move_the_step_deadlines(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock, "initiative", "en")
    campaign_id = table.campaign.id
    opened_at = clock.now()
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, opened_at)).advanced
    await _deliver(table)
    assert (await _steps(table))["larisa"].deadline == opened_at + timedelta(hours=6)

    # Paused for two hours: Larisa's step (and Anton's) end two hours later; the scheduler
    # does not close them at the old deadline.
    clock.set(opened_at + timedelta(hours=1))
    assert (await timekeeping.pause(store, campaign_id, GM, clock.now())).applied
    clock.set(opened_at + timedelta(hours=3))
    assert (await timekeeping.resume(store, campaign_id, GM, clock.now())).applied
    steps = await _steps(table)
    assert steps["larisa"].deadline == opened_at + timedelta(hours=8)
    assert steps["anton"].deadline == opened_at + timedelta(hours=8)
    assert steps["andrey"].deadline is None
    clock.set(opened_at + timedelta(hours=7))
    await CampaignScheduler(store, clock).run_due()
    assert (await _steps(table))["larisa"].state.value == "open"

    # The GM extends the results deadline: the open steps move as much, never past it.
    results = await store.clock_state(campaign_id)
    assert results is not None
    assert results.deadline is not None
    extended = await timekeeping.extend(store, campaign_id, 2, GM, clock.now())
    assert extended.clock is not None
    assert extended.clock.deadline == results.deadline + timedelta(hours=2)
    steps = await _steps(table)
    assert steps["larisa"].deadline == min(opened_at + timedelta(hours=10), extended.clock.deadline)
    assert steps["anton"].deadline == steps["larisa"].deadline


async def test_cards_are_not_played_when_the_side_gives_no_late_orders(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await _watch_table(telegram, store, clock, "initiative", "en")
    hands = await _hands(table)
    words = WORDS["en"]
    assert (await advance(store, table.campaign.id, 1, Phase.ORDERS, GM, clock.now())).advanced
    [day_screen] = _screens(await _deliver(table), DAY)
    first, second = hands["larisa"][0], hands["larisa"][1]
    chosen = screen(await table.tap(DAY, day_screen, _card(words, first)))
    laid = screen(await table.tap(DAY, chosen, "Andrey"))

    # The side has no late orders any more (as when it has no army left): late_desk finds
    # nothing. Neither another card nor the laid one is taken, and the step stays open.
    async def no_desk(*_args: object) -> None:
        return None

    monkeypatch.setattr(duels_service, "late_desk", no_desk)
    monkeypatch.setattr(late_service, "late_desk", no_desk)
    again = screen(await table.tap(DAY, laid, _card(words, second)))
    refused = await table.tap(DAY, again, "Andrey")
    assert "No spell can be played" in alert(refused)
    played = await table.tap(DAY, laid, f"✅ {words['play']}")
    assert "No spell can be played" in alert(played)
    larisa = (await _steps(table))["larisa"]
    assert larisa.state.value == "open"
    assert [play.card for play in larisa.plays] == [first]
    assert _group(await _deliver(table)) == []
    # «Play nothing» still ends the step.
    assert alert(await table.tap(DAY, laid, words["nothing"]))
    assert (await _steps(table))["larisa"].closed_by is DuelCloser.SUBMIT


async def test_status_and_hand_show_the_turn_as_the_public_list_has_it(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    words = WORDS["en"]
    olga = {"id": "olga", "side": "night", "name": "Olga", "initiative": 3, "start": "hairdresser"}
    table = await _watch_table(telegram, store, clock, "initiative", "en", [*HEROES, olga])
    hands = await _hands(table)
    group = telegram.group(GROUP, "Night Moscow")

    async def status() -> str:
        table.take()
        await telegram.feed(telegram.message(table.user(GM), group, "/status"))
        [answer] = [s.text for s in table.take() if s.chat_id == GROUP]
        return next(line for line in answer.splitlines() if "Olga" in line)

    assert "Saved" in "\n".join(s.text for s in await table.say(NIGHT, "hero Olga metro"))
    assert "Hairdresser" in await status()
    assert (await advance(store, table.campaign.id, 1, Phase.ORDERS, GM, clock.now())).advanced
    [day_screen] = _screens(await _deliver(table), DAY)
    # The list is public: Olga stands in the Metro now (her move is on the list).
    olga_now = await status()
    assert "Metro" in olga_now
    assert "Hairdresser" not in olga_now

    # Larisa plays her first spell: /hand lists it as played, not in hand any more.
    card = hands["larisa"][0]
    chosen = screen(await table.tap(DAY, day_screen, _card(words, card)))
    laid = screen(await table.tap(DAY, chosen, "Andrey"))
    assert alert(await table.tap(DAY, laid, f"✅ {words['play']}"))
    [hand] = [s.text for s in await table.say(DAY, "/hand")]
    larisa = hand[hand.index("Larisa") :].split("\n🧙")[0]

    def spell(card: str) -> str:
        return f"{'attack' if card.startswith('A') else 'defence'} {card[1:]}"

    left = ", ".join(spell(c) for c in hands["larisa"][1:])
    assert f"hand: {left}" in larisa
    assert f"played this turn: {spell(card)}" in larisa


async def test_the_gm_list_in_sealed_mode_promises_no_post_before_the_reveal(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock, "sealed", "ru")
    assert (await advance(store, table.campaign.id, 1, Phase.ORDERS, GM, clock.now())).advanced
    listed = await _deliver(table)
    [larisa] = [s for s in _screens(listed, DAY) if "Larisa" in s.text.splitlines()[0]]
    assert "Иные здесь: " in larisa.text
    assert "Выберите заклинание, затем Иного" in larisa.text
    assert "геро" not in larisa.text.lower()
    panel = DuelGmPress(c=table.campaign.id, t=1, p="battles").pack()
    [shown] = [s for s in await table.forged(GM, panel) if "Незакрытые шаги" in s.text]
    assert "тайные поединки раскроют" in shown.text
    assert "вместе с заклинаниями шага" not in shown.text


async def test_a_results_deadline_the_gm_sets_moves_or_caps_the_step_deadlines(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock, "initiative", "en")
    campaign_id = table.campaign.id
    opened_at = clock.now()
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, opened_at)).advanced
    await _deliver(table)
    results = await duels_service.results_deadline(store, await table.now_campaign(), opened_at)
    assert results is not None

    async def set_results(moment: datetime) -> None:
        preview = await running_changes.preview_deadline(store, campaign_id, moment, clock.now())
        assert preview.refusal is None
        done = await running_changes.set_deadline(
            store, campaign_id, moment, preview.mark, GM, "Game Master", clock.now()
        )
        assert done.refusal is None

    # A day later: the open steps end a day later too (within the new results deadline).
    later = results + timedelta(days=1)
    await set_results(later)
    steps = await _steps(table)
    assert steps["larisa"].deadline == min(opened_at + timedelta(hours=30), later)
    # Two hours after the list: the steps end then, not after the results deadline.
    soon = opened_at + timedelta(hours=2)
    await set_results(soon)
    steps = await _steps(table)
    assert steps["larisa"].deadline == soon
    assert steps["anton"].deadline == soon


async def _play_first(table: Table, hero: str, side: str, user: int, target: str) -> str:
    """``hero``'s step plays its first spell on ``target``; the spell."""
    card = (await _hands(table))[hero][0]
    step = (await _steps(table))[hero]
    drafted = await duels_service.draft_play(
        table.store, step.id, side, step.edits, DuelPlay(card=card, target=target)
    )
    assert drafted.step is not None
    closed = await duels_service.submit_step(
        table.store, step.id, side, drafted.step.edits, True, user, table.clock.now()
    )
    assert closed.refusal is None
    return card


async def test_a_tokens_button_lowers_its_own_spell_after_the_list_changed(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Anton (initiative 7) plays first, the GM opens his spell's tokens; then Larisa
    (initiative 2) plays and comes first in the list. The old button still lowers Anton's
    spell; a button for a spell no longer laid is refused."""
    table = await _watch_table(telegram, store, clock, "initiative", "en")
    campaign_id = table.campaign.id
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, clock.now())).advanced
    await _deliver(table)
    await _play_first(table, "anton", "night", NIGHT, "zavulon")
    panel = DuelGmPress(c=campaign_id, t=1, p="battles").pack()
    await table.forged(GM, panel)
    tools = screen(await table.say(GM, "/gm"))
    cards = screen(await table.tap(GM, tools, "Lower a played spell"))
    amounts = screen(await table.tap(GM, cards, "Anton"))
    await _play_first(table, "larisa", "day", DAY, "andrey")
    assert alert(await table.tap(GM, amounts, "−1")).startswith("Done:")
    state = await store.turn_start(campaign_id, 1)
    assert state is not None
    (modifier,) = load(state.modules["watch"]).modifiers
    assert (modifier.hero, modifier.play) == ("anton", 0)
    gone = WatchCardPress(c=campaign_id, t=1, h="anton", i=1, n=1).pack()
    assert alert(await table.forged(GM, gone)) == "That button is not valid any more."
    longest = WatchCardPress(c=2**53, t=9999, h="h" * 32, i=-1, n=-1).pack()
    assert len(longest.encode()) <= 64


class _StepsFailedError(Exception):
    """A storage failure while the duel steps move."""


async def test_a_resume_or_a_new_deadline_and_its_step_moves_are_stored_together(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The steps move in the clock change's own transaction: when moving them fails, the
    campaign stays paused and its deadline stays as it was."""
    table = await _watch_table(telegram, store, clock, "initiative", "en")
    campaign_id = table.campaign.id
    opened_at = clock.now()
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, opened_at)).advanced
    await _deliver(table)
    assert (await timekeeping.pause(store, campaign_id, GM, clock.now())).applied
    clock.set(opened_at + timedelta(hours=2))

    async def failing(*_args: object, **_kwargs: object) -> None:
        raise _StepsFailedError

    monkeypatch.setattr(store, "reschedule_duel_step", failing)
    with pytest.raises(_StepsFailedError):
        await timekeeping.resume(store, campaign_id, GM, clock.now())
    paused = await store.clock_state(campaign_id)
    assert paused is not None
    assert paused.paused_at is not None
    monkeypatch.undo()
    assert (await timekeeping.resume(store, campaign_id, GM, clock.now())).applied
    before = await store.clock_state(campaign_id)
    assert before is not None
    assert before.deadline is not None
    later = before.deadline + timedelta(days=1)
    preview = await running_changes.preview_deadline(store, campaign_id, later, clock.now())
    monkeypatch.setattr(store, "reschedule_duel_step", failing)
    with pytest.raises(_StepsFailedError):
        await running_changes.set_deadline(
            store, campaign_id, later, preview.mark, GM, "Game Master", clock.now()
        )
    after = await store.clock_state(campaign_id)
    assert after is not None
    assert after.deadline == before.deadline


CARD_WORD = re.compile(r"\b(?:Attack|Defence) \d|(?:Атака|Защита)-\d")
TYPED = {
    "en": {DAY: "hairdresser -> metro 2", NIGHT: "apartment -> entrance 2"},
    "ru": {
        DAY: "перевести 2 из парикмахерская в метро",
        NIGHT: "перевести 2 из квартира егора в подъезд",
    },
}


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_no_hand_spell_or_order_reaches_the_log_the_group_or_the_other_side(
    telegram: FakeTelegram,
    store: Store,
    clock: ManualClock,
    language: Language,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every secret of both sides, each shown in its own side's chat (so the scan is not
    vacuous): the hands (/hand), the core orders as typed and as echoed, the sealed spells as
    laid. While secret, none reaches the group or the other side; none ever reaches the log
    (``bench/secrecy_mutants.py`` checks that a leak of each makes this test fail)."""
    read_the_log(caplog)
    words = WORDS[language]
    table = await _watch_table(telegram, store, clock, "sealed", language)
    hands = await _hands(table)
    campaign_id = table.campaign.id
    own = {DAY: ("larisa", "zavulon"), NIGHT: ("andrey", "anton")}
    other = {DAY: NIGHT, NIGHT: DAY}

    def chat(user: int, sent: list[Sent]) -> str:
        return "\n".join(s.text for s in sent if s.chat_id == user)

    # The hands, each in its own side's chat.
    hand_lines: dict[int, list[str]] = {}
    for user, heroes in own.items():
        shown = chat(user, await table.say(user, "/hand"))
        hand_lines[user] = [
            line
            for line in shown.splitlines()
            if any(_card(words, c).lower() in line.lower() for hero in heroes for c in hands[hero])
        ]
        assert len(hand_lines[user]) == 2, shown

    # The core orders, typed in private and echoed there.
    echoed: dict[int, list[str]] = {}
    for user, typed in TYPED[language].items():
        reply = chat(user, await table.say(user, typed))
        echoed[user] = [line[1:].strip() for line in reply.splitlines() if line.startswith("✓")]
        assert len(echoed[user]) == 1, reply
    orders = {side: (await store.orders(campaign_id, 1, side)) for side in ("day", "night")}
    assert all(given is not None and given.orders.moves for given in orders.values())
    clock.advance(timedelta(minutes=10))  # the "orders changed" notices' window ends
    await _deliver(table)
    for sent in table.log:
        for user in (DAY, NIGHT):
            if sent.chat_id in (GROUP, other[user]):
                for secret in [*hand_lines[user], *echoed[user], TYPED[language][user]]:
                    assert secret not in sent.text, (secret, sent.text)

    # The sealed spells, laid in private; nothing names a spell in the group until the reveal.
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, clock.now())).advanced
    listed = await _deliver(table)
    titled = {s.text.splitlines()[0]: s for user in own for s in _screens(listed, user)}
    plays = []
    for hero, target, user in (
        ("larisa", "Andrey", DAY),
        ("zavulon", "Anton", DAY),
        ("andrey", "Larisa", NIGHT),
        ("anton", "Zavulon", NIGHT),
    ):
        under = next(s for title, s in titled.items() if hero.capitalize() in title)
        card = hands[hero][0]
        chosen = screen(await table.tap(user, under, _card(words, card)))
        laid = screen(await table.tap(user, chosen, target))
        assert f"{_card(words, card)} → {target}" in laid.text  # the play, in its side's chat
        plays.append(DuelPlay(card=card, target=target.lower()))
        if hero == "anton":
            break  # the last step stays unplayed until the checks below
        assert alert(await table.tap(user, laid, f"✅ {words['play']}"))
        for sent in await _deliver(table):
            if sent.chat_id == GROUP:
                assert not CARD_WORD.search(sent.text), sent.text
            if sent.chat_id == other[user]:
                assert f"{_card(words, card)} → {target}" not in sent.text, sent.text
    assert all(not CARD_WORD.search(s.text) for s in table.log if s.chat_id == GROUP)
    assert alert(await table.tap(NIGHT, laid, f"✅ {words['play']}"))
    [reveal] = _group(await _deliver(table))
    assert reveal.startswith(words["revealed"])

    # The log, over the whole test: no hand, order or spell in any form.
    secrets = {line for lines in [*hand_lines.values(), *echoed.values()] for line in lines}
    secrets |= set(TYPED[language].values()) | play_forms(plays)
    for hand in hands.values():
        secrets |= hand_forms(hand)
    for given in orders.values():
        assert given is not None
        secrets |= printed_forms([*given.orders.moves, *given.orders.attacks])
    assert_log_keeps(logfmt(caplog.records), secrets)
