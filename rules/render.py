"""The campaign map as a PNG picture: what the group sees every Monday (``docs/map.md``).

:func:`render_map` draws a :class:`MapView` (map, state, sides, title, language, labels and the
optional captured sectors, Friday battles or one side's secret orders) with Pillow and returns PNG
bytes. The picture is a pure function of the view: no clock, no randomness, no system fonts
(PT Sans is shipped in ``rules/data/fonts``), text laid out by FreeType alone (no Raqm), and the
PNG written with fixed settings and no metadata, so the same view always gives the same bytes.

Side colours come from the Okabe-Ito palette, which people with colour-blindness can tell
apart; every army count also carries the side's tag (its initial by default) as a second cue.
Sides past the eighth reuse the colours with an outlined chip instead of a filled one.
"""

from __future__ import annotations

import argparse
import io
import math
import re
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import IO, Literal, NoReturn, Self

from PIL import Image, ImageDraw, ImageFont
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rules.battles import Battle, plan_battles
from rules.cli import DocumentError, _load, _results
from rules.game import UnknownModuleError
from rules.maps import CampaignMap, Point, Sector, SectorId
from rules.orders import SideOrders
from rules.resolution import ResultsError, resolve_turn
from rules.state import CampaignState, SideId

Rgb = tuple[int, int, int]

OKABE_ITO: tuple[tuple[str, Rgb], ...] = (
    ("orange", (0xE6, 0x9F, 0x00)),
    ("sky blue", (0x56, 0xB4, 0xE9)),
    ("bluish green", (0x00, 0x9E, 0x73)),
    ("yellow", (0xF0, 0xE4, 0x42)),
    ("blue", (0x00, 0x72, 0xB2)),
    ("vermillion", (0xD5, 0x5E, 0x00)),
    ("reddish purple", (0xCC, 0x79, 0xA7)),
    ("black", (0x00, 0x00, 0x00)),
)
"""Side colours by palette index (Okabe & Ito, *Color Universal Design*, 2008)."""

COLOUR_WORDS: dict[str, int] = {
    "orange": 0,
    "sky": 1,
    "cyan": 1,
    "green": 2,
    "yellow": 3,
    "blue": 4,
    "red": 5,
    "vermillion": 5,
    "purple": 6,
    "pink": 6,
    "black": 7,
}
"""Palette index for a side whose id is a colour word (``red`` gets vermillion)."""

WIDTH = 1280
MAX_HEIGHT = 1280
HEADER_HEIGHT = 112
MARGIN = 20
BACKGROUND: Rgb = (0xE9, 0xE6, 0xDF)
SECTOR_FILL: Rgb = (0xFF, 0xFF, 0xFF)
INK: Rgb = (0x22, 0x22, 0x22)
MUTED: Rgb = (0x5F, 0x63, 0x68)
CONNECTOR: Rgb = (0xA3, 0xA8, 0xB0)
WHITE: Rgb = (0xFF, 0xFF, 0xFF)
PNG_COMPRESS_LEVEL = 3
FONT_FILES = {False: "PT_Sans-Web-Regular.ttf", True: "PT_Sans-Web-Bold.ttf"}

_HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


