"""Every ``watch`` order a side may give now (the bot's buttons): candidates are built from the
state (and the list) and kept only when :mod:`rules.modules.watch.validate` accepts them, so
the listing and validation cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass

from rules.battles import BattlePlan
from rules.game import Game
from rules.modules.watch.orders import duel_step, hero_move
from rules.modules.watch.plan import duel_at
from rules.modules.watch.state import NAME, load_in
from rules.modules.watch.validate import validate_late_order, validate_order
from rules.orders import ModuleOrder, SideOrders
from rules.state import CampaignState, SideId


def legal_options(
    game: Game, state: CampaignState, side: SideId, current: SideOrders
) -> tuple[ModuleOrder, ...]:
    """A move of each of the side's living heroes in play (initiative order) to each location
    next to it (map order). A hero with a move already may be given another: it replaces it."""
    if side not in state.armies:
        return ()
    watch = load_in(game, state)
    candidates = [
        hero_move(hero.id, sector)
        for hero in watch.in_play(state.turn)
        if hero.side == side
        for sector in game.map.sector_ids()
        if game.map.adjacent(hero.sector, sector)
    ]
    return tuple(
        order for order in candidates if validate_order(game, state, side, order, current) is None
    )


@dataclass(frozen=True)
class StepOptions:
    """What a hero's duel step may hold: cards of its ``hand`` (each at most as often as held)
    laid on ``targets`` (the heroes of its duel, initiative order, itself included)."""

    hero: str
    sector: str
    hand: tuple[str, ...]
    targets: tuple[str, ...]


def step_options(
    game: Game,
    state: CampaignState,
    plan: BattlePlan,
    side: SideId,
    hero: str,
    current: tuple[ModuleOrder, ...] = (),
) -> StepOptions | None:
    """The choices of ``hero``'s duel step, or ``None`` when the side cannot give it now (not
    its living hero, not in a duel, or its step is given)."""
    if validate_late_order(game, state, plan, side, duel_step(hero), current) is not None:
        return None
    found = load_in(game, state).hero(hero)
    duel = duel_at(plan.modules.get(NAME), hero)
    if found is None or duel is None:
        return None
    return StepOptions(hero=hero, sector=duel.sector, hand=found.hand, targets=duel.steps)


def legal_late_options(
    game: Game,
    state: CampaignState,
    plan: BattlePlan,
    side: SideId,
    current: tuple[ModuleOrder, ...],
) -> tuple[ModuleOrder, ...]:
    """For each of the side's heroes whose duel step is still to give (initiative order): the
    step with nothing played, then each single card of its hand on each hero of its duel.
    Any several of those cards together (as often as held) make a legal step too: a listing
    of every combination would be too long for buttons, so the bot builds a step card by card
    from :func:`step_options`."""
    if side not in state.armies:
        return ()
    watch = load_in(game, state)
    candidates: list[ModuleOrder] = []
    for hero in watch.in_play(state.turn):
        if hero.side != side:
            continue
        options = step_options(game, state, plan, side, hero.id, current)
        if options is None:
            continue
        candidates.append(duel_step(hero.id))
        for card in dict.fromkeys(options.hand):
            candidates.extend(duel_step(hero.id, [(card, target)]) for target in options.targets)
    return tuple(
        order
        for order in candidates
        if validate_late_order(game, state, plan, side, order, current) is None
    )
