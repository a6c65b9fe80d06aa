"""The Monday resolution (RULES.md 3.4): a pure function of state, orders, results and rules.

The turn is a pipeline over a private working copy (:class:`TurnWork`): validate the orders and
plan the battles, check the late orders (given after the list, for rule modules), fill a draw for
every played battle without a result, then run the core steps (losses, arrivals, capture check,
replenishment, orbital reinforcement, victory) with any module hooks before, after or instead of
them. The inputs are never changed; the answer is a new state and a report.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rules.battles import (
    Battle,
    BattlePlan,
    BattleResult,
    BattleSides,
    BattleStatus,
    as_fought,
    battle_sides,
    plan_battles,
)
from rules.dice import Dice, Roll, TurnSeeds
from rules.fields import unset
from rules.game import Game, ModuleContractError, Step
from rules.late import accept_late_orders
from rules.maps import SectorId, sector_id_key
from rules.orders import ModuleOrder, Rejection, SideOrders
from rules.ruleset import Outcome
from rules.state import CampaignState, SideId


class ResultProblemCode(StrEnum):
    """Why a set of battle results cannot be used."""

    UNKNOWN_BATTLE = "unknown_battle"
    DUPLICATE_RESULT = "duplicate_result"
    WINNER_NOT_IN_BATTLE = "winner_not_in_battle"
    BATTLE_NOT_PLAYED = "battle_not_played"
    UNKNOWN_MODULE = "unknown_module"
    MODULE_RESULT = "module_result"


class ResultProblem(BaseModel):
    """One unusable result: its code, the battle and the side concerned (``detail``: a rule
    module's reason, or the module a result names that is not enabled)."""

    model_config = ConfigDict(frozen=True)

    code: ResultProblemCode
    battle: int
    side: SideId | None = None
    detail: str | None = Field(default=None, exclude_if=unset)


class ResultsError(ValueError):
    """Results that do not fit the battle list; ``problems`` lists each one."""

    def __init__(self, problems: list[ResultProblem]) -> None:
        self.problems = problems
        super().__init__(
            "; ".join(
                f"battle {p.battle}: {p.code.value}"
                + (f" ({p.side})" if p.side else "")
                + (f" ({p.detail})" if p.detail else "")
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


class ModuleLoss(BaseModel):
    """Armies a rule module takes from ``side`` in ``sector`` (applied with the battle losses)."""

    model_config = ConfigDict(frozen=True)

    side: SideId
    sector: SectorId
    armies: int
    reason: str


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


VictoryKind = str
"""``sectors`` or ``last_side_standing`` (the core's), or a rule module's own kind."""


class TurnReport(BaseModel):
    """What happened in a resolved turn, step by step, for the summary, the map and the audit.

    ``unplayed`` lists chain battles that were not fought (their condition failed); ``rolls``
    every value drawn this turn (the list's first, in order); ``modules`` what each rule module
    reports; ``late`` the late orders accepted and ``late_rejected`` those refused.
    """

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
    unplayed: tuple[int, ...] = Field(default=(), exclude_if=unset)
    module_losses: tuple[ModuleLoss, ...] = Field(default=(), exclude_if=unset)
    rolls: tuple[Roll, ...] = Field(default=(), exclude_if=unset)
    modules: dict[str, JsonValue] = Field(default_factory=dict, exclude_if=unset)
    late: dict[SideId, tuple[ModuleOrder, ...]] = Field(default_factory=dict, exclude_if=unset)
    late_rejected: tuple[Rejection, ...] = Field(default=(), exclude_if=unset)

    def fought_battles(self) -> tuple[Battle, ...]:
        """The battles fought this turn (not ``unplayed``), each with the sides that fought
        it: a chain battle's defender is the one the results gave it (MODULES.md C6)."""
        sides = battle_sides(
            self.battles, {result.battle: result for result in self.results}, final=True
        )
        return tuple(
            as_fought(battle, sides.get(battle.id))
            for battle in self.battles
            if battle.id not in self.unplayed
        )


class TurnResolution(BaseModel):
    """The state after the turn and the report of how it came about."""

    model_config = ConfigDict(frozen=True)

    state: CampaignState
    report: TurnReport


@dataclass
class TurnWork:
    """The turn's private working copy. Module hooks may read it and change its fields.

    Armies change only through :meth:`add` (gains) and :meth:`lose` (losses, applied with the
    battle losses), so every change appears in the report. ``modules`` is the module state being
    made; ``notes[name]`` is what a module reports; ``dice`` continues the list's draws.
    """

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
    plan: BattlePlan | None = None
    sides: dict[int, BattleSides] = field(default_factory=dict)
    late: dict[SideId, tuple[ModuleOrder, ...]] = field(default_factory=dict)
    dice: Dice = field(default_factory=Dice)
    notes: dict[str, JsonValue] = field(default_factory=dict)
    module_losses: list[ModuleLoss] = field(default_factory=list)
    losses_applied: bool = False

    def add(self, side: SideId, sector: SectorId, armies: int, reason: str) -> None:
        """Give ``side`` ``armies`` more in ``sector`` and record the gain."""
        sectors = self.armies.setdefault(side, {})
        sectors[sector] = sectors.get(sector, 0) + armies
        self.gains.append(Gain(side=side, sector=sector, armies=armies, reason=reason))

    def lose(self, side: SideId, sector: SectorId, armies: int, reason: str) -> None:
        """Take ``armies`` from ``side`` in ``sector`` (never below 0), recorded as casualties.

        Before the losses step the loss joins the battle losses there; afterwards it is applied
        at once.
        """
        if armies < 0 or side not in self.armies:
            raise ModuleContractError(f"{reason}: a loss of {armies} armies for side {side}")
        self.module_losses.append(
            ModuleLoss(side=side, sector=sector, armies=armies, reason=reason)
        )
        if self.losses_applied:
            have = self.armies[side].get(sector, 0)
            lost = min(have, armies)
            self.armies[side][sector] = have - lost
            self.staying[side][sector] = max(0, self.staying[side].get(sector, 0) - lost)
            self.casualties.append(Casualties(sector=sector, side=side, declared=armies, lost=lost))

    def played(self, battle_id: int) -> bool:
        """Whether battle ``battle_id`` was fought (a chain battle may not be)."""
        found = self.sides.get(battle_id)
        return found is not None and found.status is BattleStatus.PLAYABLE

    def defender_of(self, battle: Battle) -> SideId:
        """The side that defended ``battle`` (for ``defender_from``, known from the results)."""
        found = self.sides.get(battle.id)
        return found.defender if found is not None and found.defender else battle.defender

    def sides_on_map(self) -> list[SideId]:
        """Sides with any army now, in turn-start order."""
        return [side for side in self.start.sides() if sum(self.armies.get(side, {}).values()) > 0]


def check_results(
    battles: Iterable[Battle], results: Iterable[BattleResult], game: Game | None = None
) -> None:
    """Raise :class:`ResultsError` unless every result names a listed battle once, that battle
    was played (a chain battle whose condition failed was not), a victory's winner fights in
    it, and its ``modules`` data names enabled modules that accept it (``game`` given)."""
    battles = tuple(battles)
    results = tuple(results)
    by_id = {battle.id: battle for battle in battles}
    problems: list[ResultProblem] = []
    seen: set[int] = set()
    first: dict[int, BattleResult] = {}
    for result in results:
        first.setdefault(result.battle, result)
    sides = battle_sides(battles, first, final=True)
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
        status = sides[battle.id]
        if status.status is not BattleStatus.PLAYABLE:
            problems.append(
                ResultProblem(code=ResultProblemCode.BATTLE_NOT_PLAYED, battle=result.battle)
            )
        elif result.winner is not None and result.winner not in status.participants():
            problems.append(
                ResultProblem(
                    code=ResultProblemCode.WINNER_NOT_IN_BATTLE,
                    battle=result.battle,
                    side=result.winner,
                )
            )
        problems.extend(_module_result_problems(game, battle, result))
    if problems:
        raise ResultsError(problems)


def _module_result_problems(
    game: Game | None, battle: Battle, result: BattleResult
) -> list[ResultProblem]:
    problems: list[ResultProblem] = []
    for name, data in result.modules.items():
        module = game.module(name) if game is not None else None
        if module is None:
            problems.append(
                ResultProblem(
                    code=ResultProblemCode.UNKNOWN_MODULE, battle=result.battle, detail=name
                )
            )
            continue
        reason = module.check_result(battle, data)
        if reason is not None:
            problems.append(
                ResultProblem(
                    code=ResultProblemCode.MODULE_RESULT,
                    battle=result.battle,
                    detail=f"{name}: {reason}",
                )
            )
    return problems


def resolve_turn(
    game: Game,
    state: CampaignState,
    orders: Mapping[SideId, SideOrders],
    results: Iterable[BattleResult] = (),
    seeds: TurnSeeds | None = None,
    late: Mapping[SideId, Iterable[ModuleOrder]] | None = None,
) -> TurnResolution:
    """Resolve one turn. A played battle with no result counts as a draw without losses (the
    default policy of RULES.md 3.4; a campaign that waits for the GM simply resolves later).

    ``seeds`` are the turn's seeds (rule modules that draw dice need the roll seed; the same
    seeds give the same rolls, so a replay or an undo draws nothing new); ``late`` are the late
    orders each side gave after the battle list, checked here against it.
    """
    state = game.upgraded(state)
    plan = plan_battles(game, state, orders, seeds)
    late_accepted: dict[SideId, tuple[ModuleOrder, ...]] = {}
    late_rejected: list[Rejection] = []
    for side, given_late in (late or {}).items():
        kept, refused = accept_late_orders(game, state, plan, side, tuple(given_late))
        late_rejected.extend(refused)
        if kept:
            late_accepted[side] = kept
    given = list(results)
    check_results(plan.battles, given, game)
    reported = {result.battle: result for result in given}
    sides = battle_sides(plan.battles, reported, final=True)
    played = [battle for battle in plan.battles if sides[battle.id].status is BattleStatus.PLAYABLE]
    unplayed = tuple(battle.id for battle in plan.battles if battle not in played)
    unreported = tuple(battle.id for battle in played if battle.id not in reported)
    for battle_id in unreported:
        reported[battle_id] = BattleResult(battle=battle_id, outcome=Outcome.DRAW)

    staying = {
        side: {
            sector: count - game.moving_out(side, plan.accepted[side], sector)
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
        plan=plan,
        sides=sides,
        late=late_accepted,
        dice=Dice(seeds, plan.rolls),
    )
    for step, run in _CORE_STEPS:
        for hook in game.hooks(step, "before"):
            hook.run(work)
        replaced = game.hooks(step, "instead")
        if replaced:
            for hook in replaced:
                hook.run(work)
        else:
            run(work, unreported)
        if step is Step.LOSSES:
            work.losses_applied = True
        decided = (work.winner, work.victory, work.game_over)
        for hook in game.hooks(step, "after"):
            hook.run(work)
            changed = (work.winner, work.victory, work.game_over) != decided
            if step is Step.VICTORY and decided[0] is not None and changed:
                raise ModuleContractError("a module changed the winner the core named")

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
        results=tuple(reported[battle.id] for battle in played),
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
        unplayed=unplayed,
        module_losses=tuple(work.module_losses),
        rolls=tuple(work.dice.rolls),
        modules=work.notes,
        late=late_accepted,
        late_rejected=tuple(late_rejected),
    )
    return TurnResolution(state=new_state, report=report)


def _names(sectors: Iterable[SectorId]) -> str:
    return ", ".join(sectors) or "none"


def _step_losses(work: TurnWork, unreported: tuple[int, ...]) -> None:
    losses = work.game.ruleset.losses
    declared: dict[tuple[SectorId, SideId], int] = {}
    lines: list[str] = []
    for battle in work.battles:
        if not work.played(battle.id):
            found = work.sides.get(battle.id)
            lines.append(
                f"battle {battle.id} in {battle.sector}: not played"
                + (
                    f", {found.defender} has no armies left to defend it;"
                    f" {found.attacker} stands unopposed"
                    if found is not None and found.unopposed
                    else ""
                )
            )
            continue
        result = work.results[battle.id]
        attacker, defender = battle.attacker, work.defender_of(battle)
        per_side: dict[SideId, int] = {}
        if battle.id in unreported:
            per_side = {attacker: 0, defender: 0}  # a draw *without* losses
        elif result.outcome.has_winner:
            loser = defender if result.winner == attacker else attacker
            per_side[loser] = losses.for_outcome(result.outcome)
        else:
            amount = losses.for_outcome(result.outcome)
            per_side = {attacker: amount, defender: amount}
        for side, amount in per_side.items():
            key = (battle.loss_sector(side), side)
            declared[key] = declared.get(key, 0) + amount
        what = result.outcome.value.replace("_", " ")
        if result.winner:
            what = f"{result.winner} {what} victory"
        if battle.id in unreported:
            what = "no result, counted as a draw"
        named = (
            ", ".join(
                f"{side} -{n}"
                + (
                    ""
                    if battle.loss_sector(side) == battle.sector
                    else f" in {battle.loss_sector(side)}"
                )
                for side, n in per_side.items()
                if n
            )
            or "no losses"
        )
        lines.append(f"battle {battle.id} in {battle.sector}: {what}, {named}")
    for loss in work.module_losses:
        key = (loss.sector, loss.side)
        declared[key] = declared.get(key, 0) + loss.armies
        lines.append(f"{loss.reason}: {loss.side} -{loss.armies} in {loss.sector}")
    applied: list[str] = []
    for (sector, side), amount in declared.items():
        have = work.armies[side].get(sector, 0)
        lost = min(have, amount)
        work.armies[side][sector] = have - lost
        work.staying[side][sector] = have - lost
        work.casualties.append(Casualties(sector=sector, side=side, declared=amount, lost=lost))
        if lost:
            applied.append(f"{side} {have}->{have - lost} in {sector}")
    if not work.battles and not work.module_losses:
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
