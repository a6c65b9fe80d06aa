"""Changing a running campaign (issue 23): its weekly schedule, its current deadline and its
language.

A schedule or a deadline change is first worked out without storing anything
(:func:`preview_schedule`, :func:`preview_deadline`): every date that moves, old and new, and a
``mark`` that fingerprints the clock and the settings it was worked out on. The GM confirms;
:func:`change_schedule` and :func:`set_deadline` refuse a mark that no longer matches (the
campaign moved on, another GM changed something: the dates shown would be wrong). A change is
audited by storage, and in the same transaction the group's announcement (worded when sent, in
the campaign's language), the pinned board's refresh and a fresh calendar for every chat that
asked for one (``/calendar``) are queued. Reminders of the phase due before the new deadline
are set going again; the scheduler reads the new deadline from the database at its next sweep.

A new schedule recomputes the current deadline from the phase's start (``sync_clock``: the
extension used and the time paused still count); a deadline the GM set by hand is replaced by
the schedule's then. A deadline set by hand holds until the phase ends (or the schedule
changes), across restarts: it is the clock row's.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from pydantic import JsonValue

from bot.modules import BOT_MODULES
from bot.services.calendars import calendar_updates
from bot.services.deadlines import (
    Planned,
    WindowChange,
    moved,
    plan_ahead,
    reminder_times,
    wall_between,
    wall_shift,
    window_changes,
)
from bot.services.deadlines import phase_deadline as scheduled_deadline
from bot.services.posting import board_post, group_post
from bot.services.reopening import active_reopening
from bot.services.schedule import clock_basis, sync_clock
from bot.services.window import orders_opening, week_plan
from storage import (
    Campaign,
    CampaignSettings,
    CampaignStatus,
    ClockState,
    DeadlineMove,
    Phase,
    Schedule,
    Store,
    Weekday,
    WeeklyTime,
)
from storage.models import Language, UserId

MAX_DAYS_AHEAD = 28
"""A deadline set by hand lies at most this many days ahead."""
LEAST_AHEAD = timedelta(minutes=10)
"""A deadline set by hand lies at least this far ahead (time to tell the players)."""
REASON = "GM changed a running campaign"
WEEK_MINUTES = 7 * 24 * 60


class ChangeRefusal(StrEnum):
    """Why a change cannot be made (or even shown)."""

    GONE = "gone"  # no such campaign
    NOT_RUNNING = "not_running"  # in setup or over
    PAUSED = "paused"  # the dates are not known until it resumes
    NO_DEADLINE = "no_deadline"  # manual mode, or a phase without a deadline (a resolution)
    TOO_SOON = "too_soon"  # a deadline not at least LEAST_AHEAD ahead
    TOO_FAR = "too_far"  # a deadline more than MAX_DAYS_AHEAD ahead
    BEFORE_OPENING = "before_opening"  # an orders deadline before the orders open
    OUT_OF_ORDER = "out_of_order"  # a week whose moments do not come in order
    UNCHANGED = "unchanged"  # the campaign has it already
    STALE = "stale"  # the campaign or its clock moved since the dates were shown


@dataclass(frozen=True)
class Preview:
    """What a change moves: (old, new) per moved moment, the current phase's deadline after it,
    whether that has passed already (the step then runs at once), and the ``mark``."""

    campaign: Campaign | None
    refusal: ChangeRefusal | None = None
    changes: tuple[tuple[Planned, Planned], ...] = ()
    deadline: datetime | None = None
    passed: bool = False
    mark: str = ""
    windows: tuple[WindowChange, ...] = ()  # orders windows the change shrinks or keeps


# ---- the week as typed and as packed into a button -------------------------------------------


def week_of(schedule: Schedule) -> tuple[WeeklyTime, WeeklyTime, WeeklyTime, WeeklyTime]:
    """The four weekly moments: orders open, orders close, battle list, resolution."""
    return (schedule.orders_open, schedule.orders_close, schedule.battle_list, schedule.resolution)


def with_week(schedule: Schedule, week: tuple[WeeklyTime, ...]) -> Schedule:
    """``schedule`` with the four weekly moments of ``week``, weekly mode."""
    opens, closes, listed, resolved = week
    return schedule.model_copy(
        update={
            "orders_open": opens,
            "orders_close": closes,
            "battle_list": listed,
            "resolution": resolved,
            "mode": "weekly",
        }
    )


def _minutes(when: WeeklyTime) -> int:
    return int(when.weekday) * 24 * 60 + when.at.hour * 60 + when.at.minute


def week_in_order(week: tuple[WeeklyTime, ...]) -> bool:
    """True when the moments come in their order once around the week: the orders open, then
    close, then the battle list, then the resolution, then the next opening."""
    points = [_minutes(when) for when in week]
    gaps = [(points[(i + 1) % 4] - points[i]) % WEEK_MINUTES for i in range(4)]
    return all(gap > 0 for gap in gaps[:3]) and sum(gaps) == WEEK_MINUTES


def pack_week(schedule: Schedule) -> str:
    """The schedule in a button: ``m`` for manual, else the weekday digit and HHMM of each of
    the four moments (20 characters)."""
    if schedule.mode == "manual":
        return "m"
    return "".join(f"{int(w.weekday)}{w.at.hour:02d}{w.at.minute:02d}" for w in week_of(schedule))


def unpack_week(packed: str, base: Schedule) -> Schedule | None:
    """The schedule a button carries (:func:`pack_week`), on ``base``; ``None`` if malformed."""
    if packed == "m":
        return base.model_copy(update={"mode": "manual"})
    if len(packed) != 20 or not (packed.isascii() and packed.isdigit()):
        return None
    week: list[WeeklyTime] = []
    for i in range(0, 20, 5):
        day, hour, minute = int(packed[i]), int(packed[i + 1 : i + 3]), int(packed[i + 3 : i + 5])
        if day > 6 or hour > 23 or minute > 59:
            return None
        week.append(WeeklyTime(weekday=Weekday(day), at=time(hour, minute)))
    return with_week(base, tuple(week))


# ---- previews -------------------------------------------------------------------------------


def _mark(campaign: Campaign, clock: ClockState) -> str:
    deadline = "" if clock.deadline is None else clock.deadline.isoformat()
    seen = f"{clock.entry_seq}|{deadline}|{clock_basis(campaign)}|{campaign.status.value}"
    return f"{zlib.crc32(seen.encode()):08x}"


def _refusal(campaign: Campaign) -> ChangeRefusal | None:
    if campaign.status in (CampaignStatus.SETUP, CampaignStatus.FINISHED):
        return ChangeRefusal.NOT_RUNNING
    if campaign.status is CampaignStatus.PAUSED:
        return ChangeRefusal.PAUSED
    return None


def _deadline_under(campaign: Campaign, clock: ClockState, schedule: Schedule) -> datetime | None:
    """The current phase's deadline under ``schedule``, as ``sync_clock`` will count it."""
    zone = ZoneInfo(campaign.time_zone)
    deadline = scheduled_deadline(campaign.phase, clock.anchor, schedule, zone)
    if deadline is None:
        return None
    bent = timedelta(hours=clock.extension_hours, seconds=clock.paused_seconds)
    return wall_shift(deadline, bent, zone)


