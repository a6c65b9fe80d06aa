"""Order validation against the turn-start state. Validation never changes anything.

Three ways in, one set of checks (:func:`validate_order`):

* :func:`validate_order`: may this order be added to the side's ``current`` orders as they are?
  A second move from a sector, or an attack where a move is given, is refused.
* :func:`enter_order`: the bot's "last write wins": a move replaces whatever the sector had, an
  attack replaces the sector's move (earlier attacks stay). A refused order leaves ``current``
  untouched.
* :func:`accept_orders`: a whole order set, as the adjudicator command receives it. Moves are
  taken first, then attacks, each in declaration order and each checked against the orders
  accepted before it; a refused order is dropped, so it never blocks a later one.

The orbital reinforcement sector is not an error in a batch (RULES.md Appendix A): an invalid
one is dropped and step 5 places the army. Entered one at a time, it is checked.

A rule module's order that claims its sector (``ModuleOrder.claims_sector``: an assault, a
steer) is that sector's order: a move or an attack there is refused while it stands, and entered
the player's way it replaces the sector's move and attacks, as a move does. After the core's own
checks, every enabled module may still refuse a core order (``check_core_order``).
"""

from __future__ import annotations

from rules.game import Game
from rules.orders import (
    Attack,
    Fortify,
    ModuleOrder,
    Move,
    Order,
    OrderRule,
    Reinforce,
    Rejection,
    SideOrders,
)
from rules.state import CampaignState, SideId

AnyOrder = Move | Attack | Fortify | Reinforce | ModuleOrder


def _reject(side: SideId, order: AnyOrder, rule: OrderRule, **params: str | int) -> Rejection:
    return Rejection(side=side, order=order, rule=rule, params=params)


def validate_order(
    game: Game,
    state: CampaignState,
    side: SideId,
    order: Order,
    current: SideOrders | None = None,
) -> Rejection | None:
    """The first rule ``order`` breaks, given the side's ``current`` orders; ``None`` if legal."""
    current = current or SideOrders()
    if side not in state.armies:
        return _reject(side, order, OrderRule.SIDE_NOT_IN_PLAY)
    if isinstance(order, ModuleOrder):
        module = game.module(order.module)
        if module is None:
            return _reject(side, order, OrderRule.UNKNOWN_MODULE, module=order.module)
        return module.validate_order(game, state, side, order, current)
    sector = order.source if isinstance(order, Move) else order.sector
    if sector not in game.map.by_id:
        return _reject(side, order, OrderRule.UNKNOWN_SECTOR, sector=sector)
    armies = state.armies_of(side, sector)
    if armies == 0:
        rule = (
            OrderRule.REINFORCE_WITHOUT_ARMIES
            if isinstance(order, Reinforce)
            else OrderRule.NO_ARMIES_IN_SECTOR
        )
        return _reject(side, order, rule, sector=sector)
    match order:
        case Move():
            rejection = _check_move(game, side, order, armies, current)
        case Attack():
            rejection = _check_attack(game, state, side, order, armies, current)
        case _:
            rejection = None
    if rejection is not None:
        return rejection
    for module in game.modules:
        refused = module.check_core_order(game, state, side, order, current)
        if refused is not None:
            return refused
    return None


def _claimed(side: SideId, order: AnyOrder, sector: str, current: SideOrders) -> Rejection | None:
    claim = current.module_order_in(sector)
    if claim is None:
        return None
    return _reject(
        side, order, OrderRule.SECTOR_HAS_MODULE_ORDER, sector=sector, module=claim.module
    )


