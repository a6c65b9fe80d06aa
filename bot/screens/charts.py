"""The small chart of the campaign's end: sectors each side held, turn by turn.

Pure Pillow, no gettext: the caller passes the words. Each side is a line in its colour with its
own marker shape and its tag at the end (the map's tag), so the chart reads without colour too
(the map's rule); lines that run together are nudged apart by a pixel or two.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 960, 540
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP = 70, 60, 100
NUDGE = 9
"""Pixels between the lines of sides that hold as many sectors at a point."""
LEGEND_ROW = 34
INK, GRID, PAPER, GOAL = (33, 33, 33), (215, 215, 215), (255, 255, 255), (120, 120, 120)
SHAPES = ("circle", "square", "triangle", "diamond", "down", "pentagon", "hexagon", "star")


@dataclass(frozen=True)
class ChartSide:
    """One line: the side's name, colour (``#rrggbb``, the side's one colour, as on the maps),
    sectors held (one count per point) and the tag the maps give it (its initial if none)."""

    name: str
    colour: str
    held: tuple[int, ...]
    tag: str = ""


@dataclass(frozen=True)
class ChartWords:
    """The chart's words in the reader's language."""

    title: str
    points: tuple[str, ...]  # under each point: "Start", "1", "2"...
    goal: str | None  # beside the dashed line of the sectors needed to win, e.g. "3 to win"


@cache
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    name = "PT_Sans-Web-Bold.ttf" if bold else "PT_Sans-Web-Regular.ttf"
    data = resources.files("rules").joinpath("data", "fonts", name).read_bytes()
    return ImageFont.truetype(io.BytesIO(data), size)


def _rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def _marker(
    draw: ImageDraw.ImageDraw, shape: str, x: float, y: float, colour: tuple[int, int, int]
) -> None:
    r = 6
    outline = INK
    match shape:
        case "circle":
            draw.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline=outline, width=2)
        case "square":
            draw.rectangle((x - r, y - r, x + r, y + r), fill=colour, outline=outline, width=2)
        case "triangle":
            draw.regular_polygon((x, y, r + 2), 3, fill=colour, outline=outline, width=2)
        case "diamond":
            draw.regular_polygon((x, y, r + 2), 4, rotation=45, fill=colour, outline=outline)
        case "down":
            draw.regular_polygon((x, y, r + 2), 3, rotation=180, fill=colour, outline=outline)
        case "pentagon":
            draw.regular_polygon((x, y, r + 1), 5, fill=colour, outline=outline, width=2)
        case "hexagon":
            draw.regular_polygon((x, y, r + 1), 6, fill=colour, outline=outline, width=2)
        case _:
            draw.regular_polygon((x, y, r + 2), 8, rotation=22, fill=colour, outline=outline)


def held_chart(sides: Sequence[ChartSide], words: ChartWords, goal: int | None) -> bytes:
    """The chart as PNG bytes: one line per side over ``words.points``, the goal dashed."""
    legend_rows = (len(sides) + 1) // 2
    height = HEIGHT + legend_rows * LEGEND_ROW
    image = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN_LEFT, 20), words.title, font=_font(30, bold=True), fill=INK)
    top, bottom = MARGIN_TOP, HEIGHT - 60
    # Room at the right for the longest tag at a line's end ("Bl2"): never cut at the edge.
    widest = max(
        (draw.textlength(_end_tag(side), font=_font(22, bold=True)) for side in sides), default=0
    )
    left, right = MARGIN_LEFT, WIDTH - max(MARGIN_RIGHT, round(14 + widest + 10))
    highest = max([goal or 0, *(max(side.held, default=0) for side in sides), 1])
    points = max(len(words.points), 2)

    def x_at(index: int) -> float:
        return left + (right - left) * index / (points - 1)

    def y_at(value: float) -> float:
        return bottom - (bottom - top) * value / highest

    small = _font(20)
    step = max(1, (highest + 5) // 6)
    for value in range(0, highest + 1, step):
        y = y_at(value)
        draw.line((left, y, right, y), fill=GRID, width=1)
        draw.text((left - 12, y), str(value), font=small, fill=INK, anchor="rm")
    every = max(1, (len(words.points) + 11) // 12)
    for index, label in enumerate(words.points):
        if index % every == 0 or index == len(words.points) - 1:
            draw.text((x_at(index), bottom + 12), label, font=small, fill=INK, anchor="ma")
    if goal is not None:
        y = y_at(goal)
        for start in range(left, right, 18):
            draw.line((start, y, min(start + 10, right), y), fill=GOAL, width=2)
        if words.goal:
            draw.text((left + 6, y - 6), words.goal, font=small, fill=GOAL, anchor="lb")
    count = len(sides)
    # Never so far apart that a line looks a sector higher: within 40% of one step.
    spread = min(NUDGE, 0.4 * (bottom - top) / highest / max(count - 1, 1))
    ends: list[tuple[float, float, str]] = []
    for order, side in enumerate(sides):
        colour = _rgb(side.colour)
        nudge = (order - (count - 1) / 2) * spread
        line = [(x_at(i), y_at(v) + nudge) for i, v in enumerate(side.held)]
        if len(line) > 1:
            draw.line(line, fill=colour, width=5, joint="curve")
        shape = SHAPES[order % len(SHAPES)]
        for x, y in line:
            _marker(draw, shape, x, y, colour)
        if line:
            ends.append((*line[-1], _end_tag(side)))
    # Initials at the lines' ends, pushed apart where lines end together.
    last_y = -1000.0
    for x, end_y, initial in sorted(ends, key=lambda end: end[1]):
        last_y = max(end_y, last_y + 22)
        draw.text((x + 14, last_y), initial, font=_font(22, bold=True), fill=INK, anchor="lm")
    for order, side in enumerate(sides):
        column, row = order % 2, order // 2
        x = MARGIN_LEFT + column * (WIDTH - MARGIN_LEFT) // 2
        y = HEIGHT + row * LEGEND_ROW + 4
        _marker(draw, SHAPES[order % len(SHAPES)], x + 8, y + 10, _rgb(side.colour))
        name = side.name if len(side.name) <= 34 else side.name[:33] + "…"
        draw.text((x + 28, y + 10), name, font=_font(22), fill=INK, anchor="lm")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _end_tag(side: ChartSide) -> str:
    """What ends the side's line: the map's tag, else the name's initial."""
    return side.tag or side.name[:1].upper()
