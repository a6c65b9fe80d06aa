"""A rule module's dial (a wind rose of the weather, say), drawn in a free corner of the
map or under the legend.
"""

from __future__ import annotations

import math

from rules.maps import Point
from rules.render.layout import Layout
from rules.render.primitives import (
    BACKGROUND,
    CONNECTOR,
    HEADER_HEIGHT,
    INK,
    MARGIN,
    MUTED,
    WHITE,
    WIDTH,
    _Canvas,
    _draw_box,
    _fit,
    _font,
    _overlaps,
    _text_width,
)
from rules.render.view import DialView

DIAL_WIDTH = 460


DIAL_HEIGHT = 300


DIAL_RADIUS = 68


DIAL_LABEL = 20


def _dial_corner(layout: Layout) -> tuple[int, int] | None:
    """The top left of a free corner of the map for the dial (top right first, as a compass
    sits on a map; then top left, bottom right, bottom left), or ``None`` if every corner
    has a sector in it."""
    top, bottom = HEADER_HEIGHT, HEADER_HEIGHT + layout.map_height
    right = WIDTH - MARGIN - DIAL_WIDTH
    gap = 12
    for x, y in (
        (right, top),
        (MARGIN, top),
        (right, bottom - DIAL_HEIGHT),
        (MARGIN, bottom - DIAL_HEIGHT),
    ):
        box = (x - gap, y - gap, x + DIAL_WIDTH + gap, y + DIAL_HEIGHT + gap)
        if y >= top and not any(_overlaps(box, shape.bounds) for shape in layout.shapes.values()):
            return (x, y)
    return None


def _draw_dial(canvas: _Canvas, dial: DialView, at: tuple[int, int]) -> None:
    """The dial in a box at ``at``: its title, a spoke per state clockwise from the top (the
    current one dark, its name white on dark: told apart by more than colour), the names at
    the spokes' tips."""
    left, top = at
    _draw_box(canvas, (left, top, left + DIAL_WIDTH, top + DIAL_HEIGHT), 12, BACKGROUND, MUTED, 2)
    title = _fit(dial.title, _font(24, True), DIAL_WIDTH - 24)
    canvas.text((left + DIAL_WIDTH / 2, top + 24), title, 24, True, INK, "mm")
    cx, cy = left + DIAL_WIDTH / 2, top + 44 + (DIAL_HEIGHT - 44) / 2
    count = len(dial.states)
    half = math.pi / count
    canvas.draw.ellipse(
        (
            cx - DIAL_RADIUS * 0.55,
            cy - DIAL_RADIUS * 0.55,
            cx + DIAL_RADIUS * 0.55,
            cy + DIAL_RADIUS * 0.55,
        ),
        outline=canvas.ink(CONNECTOR),
        width=2,
    )
    for index in range(count):
        angle = 2 * math.pi * index / count
        current = index == dial.current
        reach = DIAL_RADIUS + (6 if current else 0)
        waist = DIAL_RADIUS * 0.22
        spoke = [
            (cx, cy),
            (cx + waist * math.sin(angle - half), cy - waist * math.cos(angle - half)),
            (cx + reach * math.sin(angle), cy - reach * math.cos(angle)),
            (cx + waist * math.sin(angle + half), cy - waist * math.cos(angle + half)),
        ]
        fill = INK if current else WHITE
        canvas.draw.polygon(
            spoke, fill=canvas.ink(fill), outline=canvas.ink(INK if current else MUTED)
        )
    for index, state in enumerate(dial.states):
        _draw_dial_label(canvas, state, index, count, (cx, cy), index == dial.current)


def _draw_dial_label(
    canvas: _Canvas, state: str, index: int, count: int, centre: Point, current: bool
) -> None:
    angle = 2 * math.pi * index / count
    sin, cos = math.sin(angle), -math.cos(angle)
    reach = DIAL_RADIUS + 16
    x, y = centre[0] + reach * sin, centre[1] + reach * cos
    room = DIAL_WIDTH / 2 - reach * abs(sin) - 12 if abs(sin) > 0.3 else DIAL_WIDTH - 40
    font = _font(DIAL_LABEL, current)
    pad = 10 if current else 0
    text = _fit(state, font, room - pad)
    width, height = _text_width(text, font) + pad, DIAL_LABEL + 8
    box_left = x if sin > 0.3 else x - width if sin < -0.3 else x - width / 2
    box_top = y - height if cos < -0.3 else y if cos > 0.3 else y - height / 2
    middle = (box_left + width / 2, box_top + height / 2)
    if current:
        _draw_box(canvas, (box_left, box_top, box_left + width, box_top + height), 8, INK, INK, 1)
        canvas.text(middle, text, DIAL_LABEL, True, WHITE, "mm")
    else:
        canvas.text(middle, text, DIAL_LABEL, False, INK, "mm")
