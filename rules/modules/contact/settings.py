"""Settings of ``contact`` (MODULES.md C2)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.maps import SectorId
from rules.state import SideId

DEFAULT_ZOMBIE_DECK: tuple[int, ...] = (2, 3, 3, 4, 4, 5, 5, 6, 6, 7)
"""The zombie deck (C1): the seed shows cards of 5 and 6 only, so the spread is a decision."""

DEFENCES_KIND = "defences"
DEFENCES_LEVELS = (1, 2)
"""1 barricade (+1), 2 blockpost (+2)."""


class DefencesSpec(BaseModel):
    """Defences the GM sets without editing the map: in ``sector``, ``level`` 1 barricade or 2
    blockpost owned by ``owner`` (``None``: neutral), or ``level`` 0 for none. A spec replaces
    the map's defences in its sector."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sector: SectorId
    level: Literal[0, 1, 2] = 1
    owner: SideId | None = None


class ContactSettings(BaseModel):
    """Parameters of ``contact``; a campaign stores only what differs from these defaults.

    ``vp_to_win`` ``None`` leaves the VP victory off; ``defences`` are the GM's, sector by
    sector over the map's ``[[features]]`` of kind ``defences``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    strength_per_army: int = Field(default=2, ge=1, le=100)
    transports_per_turn: int = Field(default=1, ge=0, le=100)
    transport_capacity: int = Field(default=4, ge=1, le=1000)
    transport_range: int = Field(default=2, ge=1, le=10)
    zombie_deck: tuple[int, ...] = Field(default=DEFAULT_ZOMBIE_DECK, min_length=1, max_length=100)
    warlord_vp: int = Field(default=3, ge=0, le=100)
    defences_vp: int = Field(default=1, ge=0, le=100)
    vp_to_win: int | None = Field(default=None, ge=1, le=10000)
    defences: tuple[DefencesSpec, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> Self:
        sectors = [spec.sector for spec in self.defences]
        if len(set(sectors)) != len(sectors):
            raise ValueError("defences: a sector is set twice")
        return self
