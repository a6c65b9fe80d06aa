"""The week's posts as they reach Telegram: a scheduled week sent by the outbox sender, every
post rendered (none given up), in English and Russian, secrets kept out of the group."""

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from aiogram import Bot
from aiogram.methods import SendMessage, SendPhoto
from aiogram.utils.i18n import I18n

from bot.posts.turns import shared_advantages
from bot.runtime.clock import ManualClock
from bot.screens.rendering import MapDrawer
from bot.services import timekeeping, turns
from bot.services.outbox_sender import Limits, OutboxSender
from bot.services.posting import group_post
from rules import Battle, BattleResult, FocLimits, Outcome
from rules.render import held_sectors
from storage import CampaignSettings, OutboxState, Phase, Store
from tests.bot.private_campaign import rendered_outbox
from tests.bot.telegram import FakeSession
from tests.services.week import start_week
from tests.storage.campaign_script import CO_GM, GM, new_campaign, strategist

FAST = Limits(per_second=1000, group_per_minute=100000, private_per_second=1000)
CHAT = -1001


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_a_weeks_posts_all_render_and_arrive(store: Store, i18n: I18n, language: str) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(store, clock, "Europe/Berlin", date(2026, 2, 2))
    for user in (GM, CO_GM, strategist("red"), strategist("blue"), strategist("green")):
        await store.set_language(user, language, clock.now())  # type: ignore[arg-type]
    settings = CampaignSettings.model_validate({"language": language})
    await store.update_settings(week.campaign.id, settings, GM, clock.now())
    session = FakeSession({})
    sender = OutboxSender(Bot("42:TEST", session=session), store, clock, i18n, limits=FAST)
    clock.set(week.at(0, 11))
    await week.deploy()
    await week.run_until(week.at(0, 11))
    await week.run_until(week.at(1, 10))
    await week.give_orders(sides=("red",))
    await week.run_until(week.at(3, 23))  # reminders to blue and green
    await sender.send_due()
    secret_window = [s for s in session.sent if s.chat_id == CHAT]
    await week.run_until(week.at(4, 12))  # orders close Thursday; the list goes out Friday
    await week.run_until(week.at(5, 10))
    await week.report_results()
    await week.run_until(week.at(7, 13))
    await sender.send_due()
    messages = await store.outbox_messages(week.campaign.id)
    assert {m.state for m in messages} == {OutboxState.SENT}, [
        (m.kind, m.last_error) for m in messages if m.state is not OutboxState.SENT
    ]
    kinds = {m.kind for m in messages}
    assert {"phase_notice", "private_phase_notice", "map", "battle_list", "reminder"} <= kinds
    texts = [s.text for s in session.sent if isinstance(s.method, SendMessage | SendPhoto)]
    assert all(texts), "every post has words"
    photos = [s for s in session.sent if isinstance(s.method, SendPhoto) and s.chat_id == CHAT]
    assert len(photos) == 3  # turn 1's map, the battle list, Monday's map
    monday = photos[-1].text
    if language == "en":
        assert "Turn 1 resolved." in monday
        assert "Turn 2 begins: orders open Tue 10 Feb, 00:00 (Berlin, UTC+1)." in monday
        assert any("your side's orders are not marked ready" in t for t in texts)
    else:
        assert "Итоги хода 1 подведены." in monday
        assert "Turn 2 begins" not in monday
        assert (
            "Ход 2 начинается: приказы принимаются с вт, 10 февраля, 00:00 (Берлин, UTC+1)"
            in monday
        )
        assert any("не отмечены как готовые" in t for t in texts)
    # While orders are secret the group gets only the phase notice, the first map and the
    # status board (one post for both phase changes, pinned; it shows readiness, never orders).
    assert [type(s.method).__name__ for s in secret_window] == [
        "SendMessage",
        "SendPhoto",
        "SendMessage",
        "PinChatMessage",
    ]
    before_close = [
        m.kind for m in messages if m.chat_id == CHAT and m.created_at < week.at(3, 23, 59)
    ]
    assert [kind for kind in before_close if kind != "status_board"] == ["phase_notice", "map"]


def test_battles_sharing_one_fortified_advantage_are_named(i18n: I18n) -> None:
    foc = FocLimits(hq=1, troops=(2, 6), elite=1, fast_attack=1, heavy_support=1)
    battles = [
        Battle(
            id=number,
            attacker=attacker,
            defender="blue",
            sector="3",
            armies={attacker: 3, "blue": 4},
            foc={attacker: foc, "blue": foc},
            points=1000,
            fortified="blue",
            fortified_battles_in_sector=2,
        )
        for number, attacker in ((1, "red"), (2, "green"))
    ]
    with i18n.context(), i18n.use_locale("en"):
        lines = shared_advantages(battles, {"blue": "Blue Host"})
    assert lines == [
        "Battles 1, 2 in sector 3 share Blue Host's fortified advantage: "
        "it is used once this turn, in one of them."
    ]


