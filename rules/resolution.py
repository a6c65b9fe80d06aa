"""The Monday resolution (RULES.md 3.4): a pure function of state, orders, results and rules.

The turn is a pipeline over a private working copy (:class:`TurnWork`): validate the orders and
plan the battles, fill a draw for every battle without a result, then run the core steps
(losses, arrivals, capture check, replenishment, orbital reinforcement, victory) with any
module hooks around them. The inputs are never changed; the answer is a new state and a report.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from rules.battles import Battle, BattleResult, plan_battles
from rules.game import Game, Step
from rules.maps import SectorId, sector_id_key
from rules.orders import Rejection, SideOrders
from rules.ruleset import Outcome
from rules.state import CampaignState, SideId


class ResultProblemCode(StrEnum):
    """Why a set of battle results cannot be used."""

    UNKNOWN_BATTLE = "unknown_battle"
    DUPLICATE_RESULT = "duplicate_result"
    WINNER_NOT_IN_BATTLE = "winner_not_in_battle"


class ResultProblem(BaseModel):
    """One unusable result: its code, the battle and the side concerned."""

    model_config = ConfigDict(frozen=True)

    code: ResultProblemCode
    battle: int
    side: SideId | None = None


class ResultsError(ValueError):
    """Results that do not fit the battle list; ``problems`` lists each one."""

    def __init__(self, problems: list[ResultProblem]) -> None:
        self.problems = problems
        super().__init__(
            "; ".join(
                f"battle {p.battle}: {p.code.value}" + (f" ({p.side})" if p.side else "")
                for p in problems
            )
        )


class Casualties(BaseModel):
    """Armies ``side`` actually lost in ``sector`` (battle losses summed, never below 0)."""

    model_config = ConfigDict(frozen=True)

    sector: SectorId
    side: SideId
    declared: int
    lost: int


class Arrival(BaseModel):
    """``count`` armies of ``side`` arrived in ``to`` from ``source``."""

    model_config = ConfigDict(frozen=True)

    side: SideId
    source: SectorId
    to: SectorId
    count: int


class Gain(BaseModel):
    """``armies`` added to ``side`` in ``sector`` by ``reason`` (a step or a module's name)."""

    model_config = ConfigDict(frozen=True)

    side: SideId
    sector: SectorId
    armies: int
    reason: str


class Reinforcement(BaseModel):
    """Orbital reinforcement: where it went, what was declared, and why if it went elsewhere."""

    model_config = ConfigDict(frozen=True)

    side: SideId
    sector: SectorId
    armies: int
    declared: SectorId | None
    fallback: Literal["none_declared", "declared_sector_lost"] | None


VictoryKind = Literal["sectors", "last_side_standing"]


class TurnReport(BaseModel):
    """What happened in a resolved turn, step by step, for the summary, the map and the audit."""

    model_config = ConfigDict(frozen=True)

    turn: int
    rejected: tuple[Rejection, ...]
    battles: tuple[Battle, ...]
    results: tuple[BattleResult, ...]
    unreported: tuple[int, ...]
    casualties: tuple[Casualties, ...]
    arrivals: tuple[Arrival, ...]
    captured: dict[SideId, tuple[SectorId, ...]]
    gains: tuple[Gain, ...]
    reinforcements: tuple[Reinforcement, ...]
    eliminated: tuple[SideId, ...]
    winner: SideId | None
    victory: VictoryKind | None
    game_over: bool
    log: tuple[str, ...]


class TurnResolution(BaseModel):
    """The state after the turn and the report of how it came about."""

    model_config = ConfigDict(frozen=True)

    state: CampaignState
    report: TurnReport


@dataclass
class TurnWork:
    """The turn's private working copy. Module hooks may read it and change its fields."""

    game: Game
    start: CampaignState
    accepted: dict[SideId, SideOrders]
    battles: tuple[Battle, ...]
    results: dict[int, BattleResult]
    armies: dict[SideId, dict[SectorId, int]]
    staying: dict[SideId, dict[SectorId, int]]
    modules: dict[str, JsonValue]
    casualties: list[Casualties] = field(default_factory=list)
    arrivals: list[Arrival] = field(default_factory=list)
    captured: dict[SideId, tuple[SectorId, ...]] = field(default_factory=dict)
    gains: list[Gain] = field(default_factory=list)
    reinforcements: list[Reinforcement] = field(default_factory=list)
    eliminated: list[SideId] = field(default_factory=list)
    winner: SideId | None = None
    victory: VictoryKind | None = None
    game_over: bool = False
    log: list[str] = field(default_factory=list)

    def add(self, side: SideId, sector: SectorId, armies: int, reason: str) -> None:
        """Give ``side`` ``armies`` more in ``sector`` and record the gain."""
        sectors = self.armies.setdefault(side, {})
        sectors[sector] = sectors.get(sector, 0) + armies
        self.gains.append(Gain(side=side, sector=sector, armies=armies, reason=reason))

    def sides_on_map(self) -> list[SideId]:
        """Sides with any army now, in turn-start order."""
        return [side for side in self.start.sides() if sum(self.armies.get(side, {}).values()) > 0]


def check_results(battles: Iterable[Battle], results: Iterable[BattleResult]) -> None:
    """Raise :class:`ResultsError` unless every result names a listed battle once, and a
    victory's winner fights in it."""
    by_id = {battle.id: battle for battle in battles}
    problems: list[ResultProblem] = []
    seen: set[int] = set()
    for result in results:
        battle = by_id.get(result.battle)
        if battle is None:
            problems.append(
                ResultProblem(code=ResultProblemCode.UNKNOWN_BATTLE, battle=result.battle)
            )
            continue
        if result.battle in seen:
            problems.append(
                ResultProblem(code=ResultProblemCode.DUPLICATE_RESULT, battle=result.battle)
            )
        seen.add(result.battle)
        if result.winner is not None and result.winner not in battle.participants():
            problems.append(
                ResultProblem(
                    code=ResultProblemCode.WINNER_NOT_IN_BATTLE,
                    battle=result.battle,
                    side=result.winner,
                )
            )
    if problems:
        raise ResultsError(problems)


def resolve_turn(
    game: Game,
    state: CampaignState,
    orders: Mapping[SideId, SideOrders],
    results: Iterable[BattleResult] = (),
) -> TurnResolution:
    """Resolve one turn. A battle with no result counts as a draw without losses (the default
    policy of RULES.md 3.4; a campaign that waits for the GM simply resolves later)."""
    plan = plan_battles(game, state, orders)
    given = list(results)
    check_results(plan.battles, given)
    reported = {result.battle: result for result in given}
    unreported = tuple(battle.id for battle in plan.battles if battle.id not in reported)
    for battle_id in unreported:
        reported[battle_id] = BattleResult(battle=battle_id, outcome=Outcome.DRAW)

    staying = {
        side: {
            sector: count - _moving(plan.accepted[side], sector)
            for sector, count in sectors.items()
        }
        for side, sectors in state.armies.items()
    }
    work = TurnWork(
        game=game,
        start=state,
        accepted=plan.accepted,
        battles=plan.battles,
        results=reported,
        armies={side: dict(sectors) for side, sectors in staying.items()},
        staying=staying,
        modules=copy.deepcopy(state.modules),
    )
    for step, run in _CORE_STEPS:
        for hook in game.hooks(step, "before"):
            hook.run(work)
        run(work, unreported)
        for hook in game.hooks(step, "after"):
            hook.run(work)

    new_state = CampaignState(
        turn=state.turn + 1,
        armies={
            side: {
                sector: work.armies[side][sector]
                for sector in game.map.sector_ids()
                if work.armies[side].get(sector, 0) > 0
            }
            for side in work.sides_on_map()
        },
        modules=work.modules,
    )
    report = TurnReport(
        turn=state.turn,
        rejected=plan.rejected,
        battles=plan.battles,
        results=tuple(reported[battle.id] for battle in plan.battles),
        unreported=unreported,
        casualties=tuple(work.casualties),
        arrivals=tuple(work.arrivals),
        captured=work.captured,
        gains=tuple(work.gains),
        reinforcements=tuple(work.reinforcements),
        eliminated=tuple(work.eliminated),
        winner=work.winner,
        victory=work.victory,
        game_over=work.game_over,
        log=tuple(work.log),
    )
    return TurnResolution(state=new_state, report=report)


def _moving(orders: SideOrders, sector: SectorId) -> int:
    move = orders.move_from(sector)
    return move.count if move else 0


def _names(sectors: Iterable[SectorId]) -> str:
    return ", ".join(sectors) or "none"


def _step_losses(work: TurnWork, unreported: tuple[int, ...]) -> None:
    losses = work.game.ruleset.losses
    declared: dict[tuple[SectorId, SideId], int] = {}
    lines: list[str] = []
    for battle in work.battles:
        result = work.results[battle.id]
        per_side: dict[SideId, int] = {}
        if battle.id in unreported:
            per_side = {battle.attacker: 0, battle.defender: 0}  # a draw *without* losses
        elif result.outcome.has_winner:
            loser = battle.defender if result.winner == battle.attacker else battle.attacker
            per_side[loser] = losses.for_outcome(result.outcome)
        else:
            amount = losses.for_outcome(result.outcome)
            per_side = {battle.attacker: amount, battle.defender: amount}
        for side, amount in per_side.items():
            key = (battle.sector, side)
            declared[key] = declared.get(key, 0) + amount
        what = result.outcome.value.replace("_", " ")
        if result.winner:
            what = f"{result.winner} {what} victory"
        if battle.id in unreported:
            what = "no result, counted as a draw"
        named = ", ".join(f"{side} -{n}" for side, n in per_side.items() if n) or "no losses"
        lines.append(f"battle {battle.id} in {battle.sector}: {what}, {named}")
    applied: list[str] = []
    for (sector, side), amount in declared.items():
        have = work.armies[side].get(sector, 0)
        lost = min(have, amount)
        work.armies[side][sector] = have - lost
        work.staying[side][sector] = have - lost
        work.casualties.append(Casualties(sector=sector, side=side, declared=amount, lost=lost))
        if lost:
            applied.append(f"{side} {have}->{have - lost} in {sector}")
    if not work.battles:
        work.log.append("1. Losses: no battles.")
        return
    work.log.append(
        "1. Losses: " + "; ".join(lines) + ". Applied: " + (", ".join(applied) or "none") + "."
    )


def _step_arrivals(work: TurnWork, _: tuple[int, ...]) -> None:
    for side in work.start.sides():
        for move in work.accepted[side].moves:
            sectors = work.armies[side]
            sectors[move.to] = sectors.get(move.to, 0) + move.count
            work.arrivals.append(
                Arrival(side=side, source=move.source, to=move.to, count=move.count)
            )
    work.log.append(
        "2. Arrivals: "
        + (
            "; ".join(f"{a.side} {a.count} from {a.source} to {a.to}" for a in work.arrivals)
            or "no moves"
        )
        + "."
    )


def _step_capture(work: TurnWork, _: tuple[int, ...]) -> None:
    need = work.game.ruleset.capture_min_armies
    for side in work.start.sides():
        work.captured[side] = tuple(
            sector
            for sector in work.game.map.sector_ids()
            if work.armies[side].get(sector, 0) >= need
            and not any(
                work.armies[other].get(sector, 0) > 0 for other in work.armies if other != side
            )
        )
    work.log.append(
        "3. Capture: "
        + "; ".join(f"{side} holds {_names(held)}" for side, held in work.captured.items())
        + "."
    )


def _step_replenishment(work: TurnWork, _: tuple[int, ...]) -> None:
    amount = work.game.ruleset.replenishment
    before = len(work.gains)
    for sector in work.game.map.sector_ids():
        holders = [side for side, sectors in work.staying.items() if sectors.get(sector, 0) > 0]
        if len(holders) == 1 and amount > 0:
            work.add(holders[0], sector, amount, Step.REPLENISHMENT.value)
    added = work.gains[before:]
    work.log.append(
        "4. Replenishment: "
        + ("; ".join(f"{g.side} +{g.armies} in {g.sector}" for g in added) or "none")
        + "."
    )


def _step_reinforcement(work: TurnWork, _: tuple[int, ...]) -> None:
    amount = work.game.ruleset.reinforcement
    for side in work.start.sides():
        held = {sector: n for sector, n in work.armies[side].items() if n > 0}
        if not held:
            work.eliminated.append(side)
            continue
        if amount == 0:
            continue
        declared = work.accepted[side].reinforce
        fallback: Literal["none_declared", "declared_sector_lost"] | None = None
        if declared is not None and declared in held:
            target = declared
        else:
            fallback = "none_declared" if declared is None else "declared_sector_lost"
            target = min(held, key=lambda sector: (held[sector], sector_id_key(sector)))
        work.add(side, target, amount, Step.REINFORCEMENT.value)
        work.reinforcements.append(
            Reinforcement(
                side=side, sector=target, armies=amount, declared=declared, fallback=fallback
            )
        )
    parts = []
    for r in work.reinforcements:
        why = {
            None: "as declared",
            "none_declared": "none declared: smallest sector",
            "declared_sector_lost": f"{r.declared} lost: smallest sector",
        }[r.fallback]
        parts.append(f"{r.side} +{r.armies} in {r.sector} ({why})")
    parts.extend(f"{side} has no armies left and is out" for side in work.eliminated)
    work.log.append("5. Reinforcement: " + ("; ".join(parts) or "none") + ".")


def _step_victory(work: TurnWork, _: tuple[int, ...]) -> None:
    need = work.game.ruleset.sectors_to_win
    left = work.sides_on_map()
    contenders = [side for side in left if len(work.captured.get(side, ())) >= need]
    if contenders:
        totals = {side: sum(work.armies[side].values()) for side in contenders}
        best = max((len(work.captured[side]), totals[side]) for side in contenders)
        leaders = [s for s in contenders if (len(work.captured[s]), totals[s]) == best]
        if len(leaders) == 1:
            work.winner, work.victory, work.game_over = leaders[0], "sectors", True
            work.log.append(
                f"6. Victory: {leaders[0]} wins with {len(work.captured[leaders[0]])} captured "
                f"sectors ({_names(work.captured[leaders[0]])})."
            )
            return
        work.log.append(
            f"6. Victory: {', '.join(leaders)} each reach {need} captured sectors with equal "
            "armies: no winner yet, play on."
        )
        return
    if len(left) == 1 and len(work.start.sides()) > 1:
        work.winner, work.victory, work.game_over = left[0], "last_side_standing", True
        work.log.append(f"6. Victory: {left[0]} is the last side with armies and wins.")
        return
    if not left:
        work.game_over = True
        work.log.append("6. Victory: no side has armies left; the campaign ends without a winner.")
        return
    work.log.append(f"6. Victory: nobody has {need} captured sectors; play on.")


_CORE_STEPS = (
    (Step.LOSSES, _step_losses),
    (Step.ARRIVALS, _step_arrivals),
    (Step.CAPTURE, _step_capture),
    (Step.REPLENISHMENT, _step_replenishment),
    (Step.REINFORCEMENT, _step_reinforcement),
    (Step.VICTORY, _step_victory),
)