class MapLabels(BaseModel):
    """The few words drawn on the map, English by default; the bot passes translated ones."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: str = "Turn"
    armies: str = "armies"
    captured: str = "captured"
    battles: str = "Battles of the week"
    orders: str = "Secret orders"
    reinforce: str = "reinforcement"


RUSSIAN_LABELS = MapLabels(
    turn="Ход",
    armies="армии",
    captured="захвачено",
    battles="Битвы недели",
    orders="Секретные приказы",
    reinforce="подкрепление",
)
"""Russian labels, used by the ``render`` command for ``--lang ru``."""


class SideView(BaseModel):
    """How a side is drawn: its name, its colour (Okabe-Ito index or ``#rrggbb``) and its tag.

    ``tag`` is the short text beside each of the side's counts; by default the first letter of
    its name, made unique among the sides by :func:`side_tags`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: SideId
    name: str = Field(min_length=1, max_length=64)
    colour: int | str = Field(default=0)
    tag: str | None = Field(default=None, min_length=1, max_length=3)

    @model_validator(mode="after")
    def _colour_is_known(self) -> Self:
        if isinstance(self.colour, int) and self.colour < 0:
            raise ValueError(f"side {self.id}: palette index {self.colour} is negative")
        if isinstance(self.colour, str) and not _HEX_COLOUR.match(self.colour):
            raise ValueError(f"side {self.id}: colour {self.colour!r} is not #rrggbb")
        return self


class PrivateOrders(BaseModel):
    """One side's orders for the turn, drawn on its strategists' private map."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    side: SideId
    orders: SideOrders


class MapView(BaseModel):
    """Everything one map picture shows.

    ``captured`` (each side's captured sectors, ``TurnReport.captured``) marks sectors and adds
    captured counts to the legend (``None``: not shown); ``battles`` makes the Friday variant;
    ``private`` makes a side's private variant with its orders.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    map: CampaignMap
    state: CampaignState
    sides: tuple[SideView, ...]
    title: str = Field(min_length=1, max_length=120)
    language: str = "en"
    labels: MapLabels = MapLabels()
    captured: dict[SideId, tuple[SectorId, ...]] | None = None
    battles: tuple[Battle, ...] | None = None
    private: PrivateOrders | None = None

    @model_validator(mode="after")
    def _names_are_known(self) -> Self:
        side_ids = [side.id for side in self.sides]
        if len(set(side_ids)) != len(side_ids):
            raise ValueError("a side id is listed twice in sides")
        tags = [side.tag for side in self.sides if side.tag is not None]
        if len(set(tags)) != len(tags):
            raise ValueError("two sides have the same tag")
        known_sides, known_sectors = set(side_ids), set(self.map.by_id)
        captured = self.captured or {}
        used_sides = set(self.state.armies) | set(captured)
        used_sectors = {s for sectors in self.state.armies.values() for s in sectors}
        used_sectors.update(s for sectors in captured.values() for s in sectors)
        for battle in self.battles or ():
            used_sides.update(battle.participants())
            used_sectors.add(battle.sector)
        if self.private is not None:
            orders = self.private.orders
            used_sides.add(self.private.side)
            used_sides.update(attack.target for attack in orders.attacks)
            used_sectors.update(s for move in orders.moves for s in (move.source, move.to))
            used_sectors.update(attack.sector for attack in orders.attacks)
            if orders.reinforce is not None:
                used_sectors.add(orders.reinforce)
        if unknown := sorted(used_sides - known_sides):
            raise ValueError(f"sides {', '.join(unknown)} are used but not listed in sides")
        if unknown := sorted(used_sectors - known_sectors):
            raise ValueError(f"sectors {', '.join(unknown)} are not on map {self.map.id}")
        return self


def side_tags(sides: Sequence[SideView]) -> dict[SideId, str]:
    """Each side's tag: its own, else its name's first letter, lengthened until unique."""
    given = {side.tag for side in sides if side.tag is not None}
    tags: dict[SideId, str] = {}
    for side in sides:
        if side.tag is not None:
            tags[side.id] = side.tag
            continue
        letters = [ch for ch in side.name if ch.isalnum()] or list(side.id)
        taken = given | set(tags.values())
        tag = letters[0].upper()
        if tag in taken and len(letters) > 1:
            tag = letters[0].upper() + letters[1].lower()
        number = 2
        base = tag
        while tag in taken:
            tag, number = f"{base[:2]}{number}", number + 1
        tags[side.id] = tag
    return tags


def default_palette(side_ids: Sequence[SideId]) -> dict[SideId, int]:
    """Palette indexes for sides: a colour word in the id picks its colour, others take the
    free colours in palette order (past eight, the outlined chips)."""
    chosen: dict[SideId, int] = {}
    for side in side_ids:
        index = COLOUR_WORDS.get(side.lower())
        if index is not None and index not in chosen.values():
            chosen[side] = index
    free = (i for i in range(1000) if i not in chosen.values())
    return {side: chosen[side] if side in chosen else next(free) for side in side_ids}


# ---- drawing helpers ---------------------------------------------------------------------


@cache
def _font_bytes(bold: bool) -> bytes:
    return resources.files("rules").joinpath("data", "fonts", FONT_FILES[bold]).read_bytes()


@cache
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(
        io.BytesIO(_font_bytes(bold)), max(size, 6), layout_engine=ImageFont.Layout.BASIC
    )


@lru_cache(maxsize=4096)
def _text_width(text: str, font: ImageFont.FreeTypeFont) -> float:
    return float(font.getlength(text))


def _fit(text: str, font: ImageFont.FreeTypeFont, width: float) -> str:
    """``text``, cut with an ellipsis if it is wider than ``width``."""
    if _text_width(text, font) <= width:
        return text
    while text and _text_width(text + "…", font) > width:
        text = text[:-1]
    return text.rstrip() + "…" if text else ""


def _luminance(colour: Rgb) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _text_on(colour: Rgb) -> Rgb:
    """Black or white, whichever contrasts more with ``colour``."""
    lum = _luminance(colour)
    return (0, 0, 0) if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else WHITE


def _tint(colour: Rgb, share: float) -> Rgb:
    r, g, b = (round(255 + (c - 255) * share) for c in colour)
    return (r, g, b)


@dataclass(frozen=True)
class _Style:
    """A side's drawing style: fill, text and border colours of its chips."""

    tag: str
    colour: Rgb
    fill: Rgb
    text: Rgb
    border: Rgb
    border_width: int


def _styles(sides: Sequence[SideView]) -> dict[SideId, _Style]:
    tags = side_tags(sides)
    styles: dict[SideId, _Style] = {}
    for side in sides:
        if isinstance(side.colour, str):
            hex_value = side.colour.lstrip("#")
            colour: Rgb = (
                int(hex_value[0:2], 16),
                int(hex_value[2:4], 16),
                int(hex_value[4:6], 16),
            )
            outlined = False
        else:
            colour = OKABE_ITO[side.colour % len(OKABE_ITO)][1]
            outlined = side.colour >= len(OKABE_ITO)
        if outlined:
            styles[side.id] = _Style(tags[side.id], colour, WHITE, INK, colour, 4)
        else:
            styles[side.id] = _Style(tags[side.id], colour, colour, _text_on(colour), INK, 2)
    return styles


# Segments of an inline row: text, a small drawn icon, or a side-coloured chip with text.
@dataclass(frozen=True)
class _Text:
    text: str
    size: int
    bold: bool = False
    colour: Rgb = INK


@dataclass(frozen=True)
class _Icon:
    kind: Literal["swords", "flag", "link", "arrow"]
    size: int
    colour: Rgb = INK


@dataclass(frozen=True)
class _Chip:
    text: str
    size: int
    style: _Style


_Segment = _Text | _Icon | _Chip


def _segment_width(segment: _Segment) -> float:
    match segment:
        case _Text():
            return _text_width(segment.text, _font(segment.size, segment.bold))
        case _Icon():
            return segment.size * (1.5 if segment.kind in ("link", "arrow") else 1.0)
        case _Chip():
            return _text_width(segment.text, _font(segment.size, True)) + segment.size * 0.6


def _row_width(segments: Sequence[_Segment], gap: float) -> float:
    return sum(_segment_width(s) for s in segments) + gap * max(len(segments) - 1, 0)


def _draw_icon(draw: ImageDraw.ImageDraw, icon: _Icon, left: float, middle: float) -> None:
    s = icon.size
    top, bottom, right = middle - s / 2, middle + s / 2, left + _segment_width(icon)
    width = max(2, round(s / 7))
    match icon.kind:
        case "swords":
            draw.line([(left, top), (right, bottom)], fill=icon.colour, width=width)
            draw.line([(left, bottom), (right, top)], fill=icon.colour, width=width)
            guard = s * 0.2
            for cx, cy, slope in (
                (left + s * 0.28, bottom - s * 0.28, 1),
                (right - s * 0.28, bottom - s * 0.28, -1),
            ):
                draw.line(
                    [(cx - guard, cy - slope * guard), (cx + guard, cy + slope * guard)],
                    fill=icon.colour,
                    width=width,
                )
        case "flag":
            pole = left + width / 2
            draw.line([(pole, top), (pole, bottom)], fill=INK, width=width)
            draw.polygon(
                [(pole, top), (right, top + s * 0.28), (pole, top + s * 0.56)],
                fill=icon.colour,
                outline=INK,
            )
        case "link" | "arrow":
            head = s * 0.45
            draw.line([(left + 1, middle), (right - 1, middle)], fill=icon.colour, width=width)
            draw.polygon(
                [
                    (right, middle),
                    (right - head, middle - head * 0.6),
                    (right - head, middle + head * 0.6),
                ],
                fill=icon.colour,
            )
            if icon.kind == "link":
                draw.polygon(
                    [
                        (left, middle),
                        (left + head, middle - head * 0.6),
                        (left + head, middle + head * 0.6),
                    ],
                    fill=icon.colour,
                )


def _draw_chip(draw: ImageDraw.ImageDraw, chip: _Chip, left: float, middle: float) -> None:
    width = _segment_width(chip)
    height = chip.size * 1.25
    draw.rounded_rectangle(
        (left, middle - height / 2, left + width, middle + height / 2),
        radius=height * 0.25,
        fill=chip.style.fill,
        outline=chip.style.border,
        width=max(1, chip.style.border_width - 1),
    )
    draw.text(
        (left + width / 2, middle),
        chip.text,
        font=_font(chip.size, True),
        fill=chip.style.text,
        anchor="mm",
    )


def _draw_row(
    draw: ImageDraw.ImageDraw,
    segments: Sequence[_Segment],
    left: float,
    middle: float,
    gap: float,
) -> None:
    x = left
    for segment in segments:
        match segment:
            case _Text():
                draw.text(
                    (x, middle),
                    segment.text,
                    font=_font(segment.size, segment.bold),
                    fill=segment.colour,
                    anchor="lm",
                )
            case _Icon():
                _draw_icon(draw, segment, x, middle)
            case _Chip():
                _draw_chip(draw, segment, x, middle)
        x += _segment_width(segment) + gap


# ---- geometry ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Shape:
    """A sector in pixels: its outline (polygon or circle) and the box its content goes in."""

    sector: Sector
    centre: Point
    polygon: tuple[Point, ...] | None
    radius: float
    box: tuple[float, float, float, float]
    bounds: tuple[float, float, float, float]

    def contains(self, point: Point) -> bool:
        if self.polygon is None:
            return math.dist(point, self.centre) < self.radius
        return _inside(point, self.polygon)


def _inside(point: Point, polygon: Sequence[Point]) -> bool:
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _segment_distance(point: Point, a: Point, b: Point) -> float:
    (px, py), (ax, ay), (bx, by) = point, a, b
    length = (bx - ax) ** 2 + (by - ay) ** 2
    t = (
        0.0
        if length == 0
        else max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / length))
    )
    return math.dist(point, (ax + t * (bx - ax), ay + t * (by - ay)))


