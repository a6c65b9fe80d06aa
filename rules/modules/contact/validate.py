"""Checks of ``contact`` orders (MODULES.md C3) against the turn-start state and the side's
orders so far; each returns the first rule broken, in :class:`ContactRule`'s order."""

from __future__ import annotations

from collections.abc import Iterable

from rules.game import CoreOrder, Game
from rules.maps import SectorId
from rules.modules.contact.orders import (
    ContactOrderData,
    ContactRule,
    OrderDataError,
    RetreatToData,
    TransportData,
    YieldData,
    parse_data,
)
from rules.modules.contact.settings import ContactSettings
from rules.modules.contact.state import NAME, load_in
from rules.orders import (
    Attack,
    ModuleOrder,
    Move,
    Rejection,
    SideOrders,
    module_rejection,
    typed_module_orders,
)
from rules.state import CampaignState, SideId


def settings_of(game: Game) -> ContactSettings:
    """The game's contact settings."""
    return game.settings_of(NAME, ContactSettings)


def reject(
    side: SideId, order: ModuleOrder | CoreOrder, rule: ContactRule, **params: str | int
) -> Rejection:
    """A ``module_rule`` rejection by contact."""
    return module_rejection(NAME, side, order, rule, **params)


def typed_orders(orders: Iterable[ModuleOrder]) -> list[ContactOrderData]:
    """The contact orders among ``orders``, typed (orders that do not parse are skipped)."""
    return typed_module_orders(orders, NAME, parse_data)


def transports(orders: SideOrders) -> list[TransportData]:
    """The side's transports, in the order given."""
    return [typed for typed in typed_orders(orders.extra) if isinstance(typed, TransportData)]


def departures(orders: SideOrders) -> dict[SectorId, int]:
    """Armies the side's transports take out of each sector."""
    out: dict[SectorId, int] = {}
    for typed in transports(orders):
        out[typed.source] = out.get(typed.source, 0) + typed.count
    return out


def bound(state: CampaignState, side: SideId, sector: SectorId) -> bool:
    """True when another side has armies in ``sector`` at turn start: nobody moves out of it."""
    return any(other != side for other in state.occupants(sector))


def fresh(game: Game, state: CampaignState, side: SideId, sector: SectorId) -> int:
    """Armies of ``side`` in ``sector`` that did not retreat last turn."""
    have = state.armies_of(side, sector)
    return max(0, have - load_in(game, state).exhausted_in(side, sector))


def validate_order(
    game: Game, state: CampaignState, side: SideId, order: ModuleOrder, current: SideOrders
) -> Rejection | None:
    """The first rule a contact order breaks, given the side's ``current`` orders."""
    try:
        typed = parse_data(order.data)
    except OrderDataError as error:
        return reject(side, order, ContactRule.BAD_ORDER, detail=str(error))
    match typed:
        case TransportData():
            return _check_transport(game, state, side, order, typed, current)
        case YieldData():
            return _check_yield(game, state, side, order, typed, current)
        case RetreatToData():
            return _check_retreat_to(game, state, side, order, typed, current)


