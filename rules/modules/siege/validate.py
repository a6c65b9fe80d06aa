"""Checks of ``siege`` orders (MODULES.md S3) against the turn-start state and the side's
orders so far. Each check returns the first rule broken, in the order the rules are listed in
:class:`rules.modules.siege.orders.SiegeRule`'s docs (docs/rules.md, Modules)."""

from __future__ import annotations

from collections.abc import Iterable

from rules.battles import BattlePlan
from rules.game import CoreOrder, Game
from rules.modules.siege.orders import (
    AssaultData,
    GuardData,
    OrderDataError,
    PlayCardData,
    SiegeRule,
    SteerData,
    parse_data,
    sector_fields,
)
from rules.modules.siege.settings import SiegeSettings
from rules.modules.siege.state import NAME, SiegeState, load_in
from rules.orders import (
    ModuleOrder,
    Move,
    Rejection,
    SideOrders,
    module_rejection,
    typed_module_orders,
)
from rules.state import CampaignState, SideId

SiegeOrder = AssaultData | GuardData | SteerData | PlayCardData


def settings_of(game: Game) -> SiegeSettings:
    """The game's siege settings."""
    return game.settings_of(NAME, SiegeSettings)


def weather_control(game: Game) -> tuple[str, ...]:
    """The weather-control sectors: the setting, else the map's sectors tagged so."""
    settings = settings_of(game)
    if settings.weather_control is not None:
        return settings.weather_control
    return game.map.tagged("weather_control")


def reject(
    side: SideId, order: ModuleOrder | CoreOrder, rule: SiegeRule, **params: str | int
) -> Rejection:
    """A ``module_rule`` rejection by siege."""
    return module_rejection(NAME, side, order, rule, **params)


def typed_orders(orders: Iterable[ModuleOrder]) -> list[SiegeOrder]:
    """The siege orders among ``orders``, typed (orders that do not parse are skipped)."""
    return typed_module_orders(orders, NAME, parse_data)


def _parse(side: SideId, order: ModuleOrder) -> SiegeOrder | Rejection:
    try:
        typed = parse_data(order.data)
    except OrderDataError as error:
        return reject(side, order, SiegeRule.BAD_ORDER, detail=str(error))
    if sector_fields(typed) != (order.sector, order.claims_sector):
        return reject(
            side, order, SiegeRule.BAD_ORDER, detail="sector fields do not match the order's data"
        )
    return typed


def validate_order(
    game: Game, state: CampaignState, side: SideId, order: ModuleOrder, current: SideOrders
) -> Rejection | None:
    """The first siege rule ``order`` breaks in the orders window; ``None`` if legal."""
    typed = _parse(side, order)
    if isinstance(typed, Rejection):
        return typed
    siege = load_in(game, state)
    settings = settings_of(game)
    given = typed_orders(current.extra)
    match typed:
        case AssaultData():
            return _check_assault(game, state, siege, settings, side, order, typed, current, given)
        case GuardData():
            return _check_guard(game, state, siege, settings, side, order, typed, current, given)
        case SteerData():
            return _check_steer(game, state, settings, side, order, typed, current, given)
        case PlayCardData():
            if typed.window != "before":
                return reject(side, order, SiegeRule.WRONG_WINDOW, window="before")
            return _check_card(siege, side, order, typed, given)


def _sector_taken(current: SideOrders, sector: str) -> bool:
    return bool(
        current.move_from(sector) is not None
        or current.attacks_in(sector)
        or current.module_order_in(sector) is not None
    )


def _check_assault(
    game: Game,
    state: CampaignState,
    siege: SiegeState,
    settings: SiegeSettings,
    side: SideId,
    order: ModuleOrder,
    typed: AssaultData,
    current: SideOrders,
    given: list[SiegeOrder],
) -> Rejection | None:
    if not settings.has_role(side, "stormer"):
        return reject(side, order, SiegeRule.NOT_A_STORMER)
    token = siege.token(typed.token)
    if token is None:
        return reject(side, order, SiegeRule.UNKNOWN_TOKEN, token=typed.token)
    if token.sector != typed.sector:
        return reject(
            side,
            order,
            SiegeRule.TOKEN_NOT_IN_SECTOR,
            token=token.id,
            sector=typed.sector,
            token_sector=token.sector,
        )
    if token.kind == "occult" and token.controller == side:
        return reject(side, order, SiegeRule.OWN_TOKEN, token=token.id)
    if token.kind == "occult" and typed.reward != "vp":
        return reject(side, order, SiegeRule.BAD_REWARD, token=token.id, reward=typed.reward)
    if state.armies_of(side, typed.sector) == 0:
        return reject(side, order, SiegeRule.NO_FORCE, sector=typed.sector)
    if _sector_taken(current, typed.sector):
        return reject(side, order, SiegeRule.SECTOR_HAS_ORDER, sector=typed.sector)
    if any(isinstance(o, GuardData) and o.token == token.id for o in given):
        return reject(side, order, SiegeRule.GUARD_OWN_ASSAULT, token=token.id)
    return None


