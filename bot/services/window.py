"""The phase a campaign is in and when its orders window opens, read from the database.

A turn begins when the previous one resolves (Monday 12:00 by default) but its orders window
opens at the schedule's ``orders_open`` (RULES.md 3.2: Tuesday 00:00, campaign time). Until
then a side sees its armies and the map but gives no orders. A phase a person started (the GM's
"advance now", an undo) is open at once: the GM asked for it now. A pause moves a pending opening
by the paused time on the campaign's wall clock, like every other pending deadline; an extension
moves only the close.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.services.deadlines import (
    Planned,
    orders_window,
    phase_deadline,
    plan_ahead,
    wall_between,
    wall_shift,
)
from storage import (
    Campaign,
    ClockNoteKind,
    ClockState,
    OrdersReopening,
    Phase,
    PhaseEntry,
    Store,
)


@dataclass(frozen=True)
class EntryMoment:
    """The phase-history entry a campaign is in: its ``seq``, when it began (the entry, or the
    latest undo that brought the campaign back to it), whether a person made it, and whether an
    undo brought the campaign back to it (``returned``: it then ends only at its deadline or by
    the GM, not early by itself)."""

    seq: int
    began: datetime
    by_person: bool
    returned: bool = False


def position_mark(history: Sequence[PhaseEntry]) -> int:
    """A number that changes whenever the campaign moves: each step adds an entry to its phase
    history and each undo marks one undone, so a confirmation made for one moment (the GM's
    "advance now", "undo") is refused at any other, even when an undo brought the campaign back
    to the same turn and phase."""
    return len(history) + sum(1 for entry in history if entry.undone_at is not None)


async def current_entry(store: Store, campaign: Campaign) -> EntryMoment:
    """The phase-history entry the campaign is in now."""
    return entry_in(await store.phase_history(campaign.id), campaign)


def entry_in(history: Sequence[PhaseEntry], campaign: Campaign) -> EntryMoment:
    """The phase-history entry the campaign is in, from its whole history."""
    live = [entry for entry in history if entry.undone_at is None]
    if not live:
        return EntryMoment(0, campaign.created_at, False)
    entry = live[-1]
    undone = [e.undone_at for e in history if e.seq > entry.seq and e.undone_at is not None]
    return EntryMoment(
        entry.seq,
        max([entry.entered_at, *undone]),
        entry.actor is not None or bool(undone),
        bool(undone),
    )


async def reopening_of(
    store: Store, campaign: Campaign, entry: EntryMoment
) -> OrdersReopening | None:
    """The reopening a GM made of ``entry``'s orders, unless an undo came back to the entry
    after it: its short deadline and its early close belonged to the pass the undo took back
    (kept, they would close the orders again at once)."""
    reopening = await store.orders_reopening(campaign.id, entry.seq)
    if reopening is None or (entry.returned and reopening.reopened_at < entry.began):
        return None
    return reopening


async def undone_back(store: Store, campaign: Campaign) -> bool:
    """Whether the GM's undo brought the campaign back to the phase it is in (the phase then
    ends at its deadline or by the GM, never early by itself)."""
    return (await current_entry(store, campaign)).returned


async def held_by(store: Store, campaign: Campaign, entry_seq: int) -> str | None:
    """Why the step of phase entry ``entry_seq`` could not happen at its deadline (the last
    :class:`~bot.services.clockwork.BlockReason` the scheduler noted for it), or ``None`` if it
    was never blocked."""
    reasons = [
        note.detail.get("reason")
        for note in await store.clock_log(campaign.id)
        if note.kind is ClockNoteKind.BLOCKED
        and (note.turn, note.phase) == (campaign.turn, campaign.phase)
        and note.detail.get("entry") == entry_seq
    ]
    return str(reasons[-1]) if reasons else None


async def orders_opening(store: Store, campaign: Campaign, now: datetime) -> datetime | None:
    """When the current turn's orders window opens, if that is still ahead of ``now``; ``None``
    when orders can be given now (or the campaign is not in its orders phase)."""
    if campaign.phase is not Phase.ORDERS or campaign.schedule.mode == "manual":
        return None
    entry = await current_entry(store, campaign)
    if entry.by_person:
        return None
    return opening_after(campaign, entry, await store.clock_state(campaign.id), now)


def opening_after(
    campaign: Campaign, entry: EntryMoment, clock: ClockState | None, now: datetime
) -> datetime | None:
    """:func:`orders_opening` from what it reads: the entry the campaign is in and its clock."""
    if campaign.phase is not Phase.ORDERS or campaign.schedule.mode == "manual" or entry.by_person:
        return None
    zone = ZoneInfo(campaign.time_zone)
    current = clock is not None and clock.entry_seq == entry.seq
    anchor = clock.anchor if clock is not None and current else entry.began
    opening, _close = orders_window(anchor, campaign.schedule, zone)
    if opening is None:
        return None
    if clock is not None and current:
        opening = wall_shift(opening, timedelta(seconds=clock.paused_seconds), zone)
        if clock.paused_at is not None and clock.paused_at < opening:
            opening = wall_shift(opening, wall_between(clock.paused_at, now, zone), zone)
    return opening if opening > now else None


async def current_deadline(store: Store, campaign: Campaign) -> datetime | None:
    """The deadline of the phase the campaign is in: as the scheduler recorded it (extended,
    moved by pauses), or as it will work it out (a post may go out before it has looked)."""
    entry = await current_entry(store, campaign)
    clock = await store.clock_state(campaign.id)
    if clock is not None and clock.entry_seq == entry.seq:
        return clock.deadline
    zone = ZoneInfo(campaign.time_zone)
    return phase_deadline(campaign.phase, entry.began, campaign.schedule, zone)


async def week_plan(store: Store, campaign: Campaign, now: datetime) -> tuple[Planned, ...]:
    """What the schedule brings from ``now`` on (:func:`~bot.services.deadlines.plan_ahead`):
    the pending orders opening, the deadline, and the steps after it to the next turn's close."""
    deadline = await current_deadline(store, campaign)
    opening = await orders_opening(store, campaign, now)
    zone = ZoneInfo(campaign.time_zone)
    return plan_ahead(campaign.turn, campaign.phase, deadline, opening, campaign.schedule, zone)
