"""Checks of ``watch`` orders (MODULES.md W5, W6) against the turn-start state, and of duel
steps against the battle list. Each check returns the first rule broken, in the order of
:class:`rules.modules.watch.orders.WatchRule`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from rules.battles import BattlePlan
from rules.game import Game
from rules.modules.watch.orders import (
    DuelStepData,
    HeroMoveData,
    OrderDataError,
    WatchRule,
    parse_data,
    typed_orders,
)
from rules.modules.watch.plan import duel_at, positions_of
from rules.modules.watch.settings import WatchSettings
from rules.modules.watch.state import NAME, Hero, WatchState, load_in
from rules.orders import ModuleOrder, Rejection, SideOrders, module_rejection
from rules.state import CampaignState, SideId


def settings_of(game: Game) -> WatchSettings:
    """The game's watch settings."""
    return game.settings_of(NAME, WatchSettings)


def reject(side: SideId, order: ModuleOrder, rule: WatchRule, **params: str | int) -> Rejection:
    """A ``module_rule`` rejection by watch."""
    return module_rejection(NAME, side, order, rule, **params)


def _parse(side: SideId, order: ModuleOrder) -> HeroMoveData | DuelStepData | Rejection:
    try:
        typed = parse_data(order.data)
    except OrderDataError as error:
        return reject(side, order, WatchRule.BAD_ORDER, detail=str(error))
    if order.sector is not None or order.claims_sector:
        return reject(side, order, WatchRule.BAD_ORDER, detail="a watch order claims no sector")
    return typed


def check_hero(
    watch: WatchState, turn: int, side: SideId, order: ModuleOrder, hero_id: str
) -> Hero | Rejection:
    """The side's own living hero in play called ``hero_id``, or the rule that refuses it."""
    hero = watch.hero(hero_id)
    if hero is None:
        return reject(side, order, WatchRule.UNKNOWN_HERO, hero=hero_id)
    if hero.side != side:
        return reject(side, order, WatchRule.NOT_YOUR_HERO, hero=hero_id)
    if not hero.alive:
        return reject(side, order, WatchRule.HERO_DEAD, hero=hero_id)
    if hero.enters_turn > turn:
        return reject(
            side, order, WatchRule.HERO_NOT_IN_PLAY, hero=hero_id, enters_turn=hero.enters_turn
        )
    return hero


def validate_order(
    game: Game, state: CampaignState, side: SideId, order: ModuleOrder, current: SideOrders
) -> Rejection | None:
    """The first watch rule ``order`` breaks in the orders window; ``None`` if legal.

    A second move of one hero is accepted: the last one given counts (W5)."""
    typed = _parse(side, order)
    if isinstance(typed, Rejection):
        return typed
    if isinstance(typed, DuelStepData):
        return reject(
            side, order, WatchRule.BAD_ORDER, detail="a duel step is given after the list"
        )
    watch = load_in(game, state)
    hero = check_hero(watch, state.turn, side, order, typed.hero)
    if isinstance(hero, Rejection):
        return hero
    if typed.to not in game.map.by_id or not game.map.adjacent(hero.sector, typed.to):
        return reject(
            side,
            order,
            WatchRule.HERO_MOVE_NOT_ADJACENT,
            hero=hero.id,
            sector=hero.sector,
            to=typed.to,
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
    """The first watch rule a duel step breaks (W6): the hero is the side's, living, in a duel
    of the list; it has no step yet; each card is in its hand (a card is laid once, so two
    plays of ``A2`` need two ``A2`` in hand); each target is a hero of that duel."""
    typed = _parse(side, order)
    if isinstance(typed, Rejection):
        return typed
    if isinstance(typed, HeroMoveData):
        return reject(side, order, WatchRule.BAD_ORDER, detail="a hero moves in the orders window")
    watch = load_in(game, state)
    hero = check_hero(watch, state.turn, side, order, typed.hero)
    if isinstance(hero, Rejection):
        return hero
    listed = plan.modules.get(NAME)
    duel = duel_at(listed, hero.id)
    if duel is None:
        where = positions_of(listed).get(hero.id, hero.sector)
        return reject(side, order, WatchRule.NOT_IN_DUEL, hero=hero.id, sector=where)
    if any(isinstance(o, DuelStepData) and o.hero == hero.id for o in typed_orders(current)):
        return reject(side, order, WatchRule.STEP_ALREADY_PLAYED, hero=hero.id)
    return check_plays(side, order, hero, typed, duel.sector, duel.steps)


def check_plays(
    side: SideId,
    order: ModuleOrder,
    hero: Hero,
    typed: DuelStepData,
    sector: str,
    targets: Iterable[str],
) -> Rejection | None:
    """The first card not in ``hero``'s hand (counting duplicates) or target not among
    ``targets`` (the heroes of its duel in ``sector``)."""
    left = Counter(hero.hand)
    allowed = set(targets)
    for play in typed.plays:
        if left[play.card] <= 0:
            return reject(side, order, WatchRule.CARD_NOT_IN_HAND, hero=hero.id, card=play.card)
        left[play.card] -= 1
        if play.target not in allowed:
            return reject(
                side,
                order,
                WatchRule.TARGET_NOT_IN_SECTOR,
                hero=hero.id,
                target=play.target,
                sector=sector,
            )
    return None
