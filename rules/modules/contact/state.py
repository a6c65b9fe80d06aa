"""The state ``contact`` keeps in ``CampaignState.modules["contact"]`` (versioned by ``"v"``)."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from rules.game import Game
from rules.maps import SectorId
from rules.module_state import Upgrade, VersionedState
from rules.state import SideId

NAME = "contact"
VERSION = 1


class Defences(BaseModel):
    """A sector's defences: ``owner`` (``None``: neutral), ``level`` 1 barricade or 2 blockpost,
    ``ruined`` once beaten (a ruined token waits for the GM's repair and counts for nothing)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=32)
    sector: SectorId
    owner: SideId | None = None
    level: Literal[1, 2] = 1
    ruined: bool = False

    def intact_against(self, side: SideId) -> bool:
        """True when these defences stand and are neutral or another side's (C1, C5)."""
        return not self.ruined and self.owner != side


class ContactState(BaseModel):
    """Defences (one per sector), armies exhausted by last turn's retreats, victory points and
    each side's standing retreat preferences (``retreat_to[side][sector]``, kept until
    replaced)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = VERSION
    defences: tuple[Defences, ...] = ()
    exhausted: dict[SideId, dict[SectorId, int]] = Field(default_factory=dict)
    vp: dict[SideId, int] = Field(default_factory=dict)
    retreat_to: dict[SideId, dict[SectorId, tuple[SectorId, ...]]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Self:
        sectors = [item.sector for item in self.defences]
        if len(set(sectors)) != len(sectors):
            raise ValueError("a sector has defences twice")
        if any(points < 0 for points in self.vp.values()):
            raise ValueError("victory points cannot be negative")
        for side, counts in self.exhausted.items():
            if any(count < 0 for count in counts.values()):
                raise ValueError(f"exhausted.{side}: a count cannot be negative")
        return self

    def defences_in(self, sector: SectorId) -> Defences | None:
        """The defences in ``sector``, if any."""
        return next((item for item in self.defences if item.sector == sector), None)

    def exhausted_in(self, side: SideId, sector: SectorId) -> int:
        """Armies of ``side`` in ``sector`` that retreated last turn."""
        return self.exhausted.get(side, {}).get(sector, 0)

    def as_json(self) -> JsonValue:
        """The state as stored."""
        data: dict[str, Any] = {
            "v": self.v,
            "defences": [
                item.model_dump(mode="json", exclude_defaults=True) for item in self.defences
            ],
            "exhausted": {side: dict(counts) for side, counts in self.exhausted.items() if counts},
            "vp": dict(self.vp),
        }
        if self.retreat_to:
            data["retreat_to"] = {
                side: {sector: list(to) for sector, to in prefs.items()}
                for side, prefs in self.retreat_to.items()
            }
        return data


def set_defences(
    game: Game,
    raw: JsonValue,
    sector: SectorId,
    level: Literal[1, 2],
    owner: SideId | None,
    ruined: bool,
) -> JsonValue | None:
    """The stored contact state ``raw`` with the defences in ``sector`` set to ``level`` of
    ``owner``, ruined or standing (the GM's repair, MODULES.md C8); ``None`` when the game does
    not play contact or that sector has no defences (the GM does not build new ones)."""
    if game.module(NAME) is None or raw is None:
        return None
    contact = load(raw)
    found = contact.defences_in(sector)
    if found is None:
        return None
    repaired = found.model_copy(update={"level": level, "owner": owner, "ruined": ruined})
    defences = tuple(repaired if item is found else item for item in contact.defences)
    return contact.model_copy(update={"defences": defences}).as_json()


_UPGRADES: dict[int, Upgrade] = {}
"""``_UPGRADES[n]`` turns a state of version ``n`` into version ``n + 1`` (none yet)."""

_STATE = VersionedState(NAME, VERSION, ContactState, _UPGRADES)
upgrade = _STATE.upgrade
"""``data`` brought to :data:`VERSION`; raises :class:`ModuleStateError` if it cannot be."""
load = _STATE.load
"""The module state in ``data`` (any stored version); :class:`ModuleStateError` if bad."""
load_in = _STATE.load_in
""":func:`load` of ``state``'s contact state, remembered in ``game.memo`` for as long as the same
state object is asked about."""
