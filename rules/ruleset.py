"""The ruleset: every number of RULES.md as a parameter with its default."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from rules.fields import unset


class Outcome(StrEnum):
    """How a battle ended (RULES.md 3.4)."""

    DRAW = "draw"
    BLOODY_DRAW = "bloody_draw"
    SOLID = "solid"
    CRUSHING = "crushing"
    SLAUGHTER = "slaughter"

    @property
    def has_winner(self) -> bool:
        """True for the three victories, which name a winner."""
        return self not in (Outcome.DRAW, Outcome.BLOODY_DRAW)


class FocLimits(BaseModel):
    """Force organisation limits for one battle participant.

    ``elite_fa_hs_total`` caps Elite + Fast Attack + Heavy Support together (the one-army row);
    ``None`` means no cap beyond the three slots.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    hq: int = Field(ge=0)
    troops: tuple[int, int]
    elite: int = Field(ge=0)
    fast_attack: int = Field(ge=0)
    heavy_support: int = Field(ge=0)
    elite_fa_hs_total: int | None = Field(default=None, ge=0)

    def as_json(self) -> dict[str, Any]:
        """The Appendix A shape: five keys, plus ``elite_fa_hs_total`` only where it is set."""
        data: dict[str, Any] = {
            "hq": self.hq,
            "troops": list(self.troops),
            "elite": self.elite,
            "fast_attack": self.fast_attack,
            "heavy_support": self.heavy_support,
        }
        if self.elite_fa_hs_total is not None:
            data["elite_fa_hs_total"] = self.elite_fa_hs_total
        return data


class FocRow(BaseModel):
    """A row of the FOC table: the limits for ``armies`` armies or more (up to the next row)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    armies: int = Field(ge=1)
    limits: FocLimits


def _row(armies: int, hq: int, slots: int, total: int | None = None) -> FocRow:
    return FocRow(
        armies=armies,
        limits=FocLimits(
            hq=hq,
            troops=(2, 6),
            elite=slots,
            fast_attack=slots,
            heavy_support=slots,
            elite_fa_hs_total=total,
        ),
    )


DEFAULT_FOC_TABLE = (
    _row(1, hq=1, slots=1, total=1),
    _row(2, hq=1, slots=1),
    _row(3, hq=1, slots=2),
    _row(4, hq=2, slots=2),
    _row(5, hq=2, slots=3),
)


class OutcomeLosses(BaseModel):
    """Armies lost in the battle's sector for each outcome (RULES.md 3.4 table)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    draw: int = Field(default=0, ge=0)
    bloody_draw: int = Field(default=1, ge=0, description="lost by each side")
    solid: int = Field(default=1, ge=0, description="lost by the loser")
    crushing: int = Field(default=2, ge=0)
    slaughter: int = Field(default=3, ge=0)

    def for_outcome(self, outcome: Outcome) -> int:
        """Armies lost: by each side for a draw, by the loser for a victory."""
        return int(getattr(self, outcome.value))


class Ruleset(BaseModel):
    """All numbers of the planetary campaign; a campaign stores only its overrides.

    ``modules`` names the optional rule modules the campaign enables (in the order their battles
    are numbered); ``module_settings[name]`` holds only the overrides of a module's settings,
    checked against the module's own ``Settings`` model when the game is made
    (:meth:`rules.game.Game.create`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    start_armies: int = Field(default=10, ge=1, le=1000)
    start_sectors: int = Field(default=3, ge=1, le=100)
    armies_per_attack: int = Field(default=3, ge=1, le=1000)
    capture_min_armies: int = Field(default=3, ge=1, le=1000)
    sectors_to_win: int = Field(default=3, ge=1, le=1000)
    battle_points: int = Field(default=1000, ge=1)
    replenishment: int = Field(default=1, ge=0, le=1000)
    reinforcement: int = Field(default=1, ge=0, le=1000)
    losses: OutcomeLosses = OutcomeLosses()
    foc_table: tuple[FocRow, ...] = DEFAULT_FOC_TABLE
    modules: tuple[str, ...] = ()
    module_settings: dict[str, dict[str, JsonValue]] = Field(default_factory=dict, exclude_if=unset)

    @model_validator(mode="after")
    def _check_modules(self) -> Self:
        if len(set(self.modules)) != len(self.modules):
            raise ValueError("modules: a module is named twice")
        unknown = [name for name in self.module_settings if name not in self.modules]
        if unknown:
            raise ValueError(
                f"module_settings: {', '.join(unknown)} not enabled in modules "
                "(settings are kept only for enabled modules)"
            )
        return self

    @model_validator(mode="after")
    def _check_table(self) -> Self:
        if self.start_armies < self.start_sectors:
            raise ValueError("start_armies must be at least start_sectors (1 army per sector)")
        if not self.foc_table or self.foc_table[0].armies != 1:
            raise ValueError("foc_table must start with a row for 1 army")
        thresholds = [row.armies for row in self.foc_table]
        if thresholds != sorted(set(thresholds)):
            raise ValueError("foc_table rows must have strictly increasing army counts")
        return self

    def attack_limit(self, armies: int) -> int:
        """Attacks a side may declare in a sector where it has ``armies``: ceil(n / per)."""
        return -(-armies // self.armies_per_attack) if armies > 0 else 0

    def foc_for(self, armies: int) -> FocLimits:
        """FOC limits for a participant with ``armies`` in the battle's sector (at least 1)."""
        chosen = self.foc_table[0].limits
        for row in self.foc_table:
            if row.armies <= armies:
                chosen = row.limits
        return chosen

    @classmethod
    def with_overrides(cls, overrides: dict[str, Any]) -> Ruleset:
        """Defaults with a campaign's overrides applied (validated as a whole)."""
        return cls.model_validate(overrides)

    def overrides(self) -> dict[str, Any]:
        """Only the fields that differ from the defaults, in JSON form."""
        return self.model_dump(mode="json", exclude_defaults=True)


def overrides_in_force(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The overrides a game is built from: the settings of a module that is not enabled are
    left out. A setup tool may keep them while the GM switches the module off and on again
    (:class:`Ruleset` refuses settings of a module not enabled, so a stray name is still
    caught in a document given to ``python -m rules``)."""
    enabled = set(overrides.get("modules") or ())
    settings = overrides.get("module_settings")
    if not isinstance(settings, Mapping) or set(settings) <= enabled:
        return dict(overrides)
    kept = {name: value for name, value in settings.items() if name in enabled}
    result = {key: value for key, value in overrides.items() if key != "module_settings"}
    if kept:
        result["module_settings"] = kept
    return result
