"""Deadlines on the campaign's wall clock across daylight-saving changes (Berlin, New York) and
without them (Moscow): the pure computation, a scheduled week, and APScheduler's triggers."""

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.runtime.clock import ManualClock
from bot.services.deadlines import (
    battle_list_time,
    local_moment,
    next_weekly,
    orders_open_at,
    orders_window,
    phase_deadline,
    reminder_times,
)
from storage import Phase, Schedule, SqliteCampaignStore, Store, Weekday, WeeklyTime
from tests.services.week import start_week

THURSDAY_2359 = WeeklyTime(weekday=Weekday.THURSDAY, at=time(23, 59))

# (zone, the Monday of a week with a daylight-saving change on its Sunday, or none)
DST_WEEKS = [
    ("Europe/Berlin", date(2026, 3, 23)),  # clocks go forward on Sunday 29 March
    ("Europe/Berlin", date(2026, 10, 19)),  # and back on Sunday 25 October
    ("America/New_York", date(2026, 3, 2)),  # forward on Sunday 8 March
    ("America/New_York", date(2026, 10, 26)),  # back on Sunday 1 November
    ("Europe/Moscow", date(2026, 3, 23)),  # no daylight saving at all
]


def _wall(moment: datetime, zone: str) -> tuple[int, int, int]:
    local = moment.astimezone(ZoneInfo(zone))
    return local.weekday(), local.hour, local.minute


@pytest.mark.parametrize(("zone", "monday"), DST_WEEKS)
def test_weekly_moments_keep_their_wall_clock_time(zone: str, monday: date) -> None:
    start = datetime.combine(monday, time(12), ZoneInfo(zone))
    schedule = Schedule()
    orders = phase_deadline(Phase.ORDERS, start, schedule, ZoneInfo(zone))
    assert orders is not None
    battles = phase_deadline(Phase.BATTLES, orders, schedule, ZoneInfo(zone))
    assert battles is not None
    following = phase_deadline(Phase.ORDERS, battles, schedule, ZoneInfo(zone))
    assert following is not None
    assert _wall(orders, zone) == (3, 23, 59)
    assert _wall(battles, zone) == (0, 12, 0)
    assert _wall(following, zone) == (3, 23, 59)
    hours = (following - orders) / timedelta(hours=1)
    assert hours == (168 if zone == "Europe/Moscow" else pytest.approx(168, abs=1))
    if zone == "Europe/Moscow":
        assert {orders.utcoffset(), battles.utcoffset()} == {timedelta(0)}
        assert orders.astimezone(ZoneInfo(zone)).utcoffset() == timedelta(hours=3)


def test_the_week_across_berlins_spring_change_is_an_hour_shorter() -> None:
    zone = ZoneInfo("Europe/Berlin")
    thursday = next_weekly(datetime(2026, 3, 23, 12, tzinfo=zone), THURSDAY_2359, zone)
    after = next_weekly(thursday, THURSDAY_2359, zone)
    assert thursday == datetime(2026, 3, 26, 22, 59, tzinfo=UTC)  # CET, UTC+1
    assert after == datetime(2026, 4, 2, 21, 59, tzinfo=UTC)  # CEST, UTC+2
    assert after - thursday == timedelta(days=7, hours=-1)


def test_a_time_in_the_spring_gap_moves_forward_and_a_doubled_one_is_the_first() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    gap = local_moment(datetime(2026, 3, 29), time(2, 30), berlin)
    assert gap == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)  # 03:30 summer time
    assert gap.astimezone(berlin).hour == 3
    doubled = local_moment(datetime(2026, 10, 25), time(2, 30), berlin)
    assert doubled == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)  # the first 02:30 (summer)


def test_phases_without_a_deadline() -> None:
    zone, now = ZoneInfo("UTC"), datetime(2026, 3, 2, tzinfo=UTC)
    assert phase_deadline(Phase.SETUP, now, Schedule(), zone) is None
    assert phase_deadline(Phase.RESOLUTION, now, Schedule(), zone) is None
    assert phase_deadline(Phase.DEPLOYMENT, now, Schedule(), zone) is None
    assert phase_deadline(Phase.ORDERS, now, Schedule(mode="manual"), zone) is None


