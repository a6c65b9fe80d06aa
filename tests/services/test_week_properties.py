"""Properties of the weekly clock over many tzdata zones and every week of 2026 and 2027.

The zones: half-hour and 45-minute offsets (Kolkata, St John's, Adelaide, Tehran, Kathmandu,
Eucla, Chatham), southern-hemisphere daylight saving (Santiago, Adelaide, Lord Howe with its
half-hour change, Auckland, Chatham), zones whose clocks skip midnight or the hour before it
(Santiago, Havana, Beirut, Cairo on a Friday, Nuuk on a Saturday evening), Ramadan's reversed
change (Casablanca), and the day's edges (Kiritimati, Pago Pago). Exhaustive, not sampled:
every weekly moment of a range of local times, every week, every zone, in a few seconds.

Each moment must be at its configured local time, or, where that local time does not exist that
day (the clocks jumped over it), later by exactly the jump: 02:30 in a 02:00-03:00 gap is 03:30.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.services.deadlines import (
    battle_list_time,
    battles_length,
    next_weekly,
    orders_open_at,
    phase_deadline,
    wall_shift,
)
from storage import Phase, Schedule, Weekday, WeeklyTime

ZONES = (
    "UTC",
    "Europe/London",
    "Europe/Berlin",
    "Europe/Moscow",
    "America/New_York",
    "America/St_Johns",
    "America/Nuuk",
    "America/Santiago",
    "America/Havana",
    "Asia/Beirut",
    "Africa/Cairo",
    "Africa/Casablanca",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Asia/Tehran",
    "Australia/Adelaide",
    "Australia/Lord_Howe",
    "Australia/Eucla",
    "Pacific/Chatham",
    "Pacific/Auckland",
    "Pacific/Kiritimati",
    "Pacific/Pago_Pago",
)
FIRST_MONDAY = date(2025, 12, 29)  # the week holding 1 January 2026
WEEKS = 105  # through the week holding 31 December 2027
LOCAL_TIMES = tuple(
    time(hour, minute)
    for hour, minute in ((0, 0), (0, 30), (2, 15), (2, 30), (3, 0), (12, 0), (23, 30), (23, 59))
)
NIGHT = Schedule(
    orders_open=WeeklyTime(weekday=Weekday.SATURDAY, at=time(2, 30)),
    orders_close=WeeklyTime(weekday=Weekday.SUNDAY, at=time(0, 0)),
    battle_list=WeeklyTime(weekday=Weekday.SUNDAY, at=time(2, 30)),
    resolution=WeeklyTime(weekday=Weekday.FRIDAY, at=time(0, 30)),
)
"""A schedule whose every moment falls in some zone's gap on some day of these two years."""


def _wall(moment: datetime, zone: ZoneInfo) -> datetime:
    return moment.astimezone(zone).replace(tzinfo=None)


def _jump(moment: datetime, zone: ZoneInfo) -> timedelta:
    """How far the clocks jumped forward in the three hours before ``moment`` (0 if not)."""
    before = (moment - timedelta(hours=3)).astimezone(zone).utcoffset()
    after = moment.astimezone(zone).utcoffset()
    assert before is not None
    assert after is not None
    return max(after - before, timedelta(0))


def _configured_day(moment: datetime, at: time, zone: ZoneInfo) -> date:
    """The day whose ``at`` ``moment`` stands for: its local date, or the day before when a
    jump over midnight carried it into the next day (Saturday 23:30 in Nuuk's gap)."""
    wall = _wall(moment, zone)
    day = wall.date()
    return day if datetime.combine(day, at) <= wall else day - timedelta(days=1)


def _exists(wall: datetime, zone: ZoneInfo) -> bool:
    """Whether the local time ``wall`` is shown by the clocks of ``zone`` at some moment."""
    return _wall(wall.replace(tzinfo=zone).astimezone(UTC), zone) == wall


def _lateness(moment: datetime, day: date, at: time, zone: ZoneInfo) -> timedelta:
    """How much later than ``at`` on ``day`` the wall clock of ``zone`` reads at ``moment``;
    checked to be 0 where that time exists and the jump of the clocks where it does not."""
    wanted = datetime.combine(day, at)
    late = _wall(moment, zone) - wanted
    if _exists(wanted, zone):
        assert late == timedelta(0), (zone, wanted, _wall(moment, zone))
    else:
        assert late == _jump(moment, zone) > timedelta(0), (zone, wanted, _wall(moment, zone))
    return late


