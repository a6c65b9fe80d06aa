"""Hypothesis strategies for the rules core: maps, rulesets, states, order sets, battle results.

Order sets mix valid and invalid orders on purpose (unknown sectors and sides, non-adjacent
moves, counts out of range, too many attacks, attacks with no opponent or on the side itself,
orders from sides that are out); :func:`valid_side_orders` builds only orders the engine's own
listing offers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from rules import (
    Attack,
    Battle,
    BattleResult,
    CampaignMap,
    CampaignState,
    Game,
    ModuleOrder,
    Move,
    Outcome,
    Reinforce,
    Ruleset,
    SideOrders,
    builtin_map,
    enter_order,
    legal_orders,
    parse_map,
)

PLANET_5 = builtin_map("planet-5")

SIDE_POOL = ("red", "blue", "green", "gold")
"""Side ids a state draws from; those a state leaves out act as sides that are out."""

GHOST = "ghost"
"""A side id never in any state."""

NOWHERE = "nowhere"
"""A sector id never on any map."""

SECTOR_ID_POOL = ("1", "2", "3", "4", "5", "6", "a", "b", "x10")


@st.composite
def custom_maps(draw: st.DrawFn) -> CampaignMap:
    """A small valid map (1-6 sectors, connected, sector order shuffled)."""
    count = draw(st.integers(min_value=1, max_value=6))
    ids = draw(
        st.lists(st.sampled_from(SECTOR_ID_POOL), min_size=count, max_size=count, unique=True)
    )
    edges: set[tuple[int, int]] = set()
    for index in range(1, count):
        edges.add((draw(st.integers(min_value=0, max_value=index - 1)), index))
    for first in range(count):
        for second in range(first + 1, count):
            if draw(st.booleans()):
                edges.add((first, second))
    neighbours: dict[int, list[str]] = {index: [] for index in range(count)}
    for first, second in sorted(edges):
        neighbours[first].append(ids[second])
        neighbours[second].append(ids[first])
    return parse_map(
        {
            "id": "custom",
            "name": "Custom",
            "sectors": [
                {
                    "id": sector_id,
                    "name": f"Sector {sector_id}",
                    "neighbours": neighbours[index],
                    "x": (index + 1) / (count + 1),
                    "y": 0.5,
                }
                for index, sector_id in enumerate(ids)
            ],
        }
    )


maps = st.one_of(st.just(PLANET_5), custom_maps())


@st.composite
def ruleset_overrides(draw: st.DrawFn) -> dict[str, Any]:
    """Overrides of the numbers resolution uses (only some keys, as a campaign stores them)."""
    return draw(
        st.fixed_dictionaries(
            {},
            optional={
                "armies_per_attack": st.integers(min_value=1, max_value=4),
                "capture_min_armies": st.integers(min_value=1, max_value=5),
                "sectors_to_win": st.integers(min_value=1, max_value=5),
                "replenishment": st.integers(min_value=0, max_value=2),
                "reinforcement": st.integers(min_value=0, max_value=2),
                "battle_points": st.sampled_from([500, 1000, 1500]),
                "losses": st.fixed_dictionaries(
                    {},
                    optional={
                        name: st.integers(min_value=0, max_value=4)
                        for name in ("draw", "bloody_draw", "solid", "crushing", "slaughter")
                    },
                ),
            },
        )
    )


rulesets = ruleset_overrides().map(Ruleset.with_overrides)


@st.composite
def games(draw: st.DrawFn) -> Game:
    """A game on planet-5 or a small custom map, with a random ruleset and no modules."""
    return Game.create(draw(maps), draw(rulesets))


@st.composite
def states(draw: st.DrawFn, game: Game) -> CampaignState:
    """2-4 sides in random order, each on 1 or more sectors with 1-8 armies in each."""
    sector_ids = list(game.map.sector_ids())
    sides = draw(
        st.lists(st.sampled_from(SIDE_POOL), min_size=2, max_size=len(SIDE_POOL), unique=True)
    )
    armies: dict[str, dict[str, int]] = {}
    for side in sides:
        held = draw(
            st.lists(st.sampled_from(sector_ids), min_size=1, max_size=len(sector_ids), unique=True)
        )
        armies[side] = {
            sector: draw(st.integers(min_value=1, max_value=8))
            for sector in sector_ids
            if sector in held
        }
    return CampaignState(turn=draw(st.integers(min_value=1, max_value=30)), armies=armies)


@st.composite
def games_and_states(draw: st.DrawFn) -> tuple[Game, CampaignState]:
    """A game and a turn-start state on its map."""
    game = draw(games())
    return game, draw(states(game))


def _sector_pool(game: Game, state: CampaignState, side: str) -> list[str]:
    """Sectors to name in an order: the side's own ones weighted up, every other one, one bogus."""
    own = list(state.armies.get(side, {}))
    return own * 3 + list(game.map.sector_ids()) + [NOWHERE]


