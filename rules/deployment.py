"""Deployment, turn 0 (RULES.md 3.1): each side places its starting armies in secret.

A side that has not deployed by the deadline is not placed silently: the bot tells the GM, who
places it by hand or accepts :func:`default_deployment`, which is documented in docs/rules.md:
the ``start_sectors`` sectors with the fewest armies of other sides (ties: map order), the
armies split as evenly as possible, the larger shares to the earlier sectors.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from rules.game import Game
from rules.maps import SectorId
from rules.orders import OrderRule
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


def deployed_state(
    game: Game, placements: Mapping[SideId, Mapping[SectorId, int]]
) -> CampaignState:
    """The state at the start of turn 1 from every side's placement (sides in the given order).

    Raises :class:`DeploymentError` for the first side whose placement is invalid.
    """
    for side, placement in placements.items():
        problems = check_deployment(game, placement)
        if problems:
            raise DeploymentError(side, problems)
    modules = {module.name: module.initial_state(game) for module in game.modules}
    return CampaignState(
        turn=1,
        armies={
            side: {s: placement[s] for s in game.map.sector_ids() if s in placement}
            for side, placement in placements.items()
        },
        modules=modules,
    )
