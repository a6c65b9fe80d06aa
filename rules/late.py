"""Late orders: rule-module orders given after the battle list, before resolution (MODULES.md
A2.9), such as a card played once the list is out. They are checked against the turn-start
state and the list, one at a time against the side's late orders accepted before, like the
orders window's.
"""

from __future__ import annotations

from rules.battles import BattlePlan
from rules.game import Game
from rules.orders import ModuleOrder, OrderRule, Rejection
from rules.state import CampaignState, SideId


def validate_late_order(
    game: Game,
    state: CampaignState,
    plan: BattlePlan,
    side: SideId,
    order: ModuleOrder,
    current: tuple[ModuleOrder, ...] = (),
) -> Rejection | None:
    """The first rule the late ``order`` breaks, given the side's ``current`` late orders."""
    if side not in state.armies:
        return Rejection(side=side, order=order, rule=OrderRule.SIDE_NOT_IN_PLAY)
    module = game.module(order.module)
    if module is None:
        return Rejection(
            side=side, order=order, rule=OrderRule.UNKNOWN_MODULE, params={"module": order.module}
        )
    return module.validate_late_order(game, state, plan, side, order, current)


def enter_late_order(
    game: Game,
    state: CampaignState,
    plan: BattlePlan,
    side: SideId,
    current: tuple[ModuleOrder, ...],
    order: ModuleOrder,
) -> tuple[tuple[ModuleOrder, ...], Rejection | None]:
    """Add one late order; on rejection ``current`` comes back unchanged with the reason."""
    rejection = validate_late_order(game, state, plan, side, order, current)
    if rejection is not None:
        return current, rejection
    return (*current, order), None


def accept_late_orders(
    game: Game,
    state: CampaignState,
    plan: BattlePlan,
    side: SideId,
    orders: tuple[ModuleOrder, ...],
) -> tuple[tuple[ModuleOrder, ...], list[Rejection]]:
    """Check a side's late orders in the order given; a refused one is dropped."""
    accepted: tuple[ModuleOrder, ...] = ()
    rejected: list[Rejection] = []
    for order in orders:
        accepted, rejection = enter_late_order(game, state, plan, side, accepted, order)
        if rejection is not None:
            rejected.append(rejection)
    return accepted, rejected


def legal_late_orders(
    game: Game,
    state: CampaignState,
    plan: BattlePlan,
    side: SideId,
    current: tuple[ModuleOrder, ...] = (),
) -> dict[str, tuple[ModuleOrder, ...]]:
    """Every late order ``side`` may add to ``current`` now, by enabled module."""
    if side not in state.armies:
        return {module.name: () for module in game.modules}
    return {
        module.name: module.legal_late_options(game, state, plan, side, current)
        for module in game.modules
    }