async def current_mark(store: Store, campaign: Campaign, now: datetime) -> str:
    """The fingerprint of the campaign's clock and settings now."""
    return _mark(campaign, await sync_clock(store, campaign, now))


async def preview_schedule(
    store: Store, campaign_id: int, schedule: Schedule, now: datetime
) -> Preview:
    """What changing the weekly schedule to ``schedule`` moves."""
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return Preview(None, ChangeRefusal.GONE)
    refusal = _refusal(campaign)
    if refusal is not None:
        return Preview(campaign, refusal)
    if schedule.mode == "weekly" and not week_in_order(week_of(schedule)):
        return Preview(campaign, ChangeRefusal.OUT_OF_ORDER)
    if schedule == campaign.schedule:
        return Preview(campaign, ChangeRefusal.UNCHANGED)
    clock = await sync_clock(store, campaign, now)
    before = await week_plan(store, campaign, now)
    changed = campaign.model_copy(update={"schedule": schedule})
    deadline = _deadline_under(campaign, clock, schedule)
    reopening = await active_reopening(store, campaign)
    if reopening is not None:
        deadline = reopening.deadline
    opening = await orders_opening(store, changed, now)
    zone = ZoneInfo(campaign.time_zone)
    after = plan_ahead(campaign.turn, campaign.phase, deadline, opening, schedule, zone)
    return Preview(
        campaign,
        changes=tuple(moved(before, after)),
        windows=tuple(window_changes(before, after, zone)),
        deadline=deadline,
        passed=deadline is not None and deadline <= now,
        mark=_mark(campaign, clock),
    )


