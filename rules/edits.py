"""A GM's direct edit of the state (issue 23): armies of a side in a sector set to a number, a
side's deployment placed mid-campaign, a side retired (its armies leave the map); with module
``contact``, a sector's defences set (the GM repairs ruined ones, MODULES.md C8).

The edit is a value checked here and applied to a turn's start; the bot stores it with the
GM's other adjustments, so a correction of the turn before applies it again. Captured sectors
are not stored state in this engine: resolution counts them anew from the armies every turn
(RULES.md 3.4 step 3), so a GM gives or takes a sector by setting the armies there;
:func:`holder_changes` tells what the edit changes about who holds what.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.game import Game
from rules.maps import SectorId
from rules.modules.contact.state import NAME as CONTACT
from rules.modules.contact.state import set_defences
from rules.render import held_sectors
from rules.state import CampaignState, SideId

MAX_ARMIES = 99
"""The most armies an edit may set in one sector."""


class ArmySet(BaseModel):
    """``side`` has ``count`` armies in ``sector`` after the edit (0: none)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    side: SideId
    sector: SectorId
    count: int


class DefencesSet(BaseModel):
    """Contact: the defences in ``sector`` are ``level`` 1 (barricade) or 2 (blockpost) of
    ``owner`` (``None``: neutral), ruined or standing, after the edit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sector: SectorId
    level: Literal[1, 2]
    owner: SideId | None = None
    ruined: bool = False


class StateEdit(BaseModel):
    """A GM's edit: armies set, or a side retired (every army of it leaves the map), or a
    sector's defences set, with the ``reason`` the GM gave."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = Field(default="edit", pattern="^edit$")
    armies: tuple[ArmySet, ...] = ()
    defences: tuple[DefencesSet, ...] = ()
    retire: SideId | None = None
    reason: str = Field(default="", max_length=1000)


class EditProblemCode(StrEnum):
    """Why an edit is refused."""

    UNKNOWN_SECTOR = "unknown_sector"  # sector
    UNKNOWN_SIDE = "unknown_side"  # side
    ARMIES_OUT_OF_RANGE = "armies_out_of_range"  # side, sector, count, most
    NO_CHANGE = "no_change"
    NO_ARMIES_LEFT = "no_armies_left"  # the edit would leave no side on the map
    NO_DEFENCES = "no_defences"  # sector: contact is not played, or the sector has no defences


class EditProblem(BaseModel):
    """One problem of an edit, with its details."""

    model_config = ConfigDict(frozen=True)

    code: EditProblemCode
    params: dict[str, str | int] = Field(default_factory=dict)


class EditError(ValueError):
    """An edit that cannot be applied; ``problems`` lists every reason."""

    def __init__(self, problems: list[EditProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(p.code.value for p in problems))


def is_edit(data: object) -> bool:
    """Whether stored adjustment JSON is a :class:`StateEdit` (not a module's adjustment)."""
    return isinstance(data, dict) and data.get("kind") == "edit"


def _unknown_side(side: SideId) -> EditProblem:
    return EditProblem(code=EditProblemCode.UNKNOWN_SIDE, params={"side": side})


def apply_edit(
    game: Game, state: CampaignState, edit: StateEdit, sides: Sequence[SideId]
) -> CampaignState:
    """``state`` with ``edit`` applied; raises :class:`EditError` with every problem.

    ``sides`` are the campaign's sides in play (a side not on the map may get armies: a side
    added mid-campaign, or one the GM brings back); a side that gets armies for the first time
    comes after those on the map, in the order of ``sides``. Module state is left as it is.
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
    for defences in edit.defences:
        if defences.owner is not None and defences.owner not in sides:
            problems.append(_unknown_side(defences.owner))
            continue
        changed = set_defences(
            game,
            modules.get(CONTACT),
            defences.sector,
            defences.level,
            defences.owner,
            defences.ruined,
        )
        if changed is None:
            problems.append(
                EditProblem(code=EditProblemCode.NO_DEFENCES, params={"sector": defences.sector})
            )
        else:
            modules[CONTACT] = changed
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