def test_battle_list_waits_for_friday_noon_and_reminders_come_before_the_deadline() -> None:
    zone = ZoneInfo("Europe/Berlin")
    deadline = datetime(2026, 3, 26, 22, 59, tzinfo=UTC)
    assert battle_list_time(deadline, Schedule(), zone) == datetime(2026, 3, 27, 11, tzinfo=UTC)
    anchor = datetime(2026, 3, 23, 11, tzinfo=UTC)
    assert reminder_times(Phase.ORDERS, anchor, deadline, zone) == [
        ("deadline_24h", deadline - timedelta(hours=24)),
        ("deadline_2h", deadline - timedelta(hours=2)),
    ]
    resolution = datetime(2026, 3, 30, 10, tzinfo=UTC)  # Monday 12:00 summer time
    assert reminder_times(Phase.BATTLES, deadline, resolution, zone) == [
        ("results", datetime(2026, 3, 29, 16, tzinfo=UTC))  # Sunday 18:00 summer time
    ]
    late_start = deadline - timedelta(hours=3)
    assert [kind for kind, _ in reminder_times(Phase.ORDERS, late_start, deadline, zone)] == [
        "deadline_2h"
    ]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A store on a fresh file."""
    opened = await SqliteCampaignStore.open(tmp_path / "dst.sqlite3")
    yield opened
    await opened.close()


@pytest.mark.parametrize(("zone", "monday"), DST_WEEKS)
async def test_a_scheduled_week_over_a_change_keeps_local_times(
    store: Store, zone: str, monday: date
) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(store, clock, zone, monday)
    clock.set(week.at(0, 11))
    await week.deploy()
    await week.run_until(week.at(0, 11))
    await week.run_until(week.at(1, 10))
    await week.give_orders()
    await week.run_until(week.at(5, 10))
    await week.report_results()
    await week.run_until(week.at(8, 10))
    await week.give_orders()
    await week.run_until(week.at(10, 12))
    history = await store.phase_history(week.campaign.id)
    scheduled = [(e.turn, e.phase, _wall(e.entered_at, zone)) for e in history if e.actor is None]
    assert scheduled == [
        (1, Phase.ORDERS, (0, 11, 0)),  # every side placed: deployment ends at once
        (1, Phase.BATTLES, (3, 23, 59)),
        (1, Phase.RESOLUTION, (0, 12, 0)),
        (2, Phase.ORDERS, (0, 12, 0)),
    ]
    jobs = {job.id: job for job in week.scheduler.scheduler.get_jobs()}
    prefix = f"campaign:{week.campaign.id}:"
    before_change = datetime.combine(monday, time(0), ZoneInfo(zone))
    for name, wall in (
        ("orders_close", (3, 23, 59)),
        ("battle_list", (4, 12, 0)),
        ("resolution", (0, 12, 0)),
    ):
        fire = before_change
        for _ in range(3):  # three weeks of fire times, across the change
            fire = jobs[prefix + name].trigger.get_next_fire_time(None, fire + timedelta(seconds=1))
            assert _wall(fire, zone) == wall
    row = await store.clock_state(week.campaign.id)
    assert row is not None
    assert row.deadline is not None
    assert _wall(row.deadline, zone) == (3, 23, 59)


@pytest.mark.parametrize(("zone", "monday"), DST_WEEKS)
def test_orders_open_on_tuesday_midnight_local_after_a_monday_start(
    zone: str, monday: date
) -> None:
    start = datetime.combine(monday, time(12), ZoneInfo(zone)).astimezone(UTC)
    schedule = Schedule()
    close = phase_deadline(Phase.ORDERS, start, schedule, ZoneInfo(zone))
    opening = orders_open_at(start, close, schedule, ZoneInfo(zone))
    assert opening is not None
    assert close is not None
    assert _wall(opening, zone) == (1, 0, 0)
    assert start < opening < close
    assert opening - start < timedelta(hours=13)


def test_a_turn_that_begins_inside_the_window_is_open_at_once() -> None:
    zone = ZoneInfo("Europe/Moscow")
    schedule = Schedule()
    for start in (
        datetime(2026, 3, 4, 15, 0, tzinfo=zone),  # Wednesday
        datetime(2026, 3, 3, 0, 0, tzinfo=zone),  # exactly Tuesday 00:00
    ):
        close = phase_deadline(Phase.ORDERS, start, schedule, zone)
        assert orders_open_at(start, close, schedule, zone) is None


def test_a_start_just_before_the_opening_waits_for_it() -> None:
    zone = ZoneInfo("Europe/Moscow")
    schedule = Schedule()
    start = datetime(2026, 3, 2, 23, 59, 59, tzinfo=zone)
    close = phase_deadline(Phase.ORDERS, start, schedule, zone)
    assert orders_open_at(start, close, schedule, zone) == datetime(2026, 3, 3, 0, 0, tzinfo=zone)


def test_no_opening_in_manual_mode_without_a_deadline_or_after_the_close() -> None:
    zone = ZoneInfo("Europe/Moscow")
    monday = datetime(2026, 3, 2, 12, 0, tzinfo=zone)
    manual = Schedule(mode="manual")
    assert orders_open_at(monday, None, Schedule(), zone) is None
    assert orders_open_at(monday, monday + timedelta(days=3), manual, zone) is None
    # Opening Friday, closing Wednesday: the next opening comes after the close.
    odd = Schedule(
        orders_open=WeeklyTime(weekday=Weekday.FRIDAY, at=time(9)),
        orders_close=WeeklyTime(weekday=Weekday.WEDNESDAY, at=time(20)),
    )
    close = next_weekly(monday, odd.orders_close, zone)
    assert orders_open_at(monday, close, odd, zone) is None
    assert orders_window(monday, odd, zone)[0] is None, "open from the start, whatever the close"