def _marker_radii(campaign_map: CampaignMap) -> dict[SectorId, float]:
    """Radius (unit coordinates) of the circle drawn for each sector without a polygon: clear
    of the other sectors' polygons and of the circles around the other centres."""
    radii: dict[SectorId, float] = {}
    for sector in campaign_map.sectors:
        if sector.polygon is not None:
            continue
        centre = (sector.x, sector.y)
        radius = 0.16
        for other in campaign_map.sectors:
            if other.id == sector.id:
                continue
            radius = min(radius, math.dist(centre, (other.x, other.y)) * 0.42)
            if other.polygon is not None:
                edges = zip(other.polygon, [*other.polygon[1:], other.polygon[0]], strict=True)
                nearest = min(_segment_distance(centre, p, q) for p, q in edges)
                radius = min(radius, nearest * 0.92)
        radii[sector.id] = max(radius, 0.01)
    return radii


@dataclass(frozen=True)
class _Frame:
    """Unit coordinates to pixels: ``scale`` pixels per unit, ``(left, top)`` the offset."""

    scale: float
    left: float
    top: float
    origin: Point

    def point(self, point: Point) -> Point:
        return (
            self.left + (point[0] - self.origin[0]) * self.scale,
            self.top + (point[1] - self.origin[1]) * self.scale,
        )


