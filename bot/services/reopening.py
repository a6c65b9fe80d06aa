"""Reopen one side's orders after the window closed (issue 23), with a short deadline, without
touching the others' orders.

When it makes sense:

* **orders**, once the deadline has passed but the orders did not close (the no-show policy
  waits for the GM, or a module's choice is pending): the entry's deadline moves to now + the
  hours chosen;
* **battles**, while the battle list is still held (not yet posted in the group): the orders'
  close is undone (the held list and its notices are cancelled, nothing is deleted) and the
  orders entry it restores gets the short deadline.

Not once the battle list is public (players may have arranged their games: the GM undoes the
step instead, which reopens every side), nor in the resolution, nor while paused. During a
reopening only that side may change its orders; at its deadline, or as soon as that side marks
its orders ready, the orders close as usual and the battle list is posted at its planned
moment if that is still ahead, else at once. The reopening is stored (``orders_reopenings``):
the scheduler reads the deadline back after a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.services.campaigns import battle_list_public_at
from bot.services.deadlines import battle_list_time
from bot.services.posting import board_post, group_post, private_post
from bot.services.window import current_entry, reopening_of
from storage import (
    Campaign,
    CampaignStatus,
    NewOutboxMessage,
    OrdersReopening,
    Phase,
    Role,
    Store,
    TransitionOutcome,
)
from storage.models import SideId, UserId

REOPEN_HOURS = (1, 3, 6, 12)
"""The short deadlines a GM chooses from, in hours."""

REASON = "GM reopened one side's orders"


class ReopenOutcome(StrEnum):
    """What a reopening did."""

    REOPENED = "reopened"
    WINDOW_OPEN = "window_open"  # the orders window is still open for everyone
    LIST_PUBLIC = "list_public"  # the battle list is public: undo the step instead
    WRONG_PHASE = "wrong_phase"  # deployment, resolution or finished
    PAUSED = "paused"
    NOT_IN_PLAY = "not_in_play"  # no such side on the map this turn
    ALREADY = "already"  # this orders entry was reopened already
    STALE = "stale"  # the campaign moved meanwhile


@dataclass(frozen=True)
class ReopenResult:
    """The outcome and, when reopened, the reopening."""

    outcome: ReopenOutcome
    reopening: OrdersReopening | None = None


def may_reopen(campaign: Campaign) -> bool:
    """Whether the GM panel offers the tool (the phases where it may work)."""
    return campaign.status is CampaignStatus.RUNNING and campaign.phase in (
        Phase.ORDERS,
        Phase.BATTLES,
    )


async def reopenable_sides(store: Store, campaign: Campaign) -> list[SideId]:
    """The sides on the map this turn, in the campaign's order."""
    state = await store.turn_start(campaign.id, campaign.turn)
    if state is None:
        return []
    on_map = set(state.sides())
    return [side.id for side in await store.sides(campaign.id) if side.id in on_map]


async def active_reopening(store: Store, campaign: Campaign) -> OrdersReopening | None:
    """The reopening of the orders entry the campaign is in now, if any."""
    if campaign.phase is not Phase.ORDERS:
        return None
    return await reopening_of(store, campaign, await current_entry(store, campaign))


async def reopen_side_orders(
    store: Store,
    campaign_id: int,
    expected_turn: int,
    expected_phase: Phase,
    side: SideId,
    hours: int,
    actor: UserId,
    now: datetime,
) -> ReopenResult:
    """Reopen ``side``'s orders for ``hours`` (one of :data:`REOPEN_HOURS`); audited, the group
    and the side told (the group without any contents)."""
    if hours not in REOPEN_HOURS:
        raise ValueError(f"a reopening lasts one of {REOPEN_HOURS} hours, not {hours}")
    campaign = await store.campaign(campaign_id)
    if campaign is None or (campaign.turn, campaign.phase) != (expected_turn, expected_phase):
        return ReopenResult(ReopenOutcome.STALE)
    if campaign.status is CampaignStatus.PAUSED:
        return ReopenResult(ReopenOutcome.PAUSED)
    if not may_reopen(campaign):
        return ReopenResult(ReopenOutcome.WRONG_PHASE)
    if side not in await reopenable_sides(store, campaign):
        return ReopenResult(ReopenOutcome.NOT_IN_PLAY)
    zone = ZoneInfo(campaign.time_zone)
    async with store.atomic():
        if campaign.phase is Phase.ORDERS:
            clock = await store.clock_state(campaign.id)
            entry = await current_entry(store, campaign)
            closed = (
                clock is not None
                and clock.entry_seq == entry.seq
                and clock.deadline is not None
                and clock.deadline <= now
            )
            if await store.orders_reopening(campaign.id, entry.seq) is not None:
                return ReopenResult(ReopenOutcome.ALREADY)
            if clock is None or clock.deadline is None or not closed:
                return ReopenResult(ReopenOutcome.WINDOW_OPEN)
            list_at = battle_list_time(clock.deadline, campaign.schedule, zone)
        else:
            list_at = await battle_list_public_at(store, campaign, now)
            if list_at is None:
                return ReopenResult(ReopenOutcome.LIST_PUBLIC)
            step = len(await store.phase_history(campaign.id))
            undone = await store.undo_last_step(
                campaign.id,
                campaign.turn,
                Phase.BATTLES,
                actor,
                REASON,
                now,
                [board_post(campaign, f"reopen:{step}")],
            )
            if undone.outcome is not TransitionOutcome.APPLIED or undone.campaign is None:
                return ReopenResult(ReopenOutcome.STALE)
            campaign = undone.campaign
            entry = await current_entry(store, campaign)
        reopening = OrdersReopening(
            campaign_id=campaign.id,
            entry_seq=entry.seq,
            turn=campaign.turn,
            side_id=side,
            hours=hours,
            deadline=now + timedelta(hours=hours),
            list_at=list_at,
            reopened_by=actor,
            reopened_at=now,
        )
        outbox = await _notices(store, campaign, reopening)
        if not await store.reopen_orders(reopening, now, outbox):
            return ReopenResult(ReopenOutcome.ALREADY)
    return ReopenResult(ReopenOutcome.REOPENED, reopening)


async def _notices(
    store: Store, campaign: Campaign, reopening: OrdersReopening
) -> list[NewOutboxMessage]:
    key = f"reopen:{reopening.entry_seq}"
    payload = {"side": reopening.side_id, "deadline": reopening.deadline.isoformat()}
    strategists = [
        m.user_id
        for m in await store.members(campaign.id)
        if m.side_id == reopening.side_id and Role.STRATEGIST in m.roles
    ]
    people = await store.people(strategists)
    reachable = [u for u in strategists if u in people and people[u].can_receive_private]
    return [
        group_post(campaign, "orders_reopened", key, **payload),
        *(private_post(campaign, u, "orders_reopened", key, **payload) for u in reachable),
        board_post(campaign, key),
    ]
