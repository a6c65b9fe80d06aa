"""Speed of the rules core: turns resolved per second on planet-5 and on a 60-sector grid,
each plain and with rule module ``siege``.

Run from the repository root: ``.venv/bin/python bench/rules_bench.py [--seconds S] [--seed N]``.

Each scenario pre-generates realistic turns from a seeded ``random.Random``: a state
where every side holds several sectors, some of them shared (so there are battles), a valid
order set per side built from ``rules.legal_orders`` (moves, attacks, reinforcement), and a
random result for most planned battles (the rest are left unreported, as in a real week).
With ``siege``, about half the sectors hold a fortification token and a quarter an occult one
(some controlled), each side adds siege orders taken from the listing (assaults, guards,
steers, cards), chain battles get results in chain order, and every turn has its roll seed.
Then ``resolve_turn``, ``plan_battles`` and ``legal_orders`` for one side are each timed, one
call at a time with ``time.perf_counter``, cycling through the turns for ``--seconds``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

# The repository root, so the script also runs where the package is not installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import (
    Attack,
    BattleResult,
    BattleStatus,
    CampaignMap,
    CampaignState,
    Game,
    Move,
    Outcome,
    Reinforce,
    Ruleset,
    SideId,
    SideOrders,
    TurnSeeds,
    battle_sides,
    builtin_map,
    legal_orders,
    plan_battles,
    resolve_turn,
    validate_order,
)
from rules.mapgen import grid_map
from rules.modules import BUILTIN_MODULES

ARMIES_PER_SECTOR = (1, 8)
ATTACK_SHARE = 0.6
"""Chance that a side attacks in a sector where it may."""
MOVE_SHARE = 0.25
"""Chance that a side moves out of a sector (when it does not attack there)."""
REINFORCE_SHARE = 0.9
"""Chance that a side names its reinforcement sector."""
UNREPORTED_SHARE = 0.1
"""Chance that a battle has no reported result by the deadline."""
FORTIFICATION_SHARE = 0.5
"""With siege: chance that a sector holds a fortification token."""
OCCULT_SHARE = 0.25
"""With siege: chance that a sector holds an occult token."""
SIEGE_ORDER_SHARE = 0.2
"""With siege: chance that a side gives each siege order the listing offers (if still legal)."""


@dataclass(frozen=True)
class Scenario:
    """A map and how many sides hold how many sectors on it."""

    title: str
    campaign_map: CampaignMap
    sides: int
    sectors_per_side: tuple[int, int]
    shared_share: float
    """Chance that a side's next sector is picked among sectors other sides already hold."""
    siege: bool = False
    """Whether rule module ``siege`` is enabled."""


@dataclass(frozen=True)
class Turn:
    """Everything ``resolve_turn`` takes for one turn, and how many battles it plans."""

    state: CampaignState
    orders: dict[SideId, SideOrders]
    results: tuple[BattleResult, ...]
    battles: int
    seeds: TurnSeeds | None = None


@dataclass(frozen=True)
class Timing:
    """Per-call durations (seconds) and the wall time the whole run took."""

    durations: list[float]
    wall: float

    def rate(self) -> float:
        """Calls per second of wall time."""
        return len(self.durations) / self.wall

    def microseconds(self, quantile: float) -> float:
        """The ``quantile`` (0..1) of the per-call durations, in microseconds."""
        ordered = sorted(self.durations)
        index = min(len(ordered) - 1, round(quantile * (len(ordered) - 1)))
        return ordered[index] * 1e6

    def mean_microseconds(self) -> float:
        """Mean duration of one call, in microseconds."""
        return statistics.fmean(self.durations) * 1e6