def _map_bounds(campaign_map: CampaignMap) -> tuple[float, float, float, float]:
    radii = _marker_radii(campaign_map)
    xs: list[float] = []
    ys: list[float] = []
    for sector in campaign_map.sectors:
        if sector.polygon is not None:
            xs.extend((sector.x, *(x for x, _ in sector.polygon)))
            ys.extend((sector.y, *(y for _, y in sector.polygon)))
        else:
            radius = radii[sector.id]
            xs.extend((sector.x - radius, sector.x + radius))
            ys.extend((sector.y - radius, sector.y + radius))
    return min(xs), min(ys), max(xs), max(ys)


def _largest_box(
    centre: Point, polygon: tuple[Point, ...], reach_w: float, reach_h: float
) -> tuple[float, float]:
    """Half width and height of the largest box of this shape centred at ``centre`` inside."""
    cx, cy = centre
    low, high = 0.0, 1.0
    while high - low > 0.01:
        k = (low + high) / 2
        w, h = reach_w * k, reach_h * k
        probes = [
            (cx + fx * w, cy + fy * h)
            for fx in (-1, -0.5, 0, 0.5, 1)
            for fy in (-1, -0.5, 0, 0.5, 1)
            if abs(fx) == 1 or abs(fy) == 1
        ]
        if all(_inside(p, polygon) for p in probes):
            low = k
        else:
            high = k
    return reach_w * low, reach_h * low


def _content_box(
    centre: Point, polygon: tuple[Point, ...] | None, radius: float
) -> tuple[float, float, float, float]:
    cx, cy = centre
    if polygon is None:
        half = radius / math.sqrt(2)
        half_w = half_h = half
    else:
        xs = [x for x, _ in polygon]
        ys = [y for _, y in polygon]
        reach_w = min(cx - min(xs), max(xs) - cx)
        reach_h = min(cy - min(ys), max(ys) - cy)
        if len(polygon) == 4 and len(set(xs)) == 2 and len(set(ys)) == 2:
            half_w, half_h = reach_w, reach_h  # an upright rectangle: all of it
        else:
            half_w, half_h = max(
                (
                    _largest_box(centre, polygon, reach_w * min(1, m), reach_h * min(1, 1 / m))
                    for m in (0.5, 0.7, 1.0, 1.4, 2.0)
                ),
                key=lambda size: size[0] * size[1],
            )
    half_w, half_h = max(half_w, 24.0), max(half_h, 24.0)  # a centre outside its own polygon
    pad = max(4.0, min(half_w, half_h) * 0.08)
    return (cx - half_w + pad, cy - half_h + pad, cx + half_w - pad, cy + half_h - pad)


def _shapes(campaign_map: CampaignMap, frame: _Frame) -> dict[SectorId, _Shape]:
    radii = _marker_radii(campaign_map)
    shapes: dict[SectorId, _Shape] = {}
    for sector in campaign_map.sectors:
        radius = radii.get(sector.id, 0.0) * frame.scale
        centre = frame.point((sector.x, sector.y))
        polygon = (
            tuple(frame.point(p) for p in sector.polygon) if sector.polygon is not None else None
        )
        if polygon is None:
            bounds = (
                centre[0] - radius,
                centre[1] - radius,
                centre[0] + radius,
                centre[1] + radius,
            )
        else:
            xs, ys = [x for x, _ in polygon], [y for _, y in polygon]
            bounds = (min(xs), min(ys), max(xs), max(ys))
        box = _content_box(centre, polygon, radius)
        shapes[sector.id] = _Shape(sector, centre, polygon, radius, box, bounds)
    return shapes


def _blocked(a: _Shape, b: _Shape, shapes: dict[SectorId, _Shape]) -> bool:
    """True when the straight line between two sectors' centres crosses a third sector."""
    (ax, ay), (bx, by) = a.centre, b.centre
    low_x, high_x, low_y, high_y = min(ax, bx), max(ax, bx), min(ay, by), max(ay, by)
    others = [
        shape
        for shape in shapes.values()
        if shape.sector.id not in (a.sector.id, b.sector.id)
        and shape.bounds[0] <= high_x
        and shape.bounds[2] >= low_x
        and shape.bounds[1] <= high_y
        and shape.bounds[3] >= low_y
    ]
    samples = (step / 40 for step in range(1, 40))
    return any(
        shape.contains((ax + (bx - ax) * t, ay + (by - ay) * t))
        for t in samples
        for shape in others
    )


