"""A GM's direct edit of the state (issue 23): armies of a side in a sector set to a number, a
side's deployment placed mid-campaign, a side retired (its armies leave the map), and a module's
part (``modules[name]``, in the shape the module defines: the module checks and applies it,
:meth:`rules.game.RulesModule.edit`).

The edit is a value checked here and applied to a turn's start; the bot stores it with the
GM's other adjustments, so a correction of the turn before applies it again. Captured sectors
are not stored state in this engine: resolution counts them anew from the armies every turn
(RULES.md 3.4 step 3), so a GM gives or takes a sector by setting the armies there;
:func:`holder_changes` tells what the edit changes about who holds what.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rules.game import (
    EditError,
    EditProblem,
    EditProblemCode,
    Game,
    module_edit_problem,
)
from rules.maps import SectorId
from rules.render import held_sectors
from rules.state import CampaignState, SideId

__all__ = [
    "MAX_ARMIES",
    "ArmySet",
    "EditError",
    "EditProblem",
    "EditProblemCode",
    "HolderChange",
    "StateEdit",
    "apply_edit",
    "holder_changes",
    "is_edit",
]

MAX_ARMIES = 99
"""The most armies an edit may set in one sector."""


class ArmySet(BaseModel):
    """``side`` has ``count`` armies in ``sector`` after the edit (0: none)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    side: SideId
    sector: SectorId
    count: int


class StateEdit(BaseModel):
    """A GM's edit: armies set, or a side retired (every army of it leaves the map), or a
    module's state changed (``modules[name]``: that module's part, in the shape it defines),
    with the ``reason`` the GM gave."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = Field(default="edit", pattern="^edit$")
    armies: tuple[ArmySet, ...] = ()
    modules: dict[str, JsonValue] = Field(default_factory=dict)
    retire: SideId | None = None
    reason: str = Field(default="", max_length=1000)


def is_edit(data: object) -> bool:
    """Whether stored adjustment JSON is a :class:`StateEdit` (not a module's adjustment)."""
    return isinstance(data, dict) and data.get("kind") == "edit"


def apply_edit(
    game: Game, state: CampaignState, edit: StateEdit, sides: Sequence[SideId]
) -> CampaignState:
    """``state`` with ``edit`` applied; raises :class:`EditError` with every problem.

    ``sides`` are the campaign's sides in play (a side not on the map may get armies: a side
    added mid-campaign, or one the GM brings back); a side that gets armies for the first time
    comes after those on the map, in the order of ``sides``. A module's state changes only by its
    part of the edit.
    """
    problems: list[EditProblem] = []
    armies = {side: dict(sectors) for side, sectors in state.armies.items()}
    if edit.retire is not None:
        if edit.retire not in sides and edit.retire not in armies:
            problems.append(
                EditProblem(code=EditProblemCode.UNKNOWN_SIDE, params={"side": edit.retire})
            )
        armies.pop(edit.retire, None)
    for change in edit.armies:
        if change.sector not in game.map.by_id:
            problems.append(
                EditProblem(code=EditProblemCode.UNKNOWN_SECTOR, params={"sector": change.sector})
            )
        elif change.side not in sides or change.side == edit.retire:
            problems.append(
                EditProblem(code=EditProblemCode.UNKNOWN_SIDE, params={"side": change.side})
            )
        elif not 0 <= change.count <= MAX_ARMIES:
            problems.append(
                EditProblem(
                    code=EditProblemCode.ARMIES_OUT_OF_RANGE,
                    params={
                        "side": change.side,
                        "sector": change.sector,
                        "count": change.count,
                        "most": MAX_ARMIES,
                    },
                )
            )
        else:
            armies.setdefault(change.side, {})[change.sector] = change.count
    modules = dict(state.modules)
    for name, data in edit.modules.items():
        module = game.module(name)
        if module is None:
            problems.append(module_edit_problem(name, "not_played"))
            continue
        try:
            modules[name] = module.edit(game, state, data, sides)
        except EditError as refused:
            problems += refused.problems
    if problems:
        raise EditError(problems)
    order = [*state.armies, *(side for side in sides if side not in state.armies)]
    ordered = {
        side: {s: armies[side][s] for s in game.map.sector_ids() if armies[side].get(s, 0) > 0}
        for side in order
        if side in armies
    }
    edited = state.model_copy(
        update={
            "armies": {side: sectors for side, sectors in ordered.items() if sectors},
            "modules": modules,
        }
    )
    if edited == state:
        raise EditError([EditProblem(code=EditProblemCode.NO_CHANGE)])
    if not edited.armies:
        raise EditError([EditProblem(code=EditProblemCode.NO_ARMIES_LEFT)])
    return edited


class HolderChange(BaseModel):
    """``sector`` was held by ``before`` and is held by ``after`` (``None``: nobody)."""

    model_config = ConfigDict(frozen=True)

    sector: SectorId
    before: SideId | None
    after: SideId | None


def holder_changes(
    game: Game, before: CampaignState, after: CampaignState
) -> tuple[HolderChange, ...]:
    """The sectors whose holder (RULES.md 3.4 step 3, counted on these armies) differs, in map
    order."""
    minimum = game.ruleset.capture_min_armies

    def holders(state: CampaignState) -> dict[SectorId, SideId]:
        return {
            sector: side
            for side, sectors in held_sectors(state, minimum).items()
            for sector in sectors
        }

    old, new = holders(before), holders(after)
    return tuple(
        HolderChange(sector=sector, before=old.get(sector), after=new.get(sector))
        for sector in game.map.sector_ids()
        if old.get(sector) != new.get(sector)
    )
