"""Every post of a campaign's week in Russian, as a Russian speaker would write it, for side
names of each gender and number: «Империум», «Орда», «Красные», «Эльдар». No template agrees a
word with a side's name, and numbers meet nouns in their plural forms. The texts are compared
with ``tests/bot/expected/week_ru_*.txt`` (the week) and ``other_*_*.txt`` (joining, disputes,
the GM's corrections, undo, extension and pause, the calendar, the history and the campaign's
end, in Russian and in English), read and written by a Russian speaker; the modules' weeks are
``test_module_russian_posts.py``'s. ``UPDATE_EXPECTED=1`` rewrites a changed file (and fails)."""

from __future__ import annotations

import json
import os
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from aiogram import Bot
from aiogram.methods import SendDocument, SendMessage, SendPhoto
from aiogram.utils.i18n import I18n
from pydantic import JsonValue

from bot.posts import Post, PostContext, render
from bot.runtime.clock import ManualClock
from bot.services.calendars import calendar_post
from bot.services.campaigns import (
    JoinDecision,
    JoinOutcome,
    ask_to_join,
    decide_join,
    end_campaign,
)
from bot.services.clockwork import advance
from bot.services.orders import answer_result, decide_result, report_result, seat_in
from bot.services.outbox_sender import Limits, OutboxSender
from bot.services.posting import group_post
from bot.services.timekeeping import extend, pause, resume
from bot.services.turns import correct_result, undo_last_step
from bot.texts.core import armies, describe_battle, describe_order_line, describe_report
from rules import BattleResult, Move, Outcome, resolve_turn
from rules.cli import load_turn_document
from storage import (
    CampaignSettings,
    CorrectionOutcome,
    ExtendOutcome,
    Language,
    NewOutboxMessage,
    NewSide,
    OutboxMessage,
    OutboxState,
    Phase,
    Role,
    Store,
)
from tests.bot.telegram import FakeSession
from tests.services.week import start_week
from tests.storage import campaign_script
from tests.storage.campaign_script import CO_GM, GM, PLAYERS

EXPECTED = Path(__file__).parent / "expected"
FAST = Limits(per_second=1000, group_per_minute=100000, private_per_second=1000)
CHAT = -1001
NAMES = {
    "imperium": ("Империум", "Орда", "Красные"),
    "eldar": ("Эльдар", "Красные", "Орда"),
}


def compare_expected(name: str, text: str) -> None:
    """``text`` is the file ``name`` of ``tests/bot/expected``; with ``UPDATE_EXPECTED=1`` the
    file is rewritten and the test fails on purpose (read ``git diff`` before committing)."""
    path = EXPECTED / name
    if os.environ.get("UPDATE_EXPECTED"):
        path.write_text(text, encoding="utf-8")
        pytest.fail(f"{path} written: read it before committing it")
    assert text == path.read_text(encoding="utf-8")


def _who(chat_id: int) -> str:
    if chat_id == CHAT:
        return "группа"
    if chat_id in (GM, CO_GM):
        return "мастер" if chat_id == GM else "помощник мастера"
    side, roles = next((s, r) for u, s, r in PLAYERS if u == chat_id)
    return f"{side} ({', '.join(sorted(role.value for role in roles))})"