def _curve(a: Point, b: Point, bend: float) -> Callable[[float], Point]:
    """A quadratic Bezier from ``a`` to ``b`` bowed sideways by ``bend`` times their distance."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    control = (mx - dy * bend, my + dx * bend)

    def at(t: float) -> Point:
        u = 1 - t
        return (
            u * u * a[0] + 2 * u * t * control[0] + t * t * b[0],
            u * u * a[1] + 2 * u * t * control[1] + t * t * b[1],
        )

    return at


# ---- the picture -------------------------------------------------------------------------


def render_map(view: MapView) -> bytes:
    """The map as PNG bytes; the same view always gives the same bytes."""
    return png_bytes(render_image(view))


def png_bytes(image: Image.Image) -> bytes:
    """An RGB image as a PNG file with only the chunks it needs (no time, no text).

    Written here rather than by Pillow because Pillow picks a filter per row, which for a
    picture of flat colours costs as much time as the compression and makes the file no
    smaller: every row here is unfiltered, compressed by ``zlib`` at a fixed level.
    """
    width, height = image.size
    stride = width * 3
    pixels = (image if image.mode == "RGB" else image.convert("RGB")).tobytes()
    rows = b"".join(b"\x00" + pixels[y * stride : (y + 1) * stride] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, not interlaced
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, PNG_COMPRESS_LEVEL))
        + chunk(b"IEND", b"")
    )


def render_image(view: MapView) -> Image.Image:
    """The map as a Pillow image: RGB, 1280 pixels wide, as high as the map's shape needs and
    at most 1280 unless so many sides are listed that the legend needs more."""
    styles = _styles(view.sides)
    columns = 1 if len(view.sides) <= 1 else 2 if len(view.sides) <= 4 else 3
    legend_rows = max(1, math.ceil(len(view.sides) / columns))
    legend_height = legend_rows * 66 + 28
    left, top, right, bottom = _map_bounds(view.map)
    budget = max(MAX_HEIGHT - HEADER_HEIGHT - legend_height, 480)  # taller with many sides
    span_w, span_h = max(right - left, 1e-6), max(bottom - top, 1e-6)
    scale = min((WIDTH - 2 * MARGIN) / span_w, (budget - 2 * MARGIN) / span_h)
    map_height = math.ceil(span_h * scale) + 2 * MARGIN
    frame = _Frame(scale, (WIDTH - span_w * scale) / 2, HEADER_HEIGHT + MARGIN, (left, top))
    height = HEADER_HEIGHT + map_height + legend_height

    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    shapes = _shapes(view.map, frame)
    links = _draw_connectors(draw, view.map, shapes, scale)
    holder = {sector: side for side, sectors in (view.captured or {}).items() for sector in sectors}
    for shape in shapes.values():
        _draw_outline(draw, styles, shape, holder.get(shape.sector.id))
    # Move arrows go under the sectors' contents, so that they never hide a count: their heads
    # end at the destination's edge, where no content is drawn; their count labels go on top.
    labels: list[tuple[_Chip, Point]] = []
    if view.private is not None:
        for move in view.private.orders.moves:
            a, b = shapes[move.source], shapes[move.to]
            style = styles[view.private.side]
            labels.append(_draw_move(draw, style, a, b, _blocked(a, b, shapes), move.count, scale))
    for shape in shapes.values():
        _draw_sector(draw, view, styles, shape, holder.get(shape.sector.id), links[shape.sector.id])
    for label, middle in labels:
        _draw_chip(draw, label, middle[0] - _segment_width(label) / 2, middle[1])
    _draw_header(draw, view, styles)
    _draw_legend(draw, view, styles, HEADER_HEIGHT + map_height, columns)
    return image


def _draw_connectors(
    draw: ImageDraw.ImageDraw,
    campaign_map: CampaignMap,
    shapes: dict[SectorId, _Shape],
    scale: float,
) -> dict[SectorId, list[SectorId]]:
    """Draw a line for each adjacency; return, per sector, the neighbours a line cannot show."""
    width = max(4, round(scale * 0.009))
    links: dict[SectorId, list[SectorId]] = {sector.id: [] for sector in campaign_map.sectors}
    order = campaign_map.order
    for sector in campaign_map.sectors:
        for neighbour in sector.neighbours:
            if order[neighbour] < order[sector.id]:
                continue
            a, b = shapes[sector.id], shapes[neighbour]
            if _blocked(a, b, shapes):
                links[sector.id].append(neighbour)
                links[neighbour].append(sector.id)
            else:
                draw.line([a.centre, b.centre], fill=CONNECTOR, width=width)
    for listed in links.values():
        listed.sort(key=order.__getitem__)
    return links


def _draw_outline(
    draw: ImageDraw.ImageDraw, styles: dict[SideId, _Style], shape: _Shape, holder: SideId | None
) -> None:
    """A sector's area: white, or tinted and bordered in the colour of the side holding it."""
    held = styles[holder] if holder is not None else None
    fill = _tint(held.colour, 0.2) if held is not None else SECTOR_FILL
    left, top, right, bottom = shape.box
    border = max(5, round(min(right - left, bottom - top) * 0.035))
    if shape.polygon is not None:
        draw.polygon(shape.polygon, fill=fill, outline=INK, width=2)
        if held is not None:
            draw.polygon(shape.polygon, outline=held.colour, width=border)
            draw.polygon(shape.polygon, outline=INK, width=2)
    else:
        x, y, r = shape.centre[0], shape.centre[1], shape.radius
        draw.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=INK, width=2)
        if held is not None:
            draw.ellipse((x - r, y - r, x + r, y + r), outline=held.colour, width=border)
            draw.ellipse((x - r, y - r, x + r, y + r), outline=INK, width=2)