def random_state(rng: random.Random, scenario: Scenario) -> CampaignState:
    """Every side in several sectors, some shared with other sides."""
    sector_ids = scenario.campaign_map.sector_ids()
    order = scenario.campaign_map.order
    held: list[str] = []
    armies: dict[SideId, dict[str, int]] = {}
    for number in range(1, scenario.sides + 1):
        wanted = rng.randint(*scenario.sectors_per_side)
        chosen: set[str] = set()
        while len(chosen) < wanted:
            pool = held if held and rng.random() < scenario.shared_share else sector_ids
            chosen.add(rng.choice(pool))
        armies[f"side{number}"] = {
            sector: rng.randint(*ARMIES_PER_SECTOR)
            for sector in sorted(chosen, key=order.__getitem__)
        }
        held.extend(armies[f"side{number}"])
    state = CampaignState(turn=rng.randint(1, 20), armies=armies)
    if not scenario.siege:
        return state
    tokens: list[dict[str, object]] = []
    for sector in sector_ids:
        if rng.random() < FORTIFICATION_SHARE:
            tokens.append(
                {"id": f"F{sector}", "kind": "fortification", "sector": sector, "strength": 10}
            )
        if rng.random() < OCCULT_SHARE:
            occult: dict[str, object] = {
                "id": f"O{sector}",
                "kind": "occult",
                "sector": sector,
                "strength": rng.randint(6, 10),
            }
            if rng.random() < 0.5:
                occult["controller"] = rng.choice(state.sides())
            tokens.append(occult)
    siege = {"v": 1, "weather": rng.randrange(8), "tokens": tokens, "vp": {}}
    return state.model_copy(update={"modules": {"siege": siege}})


def random_orders(rng: random.Random, game: Game, state: CampaignState, side: SideId) -> SideOrders:
    """A valid order set for ``side``: each order is picked from ``legal_orders`` as it stands."""
    orders = SideOrders()
    listing = legal_orders(game, state, side)
    for sector in (options.sector for options in listing.sectors):
        roll = rng.random()
        options = legal_orders(game, state, side, orders).for_sector(sector)
        if options is None:
            continue
        if options.attack is not None and roll < ATTACK_SHARE:
            for _ in range(rng.randint(1, options.attack.remaining)):
                now = legal_orders(game, state, side, orders).for_sector(sector)
                if now is None or now.attack is None:
                    break
                target = rng.choice(now.attack.targets)
                orders = orders.with_order(Attack(sector=sector, target=target))
        elif options.move is not None and roll < ATTACK_SHARE + MOVE_SHARE:
            move = options.move
            orders = orders.with_order(
                Move(
                    source=sector,
                    to=rng.choice(move.destinations),
                    count=rng.randint(move.min_count, move.max_count),
                )
            )
    if listing.reinforce and rng.random() < REINFORCE_SHARE:
        orders = orders.with_order(Reinforce(sector=rng.choice(listing.reinforce)))
    for offered in legal_orders(game, state, side, orders).modules.get("siege", ()):
        wanted = rng.random() < SIEGE_ORDER_SHARE
        if wanted and validate_order(game, state, side, offered, orders) is None:
            orders = orders.with_order(offered)
    return orders


def random_turn(rng: random.Random, game: Game, scenario: Scenario) -> Turn:
    """One turn: state, valid orders for every side and results for most planned battles."""
    state = random_state(rng, scenario)
    orders = {side: random_orders(rng, game, state, side) for side in state.sides()}
    seeds = TurnSeeds(roll=f"{rng.getrandbits(128):032x}") if scenario.siege else None
    plan = plan_battles(game, state, orders, seeds)
    if plan.rejected:
        raise SystemExit(f"orders built from legal_orders were rejected: {plan.rejected}")
    results: dict[int, BattleResult] = {}
    for battle in plan.battles:
        sides = battle_sides(plan.battles, results)[battle.id]
        if sides.status is not BattleStatus.PLAYABLE or rng.random() < UNREPORTED_SHARE:
            continue
        outcome = rng.choice(list(Outcome))
        winner = rng.choice(sides.participants()) if outcome.has_winner else None
        results[battle.id] = BattleResult(battle=battle.id, outcome=outcome, winner=winner)
    return Turn(
        state=state,
        orders=orders,
        results=tuple(results.values()),
        battles=len(plan.battles),
        seeds=seeds,
    )


