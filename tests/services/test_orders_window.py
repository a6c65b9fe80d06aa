"""The orders window opens at the schedule's ``orders_open`` (RULES.md 3.2: Tuesday 00:00 in the
campaign's zone), not when the turn begins: orders before it are refused with the opening time;
a GM's "advance now" opens it at once; a pause moves a pending opening; manual mode has none.
Once the GM ended the campaign nothing is given at all."""

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bot.runtime.clock import ManualClock
from bot.services.campaigns import end_campaign
from bot.services.orders import Refusal, enter_orders, report_result, seat_in, set_ready
from bot.services.timekeeping import advance_now, pause, resume
from bot.services.window import orders_opening
from rules import Outcome, Reinforce
from storage import CampaignSettings, Phase, Schedule, SqliteCampaignStore, Store
from tests.services.week import Week, start_week
from tests.storage.campaign_script import GM, strategist

MONDAY = date(2026, 3, 23)  # Berlin: clocks go forward on Sunday 29 March
ZONE = "Europe/Berlin"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await SqliteCampaignStore.open(tmp_path / "window.sqlite3")
    yield opened
    await opened.close()


async def _reinforce(week: Week) -> tuple[Refusal | None, bool]:
    """Red's strategist names a sector Red holds for the reinforcement: refusal, and saved?"""
    campaign = await week.current()
    state = await week.store.turn_start(campaign.id, campaign.turn)
    assert state is not None
    sector = next(s for s, armies in state.armies["red"].items() if armies > 0)
    seat = await seat_in(week.store, strategist("red"), campaign.id)
    assert seat is not None
    result = await enter_orders(week.store, seat, [[Reinforce(sector=sector)]], week.clock.now())
    if result.refusal is Refusal.NOT_OPEN_YET:
        assert result.opens_at is not None
    return result.refusal, result.changed


async def _first_turn_on_monday(store: Store, schedule: Schedule | None = None) -> Week:
    week = await start_week(
        store, ManualClock(datetime(2026, 3, 23, tzinfo=UTC)), ZONE, MONDAY, schedule
    )
    await week.deploy()
    await week.run_until(week.at(0, 11))
    campaign = await week.current()
    assert (campaign.turn, campaign.phase) == (1, Phase.ORDERS)
    return week


async def test_orders_wait_for_tuesday_midnight_then_open(store: Store) -> None:
    week = await _first_turn_on_monday(store)
    campaign = await week.current()
    assert await orders_opening(store, campaign, week.clock.now()) == week.at(1, 0)
    assert await _reinforce(week) == (Refusal.NOT_OPEN_YET, False)
    seat = await seat_in(store, strategist("red"), campaign.id)
    assert seat is not None
    ready = await set_ready(store, seat, 1, True, week.clock.now())
    assert ready.refusal is Refusal.NOT_OPEN_YET
    assert await store.orders(campaign.id, 1, "red") is None

    await week.run_until(week.at(0, 23, 59))
    assert await _reinforce(week) == (Refusal.NOT_OPEN_YET, False)
    await week.run_until(week.at(1, 0))
    assert await orders_opening(store, await week.current(), week.clock.now()) is None
    assert await _reinforce(week) == (None, True)


async def test_the_next_turn_opens_on_the_following_tuesday(store: Store) -> None:
    week = await _first_turn_on_monday(store)
    await week.run_until(week.at(1, 9))
    await week.give_orders()
    await week.run_until(week.at(5, 9))
    await week.report_results()
    await week.run_until(week.at(7, 12, 30))  # the Monday resolution ran at 12:00
    campaign = await week.current()
    assert (campaign.turn, campaign.phase) == (2, Phase.ORDERS)
    assert await orders_opening(store, campaign, week.clock.now()) == week.at(8, 0)
    assert await _reinforce(week) == (Refusal.NOT_OPEN_YET, False)
    await week.run_until(week.at(8, 0))
    assert await _reinforce(week) == (None, True)


async def test_a_gm_advance_opens_the_window_at_once(store: Store) -> None:
    week = await start_week(store, ManualClock(datetime(2026, 3, 23, tzinfo=UTC)), ZONE, MONDAY)
    await week.deploy(sweep=False)
    week.clock.set(week.at(0, 10, 5))
    advanced = await advance_now(store, week.campaign.id, 0, Phase.DEPLOYMENT, GM, week.clock.now())
    assert advanced.advanced
    assert await orders_opening(store, await week.current(), week.clock.now()) is None
    assert await _reinforce(week) == (None, True)


async def test_a_turn_begun_inside_the_window_is_open(store: Store) -> None:
    week = await start_week(store, ManualClock(datetime(2026, 3, 23, tzinfo=UTC)), ZONE, MONDAY)
    week.clock.set(week.at(2, 9))  # Wednesday: every side deploys, the turn begins
    await week.deploy()
    await week.run_until(week.at(2, 10))
    assert (await week.current()).phase is Phase.ORDERS
    assert await _reinforce(week) == (None, True)


async def test_a_pause_moves_the_pending_opening(store: Store) -> None:
    week = await _first_turn_on_monday(store)
    week.clock.set(week.at(0, 20))
    await pause(store, week.campaign.id, GM, week.clock.now())
    week.clock.set(week.at(1, 2))  # paused six hours so far: the opening moved with them
    campaign = await week.current()
    assert await orders_opening(store, campaign, week.clock.now()) == week.at(1, 6)
    await resume(store, week.campaign.id, GM, week.clock.now())
    campaign = await week.current()
    assert await orders_opening(store, campaign, week.clock.now()) == week.at(1, 6)
    week.clock.set(week.at(1, 5, 59))
    assert await _reinforce(week) == (Refusal.NOT_OPEN_YET, False)
    week.clock.set(week.at(1, 6))
    assert await _reinforce(week) == (None, True)


async def test_switching_to_manual_mode_opens_the_window(store: Store) -> None:
    week = await _first_turn_on_monday(store)
    assert await _reinforce(week) == (Refusal.NOT_OPEN_YET, False)
    await store.update_settings(
        week.campaign.id,
        CampaignSettings(schedule=Schedule(mode="manual")),
        GM,
        week.clock.now(),
    )
    assert await _reinforce(week) == (None, True)


async def test_nothing_is_given_once_the_gm_ended_the_campaign(store: Store) -> None:
    week = await _first_turn_on_monday(store)
    await week.run_until(week.at(1, 9))
    campaign = await week.current()
    assert await end_campaign(store, campaign, GM, week.clock.now()) is not None
    assert await _reinforce(week) == (Refusal.CAMPAIGN_OVER, False)
    seat = await seat_in(store, strategist("red"), campaign.id)
    assert seat is not None
    ready = await set_ready(store, seat, 1, True, week.clock.now())
    assert ready.refusal is Refusal.CAMPAIGN_OVER
    reported = await report_result(store, seat, 1, 1, Outcome.DRAW, None, week.clock.now())
    assert reported.refusal is Refusal.CAMPAIGN_OVER
    assert await store.orders(campaign.id, 1, "red") is None
