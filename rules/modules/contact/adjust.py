"""The GM's repair of defences (MODULES.md C8), contact's part of a GM's edit of the state.

The GM repairs ruined barricades and blockposts, or changes whose they are; he builds no new
ones. The bot puts the repair in a :class:`rules.edits.StateEdit` as ``modules["contact"]``
(:func:`defences_edit`), and the core hands it to :meth:`ContactModule.edit`, which applies it
with :func:`apply_edit`; the edit is stored with the others and applied again by a correction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from rules.game import EditError, EditProblem, EditProblemCode, Game, module_edit_problem
from rules.maps import SectorId
from rules.modules.contact.state import NAME, set_defences
from rules.state import CampaignState, SideId

NO_DEFENCES = "no_defences"
"""The rule of a refused repair (details: ``sector``): the sector has no defences."""
BAD_EDIT = "bad_edit"
"""The rule of a repair whose stored data is not one (no details)."""


class DefencesSet(BaseModel):
    """The defences in ``sector`` are ``level`` 1 (barricade) or 2 (blockpost) of ``owner``
    (``None``: neutral), ruined or standing, after the edit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sector: SectorId
    level: Literal[1, 2]
    owner: SideId | None = None
    ruined: bool = False


class DefencesEdit(BaseModel):
    """Contact's part of a GM's edit: the defences set, in order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    defences: tuple[DefencesSet, ...] = ()


def defences_edit(*repairs: DefencesSet) -> dict[str, JsonValue]:
    """A :class:`rules.edits.StateEdit`'s ``modules`` setting ``repairs``."""
    return {NAME: DefencesEdit(defences=repairs).model_dump(mode="json")}


def apply_edit(
    game: Game, state: CampaignState, data: JsonValue, sides: Sequence[SideId]
) -> JsonValue:
    """The contact state of ``state`` with the repairs ``data`` (a :class:`DefencesEdit`) made;
    raises :class:`EditError` with every problem: an owner not among ``sides``, a sector
    without defences (or contact not played)."""
    try:
        edit = DefencesEdit.model_validate(data)
    except ValidationError:
        raise EditError([module_edit_problem(NAME, BAD_EDIT)]) from None
    problems: list[EditProblem] = []
    raw = state.modules.get(NAME)
    for defences in edit.defences:
        if defences.owner is not None and defences.owner not in sides:
            problems.append(
                EditProblem(code=EditProblemCode.UNKNOWN_SIDE, params={"side": defences.owner})
            )
            continue
        changed = set_defences(
            game, raw, defences.sector, defences.level, defences.owner, defences.ruined
        )
        if changed is None:
            problems.append(module_edit_problem(NAME, NO_DEFENCES, sector=defences.sector))
        else:
            raw = changed
    if problems:
        raise EditError(problems)
    return raw
