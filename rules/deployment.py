"""Deployment, turn 0 (RULES.md 3.1): each side places its starting armies in secret.

A side that has not deployed by the deadline is not placed silently: the bot tells the GM, who
places it by hand or accepts :func:`default_deployment`, which is documented in docs/rules.md:
the ``start_sectors`` sectors with the fewest armies of other sides (ties: map order), the
armies split as evenly as possible, the larger shares to the earlier sectors.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, JsonValue

from rules.dice import Dice, Roll, TurnSeeds
from rules.game import Game, ModuleStateError
from rules.maps import CampaignMap, SectorId
from rules.orders import OrderRule
from rules.ruleset import Ruleset
from rules.state import CampaignState, SideId

Placement = dict[SectorId, int]


class DeploymentProblem(BaseModel):
    """A rule a placement breaks, with its details (``sector``, ``count``, ``total``, ...)."""

    model_config = ConfigDict(frozen=True)

    rule: OrderRule
    params: dict[str, str | int]


class DeploymentError(ValueError):
    """A side's placement breaks the deployment rules; ``problems`` says which."""

    def __init__(self, side: SideId, problems: list[DeploymentProblem]) -> None:
        self.side = side
        self.problems = problems
        super().__init__(f"side {side}: " + ", ".join(p.rule.value for p in problems))


def check_deployment(game: Game, placement: Mapping[SectorId, int]) -> list[DeploymentProblem]:
    """Every rule ``placement`` breaks; an empty list means it is valid."""
    rules = game.ruleset
    problems: list[DeploymentProblem] = []
    for sector, count in placement.items():
        if sector not in game.map.by_id:
            problems.append(
                DeploymentProblem(rule=OrderRule.DEPLOY_UNKNOWN_SECTOR, params={"sector": sector})
            )
        elif count < 1:
            problems.append(
                DeploymentProblem(
                    rule=OrderRule.DEPLOY_SECTOR_EMPTY, params={"sector": sector, "count": count}
                )
            )
    if len(placement) != rules.start_sectors:
        problems.append(
            DeploymentProblem(
                rule=OrderRule.DEPLOY_WRONG_SECTOR_COUNT,
                params={"sectors": len(placement), "required": rules.start_sectors},
            )
        )
    total = sum(placement.values())
    if total != rules.start_armies:
        problems.append(
            DeploymentProblem(
                rule=OrderRule.DEPLOY_WRONG_TOTAL,
                params={"total": total, "required": rules.start_armies},
            )
        )
    return problems


def default_deployment(game: Game, others: Mapping[SideId, Mapping[SectorId, int]]) -> Placement:
    """The documented placement for a side that did not deploy, given the other sides'."""
    rules = game.ruleset
    order = game.map.order

    def enemy_armies(sector: SectorId) -> int:
        return sum(placement.get(sector, 0) for placement in others.values())

    chosen = sorted(game.map.sector_ids(), key=lambda s: (enemy_armies(s), order[s]))
    chosen = sorted(chosen[: rules.start_sectors], key=order.__getitem__)
    share, extra = divmod(rules.start_armies, len(chosen))
    return {sector: share + (1 if index < extra else 0) for index, sector in enumerate(chosen)}


def captures_at_once(ruleset: Ruleset, campaign_map: CampaignMap) -> int:
    """The most sectors one side can hold captured at the first resolution with no battle
    (RULES.md 3.1, 3.4 step 3): its deployment, and one move from each of its sectors, leave
    ``capture_min_armies`` or more in each with no opponent there. The opponents, each in
    ``start_sectors`` distinct sectors at the least (a move leaves an army behind), can all
    stand in the same ones, so the side has at most the rest of the map to itself; each of its
    deployed sectors that it does not capture keeps at least one army; moves reach at most
    one sector more per deployed one, counted as if every free sector were next to one it
    holds. This is the most it could be on any map of this size: a ``sectors_to_win`` above it
    is out of reach at the first resolution unless a battle takes sectors from an enemy.

    The wizard warns a GM whose campaign the core's victory could end at once (a small map
    with few sides, e.g. six sectors for two sides of three sectors each)."""
    free = len(campaign_map.sectors) - ruleset.start_sectors
    most = 0
    for captured in range(1, min(free, 2 * ruleset.start_sectors) + 1):
        uncaptured = max(0, ruleset.start_sectors - captured)
        if captured * ruleset.capture_min_armies + uncaptured <= ruleset.start_armies:
            most = captured
    return most


class DeploymentChoiceError(ValueError):
    """A rule module's deployment choice is refused (``module`` and its ``reason``)."""

    def __init__(self, module: str, reason: str) -> None:
        self.module = module
        self.reason = reason
        super().__init__(f"{module}: {reason}")


def deployed_state(
    game: Game,
    placements: Mapping[SideId, Mapping[SectorId, int]],
    choices: Mapping[str, JsonValue] | None = None,
) -> CampaignState:
    """The state at the start of turn 1 from every side's placement (sides in the given order).

    ``choices`` are rule modules' deployment choices by module name (a starting setting
    picked once the board is known, say); a module whose choice is not given yet starts
    with it pending (:meth:`rules.game.Game.pending_choices`), and the bot calls this again with
    it. Raises :class:`DeploymentError` for the first side whose placement is invalid, and
    :class:`DeploymentChoiceError` for a refused choice.
    """
    for side, placement in placements.items():
        problems = check_deployment(game, placement)
        if problems:
            raise DeploymentError(side, problems)
    choices = choices or {}
    unknown = [name for name in choices if game.module(name) is None]
    if unknown:
        raise DeploymentChoiceError(", ".join(unknown), "not an enabled module")
    modules: dict[str, JsonValue] = {}
    for module in game.modules:
        choice = choices.get(module.name)
        if choice is not None:
            reason = module.check_choice(game, tuple(placements), choice)
            if reason is not None:
                raise DeploymentChoiceError(module.name, reason)
        modules[module.name] = module.initial_state(game, choice)
    return CampaignState(
        turn=1,
        armies={
            side: {s: placement[s] for s in game.map.sector_ids() if s in placement}
            for side, placement in placements.items()
        },
        modules=modules,
    )


class TurnStart(BaseModel):
    """A turn's state once its orders window opens, and the values drawn for it."""

    model_config = ConfigDict(frozen=True)

    state: CampaignState
    rolls: tuple[Roll, ...]


def start_turn(game: Game, state: CampaignState, seeds: TurnSeeds | None = None) -> TurnStart:
    """The state when the orders window of ``state.turn`` opens: every module's ``begin_turn``
    (cards dealt, pieces entering), drawn from ``seeds``; the bot calls it whenever it stores a
    turn start. Module states are brought to their current version. Raises
    :class:`rules.game.ModuleStateError` while a deployment choice is pending.
    """
    state = game.upgraded(state)
    pending = game.pending_choices(state)
    if pending:
        raise ModuleStateError(
            "waiting for a deployment choice: " + ", ".join(f"{c.module}.{c.key}" for c in pending)
        )
    if not game.modules:
        return TurnStart(state=state, rolls=())
    dice = Dice(seeds)
    modules = dict(state.modules)
    for module in game.modules:
        modules[module.name] = module.begin_turn(
            game, state.model_copy(update={"modules": modules}), dice
        )
    return TurnStart(state=state.model_copy(update={"modules": modules}), rolls=tuple(dice.rolls))