async def preview_deadline(
    store: Store, campaign_id: int, moment: datetime, now: datetime
) -> Preview:
    """What setting the current phase's deadline to ``moment`` moves."""
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return Preview(None, ChangeRefusal.GONE)
    refusal = _refusal(campaign)
    if refusal is not None:
        return Preview(campaign, refusal)
    clock = await sync_clock(store, campaign, now)
    if clock.deadline is None or campaign.schedule.mode == "manual":
        return Preview(campaign, ChangeRefusal.NO_DEADLINE)
    if moment < now + LEAST_AHEAD:
        return Preview(campaign, ChangeRefusal.TOO_SOON)
    if moment > now + timedelta(days=MAX_DAYS_AHEAD):
        return Preview(campaign, ChangeRefusal.TOO_FAR)
    opening = await orders_opening(store, campaign, now)
    if opening is not None and moment <= opening:
        return Preview(campaign, ChangeRefusal.BEFORE_OPENING, deadline=opening)
    if moment == clock.deadline:
        return Preview(campaign, ChangeRefusal.UNCHANGED)
    zone = ZoneInfo(campaign.time_zone)
    turn, phase, schedule = campaign.turn, campaign.phase, campaign.schedule
    before = plan_ahead(turn, phase, clock.deadline, opening, schedule, zone)
    after = plan_ahead(turn, phase, moment, opening, schedule, zone)
    return Preview(
        campaign,
        changes=tuple(moved(before, after)),
        windows=tuple(window_changes(before, after, zone)),
        deadline=moment,
        mark=_mark(campaign, clock),
    )


# ---- the changes ----------------------------------------------------------------------------


def _windows_payload(windows: tuple[WindowChange, ...]) -> list[JsonValue]:
    return [
        {
            "turn": window.turn,
            "before": int(window.before.total_seconds()),
            "after": int(window.after.total_seconds()),
        }
        for window in windows
    ]


def _changes_payload(changes: tuple[tuple[Planned, Planned], ...]) -> list[JsonValue]:
    return [
        {
            "turn": new.turn,
            "milestone": new.milestone.value,
            "before": old.at.isoformat(),
            "after": new.at.isoformat(),
        }
        for old, new in changes
    ]


def _rearm(
    clock: ClockState, deadline: datetime | None, zone: ZoneInfo, now: datetime
) -> list[str]:
    return [
        kind
        for kind, moment in reminder_times(clock.phase, clock.anchor, deadline, zone)
        if moment > now
    ]


def _stamp(now: datetime) -> str:
    return now.isoformat(timespec="microseconds")