def _check_guard(
    game: Game,
    state: CampaignState,
    siege: SiegeState,
    settings: SiegeSettings,
    side: SideId,
    order: ModuleOrder,
    typed: GuardData,
    current: SideOrders,
    given: list[SiegeOrder],
) -> Rejection | None:
    if not settings.has_role(side, "defender"):
        return reject(side, order, SiegeRule.NOT_A_DEFENDER)
    token = siege.token(typed.token)
    if token is None:
        return reject(side, order, SiegeRule.UNKNOWN_TOKEN, token=typed.token)
    source = typed.source
    if source not in game.map.by_id or state.armies_of(side, source) == 0:
        return reject(side, order, SiegeRule.NO_FORCE, sector=source)
    distance = game.map.distance(source, token.sector)
    if distance > settings.guard_range:
        return reject(
            side,
            order,
            SiegeRule.OUT_OF_RANGE,
            token=token.id,
            **{"from": source},
            distance=distance,
            range=settings.guard_range,
        )
    if current.move_from(source) is not None:
        return reject(side, order, SiegeRule.GUARD_FROM_MOVING, token=token.id, **{"from": source})
    if any(isinstance(o, SteerData) and o.sector == source for o in given):
        return reject(
            side, order, SiegeRule.GUARD_FROM_STEERING, token=token.id, **{"from": source}
        )
    if any(isinstance(o, GuardData) and o.token == token.id for o in given):
        return reject(side, order, SiegeRule.SECOND_GUARD, token=token.id)
    if any(isinstance(o, AssaultData) and o.token == token.id for o in given):
        return reject(side, order, SiegeRule.GUARD_OWN_ASSAULT, token=token.id)
    return None


def _check_steer(
    game: Game,
    state: CampaignState,
    settings: SiegeSettings,
    side: SideId,
    order: ModuleOrder,
    typed: SteerData,
    current: SideOrders,
    given: list[SiegeOrder],
) -> Rejection | None:
    if typed.sector not in weather_control(game):
        return reject(side, order, SiegeRule.NOT_WEATHER_CONTROL, sector=typed.sector)
    if state.armies_of(side, typed.sector) == 0:
        return reject(side, order, SiegeRule.NO_FORCE, sector=typed.sector)
    if _sector_taken(current, typed.sector):
        return reject(side, order, SiegeRule.SECTOR_HAS_ORDER, sector=typed.sector)
    guarding = next(
        (o for o in given if isinstance(o, GuardData) and o.source == typed.sector), None
    )
    if guarding is not None:
        return reject(
            side,
            order,
            SiegeRule.GUARD_FROM_STEERING,
            token=guarding.token,
            **{"from": typed.sector},
        )
    limit = settings.weather_steps_per_turn
    if sum(1 for o in given if isinstance(o, SteerData)) >= limit:
        return reject(side, order, SiegeRule.STEER_LIMIT, limit=limit)
    return None


def _check_card(
    siege: SiegeState,
    side: SideId,
    order: ModuleOrder,
    typed: PlayCardData,
    given: Iterable[SiegeOrder],
    played_before: Iterable[SiegeOrder] = (),
) -> Rejection | None:
    token = siege.token(typed.token)
    if token is None:
        return reject(side, order, SiegeRule.UNKNOWN_TOKEN, token=typed.token)
    if token.kind != "occult" or token.controller != side:
        return reject(side, order, SiegeRule.NOT_YOUR_CARD, token=token.id)
    tapped_before = any(isinstance(o, PlayCardData) and o.token == token.id for o in played_before)
    if not token.ready or tapped_before:
        return reject(side, order, SiegeRule.CARD_TAPPED, token=token.id)
    kept = next(
        (o for o in given if isinstance(o, PlayCardData) and o.window == typed.window), None
    )
    if kept is not None:
        return reject(
            side, order, SiegeRule.SECOND_CARD_IN_WINDOW, window=typed.window, token=kept.token
        )
    return None


def validate_late_order(
    game: Game,
    state: CampaignState,
    plan: BattlePlan,
    side: SideId,
    order: ModuleOrder,
    current: tuple[ModuleOrder, ...],
) -> Rejection | None:
    """The first siege rule a late order breaks: only "after" cards are late orders."""
    typed = _parse(side, order)
    if isinstance(typed, Rejection):
        return typed
    if not isinstance(typed, PlayCardData) or typed.window != "after":
        return reject(side, order, SiegeRule.WRONG_WINDOW, window="after")
    siege = load_in(game, state)
    accepted = plan.accepted.get(side)
    before = typed_orders(accepted.extra) if accepted is not None else []
    return _check_card(siege, side, order, typed, typed_orders(current), before)


def check_core_order(
    game: Game, state: CampaignState, side: SideId, order: CoreOrder, current: SideOrders
) -> Rejection | None:
    """A move out of a sector the side guards from is refused (the guard stays there)."""
    if not isinstance(order, Move):
        return None
    guarding = next(
        (
            o
            for o in typed_orders(current.extra)
            if isinstance(o, GuardData) and o.source == order.source
        ),
        None,
    )
    if guarding is None:
        return None
    return reject(
        side, order, SiegeRule.GUARD_FROM_MOVING, token=guarding.token, **{"from": order.source}
    )
