"""The shared drawing primitives: the picture's sizes and colours, the shipped fonts, the
palette canvas with its kept glyph masks, stamps (shapes drawn once as masks, pasted in any
colours), rounded boxes, text cut to fit, the sides' :class:`Style`, the inline rows of text,
icons and chips every part of the map is written in (a module's figure joins a row as a
:class:`Marker`), and the PNG writer.
"""

from __future__ import annotations

import io
import math
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any, Literal, Protocol

from PIL import Image, ImageDraw, ImageFont

from rules.colours import OKABE_ITO, Rgb, parse_hex
from rules.maps import Point
from rules.render.view import SideView, side_tags
from rules.state import SideId

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


PNG_COMPRESS_LEVEL = 1


FONT_FILES = {False: "PT_Sans-Web-Regular.ttf", True: "PT_Sans-Web-Bold.ttf"}


LEGEND_SIDE_ROW = 66


LEGEND_KEY_ROW = 40


Box = tuple[float, float, float, float]
"""Left, top, right, bottom, in pixels."""


@cache
def _font_bytes(bold: bool) -> bytes:
    return resources.files("rules").joinpath("data", "fonts", FONT_FILES[bold]).read_bytes()


@cache
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(
        io.BytesIO(_font_bytes(bold)), max(size, 6), layout_engine=ImageFont.Layout.BASIC
    )


@lru_cache(maxsize=8192)
def _text_width(text: str, font: ImageFont.FreeTypeFont) -> float:
    return float(font.getlength(text))


@lru_cache(maxsize=8192)
def _glyphs(text: str, size: int, bold: bool, anchor: str) -> tuple[Any, tuple[int, int]]:
    """The one-bit mask of ``text`` and where it goes relative to its anchor point, drawn once
    and kept: most texts (counts, tags, names) recur on every map."""
    mask, offset = _font(size, bold).getmask2(text, "1", anchor=anchor)
    return mask, offset


class _Canvas:
    """A palette image being drawn: Pillow's drawing calls, and text from kept glyph masks."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)

    def ink(self, colour: Rgb) -> int:
        """The palette index of ``colour``, added to the palette the first time."""
        palette = self.image.palette
        if palette is None:
            raise ValueError("only palette images are drawn on")
        return palette.getcolor(colour, self.image)

    def text(
        self,
        xy: Point,
        text: str,
        size: int,
        bold: bool,
        fill: Rgb,
        anchor: str = "lm",
    ) -> None:
        if not text:
            return
        mask, (dx, dy) = _glyphs(text, max(size, 6), bold, anchor)
        self.draw.draw.draw_bitmap((round(xy[0]) + dx, round(xy[1]) + dy), mask, self.ink(fill))

    def stamp(self, stamp: _Stamp, colours: Sequence[Rgb], at: tuple[int, int] = (0, 0)) -> None:
        """Paste each of ``stamp``'s masks in its colour, its top left corner moved by ``at``."""
        left, top = stamp.left + at[0], stamp.top + at[1]
        for mask, colour in zip(stamp.layers, colours, strict=True):
            box = (left, top, left + mask.width, top + mask.height)
            self.image.paste(self.ink(colour), box, mask)


@dataclass(frozen=True)
class _Stamp:
    """Shapes drawn once as one-bit masks (``layers``, bottom first) at ``(left, top)``, then
    pasted in any colours: a polygon drawn with a thick outline costs Pillow a mask the size
    of the whole picture each time, a rounded box a dozen calls."""

    left: int
    top: int
    layers: tuple[Image.Image, ...]


def _stamp(
    box: tuple[float, float, float, float],
    *painters: Callable[[ImageDraw.ImageDraw, Callable[[Point], Point]], None],
) -> _Stamp:
    """A stamp of ``box`` (rounded out): one layer per painter, which draws with fill 1 given a
    function moving picture coordinates into the layer."""
    left, top = math.floor(box[0]) - 1, math.floor(box[1]) - 1
    size = (math.ceil(box[2]) - left + 2, math.ceil(box[3]) - top + 2)

    def shift(point: Point) -> Point:
        return (point[0] - left, point[1] - top)

    layers = []
    for paint in painters:
        layer = Image.new("1", size, 0)
        paint(ImageDraw.Draw(layer), shift)
        layers.append(layer)
    return _Stamp(left, top, tuple(layers))


