"""When each phase ends, on the campaign's wall clock: pure functions, no clock, no storage.

A campaign's week (RULES.md 3: orders close Thursday 23:59, battle list Friday 12:00,
resolution Monday 12:00) is kept in *its* time zone, so a deadline stays at 23:59 local across a
daylight-saving change; the UTC moment moves instead. A phase's deadline is the first weekly
moment strictly after the phase's *anchor*: the scheduled moment of the step that entered it
(or the entry itself when a person made the step), so a late run keeps the week in step.

The GM bends the week on the same wall clock: an extension of N hours and a pause that lasted
two days move a deadline to the same local time N hours or two days later (:func:`wall_shift`),
so a Thursday 23:59 close extended by 72 hours closes on Sunday at 23:59 even when the clocks
change on that Sunday. The battles phase never shrinks: it lasts at least
:func:`battles_length` after the battle list is posted, so an orders window extended past the
list's time moves the resolution (and the next turn, which begins at the resolution) instead.
Nor does an orders window: it stays open at least :func:`orders_length` from its opening, so a
turn that begins late in the week (after a long battles phase, a late deployment, the GM's
"advance now") closes later than the weekly close instead of leaving a few hours for orders.

Local times that do not exist or occur twice (at a daylight-saving change) follow PEP 495 with
``fold=0``: a time in the spring-forward gap is read with the offset before the change, so it
lands as far after the gap's start as it was meant to (02:30 in a 02:00-03:00 gap is 03:30 new
time); a time that occurs twice in the autumn is its first occurrence (the earlier moment).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from storage import Phase, Schedule, WeeklyTime

REMINDERS_BEFORE_DEADLINE = (
    ("deadline_24h", timedelta(hours=24)),
    ("deadline_2h", timedelta(hours=2)),
)
"""Reminders before the orders (and deployment) deadline: kind and time before it."""

RESULTS_REMINDER_AT = time(18, 0)
"""The results reminder goes out the evening before the resolution, at this local time."""


def on_clock(wall: datetime, zone: ZoneInfo) -> datetime:
    """The UTC moment the naive local time ``wall`` names in ``zone`` (gap and fold as in the
    module doc)."""
    return wall.replace(tzinfo=zone, fold=0).astimezone(UTC)


def local_moment(day: datetime, at: time, zone: ZoneInfo) -> datetime:
    """``at`` on ``day``'s date in ``zone``, as a UTC moment (gap and fold as in the module doc)."""
    return on_clock(datetime.combine(day.date(), at), zone)


def wall_shift(moment: datetime, by: timedelta, zone: ZoneInfo) -> datetime:
    """``moment`` moved ``by`` on the wall clock of ``zone``, as a UTC moment: the same local
    time ``by`` later, whatever the clocks did between (gap and fold as in the module doc)."""
    if not by:
        return moment.astimezone(UTC)
    return on_clock(moment.astimezone(zone).replace(tzinfo=None) + by, zone)


def wall_between(start: datetime, end: datetime, zone: ZoneInfo) -> timedelta:
    """How much later ``end`` is than ``start`` on the wall clock of ``zone``, in whole
    seconds, never negative: from Saturday 12:00 to Monday 12:00 is two days, also when the
    clocks went forward on the Sunday."""
    span = end.astimezone(zone).replace(tzinfo=None) - start.astimezone(zone).replace(tzinfo=None)
    return timedelta(seconds=max(int(span.total_seconds()), 0))


def next_weekly_wall(after: datetime, when: WeeklyTime, zone: ZoneInfo) -> datetime:
    """The local time (naive) of :func:`next_weekly`: ``when``'s weekday and time as
    configured, even where the clocks jump over it that day."""
    local = after.astimezone(zone)
    days = (int(when.weekday) - local.weekday()) % 7
    # From a week back: a time the clocks jumped over lands after the jump, maybe on the next
    # day (Saturday 23:30 in Nuuk's gap is Sunday 00:30), and may still be ahead of ``after``.
    for week in range(-1, 3):
        wall = datetime.combine(local.date() + timedelta(days=days + 7 * week), when.at)
        if on_clock(wall, zone) > after:
            return wall
    raise AssertionError("unreachable: a weekly moment comes within three weeks")


def next_weekly(after: datetime, when: WeeklyTime, zone: ZoneInfo) -> datetime:
    """The first moment strictly after ``after`` that is ``when`` on the wall clock of ``zone``."""
    return on_clock(next_weekly_wall(after, when, zone), zone)