async def change_schedule(
    store: Store,
    campaign_id: int,
    schedule: Schedule,
    mark: str,
    actor: UserId,
    actor_name: str,
    now: datetime,
) -> Preview:
    """Store the new schedule if the campaign is still as it was shown (``mark``): audited, the
    deadline recomputed, reminders set going again, the group told with every moved date, the
    board and the calendars sent anew. Returns what it moved (or why nothing)."""
    async with store.atomic():
        preview = await preview_schedule(store, campaign_id, schedule, now)
        campaign = preview.campaign
        if campaign is None or preview.refusal is not None:
            return preview
        if preview.mark != mark:
            return Preview(campaign, ChangeRefusal.STALE)
        changed = await store.update_settings(
            campaign.id, CampaignSettings(schedule=schedule), actor, now, REASON
        )
        clock = await sync_clock(store, changed, now)
        zone = ZoneInfo(changed.time_zone)
        await store.rearm_reminders(changed.id, _rearm(clock, clock.deadline, zone, now), now)
        key = f"schedule:{_stamp(now)}"
        weekly: JsonValue = (
            None
            if schedule.mode == "manual"
            else [[int(w.weekday), w.at.strftime("%H:%M")] for w in week_of(schedule)]
        )
        notice = group_post(
            changed,
            "schedule_changed",
            key,
            by=actor_name,
            weekly=weekly,
            changes=_changes_payload(preview.changes),
            windows=_windows_payload(preview.windows),
        )
        for message in (notice, board_post(changed, key)):
            await store.enqueue(message, now)
        for message in await calendar_updates(store, changed, key):
            await store.enqueue(message, now)
    return Preview(
        changed,
        changes=preview.changes,
        windows=preview.windows,
        deadline=clock.deadline,
        mark=mark,
    )


async def set_deadline(
    store: Store,
    campaign_id: int,
    moment: datetime,
    mark: str,
    actor: UserId,
    actor_name: str,
    now: datetime,
) -> Preview:
    """Put the current phase's deadline at ``moment`` if the campaign is still as it was shown
    (``mark``): audited and logged, reminders due before it set going again, the group told with
    every moved date, the board and the calendars sent anew."""
    async with store.atomic():
        preview = await preview_deadline(store, campaign_id, moment, now)
        campaign = preview.campaign
        if campaign is None or preview.refusal is not None:
            return preview
        if preview.mark != mark:
            return Preview(campaign, ChangeRefusal.STALE)
        clock = await sync_clock(store, campaign, now)
        zone = ZoneInfo(campaign.time_zone)
        key = f"deadline:{_stamp(now)}"
        notice = group_post(
            campaign,
            "deadline_set",
            key,
            by=actor_name,
            turn=campaign.turn,
            phase=campaign.phase.value,
            before=None if clock.deadline is None else clock.deadline.isoformat(),
            after=moment.isoformat(),
            changes=_changes_payload(preview.changes),
            windows=_windows_payload(preview.windows),
        )
        outbox = [notice, board_post(campaign, key), *await calendar_updates(store, campaign, key)]
        move = DeadlineMove(
            before=clock.deadline, after=moment, rearm=tuple(_rearm(clock, moment, zone, now))
        )
        if not await store.set_deadline(campaign.id, clock.entry_seq, move, actor, now, outbox):
            return Preview(campaign, ChangeRefusal.STALE)
        if clock.phase is Phase.BATTLES:
            by = (
                timedelta(0)
                if clock.deadline is None
                else wall_between(clock.deadline, moment, zone)
            )
            for module in BOT_MODULES.values():
                await module.shift_steps(store, campaign, by, moment, now)
    return preview


async def change_language(
    store: Store,
    campaign: Campaign,
    language: Language,
    actor: UserId,
    actor_name: str,
    now: datetime,
) -> Campaign | None:
    """Set the language of the campaign's posts (audited); the group is told in it, and the
    board and the calendars are sent anew in it. ``None`` when it had that language already."""
    if campaign.language == language:
        return None
    async with store.atomic():
        changed = await store.update_settings(
            campaign.id, CampaignSettings(language=language), actor, now, REASON
        )
        key = f"language:{_stamp(now)}"
        outbox = [
            group_post(changed, "language_changed", key, by=actor_name, language=language),
            board_post(changed, key),
            *await calendar_updates(store, changed, key),
        ]
        for message in outbox:
            await store.enqueue(message, now)
    return changed