@lru_cache(maxsize=1024)
def _box_stamp(width: int, height: int, radius: int, border: int) -> _Stamp:
    """A rounded box at the origin: its fill and its border."""
    box = (0, 0, width - 1, height - 1)
    return _Stamp(
        0,
        0,
        tuple(
            _painted((width, height), lambda d: d.rounded_rectangle(box, radius=radius, fill=1)),
        )
        + tuple(
            _painted(
                (width, height),
                lambda d: d.rounded_rectangle(box, radius=radius, outline=1, width=border),
            ),
        ),
    )


def _painted(
    size: tuple[int, int], paint: Callable[[ImageDraw.ImageDraw], None]
) -> list[Image.Image]:
    layer = Image.new("1", size, 0)
    paint(ImageDraw.Draw(layer))
    return [layer]


def _draw_box(
    canvas: _Canvas,
    box: tuple[float, float, float, float],
    radius: float,
    fill: Rgb,
    border: Rgb,
    border_width: int,
) -> None:
    """A rounded box, from a kept stamp."""
    left, top = round(box[0]), round(box[1])
    width, height = round(box[2]) - left + 1, round(box[3]) - top + 1
    stamp = _box_stamp(width, height, round(radius), border_width)
    canvas.stamp(stamp, (fill, border), (left, top))


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
    """Ink or white, whichever contrasts more with ``colour``."""
    lum = _luminance(colour)
    return INK if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else WHITE


def tint(colour: Rgb, share: float) -> Rgb:
    r, g, b = (round(255 + (c - 255) * share) for c in colour)
    return (r, g, b)


@dataclass(frozen=True)
class Style:
    """A side's drawing style: fill, text and border colours of its chips."""

    tag: str
    colour: Rgb
    fill: Rgb
    text: Rgb
    border: Rgb
    border_width: int


NEUTRAL = Style("", MUTED, WHITE, INK, MUTED, 2)
"""The style of a module's mark that belongs to no side."""


def _side_colours(sides: Sequence[SideView]) -> dict[SideId, tuple[Rgb, bool]]:
    """Each side's colour, as given (one colour per side, chosen once by whoever made the
    view), and whether its chips are outlined (palette index past eight)."""
    colours: dict[SideId, tuple[Rgb, bool]] = {}
    for side in sides:
        if isinstance(side.colour, str):
            colours[side.id] = (parse_hex(side.colour), False)
        else:
            palette_colour = OKABE_ITO[side.colour % len(OKABE_ITO)][1]
            colours[side.id] = (palette_colour, side.colour >= len(OKABE_ITO))
    return colours


def side_styles(sides: Sequence[SideView]) -> dict[SideId, Style]:
    tags = side_tags(sides)
    styles: dict[SideId, Style] = {}
    for side_id, (colour, outlined) in _side_colours(sides).items():
        if outlined:
            styles[side_id] = Style(tags[side_id], colour, WHITE, INK, colour, 4)
        else:
            styles[side_id] = Style(tags[side_id], colour, colour, _text_on(colour), INK, 2)
    return styles


# Segments of an inline row: text, a small drawn icon, or a side-coloured chip with text.
@dataclass(frozen=True)
class _Text:
    text: str
    size: int
    bold: bool = False
    colour: Rgb = INK


_IconKind = Literal["swords", "flag", "link", "arrow", "star", "swatch", "ring", "hub"]


@dataclass(frozen=True)
class _Icon:
    kind: _IconKind
    size: int
    colour: Rgb = INK
    fill: Rgb = WHITE


@dataclass(frozen=True)
class _Chip:
    text: str
    size: int
    style: Style


class Marker(Protocol):
    """A segment of a row that draws itself (a module's figure): how wide it is, and drawing
    it with its left edge at ``left`` and its middle at ``middle``."""

    def width(self) -> float: ...

    def draw(self, canvas: _Canvas, left: float, middle: float) -> None: ...


_Segment = _Text | _Icon | _Chip | Marker


def _segment_width(segment: _Segment) -> float:
    match segment:
        case _Text():
            return _text_width(segment.text, _font(segment.size, segment.bold))
        case _Icon():
            wide = segment.kind in ("link", "arrow", "swatch")
            return segment.size * (1.5 if wide else 1.3 if segment.kind == "hub" else 1.0)
        case _Chip():
            return _text_width(segment.text, _font(segment.size, True)) + segment.size * 0.6
        case _:
            return segment.width()


