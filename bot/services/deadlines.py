"""When each phase ends, on the campaign's wall clock: pure functions, no clock, no storage.

A campaign's week (RULES.md 3: orders close Thursday 23:59, battle list Friday 12:00,
resolution Monday 12:00) is kept in *its* time zone, so a deadline stays at 23:59 local across a
daylight-saving change; the UTC moment moves instead. A phase's deadline is the first weekly
moment strictly after the phase's *anchor*: the scheduled moment of the step that entered it
(or the entry itself when a person made the step), so a late run keeps the week in step.

Local times that do not exist or occur twice (at a daylight-saving change) follow PEP 495 with
``fold=0``: a time in the spring-forward gap is read with the offset before the change, so it
lands as far after the gap's start as it was meant to (02:30 in a 02:00-03:00 gap is 03:30 new
time); a time that occurs twice in the autumn is its first occurrence (the earlier moment).
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from storage import Phase, Schedule, WeeklyTime

REMINDERS_BEFORE_DEADLINE = (
    ("deadline_24h", timedelta(hours=24)),
    ("deadline_2h", timedelta(hours=2)),
)
"""Reminders before the orders (and deployment) deadline: kind and time before it."""

RESULTS_REMINDER_AT = time(18, 0)
"""The results reminder goes out the evening before the resolution, at this local time."""


def local_moment(day: datetime, at: time, zone: ZoneInfo) -> datetime:
    """``at`` on ``day``'s date in ``zone``, as a UTC moment (gap and fold as in the module doc)."""
    wall = datetime.combine(day.date(), at, tzinfo=zone).replace(fold=0)
    return wall.astimezone(UTC)


def next_weekly(after: datetime, when: WeeklyTime, zone: ZoneInfo) -> datetime:
    """The first moment strictly after ``after`` that is ``when`` on the wall clock of ``zone``."""
    local = after.astimezone(zone)
    days = (int(when.weekday) - local.weekday()) % 7
    for week in range(3):
        day = local + timedelta(days=days + 7 * week)
        moment = local_moment(day, when.at, zone)
        if moment > after:
            return moment
    raise AssertionError("unreachable: a weekly moment comes within three weeks")


def phase_deadline(
    phase: Phase, anchor: datetime, schedule: Schedule, zone: ZoneInfo
) -> datetime | None:
    """When the phase entered at ``anchor`` ends by itself; ``None``: only a person ends it.

    Manual mode has no deadlines. Deployment ends at the schedule's deployment deadline, if one
    is set; orders at the next orders close; battles at the next resolution. A resolution that
    waits for results (policy "wait for the GM") and setup have no deadline.
    """
    if schedule.mode == "manual":
        return None
    match phase:
        case Phase.DEPLOYMENT:
            return schedule.deployment_deadline
        case Phase.ORDERS:
            return next_weekly(anchor, schedule.orders_close, zone)
        case Phase.BATTLES:
            return next_weekly(anchor, schedule.resolution, zone)
        case _:
            return None


def orders_open_at(
    anchor: datetime, deadline: datetime | None, schedule: Schedule, zone: ZoneInfo
) -> datetime | None:
    """When the orders window of an orders phase that began at ``anchor`` opens (RULES.md 3.2:
    Tuesday 00:00 by default): the first opening moment at or after ``anchor``. ``None`` means
    open from the start: manual mode, no deadline, or an opening that would come only at or after
    the close (a turn that began inside the window, or a schedule whose opening follows its
    close)."""
    if schedule.mode == "manual" or deadline is None:
        return None
    opening = next_weekly(anchor - timedelta(microseconds=1), schedule.orders_open, zone)
    if opening <= anchor or opening >= deadline:
        return None
    return opening


def battle_list_time(
    orders_deadline: datetime, schedule: Schedule, zone: ZoneInfo
) -> datetime | None:
    """When the battle list of an orders window closing at ``orders_deadline`` is posted: the
    next battle-list moment, unless that is after the resolution (then at once: ``None``)."""
    posted = next_weekly(orders_deadline, schedule.battle_list, zone)
    resolution = next_weekly(orders_deadline, schedule.resolution, zone)
    return posted if posted < resolution else None


def results_reminder_time(
    resolution_deadline: datetime, zone: ZoneInfo, at: time = RESULTS_REMINDER_AT
) -> datetime:
    """The evening before the resolution (Sunday 18:00 for Monday 12:00), local time."""
    day_before = resolution_deadline.astimezone(zone) - timedelta(days=1)
    return local_moment(day_before, at, zone)


def reminder_times(
    phase: Phase, anchor: datetime, deadline: datetime | None, zone: ZoneInfo
) -> list[tuple[str, datetime]]:
    """The reminders of a phase: (kind, moment), in time order, each after the phase began.

    Orders and deployment: 24 h and 2 h before the deadline (elapsed time). Battles: the
    results reminder the evening before the resolution.
    """
    if deadline is None:
        return []
    if phase in (Phase.ORDERS, Phase.DEPLOYMENT):
        moments = [(kind, deadline - before) for kind, before in REMINDERS_BEFORE_DEADLINE]
    elif phase is Phase.BATTLES:
        moments = [("results", results_reminder_time(deadline, zone))]
    else:
        moments = []
    return sorted(
        ((kind, moment) for kind, moment in moments if anchor < moment < deadline),
        key=lambda item: item[1],
    )
