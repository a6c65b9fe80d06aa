"""Campaign state: who has how many armies where, at the start of a turn."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from rules.maps import SectorId

SideId = str


class CampaignState(BaseModel):
    """Armies by side and sector at the start of ``turn`` (0 is deployment).

    Only positive counts are kept: a zero entry is dropped, and a side with no armies is not in
    ``armies`` at all (it is out). Side order is significant: it numbers battles.
    ``modules`` holds the state of optional rule modules, by module name.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: int = Field(default=0, ge=0)
    armies: dict[SideId, dict[SectorId, int]] = Field(default_factory=dict)
    modules: dict[str, JsonValue] = Field(default_factory=dict)

    @field_validator("armies", mode="before")
    @classmethod
    def _drop_empty(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        cleaned: dict[Any, Any] = {}
        for side, sectors in value.items():
            if not isinstance(sectors, dict):
                cleaned[side] = sectors
                continue
            kept = {sector: count for sector, count in sectors.items() if count != 0}
            if kept:
                cleaned[side] = kept
        return cleaned

    @field_validator("armies")
    @classmethod
    def _non_negative(cls, value: dict[SideId, dict[SectorId, int]]) -> dict[str, dict[str, int]]:
        for side, sectors in value.items():
            for sector, count in sectors.items():
                if count < 0:
                    raise ValueError(f"side {side} has {count} armies in sector {sector}")
        return value

    def sides(self) -> tuple[SideId, ...]:
        """Sides still on the map, in state order."""
        return tuple(self.armies)

    def armies_of(self, side: SideId, sector: SectorId) -> int:
        """Armies ``side`` has in ``sector`` (0 if none)."""
        return self.armies.get(side, {}).get(sector, 0)

    def total(self, side: SideId) -> int:
        """All armies of ``side`` on the map."""
        return sum(self.armies.get(side, {}).values())

    def occupants(self, sector: SectorId) -> dict[SideId, int]:
        """Sides with armies in ``sector`` and their counts, in state order."""
        return {side: sectors[sector] for side, sectors in self.armies.items() if sector in sectors}