def _name_width(name: str, size: int) -> float:
    return _text_width(name, _font(size, True))


def _row_width(segments: Sequence[_Segment], gap: float) -> float:
    return sum(_segment_width(s) for s in segments) + gap * max(len(segments) - 1, 0)


def _star(cx: float, cy: float, radius: float) -> list[Point]:
    points: list[Point] = []
    for index in range(10):
        r = radius if index % 2 == 0 else radius * 0.45
        angle = -math.pi / 2 + index * math.pi / 5
        points.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    return points


def _draw_icon(canvas: _Canvas, icon: _Icon, left: float, middle: float) -> None:
    draw = canvas.draw
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
        case "star":
            draw.polygon(_star(left + s / 2, middle, s * 0.55), fill=icon.colour, outline=INK)
        case "ring":
            draw.ellipse((left, top, right, bottom), outline=icon.colour, width=width + 1)
        case "hub":
            cx = (left + right) / 2
            for reach, line in ((s * 0.65, 2), (s * 0.5, 2), (s * 0.32, width)):
                draw.ellipse(
                    (cx - reach, middle - reach, cx + reach, middle + reach),
                    fill=icon.fill if line == width else None,
                    outline=icon.colour,
                    width=line,
                )
        case "swatch":
            draw.rectangle((left, top, right, bottom), fill=icon.fill, outline=icon.colour, width=3)
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


def _draw_chip(canvas: _Canvas, chip: _Chip, left: float, middle: float) -> None:
    width = _segment_width(chip)
    height = chip.size * 1.25
    _draw_box(
        canvas,
        (left, middle - height / 2, left + width, middle + height / 2),
        height * 0.25,
        chip.style.fill,
        chip.style.border,
        max(1, chip.style.border_width - 1),
    )
    canvas.text((left + width / 2, middle), chip.text, chip.size, True, chip.style.text, "mm")


def _draw_row(
    canvas: _Canvas,
    segments: Sequence[_Segment],
    left: float,
    middle: float,
    gap: float,
) -> None:
    x = left
    for segment in segments:
        match segment:
            case _Text():
                canvas.text(
                    (x, middle), segment.text, segment.size, segment.bold, segment.colour, "lm"
                )
            case _Icon():
                _draw_icon(canvas, segment, x, middle)
            case _Chip():
                _draw_chip(canvas, segment, x, middle)
            case _:
                segment.draw(canvas, x, middle)
        x += _segment_width(segment) + gap


def png_bytes(image: Image.Image) -> bytes:
    """A palette or RGB image as a PNG file with only the chunks it needs (no time, no text).

    Written here rather than by Pillow because Pillow picks a filter per row, which for a
    picture of flat colours costs as much time as the compression and makes the file no
    smaller: every row here is unfiltered, compressed by ``zlib`` at a fixed level with the
    run-length strategy (flat colours are long runs).
    """
    width, height = image.size
    strategy = zlib.Z_DEFAULT_STRATEGY
    if image.mode == "P":
        image.load()
        palette = bytes(image.getpalette() or [])
        depth = 4 if len(palette) <= 16 * 3 else 8
        header = struct.pack(">IIBBBBB", width, height, depth, 3, 0, 0, 0)  # palette
        extra = _chunk(b"PLTE", palette)
        # One byte more on the left of each row, of index 0: the row's filter byte, 0.
        margin = 8 // depth
        framed = Image.new("P", (width + margin, height), 0)
        framed.paste(image, (margin, 0))
        rows = framed.tobytes("raw", "P;4" if depth == 4 else "P")
        if depth == 8:
            strategy = zlib.Z_RLE  # as small and half the time on 8-bit flat colours
    else:
        header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
        extra = b""
        stride = width * 3
        pixels = (image if image.mode == "RGB" else image.convert("RGB")).tobytes()
        rows = b"".join(b"\x00" + pixels[y * stride : (y + 1) * stride] for y in range(height))
    compressor = zlib.compressobj(PNG_COMPRESS_LEVEL, zlib.DEFLATED, 15, 9, strategy)
    data = compressor.compress(rows) + compressor.flush()
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + extra
        + _chunk(b"IDAT", data)
        + _chunk(b"IEND", b"")
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
