"""The armies: one chip per side present in a sector, its tag and its count, as large as the
sector's free area allows.
"""

from __future__ import annotations

import math

from rules.render.primitives import Style, _Canvas, _draw_box, _font, _text_width
from rules.state import SideId


def _draw_armies(
    canvas: _Canvas,
    styles: dict[SideId, Style],
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
        _draw_army_chip(canvas, styles[side], count, (x, y, x + chip_w, y + chip_h), size)


def _chip_width(tag: str, count: int, size: float) -> float:
    tag_w = _text_width(tag, _font(round(size * 0.62), True))
    count_w = _text_width(str(count), _font(round(size), True))
    return tag_w + count_w + size * 0.75


def _draw_army_chip(
    canvas: _Canvas,
    style: Style,
    count: int,
    box: tuple[float, float, float, float],
    size: int,
) -> None:
    left, top, right, bottom = box
    _draw_box(canvas, box, size * 0.28, style.fill, style.border, style.border_width)
    tag_size = round(size * 0.62)
    tag_w = _text_width(style.tag, _font(tag_size, True))
    count_w = _text_width(str(count), _font(size, True))
    x = (left + right) / 2 - (tag_w + size * 0.15 + count_w) / 2
    middle = (top + bottom) / 2
    canvas.text((x, middle), style.tag, tag_size, True, style.text)
    canvas.text((x + tag_w + size * 0.15, middle), str(count), size, True, style.text)