def _draw_sector(
    draw: ImageDraw.ImageDraw,
    view: MapView,
    styles: dict[SideId, _Style],
    shape: _Shape,
    holder: SideId | None,
    links: list[SectorId],
) -> None:
    left, top, right, bottom = shape.box
    width, height = right - left, bottom - top
    base = min(width, height)
    title_size = min(max(round(base * 0.11), 14), 30)
    title_middle = top + title_size * 0.6
    sector_id = _Text(shape.sector.id, title_size, True)
    name_room = width - _segment_width(sector_id) - title_size * 0.35
    name = _fit(shape.sector.display_name(view.language), _font(title_size), name_room)
    _draw_row(draw, [sector_id, _Text(name, title_size)], left, title_middle, title_size * 0.35)

    badge_size = min(max(round(base * 0.1), 12), 28)
    rows = _badge_rows(view, styles, shape.sector.id, holder, links, badge_size, width, height)
    row_height = badge_size * 1.55
    for index, row in enumerate(reversed(rows)):
        _draw_row(draw, row, left, bottom - row_height * (index + 0.5), badge_size * 0.3)

    area_top = top + title_size * 1.35
    area_bottom = bottom - row_height * len(rows) - (4 if rows else 0)
    occupants = [
        (side.id, view.state.armies_of(side.id, shape.sector.id))
        for side in view.sides
        if view.state.armies_of(side.id, shape.sector.id) > 0
    ]
    inset = width * 0.08
    _draw_armies(draw, styles, occupants, (left + inset, area_top, right - inset, area_bottom))