@st.composite
def any_moves(draw: st.DrawFn, game: Game, state: CampaignState, side: str) -> Move:
    """A move that may or may not be legal."""
    source = draw(st.sampled_from(_sector_pool(game, state, side)))
    near = sorted(game.map.adjacency.get(source, frozenset()))
    to = draw(st.sampled_from(near * 3 + list(game.map.sector_ids()) + [NOWHERE]))
    armies = state.armies_of(side, source)
    return Move(source=source, to=to, count=draw(st.integers(min_value=-1, max_value=armies + 1)))


@st.composite
def any_attacks(draw: st.DrawFn, game: Game, state: CampaignState, side: str) -> Attack:
    """An attack that may or may not be legal."""
    sector = draw(st.sampled_from(_sector_pool(game, state, side)))
    opponents = [other for other in state.occupants(sector) if other != side]
    target = draw(st.sampled_from(opponents * 3 + [*SIDE_POOL, side, GHOST]))
    return Attack(sector=sector, target=target)


@st.composite
def any_side_orders(draw: st.DrawFn, game: Game, state: CampaignState, side: str) -> SideOrders:
    """One side's orders as a player might send them, valid or not."""
    reinforce = draw(st.none() | st.sampled_from(_sector_pool(game, state, side)))
    return SideOrders(
        moves=tuple(draw(st.lists(any_moves(game, state, side), max_size=4))),
        attacks=tuple(draw(st.lists(any_attacks(game, state, side), max_size=5))),
        reinforce=reinforce,
        extra=tuple(
            draw(
                st.lists(
                    st.builds(
                        ModuleOrder,
                        module=st.sampled_from(["supply", "weather"]),
                        data=st.just({}),
                    ),
                    max_size=1,
                )
            )
        ),
    )


@st.composite
def order_sets(draw: st.DrawFn, game: Game, state: CampaignState) -> dict[str, SideOrders]:
    """Orders of most sides in play, sometimes of sides that are out or never existed."""
    givers = [side for side in state.sides() if draw(st.integers(min_value=0, max_value=4)) > 0]
    outsiders = [side for side in (*SIDE_POOL, GHOST) if side not in state.armies]
    givers += draw(st.lists(st.sampled_from(outsiders), max_size=2, unique=True))
    givers = draw(st.permutations(givers))
    return {side: draw(any_side_orders(game, state, side)) for side in givers}


@st.composite
def valid_side_orders(draw: st.DrawFn, game: Game, state: CampaignState, side: str) -> SideOrders:
    """One side's orders built only from what :func:`legal_orders` offers, step by step."""
    current = SideOrders()
    for options in legal_orders(game, state, side).sectors:
        choice = draw(st.sampled_from(["fortify", "move", "attack"]))
        if choice == "move" and options.move is not None:
            move = Move(
                source=options.sector,
                to=draw(st.sampled_from(options.move.destinations)),
                count=draw(
                    st.integers(min_value=options.move.min_count, max_value=options.move.max_count)
                ),
            )
            current, rejection = enter_order(game, state, side, current, move)
            if rejection is not None:
                raise AssertionError(f"the listing offered a refused move: {rejection}")
        elif choice == "attack" and options.attack is not None:
            wanted = draw(st.integers(min_value=1, max_value=options.attack.remaining))
            for _ in range(wanted):
                offered = legal_orders(game, state, side, current).for_sector(options.sector)
                if offered is None or offered.attack is None:
                    raise AssertionError(f"the listing withdrew an attack in {options.sector}")
                attack = Attack(
                    sector=options.sector, target=draw(st.sampled_from(offered.attack.targets))
                )
                current, rejection = enter_order(game, state, side, current, attack)
                if rejection is not None:
                    raise AssertionError(f"the listing offered a refused attack: {rejection}")
    offered_sectors = legal_orders(game, state, side, current).reinforce
    wanted_reinforce = draw(st.booleans())
    if offered_sectors and wanted_reinforce:
        reinforce = Reinforce(sector=draw(st.sampled_from(offered_sectors)))
        current, rejection = enter_order(game, state, side, current, reinforce)
        if rejection is not None:
            raise AssertionError(f"the listing offered a refused reinforcement: {rejection}")
    return current


@st.composite
def valid_order_sets(draw: st.DrawFn, game: Game, state: CampaignState) -> dict[str, SideOrders]:
    """Valid orders for some of the sides in play (the others fortify everywhere)."""
    givers = [side for side in state.sides() if draw(st.integers(min_value=0, max_value=4)) > 0]
    return {side: draw(valid_side_orders(game, state, side)) for side in givers}


@st.composite
def battle_results(draw: st.DrawFn, battles: Sequence[Battle]) -> list[BattleResult]:
    """Results for some of ``battles`` (the others go unreported), in shuffled order."""
    results: list[BattleResult] = []
    for battle in battles:
        if not draw(st.integers(min_value=0, max_value=3)):
            continue
        outcome = draw(st.sampled_from(Outcome))
        winner = draw(st.sampled_from(battle.participants())) if outcome.has_winner else None
        results.append(BattleResult(battle=battle.id, outcome=outcome, winner=winner))
    return draw(st.permutations(results))
