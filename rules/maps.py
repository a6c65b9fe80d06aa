"""Campaign maps: a graph of sectors plus the geometry to draw it.

Maps are data. The built-in ``planet-5`` ships as ``rules/data/planet-5.toml`` (and a module's
own maps beside it, listed by the module); a GM's own map
is a TOML file of the same shape, checked by :func:`parse_map` before anything uses it.

Geometry is in unit coordinates: ``x`` and ``y`` of a sector's centre are in ``[0, 1]`` with
``y`` growing downwards, as on an image. ``polygon`` (optional) outlines the sector in the same
coordinates; without it a renderer draws a marker at the centre.
"""

from __future__ import annotations

import re
import tomllib
from collections import deque
from enum import StrEnum
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rules.fields import unset

SectorId = str


class MapProblemCode(StrEnum):
    """Why a map file was refused."""

    SYNTAX = "syntax"
    SCHEMA = "schema"
    EMPTY = "empty"
    DUPLICATE_ID = "duplicate_id"
    UNKNOWN_NEIGHBOUR = "unknown_neighbour"
    SELF_NEIGHBOUR = "self_neighbour"
    ASYMMETRIC_EDGE = "asymmetric_edge"
    UNREACHABLE_SECTOR = "unreachable_sector"
    BAD_GEOMETRY = "bad_geometry"
    DUPLICATE_FEATURE_ID = "duplicate_feature_id"
    FEATURE_UNKNOWN_SECTOR = "feature_unknown_sector"
    MODULE_RULE = "module_rule"


class MapProblem(BaseModel):
    """One thing wrong with a map: a code, the sector concerned and the other party, if any.

    For a feature, ``other`` is the feature's id; for ``module_rule`` (a rule module refuses the
    map or its own settings against it), ``detail`` names the module and the reason.
    """

    model_config = ConfigDict(frozen=True)

    code: MapProblemCode
    sector: str | None = None
    other: str | None = None
    detail: str | None = None