def _badge_rows(
    view: MapView,
    styles: dict[SideId, _Style],
    sector: SectorId,
    holder: SideId | None,
    links: list[SectorId],
    size: int,
    width: float,
    height: float,
) -> list[list[_Segment]]:
    """Rows drawn at the bottom of a sector: capture, battles, orders, and the adjacencies no
    line can show. Each kind has a compact form, used when the full ones do not fit."""
    chip = round(size * 0.85)
    kinds: list[tuple[list[list[_Segment]], list[list[_Segment]]]] = []  # (full, compact)
    if holder is not None:
        held = styles[holder]
        flag: list[_Segment] = [_Icon("flag", size, held.colour), _Chip(held.tag, chip, held)]
        kinds.append(([[*flag, _Text(view.labels.captured, size)]], [flag]))
    battles = [battle for battle in view.battles or () if battle.sector == sector]
    if battles:
        listed: list[list[_Segment]] = [
            [
                _Icon("swords", size),
                _Text(f"#{battle.id}", size, True),
                _Chip(styles[battle.attacker].tag, chip, styles[battle.attacker]),
                _Icon("arrow", size),
                _Chip(styles[battle.defender].tag, chip, styles[battle.defender]),
            ]
            for battle in battles
        ]
        ids = " ".join(f"#{battle.id}" for battle in battles)
        short = _Text(ids if len(battles) <= 3 else f"×{len(battles)}", size, True)
        kinds.append((listed, [[_Icon("swords", size), short]]))
    if view.private is not None:
        own = styles[view.private.side]
        orders = view.private.orders
        targets: dict[SideId, int] = {}
        for attack in orders.attacks_in(sector):
            targets[attack.target] = targets.get(attack.target, 0) + 1
        if targets:
            row: list[_Segment] = [_Icon("swords", size, own.colour)]
            for target, count in targets.items():
                row.append(_Chip(styles[target].tag, chip, styles[target]))
                if count > 1:
                    row.append(_Text(f"×{count}", size, True))
            kinds.append(([row], [row]))
        if orders.reinforce == sector:
            plus = _Chip("+1", chip, own)
            kinds.append(([[plus, _Text(view.labels.reinforce, size)]], [[plus]]))
    if links:
        row = [_Icon("link", size, MUTED), _Text(" ".join(links), size, True, MUTED)]
        kinds.append(([row], [row]))
    gap = size * 0.3
    limit = max(1, int(height * 0.5 // (size * 1.55)))
    longest = max((len(full) for full, _ in kinds), default=0)
    candidates = [
        [row for full, compact in kinds for row in (full if len(full) < keep else compact)]
        for keep in (longest + 1, 2, 0)
    ]
    for rows in candidates:
        if len(rows) <= limit and all(_row_width(row, gap) <= width for row in rows):
            return rows
    return candidates[-1][:limit]


def _draw_armies(
    draw: ImageDraw.ImageDraw,
    styles: dict[SideId, _Style],
    occupants: list[tuple[SideId, int]],
    area: tuple[float, float, float, float],
) -> None:
    """Draw one chip per side present: its tag and its army count, as large as the area allows."""
    if not occupants:
        return
    left, top, right, bottom = area
    width, height = right - left, max(bottom - top, 1.0)
    unit = (
        max((_chip_width(styles[side].tag, count, 100) for side, count in occupants), default=1.0)
        / 100
    )
    gap = max(4.0, min(width, height) * 0.04)
    best_size, best_columns = 0.0, 1
    for columns in range(1, len(occupants) + 1):
        rows = math.ceil(len(occupants) / columns)
        cell_w = (width - gap * (columns - 1)) / columns
        cell_h = (height - gap * (rows - 1)) / rows
        size = min(cell_h / 1.3, cell_w / unit, 84.0)
        if size > best_size + 0.5:
            best_size, best_columns = size, columns
    size = max(int(best_size), 10)
    columns = best_columns
    rows = math.ceil(len(occupants) / columns)
    chip_w = max(_chip_width(styles[side].tag, count, size) for side, count in occupants)
    chip_h = size * 1.3
    block_w = chip_w * columns + gap * (columns - 1)
    block_h = chip_h * rows + gap * (rows - 1)
    x0 = left + (width - block_w) / 2
    y0 = top + (height - block_h) / 2
    for index, (side, count) in enumerate(occupants):
        row, column = divmod(index, columns)
        if row == rows - 1:
            in_row = len(occupants) - row * columns
            shift = (columns - in_row) * (chip_w + gap) / 2
        else:
            shift = 0.0
        x = x0 + shift + column * (chip_w + gap)
        y = y0 + row * (chip_h + gap)
        _draw_army_chip(draw, styles[side], count, (x, y, x + chip_w, y + chip_h), size)


def _chip_width(tag: str, count: int, size: float) -> float:
    tag_w = _text_width(tag, _font(round(size * 0.62), True))
    count_w = _text_width(str(count), _font(round(size), True))
    return tag_w + count_w + size * 0.75


def _draw_army_chip(
    draw: ImageDraw.ImageDraw,
    style: _Style,
    count: int,
    box: tuple[float, float, float, float],
    size: int,
) -> None:
    left, top, right, bottom = box
    draw.rounded_rectangle(
        box, radius=size * 0.28, fill=style.fill, outline=style.border, width=style.border_width
    )
    tag_font, count_font = _font(round(size * 0.62), True), _font(size, True)
    tag_w = _text_width(style.tag, tag_font)
    count_w = _text_width(str(count), count_font)
    x = (left + right) / 2 - (tag_w + size * 0.15 + count_w) / 2
    middle = (top + bottom) / 2
    draw.text((x, middle), style.tag, font=tag_font, fill=style.text, anchor="lm")
    draw.text(
        (x + tag_w + size * 0.15, middle), str(count), font=count_font, fill=style.text, anchor="lm"
    )


def _draw_move(
    draw: ImageDraw.ImageDraw,
    style: _Style,
    source: _Shape,
    destination: _Shape,
    blocked: bool,
    count: int,
    scale: float,
) -> tuple[_Chip, Point]:
    """A move order: a curved arrow from inside ``source`` to the edge of ``destination``.

    Returns the count label and where it goes (midway between the two sectors' edges), to be
    drawn over everything else.
    """
    at = _curve(source.centre, destination.centre, 0.32 if blocked else 0.14)
    chord = math.dist(source.centre, destination.centre) or 1.0
    steps = [step / 200 for step in range(201)]
    leaves = next((t for t in steps if not source.contains(at(t))), 0.5)
    enters = next((t for t in steps if t > leaves and destination.contains(at(t))), 1.0)
    end = min(enters + 26 / chord, 1.0)
    start = max(min(leaves - 0.15, end - 0.3), 0.0)
    points = [at(start + (end - start) * step / 24) for step in range(25)]
    width = max(6, round(scale * 0.011))
    head = width * 2.6
    (x1, y1), (x2, y2) = points[-2], points[-1]
    length = math.dist((x1, y1), (x2, y2)) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    base = (x2 - ux * head, y2 - uy * head)
    shaft = [p for p in points if math.dist(p, points[0]) < math.dist(base, points[0])]
    draw.line([*shaft, base], fill=INK, width=width + 4, joint="curve")
    draw.line([*shaft, base], fill=style.colour, width=width, joint="curve")
    wings = [
        (base[0] - uy * head * 0.6, base[1] + ux * head * 0.6),
        (base[0] + uy * head * 0.6, base[1] - ux * head * 0.6),
    ]
    draw.polygon([(x2, y2), *wings], fill=style.colour, outline=INK, width=2)
    size = max(16, min(44, round(scale * 0.036)))
    label = _Chip(str(count), size, style)
    return label, at(max(leaves - (_segment_width(label) / 2 + 4) / chord, start))


def _draw_header(draw: ImageDraw.ImageDraw, view: MapView, styles: dict[SideId, _Style]) -> None:
    if view.private is not None:
        draw.rectangle((0, 0, WIDTH, 10), fill=styles[view.private.side].colour)
    turn = f"{view.labels.turn} {view.state.turn}"
    turn_font = _font(40, True)
    draw.text((WIDTH - MARGIN, 42), turn, font=turn_font, fill=INK, anchor="rm")
    title_room = WIDTH - 3 * MARGIN - _text_width(turn, turn_font) - 20
    title = _fit(view.title, _font(40, True), title_room)
    draw.text((MARGIN, 42), title, font=_font(40, True), fill=INK, anchor="lm")
    subtitle: list[_Segment] = [
        _Text(view.map.names.get(view.language, view.map.name), 26, False, MUTED)
    ]
    if view.battles is not None:
        subtitle += [
            _Text("·", 26, True, MUTED),
            _Icon("swords", 22),
            _Text(view.labels.battles, 26, True),
        ]
    if view.private is not None:
        side = next(s for s in view.sides if s.id == view.private.side)
        subtitle += [
            _Text("·", 26, True, MUTED),
            _Text(f"{view.labels.orders}:", 26, True),
            _Chip(styles[side.id].tag, 22, styles[side.id]),
            _Text(side.name, 26, True),
        ]
    _draw_row(draw, subtitle, MARGIN, 88, 10)


def _draw_legend(
    draw: ImageDraw.ImageDraw, view: MapView, styles: dict[SideId, _Style], top: float, columns: int
) -> None:
    draw.line([(MARGIN, top), (WIDTH - MARGIN, top)], fill=CONNECTOR, width=2)
    column_width = (WIDTH - 2 * MARGIN) / columns
    chip_room = max(
        (_segment_width(_Chip(styles[s.id].tag, 26, styles[s.id])) for s in view.sides), default=0
    )
    for index, side in enumerate(view.sides):
        row, column = divmod(index, columns)
        x = MARGIN + column * column_width
        y = top + 16 + row * 66
        style = styles[side.id]
        total = view.state.total(side.id)
        chip = _Chip(style.tag, 26, style)
        _draw_chip(draw, chip, x, y + 22)
        text_x = x + chip_room + 12
        room = column_width - (text_x - x) - 12
        name_colour = INK if total > 0 else MUTED
        draw.text(
            (text_x, y + 18),
            _fit(side.name, _font(28, True), room),
            font=_font(28, True),
            fill=name_colour,
            anchor="lm",
        )
        stats: list[_Segment] = [_Text(f"{view.labels.armies}: {total}", 22, False, MUTED)]
        if view.captured is not None:
            count = len(view.captured.get(side.id, ()))
            stats += [
                _Icon("flag", 20, style.colour),
                _Text(f"{view.labels.captured}: {count}", 22, False, MUTED),
            ]
        _draw_row(draw, stats, text_x, y + 46, 12)


# ---- the command -------------------------------------------------------------------------


class _UsageError(Exception):
    """Bad command-line arguments."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> _Parser:
    parser = _Parser(
        prog="python -m rules render",
        description=(
            "Draw the map of a turn document (RULES.md Appendix A) read on standard input; "
            "write the PNG on standard output."
        ),
        add_help=False,
    )
    parser.add_argument(
        "--variant",
        choices=("public", "friday", "private", "resolved"),
        default="public",
        help=(
            "public: the state as it is; friday: with the battles its orders make; private: "
            "with --side's orders; resolved: the state after resolving the turn, with captures"
        ),
    )
    parser.add_argument("--side", help="the side whose orders the private variant shows")
    parser.add_argument("--title", default="Strategium", help="the campaign's name")
    parser.add_argument("--lang", choices=("en", "ru"), default="en", help="language of names")
    parser.add_argument("-h", "--help", action="store_true", help="show this help")
    return parser


def view_of_document(
    text: str, variant: str, side: str | None, title: str, language: str
) -> MapView:
    """The map view of a turn document; raises :class:`DocumentError` if it cannot be drawn."""
    game, state, orders, raw_results = _load(text)
    side_ids = [*state.sides(), *(s for s in orders if s not in state.armies)]
    palette = default_palette(side_ids)
    sides = tuple(SideView(id=s, name=s[:1].upper() + s[1:], colour=palette[s]) for s in side_ids)
    labels = RUSSIAN_LABELS if language == "ru" else MapLabels()
    base = {"map": game.map, "sides": sides, "title": title, "language": language, "labels": labels}
    plan = plan_battles(game, state, orders)
    if variant == "friday":
        return MapView(state=state, battles=plan.battles, **base)
    if variant == "private":
        if side is None or side not in plan.accepted:
            known = ", ".join(plan.accepted) or "none"
            raise DocumentError(f"side {side!r} has no armies in state (sides: {known})")
        private = PrivateOrders(side=side, orders=plan.accepted[side])
        return MapView(state=state, private=private, **base)
    if variant == "resolved":
        try:
            resolution = resolve_turn(game, state, orders, _results(raw_results))
        except ResultsError as error:
            raise DocumentError(f"results: {error}") from error
        captured = dict(resolution.report.captured)
        return MapView(state=resolution.state, captured=captured, **base)
    return MapView(state=state, **base)


def render_main(argv: list[str], stdin: IO[str], stdout: IO[bytes], stderr: IO[str]) -> int:
    """``python -m rules render``: a turn document on ``stdin``, its map as PNG on ``stdout``.

    Exit status 0 with the PNG written, 2 with a message on ``stderr`` for bad arguments or a
    document that cannot be drawn.
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as error:
        print(f"{parser.prog}: {error}\n{parser.format_usage()}", file=stderr, end="")
        return 2
    if args.help:
        print(parser.format_help(), file=stderr, end="")
        return 0
    if args.variant == "private" and args.side is None:
        print(f"{parser.prog}: the private variant needs --side", file=stderr)
        return 2
    try:
        view = view_of_document(stdin.read(), args.variant, args.side, args.title, args.lang)
    except (DocumentError, UnknownModuleError) as error:
        print(f"{parser.prog}: malformed turn document: {error}", file=stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"{parser.prog}: input is not UTF-8 text: {error}", file=stderr)
        return 2
    except ValidationError as error:
        print(f"{parser.prog}: cannot draw this document: {error}", file=stderr)
        return 2
    stdout.write(render_map(view))
    stdout.flush()
    return 0
