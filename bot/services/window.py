"""The phase a campaign is in and when its orders window opens, read from the database.

A turn begins when the previous one resolves (Monday 12:00 by default) but its orders window
opens at the schedule's ``orders_open`` (RULES.md 3.2: Tuesday 00:00, campaign time). Until
then a side sees its armies and the map but gives no orders. A phase a person started (the GM's
"advance now", an undo) is open at once: the GM asked for it now. A pause moves a pending opening
by the paused time, like every other pending deadline.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.services.deadlines import orders_open_at, phase_deadline
from storage import Campaign, Phase, Store


@dataclass(frozen=True)
class EntryMoment:
    """The phase-history entry a campaign is in: its ``seq``, when it began (the entry, or the
    latest undo that brought the campaign back to it), and whether a person made it."""

    seq: int
    began: datetime
    by_person: bool


async def current_entry(store: Store, campaign: Campaign) -> EntryMoment:
    """The phase-history entry the campaign is in now."""
    history = await store.phase_history(campaign.id)
    live = [entry for entry in history if entry.undone_at is None]
    if not live:
        return EntryMoment(0, campaign.created_at, False)
    entry = live[-1]
    undone = [e.undone_at for e in history if e.seq > entry.seq and e.undone_at is not None]
    return EntryMoment(
        entry.seq, max([entry.entered_at, *undone]), entry.actor is not None or bool(undone)
    )


async def orders_opening(store: Store, campaign: Campaign, now: datetime) -> datetime | None:
    """When the current turn's orders window opens, if that is still ahead of ``now``; ``None``
    when orders can be given now (or the campaign is not in its orders phase)."""
    if campaign.phase is not Phase.ORDERS or campaign.schedule.mode == "manual":
        return None
    entry = await current_entry(store, campaign)
    if entry.by_person:
        return None
    zone = ZoneInfo(campaign.time_zone)
    clock = await store.clock_state(campaign.id)
    current = clock is not None and clock.entry_seq == entry.seq
    anchor = clock.anchor if clock is not None and current else entry.began
    planned = phase_deadline(Phase.ORDERS, anchor, campaign.schedule, zone)
    opening = orders_open_at(anchor, planned, campaign.schedule, zone)
    if opening is None:
        return None
    if clock is not None and current:
        if clock.deadline is not None and planned is not None:
            paused = clock.deadline - timedelta(hours=clock.extension_hours) - planned
            opening += max(paused, timedelta(0))
        if clock.paused_at is not None and clock.paused_at < opening:
            opening += max(now - clock.paused_at, timedelta(0))
    return opening if opening > now else None
