"""A deadline that has passed while its step waits (a side not placed): the board and /rules
say so and what comes next, in both languages, and an extension, which would give nobody
time, is refused with what to do instead. Found by the random campaigns (seed 17): the board
showed a deadline three days gone, and the GM's «+24 h» announced a new one already past."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from aiogram.utils.i18n import I18n

from bot.handlers.group.clock import extended_text, refusal_text
from bot.handlers.rules import rules_view
from bot.posts.group import deadline_line
from bot.runtime.clock import ManualClock
from bot.services import timekeeping
from bot.services.timekeeping import ProposalRefusal
from bot.texts.rules import campaign_lines
from storage import ExtendOutcome, Phase, Schedule, Store
from tests.services.week import start_week
from tests.storage.campaign_script import GM

MONDAY = date(2026, 3, 9)
BERLIN = "Europe/Berlin"
DEADLINE = datetime(2026, 3, 12, 18, 0, tzinfo=ZoneInfo(BERLIN))  # Thursday


async def test_a_passed_deadline_that_waits_reads_so_and_is_not_extended(
    store: Store, clock: ManualClock, i18n: I18n
) -> None:
    week = await start_week(store, clock, BERLIN, MONDAY, Schedule(deployment_deadline=DEADLINE))
    await week.run_until(week.at(3, 17))
    campaign = await week.current()
    with i18n.context(), i18n.use_locale("en"):
        ahead = await deadline_line(store, campaign, "en", clock.now())
        offered = await timekeeping.propose_extension(store, campaign.id, 12, GM, clock.now())
    assert ahead is not None
    assert ahead.startswith("Deadline: Thu 12 Mar, 18:00")
    assert offered.refusal is None  # before the deadline an extension is proposed as ever

    await week.run_until(week.at(4, 9))  # nobody placed: the step is blocked since Thursday
    campaign = await week.current()
    assert campaign.phase is Phase.DEPLOYMENT
    lines = {}
    for language in ("en", "ru"):
        with i18n.context(), i18n.use_locale(language):
            lines[language] = await deadline_line(store, campaign, language, clock.now())
    assert lines["en"] == (
        "The deadline (Thu 12 Mar, 18:00 (Berlin, UTC+1)) has passed: the first turn starts as"
        " soon as every side is placed."
    )
    assert lines["ru"] == (
        "Срок (чт, 12 марта, 18:00 (Берлин, UTC+1)) прошёл: первый ход начнётся, как только"
        " все стороны расставят армии."
    )
    for language in ("en", "ru"):  # /rules, its sibling, says the same
        with i18n.context(), i18n.use_locale(language):
            rules = campaign_lines(await rules_view(store, campaign, clock))
        assert lines[language] in rules

    with i18n.context(), i18n.use_locale("ru"):
        proposed = await timekeeping.propose_extension(store, campaign.id, 24, GM, clock.now())
        assert proposed.refusal is ProposalRefusal.PASSED
        assert "Срок уже прошёл" in refusal_text(proposed)
        extended = await timekeeping.extend(store, campaign.id, 24, GM, clock.now())
        assert extended.outcome is ExtendOutcome.PASSED
        assert "«⏰ Назначить текущий срок»" in extended_text(extended, 72)
    clock_row = await store.clock_state(campaign.id)
    assert clock_row is not None
    assert clock_row.deadline == DEADLINE  # not moved
    kinds = {m.kind for m in await store.outbox_messages(campaign.id)}
    assert "deadline_extended" not in kinds