def _check_move(
    game: Game, side: SideId, move: Move, armies: int, current: SideOrders
) -> Rejection | None:
    sector = move.source
    kept = current.move_from(sector)
    several = game.several_moves()
    if kept is not None and not several:
        return _reject(side, move, OrderRule.SECOND_MOVE_FROM_SECTOR, sector=sector, to=kept.to)
    if move.to == sector:
        return _reject(side, move, OrderRule.MOVE_TO_SAME_SECTOR, sector=sector)
    if move.to not in game.map.by_id:
        return _reject(side, move, OrderRule.UNKNOWN_SECTOR, sector=move.to)
    if not game.map.adjacent(sector, move.to):
        return _reject(side, move, OrderRule.MOVE_NOT_ADJACENT, sector=sector, to=move.to)
    most = armies - 1 - (game.moving_out(side, current, sector) if several else 0)
    if not 1 <= move.count <= most:
        return _reject(
            side,
            move,
            OrderRule.MOVE_COUNT_OUT_OF_RANGE,
            sector=sector,
            count=move.count,
            min=1,
            max=max(0, most),
        )
    if current.attacks_in(sector):
        return _reject(side, move, OrderRule.MOVE_AND_ATTACK_IN_SECTOR, sector=sector, to=move.to)
    return _claimed(side, move, sector, current)


def _check_attack(
    game: Game,
    state: CampaignState,
    side: SideId,
    attack: Attack,
    armies: int,
    current: SideOrders,
) -> Rejection | None:
    sector = attack.sector
    if attack.target == side:
        return _reject(side, attack, OrderRule.ATTACK_OWN_SIDE, sector=sector)
    if attack.target not in state.armies:
        return _reject(side, attack, OrderRule.UNKNOWN_SIDE, target=attack.target)
    if state.armies_of(attack.target, sector) == 0:
        return _reject(
            side, attack, OrderRule.ATTACK_WITHOUT_OPPONENT, sector=sector, target=attack.target
        )
    move = current.move_from(sector)
    if move is not None:
        return _reject(side, attack, OrderRule.MOVE_AND_ATTACK_IN_SECTOR, sector=sector, to=move.to)
    claimed = _claimed(side, attack, sector, current)
    if claimed is not None:
        return claimed
    limit = game.ruleset.attack_limit(armies)
    if len(current.attacks_in(sector)) >= limit:
        return _reject(
            side, attack, OrderRule.ATTACK_LIMIT_EXCEEDED, sector=sector, armies=armies, limit=limit
        )
    return None


def enter_order(
    game: Game,
    state: CampaignState,
    side: SideId,
    current: SideOrders,
    order: Order,
) -> tuple[SideOrders, Rejection | None]:
    """Give one order the way a player does: it replaces what the sector had.

    A move, or a module order that claims its sector, replaces the sector's orders; an attack
    replaces the sector's move (or claiming module order) and keeps its attacks. Where a module
    allows several moves from one sector (``several_moves_per_sector``), a move is added after
    the sector's moves and replaces only its attacks. Returns the side's orders afterwards and
    the rejection, if any; on rejection the orders are ``current`` unchanged.
    """
    match order:
        case Move() if game.several_moves():
            base = current.model_copy(
                update={"attacks": tuple(a for a in current.attacks if a.sector != order.source)}
            )
        case Move():
            base = current.without_sector(order.source)
        case Attack():
            base = current.without_move(order.sector)
        case ModuleOrder(claims_sector=True, sector=str() as sector):
            base = current.without_sector(sector)
        case _:
            base = current
    rejection = validate_order(game, state, side, order, base)
    if rejection is not None:
        return current, rejection
    return base.with_order(order), None


def accept_orders(
    game: Game, state: CampaignState, side: SideId, orders: SideOrders
) -> tuple[SideOrders, list[Rejection]]:
    """Check a whole order set (moves first, then attacks, then module orders).

    Returns the accepted orders and the rejections, in the order checked. An invalid
    reinforcement sector is dropped without a rejection (RULES.md Appendix A).
    """
    accepted = SideOrders()
    rejected: list[Rejection] = []
    given: tuple[AnyOrder, ...] = (*orders.moves, *orders.attacks, *orders.extra)
    for order in given:
        rejection = validate_order(game, state, side, order, accepted)
        if rejection is None:
            accepted = accepted.with_order(order)
        else:
            rejected.append(rejection)
    if orders.reinforce is not None:
        reinforce = Reinforce(sector=orders.reinforce)
        if validate_order(game, state, side, reinforce, accepted) is None:
            accepted = accepted.with_order(reinforce)
    return accepted, rejected