async def week_in_russian(store: Store, i18n: I18n, names: tuple[str, str, str]) -> str:
    """A week (deployment, orders, the battle list, results, the resolution) and the clock's
    notices, every post as sent, in Russian."""
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(store, clock, "Europe/Moscow", date(2026, 2, 2))
    for user in (GM, CO_GM, *(user for user, _, _ in PLAYERS)):
        await store.set_language(user, "ru", clock.now())
    settings = CampaignSettings.model_validate({"language": "ru"})
    await store.update_settings(week.campaign.id, settings, GM, clock.now())
    session = FakeSession({})
    sender = OutboxSender(Bot("42:TEST", session=session), store, clock, i18n, limits=FAST)
    clock.set(week.at(0, 11))
    await week.deploy()
    await week.run_until(week.at(0, 11))
    await week.run_until(week.at(1, 10))
    await week.give_orders(sides=("red",))
    await week.run_until(week.at(3, 23))
    await week.run_until(week.at(4, 12))
    await week.run_until(week.at(5, 10))
    await week.report_results()
    await week.run_until(week.at(7, 13))
    campaign = await week.current()
    extra: dict[str, dict[str, JsonValue]] = {
        "clock_paused": {},
        "gm_advanced": {"turn": campaign.turn, "phase": campaign.phase.value},
        "blocked_alarm": {"reason": "sides_not_deployed", "sides": ["blue", "green"]},
    }
    for kind, payload in extra.items():
        await store.enqueue(
            NewOutboxMessage(
                campaign_id=campaign.id,
                chat_id=CHAT if kind != "blocked_alarm" else GM,
                kind=kind,
                payload={"campaign_id": campaign.id, **payload},
                dedup_key=f"extra-{kind}",
            ),
            clock.now(),
        )
    await sender.send_due()
    messages = await store.outbox_messages(campaign.id)
    assert {m.state for m in messages} == {OutboxState.SENT}, [
        (m.kind, m.last_error) for m in messages if m.state is not OutboxState.SENT
    ]
    blocks = []
    for sent in session.sent:
        if isinstance(sent.method, SendMessage | SendPhoto | SendDocument) and sent.text:
            blocks.append(f"== {_who(sent.chat_id or 0)}\n{sent.text}")
    # The sender interleaves chats as their limits allow: each chat's posts, chat by chat.
    return "\n\n".join(sorted(blocks, key=lambda block: block.split("\n", 1)[0])) + "\n"