def phase_deadline(
    phase: Phase, anchor: datetime, schedule: Schedule, zone: ZoneInfo
) -> datetime | None:
    """When the phase entered at ``anchor`` ends by itself; ``None``: only a person ends it.

    Manual mode has no deadlines. Deployment ends at the schedule's deployment deadline, if one
    is set and still ahead of ``anchor`` (an undo back to deployment after it: none); orders at
    the next orders close, or later so the window stays open its least length
    (:func:`orders_window`); battles at the next resolution. A resolution that waits for results
    (policy "wait for the GM") and setup have no deadline.
    """
    if schedule.mode == "manual":
        return None
    match phase:
        case Phase.DEPLOYMENT:
            # Entered after its fixed deadline (an undo back to it): no deadline, as a past
            # one would end it at once and count turn 1 from the missed date.
            fixed = schedule.deployment_deadline
            return fixed if fixed is None or fixed > anchor else None
        case Phase.ORDERS:
            return orders_window(anchor, schedule, zone)[1]
        case Phase.BATTLES:
            return battles_deadline(anchor, schedule, zone)
        case _:
            return None


def battles_length(schedule: Schedule) -> timedelta:
    """The least length of the battles phase, from the battle list's post to the resolution,
    on the wall clock: ``min_battles_hours`` if the schedule sets it, else its own battle list
    to resolution (Friday 12:00 to Monday 12:00: three days)."""
    if schedule.min_battles_hours is not None:
        return timedelta(hours=schedule.min_battles_hours)
    return _weekly_span(schedule.battle_list, schedule.resolution)


def orders_length(schedule: Schedule) -> timedelta:
    """The least length of an orders window, from its opening to its close, on the wall clock:
    ``min_orders_hours`` if the schedule sets it, else its own opening to close (Tuesday 00:00
    to Thursday 23:59: three days less a minute)."""
    if schedule.min_orders_hours is not None:
        return timedelta(hours=schedule.min_orders_hours)
    return _weekly_span(schedule.orders_open, schedule.orders_close)


def _weekly_span(start: WeeklyTime, end: WeeklyTime) -> timedelta:
    """From ``start`` to the next ``end`` on the weekly wall (a whole week when they meet)."""
    days = (int(end.weekday) - int(start.weekday)) % 7
    hours = datetime.combine(date.min, end.at) - datetime.combine(date.min, start.at)
    span = timedelta(days=days) + hours
    return span if span > timedelta(0) else span + timedelta(days=7)


def orders_window(
    anchor: datetime, schedule: Schedule, zone: ZoneInfo
) -> tuple[datetime | None, datetime]:
    """The orders window of an orders phase that began at ``anchor`` (weekly mode): its opening
    (``None``: open from the start, :func:`orders_open_at`) and its close: the next weekly close,
    or, when that leaves less than :func:`orders_length` after the opening on the wall clock,
    the first moment after that length whose minutes are the weekly close's (xx:59), so a close
    reads like the schedule's own (a window opened Wednesday 12:00 closes Saturday 11:59, one
    opened at 23:59 closes at 23:59) and is never more than an hour late. The length counts
    from the opening's configured local time (an opening the clocks jump over does not push the
    close), or from the start when the window is open at once."""
    weekly = next_weekly(anchor, schedule.orders_close, zone)
    opening = orders_open_at(anchor, weekly, schedule, zone)
    if opening is None:
        begins = anchor.astimezone(zone).replace(tzinfo=None)
    else:
        begins = next_weekly_wall(anchor - timedelta(microseconds=1), schedule.orders_open, zone)
    least = begins + orders_length(schedule)
    at = schedule.orders_close.at
    close = least.replace(minute=at.minute, second=at.second, microsecond=at.microsecond)
    if close < least:
        close += timedelta(hours=1)
    return opening, max(weekly, on_clock(close, zone))


def battles_deadline(orders_closed: datetime, schedule: Schedule, zone: ZoneInfo) -> datetime:
    """When the battles of an orders window closed at ``orders_closed`` are resolved: the next
    resolution moment, or later, so that :func:`battles_length` passes on the wall clock after
    the battle list's time (its configured local time; a close after it posts the list at
    once, and the length counts from the close)."""
    weekly = next_weekly(orders_closed, schedule.resolution, zone)
    listed = next_weekly_wall(orders_closed, schedule.battle_list, zone)
    if on_clock(listed, zone) >= weekly:
        listed = orders_closed.astimezone(zone).replace(tzinfo=None)
    return max(weekly, on_clock(listed + battles_length(schedule), zone))


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