def _check_transport(
    game: Game,
    state: CampaignState,
    side: SideId,
    order: ModuleOrder,
    typed: TransportData,
    current: SideOrders,
) -> Rejection | None:
    settings = settings_of(game)
    source = typed.source
    for sector in (source, *typed.path):
        if sector not in game.map.by_id:
            return reject(side, order, ContactRule.UNKNOWN_SECTOR, sector=sector)
    armies = state.armies_of(side, source)
    if armies == 0:
        return reject(side, order, ContactRule.NO_FORCE, sector=source)
    if bound(state, side, source):
        return reject(side, order, ContactRule.BOUND_BY_COMBAT, sector=source)
    previous = source
    for sector in typed.path:
        if not game.map.adjacent(previous, sector):
            return reject(side, order, ContactRule.PATH_NOT_ADJACENT, sector=previous, to=sector)
        previous = sector
    if len(typed.path) > settings.transport_range:
        return reject(
            side,
            order,
            ContactRule.PATH_TOO_LONG,
            length=len(typed.path),
            range=settings.transport_range,
        )
    given = transports(current)
    if len(given) >= settings.transports_per_turn:
        return reject(side, order, ContactRule.TRANSPORT_LIMIT, limit=settings.transports_per_turn)
    if typed.count > settings.transport_capacity:
        return reject(
            side,
            order,
            ContactRule.OVER_CAPACITY,
            count=typed.count,
            capacity=settings.transport_capacity,
        )
    most = armies - 1 - game.moving_out(side, current, source)
    if not 1 <= typed.count <= most:
        return reject(
            side,
            order,
            ContactRule.MOVE_COUNT_OUT_OF_RANGE,
            sector=source,
            count=typed.count,
            min=1,
            max=max(0, most),
        )
    usable = fresh(game, state, side, source) - sum(
        other.count for other in given if other.source == source
    )
    if typed.count > usable:
        return reject(
            side,
            order,
            ContactRule.EXHAUSTED_TRANSPORT,
            sector=source,
            count=typed.count,
            fresh=max(0, usable),
        )
    if current.attacks_in(source):
        return reject(side, order, ContactRule.MOVE_AND_ATTACK_IN_SECTOR, sector=source)
    if current.module_order_in(source) is not None:
        return reject(side, order, ContactRule.SECTOR_HAS_ORDER, sector=source)
    return None


def _check_yield(
    game: Game,
    state: CampaignState,
    side: SideId,
    order: ModuleOrder,
    typed: YieldData,
    current: SideOrders,
) -> Rejection | None:
    if typed.sector not in game.map.by_id:
        return reject(side, order, ContactRule.UNKNOWN_SECTOR, sector=typed.sector)
    if state.armies_of(side, typed.sector) == 0:
        return reject(side, order, ContactRule.NO_FORCE, sector=typed.sector)
    if any(
        isinstance(other, YieldData) and other.sector == typed.sector
        for other in typed_orders(current.extra)
    ):
        return reject(side, order, ContactRule.SECOND_YIELD, sector=typed.sector)
    return None


def _check_retreat_to(
    game: Game,
    state: CampaignState,
    side: SideId,
    order: ModuleOrder,
    typed: RetreatToData,
    current: SideOrders,
) -> Rejection | None:
    for sector in (typed.sector, *typed.to):
        if sector not in game.map.by_id:
            return reject(side, order, ContactRule.UNKNOWN_SECTOR, sector=sector)
    seen: set[SectorId] = set()
    for sector in typed.to:
        if not game.map.adjacent(typed.sector, sector):
            return reject(
                side, order, ContactRule.RETREAT_NOT_ADJACENT, sector=typed.sector, to=sector
            )
        if sector in seen:
            return reject(side, order, ContactRule.RETREAT_REPEATED, sector=typed.sector, to=sector)
        seen.add(sector)
    if any(
        isinstance(other, RetreatToData) and other.sector == typed.sector
        for other in typed_orders(current.extra)
    ):
        return reject(side, order, ContactRule.SECOND_RETREAT_TO, sector=typed.sector)
    return None


def check_core_order(
    game: Game, state: CampaignState, side: SideId, order: CoreOrder, current: SideOrders
) -> Rejection | None:
    """Refuse a move out of a sector shared at turn start (bound by combat, C4) and an attack
    where a transport leaves."""
    match order:
        case Move():
            if bound(state, side, order.source):
                return reject(side, order, ContactRule.BOUND_BY_COMBAT, sector=order.source)
        case Attack():
            if any(typed.source == order.sector for typed in transports(current)):
                return reject(
                    side, order, ContactRule.MOVE_AND_ATTACK_IN_SECTOR, sector=order.sector
                )
        case _:
            return None
    return None