@pytest.mark.parametrize("name", ZONES)
def test_every_weekly_moment_is_at_its_local_time_or_late_by_the_jump(name: str) -> None:
    zone = ZoneInfo(name)
    start = datetime.combine(FIRST_MONDAY, time(0), zone).astimezone(UTC)
    checked = jumped = 0
    for weekday in Weekday:
        for at in LOCAL_TIMES:
            when = WeeklyTime(weekday=weekday, at=at)
            moment = next_weekly(start - timedelta(microseconds=1), when, zone)
            for week in range(WEEKS):
                day = FIRST_MONDAY + timedelta(days=7 * week + int(weekday))
                jumped += _lateness(moment, day, at, zone) > timedelta(0)
                following = next_weekly(moment, when, zone)
                assert following > moment
                moment = following
                checked += 1
    assert checked == 7 * len(LOCAL_TIMES) * WEEKS
    if name in {"Europe/Berlin", "America/Santiago", "Australia/Lord_Howe", "Pacific/Chatham"}:
        assert jumped, f"{name} has gaps at some of these local times in 2026-2027"


@pytest.mark.parametrize("schedule", [Schedule(), NIGHT], ids=["default", "night"])
@pytest.mark.parametrize("name", ZONES)
def test_every_week_of_two_years_keeps_its_phases_in_step(name: str, schedule: Schedule) -> None:
    """Week after week, the scheduler's own chain: each turn begins at the resolution, its
    orders open and close, the list is posted and the resolution comes, each at its local time
    (or late by a jump), in that order, the battles lasting their full length."""
    zone = ZoneInfo(name)
    first = next_weekly(
        datetime.combine(FIRST_MONDAY, time(0), zone).astimezone(UTC),
        schedule.resolution,
        zone,
    )
    begun = first
    late = 0
    for _week in range(WEEKS):
        close = phase_deadline(Phase.ORDERS, begun, schedule, zone)
        assert close is not None
        opening = orders_open_at(begun, close, schedule, zone)
        posted = battle_list_time(close, schedule, zone)
        assert opening is not None, (name, begun)
        assert posted is not None, (name, close)
        resolution = phase_deadline(Phase.BATTLES, close, schedule, zone)
        assert resolution is not None
        assert begun < opening < close < posted < resolution
        for moment, when in (
            (opening, schedule.orders_open),
            (close, schedule.orders_close),
            (posted, schedule.battle_list),
            (resolution, schedule.resolution),
        ):
            day = _configured_day(moment, when.at, zone)
            assert day.weekday() == int(when.weekday), (name, moment, when)
            late += _lateness(moment, day, when.at, zone) > timedelta(0)
        listed = datetime.combine(
            _configured_day(posted, schedule.battle_list.at, zone), schedule.battle_list.at
        )
        assert _wall(resolution, zone) - listed >= battles_length(schedule), (name, posted)
        assert _wall(resolution, zone).date() - _wall(begun, zone).date() == timedelta(days=7)
        begun = resolution
    weeks_on_the_wall = _wall(begun, zone).date() - _wall(first, zone).date()
    assert weeks_on_the_wall == timedelta(weeks=WEEKS)
    if schedule is NIGHT and name in {"Europe/Berlin", "America/Havana", "Asia/Beirut"}:
        assert late, f"the night schedule meets {name}'s gap"


@pytest.mark.parametrize("name", ZONES)
def test_extensions_land_on_the_same_local_time_and_keep_the_battles_whole(name: str) -> None:
    """Every week's close extended by 24, 48 and 72 hours: the same local time that many hours
    later on the wall (or late by a jump), and the battles after it last their full length."""
    zone = ZoneInfo(name)
    schedule = Schedule()
    begun = next_weekly(
        datetime.combine(FIRST_MONDAY, time(0), zone).astimezone(UTC), schedule.resolution, zone
    )
    checked = 0
    for _week in range(WEEKS):
        close = phase_deadline(Phase.ORDERS, begun, schedule, zone)
        assert close is not None
        for hours in (24, 48, 72):
            extended = wall_shift(close, timedelta(hours=hours), zone)
            wanted = _wall(close, zone) + timedelta(hours=hours)
            _lateness(extended, wanted.date(), wanted.time(), zone)
            resolution = phase_deadline(Phase.BATTLES, extended, schedule, zone)
            assert resolution is not None
            posted = battle_list_time(extended, schedule, zone) or extended
            assert _wall(resolution, zone) - _wall(posted, zone) >= battles_length(schedule)
            checked += 1
        begun = phase_deadline(Phase.BATTLES, close, schedule, zone) or close
    assert checked == 3 * WEEKS


def test_a_moment_carried_past_midnight_by_a_jump_is_still_ahead() -> None:
    """Nuuk's clocks skip Saturday 23:00-24:00 on 28 March 2026: a Saturday 23:30 deadline
    falls at Sunday 00:30, and from Sunday 00:10 it is still to come, not a week away."""
    nuuk = ZoneInfo("America/Nuuk")
    saturday = WeeklyTime(weekday=Weekday.SATURDAY, at=time(23, 30))
    after = datetime(2026, 3, 29, 0, 10, tzinfo=nuuk)
    assert next_weekly(after, saturday, nuuk) == datetime(2026, 3, 29, 0, 30, tzinfo=nuuk)