def time_calls(call: Callable[[Turn], object], turns: Sequence[Turn], seconds: float) -> Timing:
    """Call ``call`` once on every turn, then time one call at a time, in whole passes over
    the turns, until ``seconds`` have passed."""
    for turn in turns:
        call(turn)
    durations: list[float] = []
    clock = time.perf_counter
    started = clock()
    while clock() - started < seconds:
        for turn in turns:
            before = clock()
            call(turn)
            durations.append(clock() - before)
    return Timing(durations=durations, wall=clock() - started)


def report(name: str, timing: Timing) -> None:
    """Print one timed function's figures on one line."""
    print(
        f"  {name:<28} {timing.rate():>10,.0f} calls/s   mean {timing.mean_microseconds():>8.1f} us"
        f"   p50 {timing.microseconds(0.50):>8.1f} us   p99 {timing.microseconds(0.99):>8.1f} us"
        f"   ({len(timing.durations):,} calls)"
    )


def run_scenario(scenario: Scenario, seed: int, turns: int, seconds: float) -> None:
    """Generate the scenario's turns, time the rules core on them and print the figures."""
    if scenario.siege:
        control = {"weather_control": [scenario.campaign_map.sector_ids()[0]]}
        ruleset = Ruleset(modules=("siege",), module_settings={"siege": control})
        game = Game.create(scenario.campaign_map, ruleset, BUILTIN_MODULES)
    else:
        game = Game.create(scenario.campaign_map)
    rng = random.Random(seed)
    generated = [random_turn(rng, game, scenario) for _ in range(turns)]
    battles = [turn.battles for turn in generated]
    results = [len(turn.results) for turn in generated]
    print(
        f"{scenario.title}: {len(scenario.campaign_map.sectors)} sectors, {scenario.sides} sides,"
        f" {turns} turns; battles per turn mean {statistics.fmean(battles):.1f}"
        f" (min {min(battles)}, max {max(battles)}), results given per turn"
        f" mean {statistics.fmean(results):.1f}"
    )
    if scenario.siege:
        siege_orders = [
            sum(len(orders.extra) for orders in turn.orders.values()) for turn in generated
        ]
        print(f"  siege orders per turn mean {statistics.fmean(siege_orders):.1f}")

    def resolve(turn: Turn) -> object:
        return resolve_turn(game, turn.state, turn.orders, turn.results, turn.seeds)

    def plan(turn: Turn) -> object:
        return plan_battles(game, turn.state, turn.orders, turn.seeds)

    def list_first_side(turn: Turn) -> object:
        return legal_orders(game, turn.state, turn.state.sides()[0])

    resolved = time_calls(resolve, generated, seconds)
    report("resolve_turn", resolved)
    report("plan_battles", time_calls(plan, generated, seconds))
    report("legal_orders (one side)", time_calls(list_first_side, generated, seconds))
    print(f"  => {resolved.rate():,.0f} turns resolved per second")


def main() -> None:
    """Parse the options, print the machine and run both scenarios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="time spent on each measurement (default 3)"
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the generated turns (default 1)"
    )
    parser.add_argument(
        "--turns", type=int, default=200, help="generated turns per scenario (default 200)"
    )
    options = parser.parse_args()
    if options.seconds <= 0 or options.turns < 1:
        parser.error("--seconds must be positive and --turns at least 1")

    print(
        f"python {platform.python_version()} ({platform.python_implementation()}),"
        f" {platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs;"
        f" seed {options.seed}, {options.seconds:g} s per measurement"
    )
    planet = Scenario(
        title="planet-5",
        campaign_map=builtin_map("planet-5"),
        sides=4,
        sectors_per_side=(2, 3),
        shared_share=0.5,
    )
    grid = Scenario(
        title="grid 10x6",
        campaign_map=grid_map(10, 6),
        sides=12,
        sectors_per_side=(3, 6),
        shared_share=0.4,
    )
    scenarios = (
        planet,
        replace(planet, title="planet-5 + siege", siege=True),
        grid,
        replace(grid, title="grid 10x6 + siege", siege=True),
    )
    for scenario in scenarios:
        run_scenario(scenario, options.seed, options.turns, options.seconds)


if __name__ == "__main__":
    main()
