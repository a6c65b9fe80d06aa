"""GM adjustments (MODULES.md S7): how a GM carries out a card's text, as an audited change.

Card texts are the GM's; the engine cannot read them. The GM applies their effect as an
:class:`Adjustment` (armies added or removed in a sector, VP added or removed, weather steps) to
the campaign's state between turns; the bot stores each one in the audit log. Nothing is ever
pushed below zero: such an adjustment is refused as a whole, with every problem listed.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from rules.game import Game
from rules.maps import SectorId
from rules.modules.siege.settings import WEATHER_STATES
from rules.modules.siege.state import NAME, SiegeState, load_in
from rules.state import CampaignState, SideId


class ArmyChange(BaseModel):
    """``delta`` armies (positive: added, negative: removed) for ``side`` in ``sector``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    side: SideId
    sector: SectorId
    delta: int = Field(ge=-1000, le=1000)


class VpChange(BaseModel):
    """``delta`` siege VP for ``side``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    side: SideId
    delta: int = Field(ge=-1000, le=1000)


class Adjustment(BaseModel):
    """A GM's change of the state: armies, VP and weather steps (clockwise; negative steps
    turn the marker back), with the ``reason`` (the card played) for the audit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    armies: tuple[ArmyChange, ...] = ()
    vp: tuple[VpChange, ...] = ()
    weather_steps: int = Field(default=0, ge=-(WEATHER_STATES - 1), le=WEATHER_STATES - 1)
    reason: str = Field(default="", max_length=1000)


class AdjustmentProblemCode(StrEnum):
    """Why an adjustment is refused."""

    UNKNOWN_SECTOR = "unknown_sector"  # sector
    SIDE_NOT_IN_PLAY = "side_not_in_play"  # side
    ARMIES_BELOW_ZERO = "armies_below_zero"  # side, sector, have, delta
    VP_BELOW_ZERO = "vp_below_zero"  # side, have, delta
    WEATHER_NOT_CHOSEN = "weather_not_chosen"


class AdjustmentProblem(BaseModel):
    """One problem of an adjustment, with its details."""

    model_config = ConfigDict(frozen=True)

    code: AdjustmentProblemCode
    params: dict[str, str | int] = Field(default_factory=dict)


class AdjustmentError(ValueError):
    """An adjustment that cannot be applied; ``problems`` lists every reason."""

    def __init__(self, problems: list[AdjustmentProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(p.code.value for p in problems))


def apply_adjustment(game: Game, state: CampaignState, adjustment: Adjustment) -> CampaignState:
    """``state`` with ``adjustment`` applied; raises :class:`AdjustmentError` if it cannot be.

    Army changes to one side and sector are summed first; a side whose armies all go is out
    (left out of the state, as after resolution).
    """
    siege = load_in(game, state)
    problems: list[AdjustmentProblem] = []
    armies = {side: dict(sectors) for side, sectors in state.armies.items()}
    summed: dict[tuple[SideId, SectorId], int] = {}
    for change in adjustment.armies:
        if change.sector not in game.map.by_id:
            problems.append(
                AdjustmentProblem(
                    code=AdjustmentProblemCode.UNKNOWN_SECTOR, params={"sector": change.sector}
                )
            )
        elif change.side not in state.armies:
            problems.append(
                AdjustmentProblem(
                    code=AdjustmentProblemCode.SIDE_NOT_IN_PLAY, params={"side": change.side}
                )
            )
        else:
            key = (change.side, change.sector)
            summed[key] = summed.get(key, 0) + change.delta
    for (side, sector), delta in summed.items():
        have = armies[side].get(sector, 0)
        if have + delta < 0:
            problems.append(
                AdjustmentProblem(
                    code=AdjustmentProblemCode.ARMIES_BELOW_ZERO,
                    params={"side": side, "sector": sector, "have": have, "delta": delta},
                )
            )
        armies[side][sector] = have + delta
    vp = dict(siege.vp)
    for vp_change in adjustment.vp:
        have = vp.get(vp_change.side, 0)
        if have + vp_change.delta < 0:
            problems.append(
                AdjustmentProblem(
                    code=AdjustmentProblemCode.VP_BELOW_ZERO,
                    params={"side": vp_change.side, "have": have, "delta": vp_change.delta},
                )
            )
        vp[vp_change.side] = have + vp_change.delta
    if adjustment.weather_steps and siege.weather is None:
        problems.append(AdjustmentProblem(code=AdjustmentProblemCode.WEATHER_NOT_CHOSEN))
    if problems:
        raise AdjustmentError(problems)
    weather = (
        None
        if siege.weather is None
        else (siege.weather + adjustment.weather_steps) % WEATHER_STATES
    )
    ordered = {
        side: {s: armies[side][s] for s in game.map.sector_ids() if armies[side].get(s, 0) > 0}
        for side in armies
    }
    new_siege = SiegeState(weather=weather, tokens=siege.tokens, vp=vp)
    return state.model_copy(
        update={
            "armies": {side: sectors for side, sectors in ordered.items() if sectors},
            "modules": {**state.modules, NAME: new_siege.as_json()},
        }
    )