@pytest.mark.parametrize("case", sorted(NAMES))
async def test_a_weeks_posts_read_as_written_in_russian(
    store: Store, i18n: I18n, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    red, blue, green = NAMES[case]
    monkeypatch.setattr(
        campaign_script,
        "SIDES",
        (
            NewSide(id="red", name=red, colour="#cc0000"),
            NewSide(id="blue", name=blue, colour="#0044cc"),
            NewSide(id="green", name=green, colour="#00aa33"),
        ),
    )
    text = await week_in_russian(store, i18n, NAMES[case])
    compare_expected(f"week_ru_{case}.txt", text)


TURN = {
    "map": "planet-5",
    "ruleset": {},
    "state": {
        "turn": 3,
        "armies": {
            "red": {"1": 3, "2": 3, "4": 3},
            "blue": {"1": 1, "3": 3},
            "green": {"2": 1},
            "eldar": {"5": 3, "3": 2},
        },
    },
    "orders": {
        "red": {"attacks": [{"sector": "2", "target": "green"}], "reinforce": "4"},
        "blue": {"attacks": [{"sector": "1", "target": "red"}]},
        "eldar": {
            "moves": [{"from": "5", "to": "3", "count": 2}],
            "attacks": [{"sector": "3", "target": "blue"}],
        },
    },
    "results": [
        {"battle": 1, "outcome": "slaughter", "winner": "red"},
        {"battle": 2, "outcome": "crushing", "winner": "red"},
        {"battle": 3, "outcome": "draw"},
    ],
}
FOUR = {"red": "Империум", "blue": "Орда", "green": "Красные", "eldar": "Эльдар"}
REPORT = """\
Итоги хода 3 подведены.
Бой 1, сектор 1 «Экватор»: разгром в пользу стороны «Империум»
Бой 2, сектор 2 «Запад»: сокрушительная победа в пользу стороны «Империум»
Бой 3, сектор 3 «Восток»: ничья
Сторона «Орда»: −1 армия, сектор 1 «Экватор»
Сторона «Красные»: −1 армия, сектор 2 «Запад»
Сторона «Эльдар»: перемещение из сектора 5 «Южный полюс» в сектор 3 «Восток», 2 армии
Сторона «Империум» удерживает: 1 «Экватор», 2 «Запад», 4 «Северный полюс»
Сторона «Империум»: +1 армия (пополнение), сектор 1 «Экватор»
Сторона «Империум»: +1 армия (пополнение), сектор 2 «Запад»
Сторона «Империум»: +1 армия (пополнение), сектор 4 «Северный полюс»
Сторона «Эльдар»: +1 армия (пополнение), сектор 5 «Южный полюс»
Сторона «Империум»: +1 армия (подкрепление с орбиты), сектор 4 «Северный полюс»
Сторона «Орда»: +1 армия (подкрепление с орбиты, в самый малочисленный сектор), сектор 3 «Восток»
Сторона «Эльдар»: +1 армия (подкрепление с орбиты, в самый малочисленный сектор), \
сектор 5 «Южный полюс»
У стороны «Красные» не осталось армий: она выбывает.
Победа в кампании за стороной «Империум»!"""
BATTLE = """\
Бой 3, сектор 3 «Восток», 1000 очков: атакует сторона «Эльдар», защищается сторона «Орда»
  Эльдар: 2 армии
  Орда: 3 армии
  Сторона «Орда» укрепилась: выбирает край стола и может перебросить кубик на первый ход — \
один раз за ход в этом секторе (здесь 1 бой)."""


def test_losses_elimination_and_victory_read_as_written_in_russian(i18n: I18n) -> None:
    turn = load_turn_document(json.dumps(TURN))
    results = [BattleResult.model_validate(r) for r in turn.results]
    report = resolve_turn(turn.game, turn.state, turn.orders, results).report
    with i18n.context(), i18n.use_locale("ru"):
        lines = describe_report(report, turn.game.map, FOUR, "ru")
        battle = describe_battle(report.battles[2], turn.game.map, FOUR, "ru")
        orders = [
            describe_order_line(orders.attacks or orders.moves, turn.game.map, FOUR, "ru")
            for orders in turn.orders.values()
        ]
    assert "\n".join(lines) == REPORT
    assert "\n".join(battle) == BATTLE
    assert orders == [
        "атака на сторону «Красные» в секторе 2 «Запад»",
        "атака на сторону «Империум» в секторе 1 «Экватор»",
        "атака на сторону «Орда» в секторе 3 «Восток»",
    ]


@pytest.mark.parametrize(
    ("n", "words"),
    [(1, "1 армия"), (2, "2 армии"), (5, "5 армий"), (21, "21 армия"), (1000, "1000 армий")],
)
def test_numbers_meet_nouns_in_their_plural_forms(i18n: I18n, n: int, words: str) -> None:
    with i18n.context(), i18n.use_locale("ru"):
        assert armies(n) == words
        move = describe_order_line(
            [Move(source="1", to="2", count=n)],
            load_turn_document(json.dumps(TURN)).game.map,
            {},
            "ru",
        )
    accusative = {1: "1 армию", 2: "2 армии", 5: "5 армий", 21: "21 армию", 1000: "1000 армий"}
    assert move == f"переместить {accusative[n]} из сектора 1 «Экватор» в сектор 2 «Запад»"


OTHER_KINDS = (
    "join_request",
    "join_news",
    "join_answer",
    "battle_result",
    "dispute",
    "result_decided",
    "corrected_map",
    "undo_notice",
    "deadline_extended",
    "clock_paused",
    "clock_resumed",
    "calendar",
    "history_turn",
    "campaign_summary",
    "campaign_ended",
)
"""The posts :func:`other_posts` renders: joining, disputes, the GM's corrections and time
tools, the calendar, the history and the campaign's end."""
NEWCOMERS = {501: "Ольга", 502: "Пётр"}


def _block(message: OutboxMessage, post: Post) -> str:
    what = [message.kind]
    if post.photo is not None:
        what.append("картинка")
    if post.document is not None:
        what.append(f"файл {post.document[0]}")
    if post.keyboard is not None:
        what.append(
            "кнопки: " + " | ".join(b.text for row in post.keyboard.inline_keyboard for b in row)
        )
    chat = NEWCOMERS.get(message.chat_id) or _who(message.chat_id)
    return f"== {chat}: {'; '.join(what)}\n{post.text}"


async def other_posts(store: Store, i18n: I18n, language: Language) -> str:
    """A campaign's less frequent posts, each rendered when it would be sent, in
    ``language``: two join requests (one approved, one refused), a disputed battle the GM
    decides, a result corrected after the resolution, an extension, a pause, an undo, the
    calendar, a turn of the history and the end of the campaign with its summary."""
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(store, clock, "Europe/Moscow", date(2026, 2, 2))
    for user, name in NEWCOMERS.items():
        await store.see_person(user, name, None, language, True, clock.now())
    for user in (GM, CO_GM, *NEWCOMERS, *(user for user, _, _ in PLAYERS)):
        await store.set_language(user, language, clock.now())
    settings = CampaignSettings.model_validate({"language": language})
    await store.update_settings(week.campaign.id, settings, GM, clock.now())
    context = PostContext(store=store, i18n=i18n, bot_username="strategium_bot")
    blocks: list[str] = []
    done: set[int] = set()

    async def rendered() -> None:
        for message in await store.outbox_messages(week.campaign.id):
            if message.id in done:
                continue
            done.add(message.id)
            if message.kind not in OTHER_KINDS:
                continue
            post = await render(context, message)
            if post is not None:
                blocks.append(_block(message, post))

    clock.set(week.at(0, 11))
    await week.deploy()
    await week.run_until(week.at(0, 11))
    campaign = await week.current()
    for user, side, role in ((501, "blue", Role.TACTICIAN), (502, "red", Role.STRATEGIST)):
        await store.request_join(campaign.id, user, NEWCOMERS[user], clock.now())
        asked = await ask_to_join(store, campaign, user, side, role, clock.now())
        assert asked is JoinOutcome.ASKED, asked
    await rendered()
    for user, approve in ((501, True), (502, False)):
        verdict, _request = await decide_join(store, campaign, GM, user, approve, clock.now())
        assert verdict is (JoinDecision.APPROVED if approve else JoinDecision.REFUSED)
    await rendered()

    await week.run_until(week.at(1, 10))
    await week.give_orders(sides=("red",))
    await week.run_until(week.at(4, 12))
    clock.set(week.at(5, 10))
    red, green = await seat_in(store, 202, campaign.id), await seat_in(store, 402, campaign.id)
    gm = await seat_in(store, GM, campaign.id)
    assert red is not None
    assert green is not None
    assert gm is not None
    solid = BattleResult(battle=1, outcome=Outcome.SOLID, winner="red")
    draw = BattleResult(battle=1, outcome=Outcome.DRAW)
    reported = await report_result(store, red, 1, 1, Outcome.SOLID, "red", clock.now())
    assert reported.refusal is None, reported
    await rendered()
    disputed = await answer_result(store, green, 1, 1, solid, False, clock.now(), counter=draw)
    assert disputed.refusal is None, disputed
    await rendered()
    crushing = BattleResult(battle=1, outcome=Outcome.CRUSHING, winner="red")
    decided = await decide_result(store, gm, 1, 1, crushing, clock.now())
    assert decided.refusal is None, decided
    await rendered()

    await week.run_until(week.at(7, 13))
    campaign = await week.current()
    undone = await undo_last_step(
        store, campaign.id, campaign.turn, campaign.phase, GM, "wrong week", clock.now()
    )
    assert undone.applied, undone
    await rendered()
    again = await advance(store, campaign.id, 1, Phase.RESOLUTION, GM, clock.now())
    assert again.advanced, again
    corrected = await correct_result(
        store, campaign.id, 1, [solid], GM, "the players misread the score", clock.now()
    )
    assert corrected.outcome is CorrectionOutcome.APPLIED, corrected
    await store.enqueue(group_post(campaign, "history_turn", "test-history", turn=1), clock.now())
    await rendered()
    extended = await extend(store, campaign.id, 24, GM, clock.now())
    assert extended.outcome is ExtendOutcome.EXTENDED, extended
    paused = await pause(store, campaign.id, GM, clock.now())
    assert paused.applied
    clock.set(week.at(7, 14))
    resumed = await resume(store, campaign.id, GM, clock.now())
    assert resumed.applied
    await rendered()
    campaign = await week.current()
    for chat in (campaign.chat_id, 201):
        await store.enqueue(calendar_post(campaign, chat, f"test-{chat}"), clock.now())
    await rendered()
    ended = await end_campaign(store, campaign, GM, clock.now())
    assert ended is not None
    await rendered()
    return "\n\n".join(blocks) + "\n"


@pytest.mark.parametrize(
    ("language", "case"), [("ru", "imperium"), ("ru", "eldar"), ("en", "imperium")]
)
async def test_joining_disputes_corrections_and_the_end_read_as_written(
    store: Store,
    i18n: I18n,
    language: Language,
    case: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    red, blue, green = NAMES[case]
    monkeypatch.setattr(
        campaign_script,
        "SIDES",
        (
            NewSide(id="red", name=red, colour="#cc0000"),
            NewSide(id="blue", name=blue, colour="#0044cc"),
            NewSide(id="green", name=green, colour="#00aa33"),
        ),
    )
    text = await other_posts(store, i18n, language)
    compare_expected(f"other_{language}_{case}.txt", text)