async def test_clock_notes_undo_and_correction_posts_render(store: Store, i18n: I18n) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(store, clock, "Europe/Moscow", date(2026, 2, 2))
    session = FakeSession({})
    sender = OutboxSender(Bot("42:TEST", session=session), store, clock, i18n, limits=FAST)
    clock.set(week.at(0, 11))
    await week.deploy()
    await week.run_until(week.at(1, 10))
    await week.give_orders()
    clock.set(week.at(4, 9))  # down over Thursday
    await week.restart()
    await timekeeping.pause(store, week.campaign.id, GM, clock.now())
    await timekeeping.resume(store, week.campaign.id, GM, clock.now())
    await timekeeping.extend(store, week.campaign.id, 12, GM, clock.now())
    await week.report_results()
    clock.set(week.at(5, 12))
    await timekeeping.advance_now(store, week.campaign.id, 1, Phase.BATTLES, GM, clock.now())
    battle_list = await store.battle_list(week.campaign.id, 1)
    assert battle_list is not None
    assert battle_list.battles
    first = battle_list.battles[0]
    winner = first.attacker
    await turns.correct_result(
        store,
        week.campaign.id,
        1,
        [BattleResult(battle=first.id, outcome=Outcome.SOLID, winner=winner)],
        GM,
        "misreported",
        clock.now(),
    )
    await sender.send_due()  # the corrected map goes out before the undo would cancel it
    await turns.undo_last_step(store, week.campaign.id, 2, Phase.ORDERS, GM, "oops", clock.now())
    clock.set(week.at(6, 12))
    await sender.send_due()
    messages = await store.outbox_messages(week.campaign.id)
    sent = {m.kind for m in messages if m.state is OutboxState.SENT}
    assert {
        "ran_late",
        "clock_paused",
        "clock_resumed",
        "deadline_extended",
        "gm_advanced",
        "corrected_map",
        "undo_notice",
    } <= sent
    group = [s.text for s in session.sent if s.chat_id == CHAT and s.text]
    assert any(text.startswith("The bot was offline at Thu 5 Feb, 23:59") for text in group)
    assert any(text.startswith("The GM undid the last step.") for text in group)


async def test_the_monday_map_shows_its_weeks_moves_battles_and_captures(
    store: Store, i18n: I18n, tmp_path: Path
) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(store, clock, "Europe/Berlin", date(2026, 2, 2))
    record = tmp_path / "maps.jsonl"
    sender = OutboxSender(
        Bot("42:TEST", session=FakeSession({})),
        store,
        clock,
        i18n,
        limits=FAST,
        maps=MapDrawer(record=record),
    )
    clock.set(week.at(0, 11))
    await week.deploy()
    await week.run_until(week.at(1, 10))
    await week.give_orders()
    await week.run_until(week.at(4, 12))
    await week.run_until(week.at(5, 10))
    await week.report_results()
    await week.run_until(week.at(7, 13))
    await sender.send_due()
    drawn = [json.loads(line)["view"] for line in record.read_text().splitlines()]
    assert [view["state"]["turn"] for view in drawn] == [1, 1, 2]  # map, battle list, Monday
    first, friday, monday = drawn
    assert (first["week"], first["battles"], friday["week"]) == (None, None, None)
    (resolution,) = await store.resolutions(week.campaign.id, 1)
    report = resolution.report
    assert [b["id"] for b in friday["battles"]] == [b.id for b in report.battles]
    moves = [(m["side"], m["source"], m["to"], m["count"]) for m in monday["week"]["moves"]]
    assert moves == [(a.side, a.source, a.to, a.count) for a in report.arrivals]
    assert moves, "the seeded orders move armies"
    fought = {b["id"]: b for b in monday["week"]["battles"]}
    assert sorted(fought) == [b.id for b in report.battles]
    for result in report.results:
        assert (fought[result.battle]["outcome"], fought[result.battle]["winner"]) == (
            result.outcome.value,
            result.winner,
        )
    lost = sum(n for b in fought.values() for n in b["losses"].values())
    assert lost == sum(c.declared for c in report.casualties)
    assert monday["captured"] == {s: list(held) for s, held in report.captured.items()}
    deployment = await store.turn_start(week.campaign.id, 1)
    assert deployment is not None
    deployed = held_sectors(deployment, 3)  # held from the start: not "new" on the first Monday
    new = {
        s: [x for x in held if x not in deployed.get(s, ())] for s, held in report.captured.items()
    }
    assert monday["week"]["new"] == {s: held for s, held in new.items() if held}
    campaign = await week.current()
    assert monday["sectors_to_win"] == turns.game_for(campaign).ruleset.sectors_to_win


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "The GM advanced the campaign.\nThe campaign is over."),
        ("ru", "Мастер перевёл кампанию дальше.\nКампания окончена."),
    ],
)
async def test_an_advance_that_ends_the_campaign_names_no_deadline(
    store: Store, i18n: I18n, language: str, expected: str
) -> None:
    # Found by the random campaigns' bench (seed 40242): «The campaign is over. No deadline:
    # the GM advances this phase.»
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    campaign = await new_campaign(store)
    settings = CampaignSettings.model_validate({"language": language})
    campaign = await store.update_settings(campaign.id, settings, GM, clock.now())
    post = group_post(campaign, "gm_advanced", "advance:9", turn=2, phase=Phase.FINISHED.value)
    await store.enqueue(post, clock.now())
    [text] = [t for m, t in await rendered_outbox(store, i18n, campaign.id) if m.kind == post.kind]
    assert text == expected
