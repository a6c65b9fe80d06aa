"""The Friday battle list (RULES.md 3.3) and the results reported for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.game import Game
from rules.maps import SectorId
from rules.orders import Attack, Rejection, SideOrders
from rules.ruleset import FocLimits, Outcome
from rules.state import CampaignState, SideId
from rules.validation import accept_orders


class Battle(BaseModel):
    """One declared attack: a battle on the table.

    ``armies`` are each side's armies in the sector at turn start minus those it moves out.
    ``fortified`` names the defender when it fortified the sector: it may choose the table side
    and re-roll for the first turn, once per turn in that sector however many battles it has
    there (``fortified_battles_in_sector`` says how many share that one use).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int = Field(ge=1)
    sector: SectorId
    attacker: SideId
    defender: SideId
    armies: dict[SideId, int]
    fortified: SideId | None
    fortified_battles_in_sector: int = 0
    foc: dict[SideId, FocLimits]
    points: int

    def participants(self) -> tuple[SideId, SideId]:
        """Attacker and defender."""
        return (self.attacker, self.defender)

    def as_json(self) -> dict[str, Any]:
        """The Appendix A shape of a battle."""
        return {
            "id": self.id,
            "sector": self.sector,
            "attacker": self.attacker,
            "defender": self.defender,
            "armies": dict(self.armies),
            "fortified": self.fortified,
            "foc": {side: limits.as_json() for side, limits in self.foc.items()},
        }


class BattleResult(BaseModel):
    """How battle ``battle`` ended; a victory names its ``winner``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    battle: int = Field(ge=1)
    outcome: Outcome
    winner: SideId | None = None

    @model_validator(mode="after")
    def _winner_matches_outcome(self) -> Self:
        if self.outcome.has_winner and self.winner is None:
            raise ValueError(f"outcome {self.outcome.value} needs a winner")
        if not self.outcome.has_winner and self.winner is not None:
            raise ValueError(f"outcome {self.outcome.value} is a draw and has no winner")
        return self


class BattlePlan(BaseModel):
    """The battle list with the orders it was built from, after validation."""

    model_config = ConfigDict(frozen=True)

    battles: tuple[Battle, ...]
    accepted: dict[SideId, SideOrders]
    rejected: tuple[Rejection, ...]


def plan_battles(
    game: Game, state: CampaignState, orders: Mapping[SideId, SideOrders]
) -> BattlePlan:
    """Validate every side's orders and list the battles they make.

    Battles are numbered from 1 by sector (map order), attacking side (state order), then
    declaration order. Sides with orders but no armies get every order rejected. Raises
    :class:`rules.game.StateOffMapError` if the state has armies off the map.
    """
    game.check_state(state)
    sides = [*state.sides(), *(side for side in orders if side not in state.armies)]
    accepted: dict[SideId, SideOrders] = {}
    rejected: list[Rejection] = []
    for side in sides:
        side_orders = orders.get(side)
        if side_orders is None:
            if side in state.armies:
                accepted[side] = SideOrders()
            continue
        kept, refused = accept_orders(game, state, side, side_orders)
        rejected.extend(refused)
        if side in state.armies:
            accepted[side] = kept
    return BattlePlan(
        battles=tuple(_number_battles(game, state, accepted)),
        accepted=accepted,
        rejected=tuple(rejected),
    )


def _number_battles(
    game: Game, state: CampaignState, accepted: Mapping[SideId, SideOrders]
) -> list[Battle]:
    battles: list[Battle] = []
    rules = game.ruleset
    by_sector: dict[SectorId, list[tuple[SideId, Attack]]] = {}
    for side in state.sides():
        for attack in accepted[side].attacks:
            by_sector.setdefault(attack.sector, []).append((side, attack))
    for sector in game.map.sector_ids():
        declared = by_sector.get(sector)
        if not declared:
            continue
        fortified_count: dict[SideId, int] = {}
        for _, attack in declared:
            if accepted[attack.target].is_fortifying(sector):
                fortified_count[attack.target] = fortified_count.get(attack.target, 0) + 1
        for attacker, attack in declared:
            counts = {
                side: _fighting(state, accepted[side], side, sector)
                for side in (attacker, attack.target)
            }
            fortified = attack.target if attack.target in fortified_count else None
            battles.append(
                Battle(
                    id=len(battles) + 1,
                    sector=sector,
                    attacker=attacker,
                    defender=attack.target,
                    armies=counts,
                    fortified=fortified,
                    fortified_battles_in_sector=fortified_count.get(attack.target, 0),
                    foc={side: rules.foc_for(count) for side, count in counts.items()},
                    points=rules.battle_points,
                )
            )
    return battles


def _fighting(state: CampaignState, orders: SideOrders, side: SideId, sector: SectorId) -> int:
    move = orders.move_from(sector)
    return state.armies_of(side, sector) - (move.count if move else 0)
