"""Late orders (MODULES.md A2.9): rule-module orders a side gives after the battle list and
before the resolution, such as cards played after the battles.

The window is the battles phase (and a resolution that waits for results). Each order is
checked by the rules core against the turn's start, the battle list's plan (planned again from
the stored orders and seeds: the same plan) and the side's late orders so far; the set is
stored with a compare-and-set, secret until the resolution uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.modules import BOT_MODULES
from bot.services.turns import game_for
from rules import (
    BattlePlan,
    CampaignState,
    Game,
    ModuleOrder,
    Rejection,
    enter_late_order,
    legal_late_orders,
    plan_battles,
)
from storage import Campaign, Phase, Store, WriteOutcome
from storage.models import SideId, UserId

LATE_PHASES = (Phase.BATTLES, Phase.RESOLUTION)
SAVE_ATTEMPTS = 5


class LateRefusal(StrEnum):
    """Why a late order was not taken (nothing changed)."""

    CLOSED = "closed"  # not between the battle list and the resolution (or a stale button)
    NOT_STRATEGIST = "not_strategist"
    BUSY = "busy"
    FINAL = "final"  # a module's final late orders (a duel step's plays): they stay played


def _final(module: str) -> bool:
    """Whether ``module``'s late orders cannot be taken back (:meth:`BotModule.late_orders_final`),
    read from the registry when asked (a module registered later counts too)."""
    found = BOT_MODULES.get(module)
    return found is not None and found.late_orders_final()


@dataclass(frozen=True)
class LateDesk:
    """A side's late orders of the current turn with what they are checked against."""

    campaign: Campaign
    game: Game
    state: CampaignState
    plan: BattlePlan
    side: SideId
    current: tuple[ModuleOrder, ...]
    edits: int | None

    def options(self) -> tuple[ModuleOrder, ...]:
        """Every late order the side may add now, all modules together."""
        found = legal_late_orders(self.game, self.state, self.plan, self.side, self.current)
        return tuple(order for orders in found.values() for order in orders)


@dataclass(frozen=True)
class LateResult:
    """What :func:`give_late_order` did: the desk after it, or the refusal or rejection."""

    desk: LateDesk | None
    refusal: LateRefusal | None = None
    rejection: Rejection | None = None
    changed: bool = False


async def late_desk(
    store: Store, campaign_id: int, side: SideId, turn: int | None = None
) -> LateDesk | None:
    """The side's late desk, if the campaign is in the late window (of ``turn`` if given)."""
    campaign = await store.campaign(campaign_id)
    if campaign is None or campaign.phase not in LATE_PHASES:
        return None
    if turn is not None and campaign.turn != turn:
        return None
    game = game_for(campaign)
    if not game.modules:
        return None
    inputs = await store.turn_inputs(campaign.id, campaign.turn)
    if inputs.battle_list is None or side not in inputs.state.armies:
        return None
    plan = plan_battles(game, inputs.state, inputs.orders, inputs.seeds)
    stored = (await store.late_orders(campaign.id, campaign.turn)).get(side)
    return LateDesk(
        campaign=campaign,
        game=game,
        state=inputs.state,
        plan=plan,
        side=side,
        current=() if stored is None else stored.orders,
        edits=None if stored is None else stored.edits,
    )


async def give_late_order(
    store: Store,
    campaign_id: int,
    side: SideId,
    order: ModuleOrder,
    actor: UserId,
    now: datetime,
    turn: int | None = None,
) -> LateResult:
    """Add ``order`` to the side's late orders, if the rules take it (``rejection`` says why
    not). The caller has checked that ``actor`` gives the side's orders."""
    for _attempt in range(SAVE_ATTEMPTS):
        desk = await late_desk(store, campaign_id, side, turn)
        if desk is None:
            return LateResult(None, LateRefusal.CLOSED)
        after, rejection = enter_late_order(
            desk.game, desk.state, desk.plan, side, desk.current, order
        )
        if rejection is not None:
            return LateResult(desk, rejection=rejection)
        saved = await store.save_late_orders(
            campaign_id,
            desk.campaign.turn,
            side,
            after,
            actor,
            now,
            expected_edits=desk.edits,
        )
        if saved.outcome is WriteOutcome.CONFLICT:
            continue
        if saved.outcome is not WriteOutcome.SAVED or saved.late is None:
            return LateResult(None, LateRefusal.CLOSED)
        changed = LateDesk(
            desk.campaign,
            desk.game,
            desk.state,
            desk.plan,
            side,
            saved.late.orders,
            saved.late.edits,
        )
        return LateResult(changed, changed=True)
    return LateResult(None, LateRefusal.BUSY)


async def take_back_late_order(
    store: Store,
    campaign_id: int,
    side: SideId,
    index: int,
    expected: ModuleOrder,
    actor: UserId,
    now: datetime,
    turn: int | None = None,
) -> LateResult:
    """Take back the side's late order ``index`` if it is still ``expected`` (else nothing
    changes); never a duel step's (``FINAL``)."""
    if _final(expected.module):
        return LateResult(await late_desk(store, campaign_id, side, turn), LateRefusal.FINAL)
    for _attempt in range(SAVE_ATTEMPTS):
        desk = await late_desk(store, campaign_id, side, turn)
        if desk is None:
            return LateResult(None, LateRefusal.CLOSED)
        if not 0 <= index < len(desk.current) or desk.current[index] != expected:
            return LateResult(desk)
        if _final(desk.current[index].module):
            return LateResult(desk, LateRefusal.FINAL)
        after = desk.current[:index] + desk.current[index + 1 :]
        saved = await store.save_late_orders(
            campaign_id, desk.campaign.turn, side, after, actor, now, expected_edits=desk.edits
        )
        if saved.outcome is WriteOutcome.CONFLICT:
            continue
        if saved.outcome is not WriteOutcome.SAVED or saved.late is None:
            return LateResult(None, LateRefusal.CLOSED)
        changed = LateDesk(
            desk.campaign,
            desk.game,
            desk.state,
            desk.plan,
            side,
            saved.late.orders,
            saved.late.edits,
        )
        return LateResult(changed, changed=True)
    return LateResult(None, LateRefusal.BUSY)