class Milestone(StrEnum):
    """A moment of the week a campaign waits for."""

    DEPLOYMENT_ENDS = "deployment_ends"
    ORDERS_OPEN = "orders_open"
    ORDERS_CLOSE = "orders_close"
    BATTLE_LIST = "battle_list"
    RESOLUTION = "resolution"


@dataclass(frozen=True)
class Planned:
    """One moment the schedule brings: what happens, in which turn, when."""

    turn: int
    milestone: Milestone
    at: datetime


def plan_ahead(
    turn: int,
    phase: Phase,
    deadline: datetime | None,
    opening: datetime | None,
    schedule: Schedule,
    zone: ZoneInfo,
) -> tuple[Planned, ...]:
    """What the schedule brings from the current phase on, if nobody steps in: the pending
    orders ``opening`` and the ``deadline`` of the phase, then every step after it up to the
    close of the next orders window. Empty without a deadline (manual mode, a resolution)."""
    if deadline is None or schedule.mode == "manual":
        return ()
    plan: list[Planned] = []
    match phase:
        case Phase.DEPLOYMENT:
            plan.append(Planned(turn, Milestone.DEPLOYMENT_ENDS, deadline))
            start = deadline
        case Phase.ORDERS:
            resolution = battles_deadline(deadline, schedule, zone)
            if opening is not None:
                plan.append(Planned(turn, Milestone.ORDERS_OPEN, opening))
            plan += [
                Planned(turn, Milestone.ORDERS_CLOSE, deadline),
                Planned(
                    turn,
                    Milestone.BATTLE_LIST,
                    battle_list_time(deadline, schedule, zone) or deadline,
                ),
                Planned(turn, Milestone.RESOLUTION, resolution),
            ]
            start = resolution
        case Phase.BATTLES:
            plan.append(Planned(turn, Milestone.RESOLUTION, deadline))
            start = deadline
        case _:
            return ()
    opens, close = orders_window(start, schedule, zone)
    opens = opens or start
    plan += [
        Planned(turn + 1, Milestone.ORDERS_OPEN, opens),
        Planned(turn + 1, Milestone.ORDERS_CLOSE, close),
    ]
    return tuple(plan)


def moved(before: tuple[Planned, ...], after: tuple[Planned, ...]) -> list[tuple[Planned, Planned]]:
    """The moments of ``after`` that are not where ``before`` had them (same turn and
    milestone): (old, new) pairs, in the order of ``after``."""
    old = {(item.turn, item.milestone): item for item in before}
    return [
        (old[(item.turn, item.milestone)], item)
        for item in after
        if (item.turn, item.milestone) in old and old[(item.turn, item.milestone)].at != item.at
    ]


@dataclass(frozen=True)
class WindowChange:
    """A turn's orders window, from its opening to its close, before and after a change."""

    turn: int
    before: timedelta
    after: timedelta


def window_changes(
    before: tuple[Planned, ...], after: tuple[Planned, ...], zone: ZoneInfo
) -> list[WindowChange]:
    """The orders windows whose opening or close a change moves, with their lengths on the wall
    clock before and after (a window that shrinks, or keeps its length by a later close), in
    turn order. Only windows whose opening and close both are in both plans (a window already
    open has no opening in the plan)."""

    def windows(plan: tuple[Planned, ...]) -> dict[int, tuple[datetime, datetime]]:
        opens = {p.turn: p.at for p in plan if p.milestone is Milestone.ORDERS_OPEN}
        closes = {p.turn: p.at for p in plan if p.milestone is Milestone.ORDERS_CLOSE}
        return {turn: (opens[turn], closes[turn]) for turn in opens if turn in closes}

    old, new = windows(before), windows(after)
    return [
        WindowChange(turn, wall_between(*old[turn], zone), wall_between(opening, close, zone))
        for turn, (opening, close) in sorted(new.items())
        if turn in old and old[turn] != (opening, close)
    ]


def plan_weeks(
    plan: Sequence[Planned], schedule: Schedule, zone: ZoneInfo, turns: int
) -> tuple[Planned, ...]:
    """``plan`` (:func:`plan_ahead`) carried on week after week until it covers ``turns`` more
    orders closes: each close brings its list, its resolution and the next turn's window."""
    items = list(plan)
    seen = {(item.turn, item.milestone) for item in items}
    while True:
        closes = [item for item in items if item.milestone is Milestone.ORDERS_CLOSE]
        if not closes or len(closes) >= turns:
            return tuple(items)
        last = closes[-1]
        for item in plan_ahead(last.turn, Phase.ORDERS, last.at, None, schedule, zone):
            if (item.turn, item.milestone) not in seen:
                seen.add((item.turn, item.milestone))
                items.append(item)