class MapError(ValueError):
    """A map was refused; ``problems`` lists every reason found, not only the first."""

    def __init__(self, problems: list[MapProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(describe_map_problem(p) for p in problems))


Point = tuple[float, float]


def _no_spaces(value: str) -> str:
    if value != value.strip() or any(ch.isspace() for ch in value):
        raise ValueError("an id must not contain spaces")
    return value


class Sector(BaseModel):
    """A place armies stand in. ``names`` holds translations of ``name`` by language code.

    ``tags`` mark sectors for rule modules and drawing (``weather_control``, ``hub``); the core
    gives them no meaning.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: SectorId = Field(min_length=1, max_length=32)
    name: str = Field(min_length=1, max_length=64)
    names: dict[str, str] = Field(default_factory=dict)
    neighbours: tuple[SectorId, ...]
    x: float
    y: float
    polygon: tuple[Point, ...] | None = None
    tags: tuple[str, ...] = Field(default=(), exclude_if=unset)

    @field_validator("id")
    @classmethod
    def _id_has_no_spaces(cls, value: str) -> str:
        return _no_spaces(value)

    def display_name(self, language: str | None = None) -> str:
        """The sector's name in ``language`` if the map has one, else its default name."""
        if language is not None and language in self.names:
            return self.names[language]
        return self.name


class Feature(BaseModel):
    """Something a rule module places on the map (``[[features]]`` in TOML): a token, defences.

    ``kind`` says which module reads it (``fortification``, ``occult``, ``defences`` ...); the
    enabled modules check the kinds they know, and features of modules not enabled are ignored.
    The other fields mean what the module says (``owner`` is a side id, ``level`` a number).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=32)
    kind: str = Field(min_length=1, max_length=32)
    sector: SectorId
    name: str | None = Field(default=None, min_length=1, max_length=64)
    names: dict[str, str] = Field(default_factory=dict)
    strength: int | None = Field(default=None, ge=0, le=1000)
    owner: str | None = None
    level: int | None = Field(default=None, ge=0, le=1000)
    text: str | None = Field(default=None, max_length=1000)
    texts: dict[str, str] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _id_has_no_spaces(cls, value: str) -> str:
        return _no_spaces(value)

    def display_name(self, language: str | None = None) -> str:
        """The feature's name in ``language`` if given, else its name, else its id."""
        if language is not None and language in self.names:
            return self.names[language]
        return self.name or self.id


class CampaignMap(BaseModel):
    """A validated map. Sector order is the map's order (battle numbering, ties, listings)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=64)
    name: str = Field(min_length=1, max_length=64)
    names: dict[str, str] = Field(default_factory=dict)
    sectors: tuple[Sector, ...]
    features: tuple[Feature, ...] = Field(default=(), exclude_if=unset)

    @cached_property
    def by_id(self) -> dict[SectorId, Sector]:
        """Sectors by id."""
        return {sector.id: sector for sector in self.sectors}

    @cached_property
    def order(self) -> dict[SectorId, int]:
        """Position of each sector id in the map's order."""
        return {sector.id: index for index, sector in enumerate(self.sectors)}

    @cached_property
    def adjacency(self) -> dict[SectorId, frozenset[SectorId]]:
        """Neighbour sets by sector id."""
        return {sector.id: frozenset(sector.neighbours) for sector in self.sectors}

    @cached_property
    def ids(self) -> tuple[SectorId, ...]:
        """Sector ids in map order."""
        return tuple(sector.id for sector in self.sectors)

    def sector_ids(self) -> tuple[SectorId, ...]:
        """Sector ids in map order."""
        return self.ids

    def adjacent(self, a: SectorId, b: SectorId) -> bool:
        """True when armies may move between ``a`` and ``b``."""
        return b in self.adjacency.get(a, frozenset())

    @cached_property
    def _distances(self) -> dict[SectorId, dict[SectorId, int]]:
        table: dict[SectorId, dict[SectorId, int]] = {}
        for start in self.ids:
            reached = {start: 0}
            queue = deque([start])
            while queue:
                here = queue.popleft()
                for neighbour in self.by_id[here].neighbours:
                    if neighbour not in reached:
                        reached[neighbour] = reached[here] + 1
                        queue.append(neighbour)
            table[start] = reached
        return table

    def distance(self, a: SectorId, b: SectorId) -> int:
        """Fewest neighbour steps from ``a`` to ``b`` (0 for the same sector; MODULES.md G2).

        Raises ``KeyError`` for a sector that is not on the map."""
        return self._distances[a][b]

    def tagged(self, tag: str) -> tuple[SectorId, ...]:
        """Ids of the sectors carrying ``tag``, in map order."""
        return tuple(sector.id for sector in self.sectors if tag in sector.tags)

    def features_of(self, *kinds: str) -> tuple[Feature, ...]:
        """The map's features of the given kinds, in file order."""
        return tuple(feature for feature in self.features if feature.kind in kinds)


def sector_id_key(sector: SectorId) -> tuple[int, int, str]:
    """Sort key for "lowest sector id": numeric ids by value ("2" < "10"), before other ids,
    which compare as text."""
    if sector.isdigit():
        return (0, int(sector), sector)
    return (1, 0, sector)


def _graph_problems(sectors: tuple[Sector, ...]) -> list[MapProblem]:
    problems: list[MapProblem] = []
    seen: set[str] = set()
    for sector in sectors:
        if sector.id in seen:
            problems.append(MapProblem(code=MapProblemCode.DUPLICATE_ID, sector=sector.id))
        seen.add(sector.id)
    by_id = {sector.id: sector for sector in sectors}
    for sector in sectors:
        for neighbour in sector.neighbours:
            if neighbour == sector.id:
                problems.append(MapProblem(code=MapProblemCode.SELF_NEIGHBOUR, sector=sector.id))
            elif neighbour not in by_id:
                problems.append(
                    MapProblem(
                        code=MapProblemCode.UNKNOWN_NEIGHBOUR, sector=sector.id, other=neighbour
                    )
                )
            elif sector.id not in by_id[neighbour].neighbours:
                problems.append(
                    MapProblem(
                        code=MapProblemCode.ASYMMETRIC_EDGE, sector=sector.id, other=neighbour
                    )
                )
    if problems:
        return problems
    reached = {sectors[0].id}
    queue = deque([sectors[0].id])
    while queue:
        for neighbour in by_id[queue.popleft()].neighbours:
            if neighbour not in reached:
                reached.add(neighbour)
                queue.append(neighbour)
    problems.extend(
        MapProblem(code=MapProblemCode.UNREACHABLE_SECTOR, sector=sector.id, other=sectors[0].id)
        for sector in sectors
        if sector.id not in reached
    )
    return problems


def _geometry_problems(sectors: tuple[Sector, ...]) -> list[MapProblem]:
    problems: list[MapProblem] = []
    centres: dict[tuple[float, float], str] = {}

    def bad(sector: Sector, detail: str) -> None:
        problems.append(
            MapProblem(code=MapProblemCode.BAD_GEOMETRY, sector=sector.id, detail=detail)
        )

    for sector in sectors:
        if not (0.0 <= sector.x <= 1.0 and 0.0 <= sector.y <= 1.0):
            bad(sector, f"centre ({sector.x}, {sector.y}) is outside the unit square [0, 1]")
        centre = (round(sector.x, 6), round(sector.y, 6))
        if centre in centres:
            bad(sector, f"centre is the same as sector {centres[centre]}'s")
        centres.setdefault(centre, sector.id)
        if sector.polygon is None:
            continue
        if len(sector.polygon) < 3:
            bad(sector, "a polygon needs at least 3 points")
        elif any(not (0.0 <= x <= 1.0 and 0.0 <= y <= 1.0) for x, y in sector.polygon):
            bad(sector, "a polygon point is outside the unit square [0, 1]")
        elif abs(_signed_area(sector.polygon)) < 1e-9:
            bad(sector, "the polygon has no area")
        elif not _covers(sector.polygon, (sector.x, sector.y)):
            bad(sector, f"centre ({sector.x}, {sector.y}) is outside the sector's own polygon")
    return problems


def _covers(polygon: tuple[Point, ...], point: Point, tolerance: float = 1e-9) -> bool:
    """Whether ``point`` is inside ``polygon`` or on its edge (even-odd rule)."""
    px, py = point
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        cross = (x2 - x1) * (py - y1) - (y2 - y1) * (px - x1)
        on_segment = (
            min(x1, x2) - tolerance <= px <= max(x1, x2) + tolerance
            and min(y1, y2) - tolerance <= py <= max(y1, y2) + tolerance
        )
        if abs(cross) <= tolerance and on_segment:
            return True
        if (y1 > py) != (y2 > py) and px < x1 + (py - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _signed_area(polygon: tuple[Point, ...]) -> float:
    total = 0.0
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        total += x1 * y2 - x2 * y1
    return total / 2.0


def _feature_problems(
    sectors: tuple[Sector, ...], features: tuple[Feature, ...]
) -> list[MapProblem]:
    problems: list[MapProblem] = []
    ids = {sector.id for sector in sectors}
    seen: set[str] = set()
    for feature in features:
        if feature.id in seen:
            problems.append(MapProblem(code=MapProblemCode.DUPLICATE_FEATURE_ID, other=feature.id))
        seen.add(feature.id)
        if feature.sector not in ids:
            problems.append(
                MapProblem(
                    code=MapProblemCode.FEATURE_UNKNOWN_SECTOR,
                    sector=feature.sector,
                    other=feature.id,
                )
            )
    return problems


def parse_map(data: dict[str, Any]) -> CampaignMap:
    """Build a map from its document (TOML or JSON shape); raise :class:`MapError` if bad."""
    try:
        raw = CampaignMap.model_validate(data)
    except ValidationError as error:
        raise MapError(
            [
                MapProblem(
                    code=MapProblemCode.SCHEMA,
                    detail=".".join(str(part) for part in issue["loc"]) + ": " + issue["msg"],
                )
                for issue in error.errors()
            ]
        ) from error
    if not raw.sectors:
        raise MapError([MapProblem(code=MapProblemCode.EMPTY)])
    problems = (
        _graph_problems(raw.sectors)
        + _geometry_problems(raw.sectors)
        + _feature_problems(raw.sectors, raw.features)
    )
    if problems:
        raise MapError(problems)
    return raw


def parse_map_toml(text: str) -> CampaignMap:
    """Parse and validate a TOML map document."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise MapError([MapProblem(code=MapProblemCode.SYNTAX, detail=str(error))]) from error
    return parse_map(data)


def load_map_file(path: Path) -> CampaignMap:
    """Read and validate a TOML map file."""
    return parse_map_toml(path.read_text(encoding="utf-8"))


BUILTIN_MAPS = ("planet-5",)
"""The core's maps (the command's message for an unknown map lists these); a module's own maps
are listed by the module (``RulesModule.maps``, gathered in ``rules.modules.module_maps()``)."""

_SHIPPED_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


@cache
def builtin_map(name: str) -> CampaignMap:
    """A map shipped with Strategium (the core's or a module's: ``rules/data/<name>.toml``), by
    name; ``KeyError`` for an unknown name."""
    if not _SHIPPED_NAME.fullmatch(name):
        raise KeyError(name)
    shipped = resources.files("rules").joinpath("data", f"{name}.toml")
    if not shipped.is_file():
        raise KeyError(name)
    return parse_map_toml(shipped.read_text(encoding="utf-8"))


def describe_map_problem(problem: MapProblem) -> str:
    """English text for a map problem (the bot words them itself, in the person's language)."""
    sector, other = problem.sector, problem.other
    match problem.code:
        case MapProblemCode.SYNTAX:
            return f"the file is not valid TOML: {problem.detail}"
        case MapProblemCode.SCHEMA:
            return f"wrong map field: {problem.detail}"
        case MapProblemCode.EMPTY:
            return "the map has no sectors"
        case MapProblemCode.DUPLICATE_ID:
            return f"sector id {sector} is used twice"
        case MapProblemCode.UNKNOWN_NEIGHBOUR:
            return f"sector {sector} names neighbour {other}, which is not on the map"
        case MapProblemCode.SELF_NEIGHBOUR:
            return f"sector {sector} names itself as a neighbour"
        case MapProblemCode.ASYMMETRIC_EDGE:
            return (
                f"sector {sector} lists {other} as a neighbour, but {other} does not list {sector}"
            )
        case MapProblemCode.UNREACHABLE_SECTOR:
            return f"sector {sector} cannot be reached from sector {other}"
        case MapProblemCode.BAD_GEOMETRY:
            return f"sector {sector}: {problem.detail}"
        case MapProblemCode.DUPLICATE_FEATURE_ID:
            return f"feature id {other} is used twice"
        case MapProblemCode.FEATURE_UNKNOWN_SECTOR:
            return f"feature {other} stands in sector {sector}, which is not on the map"
        case MapProblemCode.MODULE_RULE:
            return f"{problem.detail}"
