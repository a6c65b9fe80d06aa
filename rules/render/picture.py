"""The picture: :func:`render_image` draws a :class:`~rules.render.view.MapView` on its map's
kept layout (the held sectors, the arrows, each sector's contents, the header, the legend and
the dial), :func:`render_map` returns it as PNG bytes.
"""

from __future__ import annotations

import math

from PIL import Image

from rules.maps import Point, SectorId
from rules.render.arrows import Arrow, _draw_move, _title_crossings, label_box, place_labels
from rules.render.dials import DIAL_HEIGHT, _dial_corner, _draw_dial
from rules.render.figures import hero_label
from rules.render.geometry import title_box
from rules.render.layout import Layout, _legend_height, compute_layout
from rules.render.legend import _draw_header, _draw_legend, _legend_keys
from rules.render.primitives import (
    BACKGROUND,
    HEADER_HEIGHT,
    MARGIN,
    SECTOR_FILL,
    WIDTH,
    Box,
    Style,
    _Canvas,
    _draw_chip,
    _Segment,
    _segment_width,
    png_bytes,
    side_styles,
    tint,
)
from rules.render.sectors import _draw_outline, _draw_sector, _draw_title, _row_boxes, _sector_rows
from rules.render.view import MapView
from rules.state import SideId


def render_map(view: MapView) -> bytes:
    """The map as PNG bytes; the same view always gives the same bytes."""
    return png_bytes(render_image(view))


def render_image(view: MapView) -> Image.Image:
    """The map as a Pillow palette image, 1280 pixels wide, as high as the map's shape needs
    and at most 1280 unless so many sides or marks are listed that the legend needs more."""
    styles = side_styles(view.sides)
    columns = 1 if len(view.sides) <= 1 else 2 if len(view.sides) <= 4 else 3
    side_rows = max(1, math.ceil(len(view.sides) / columns))
    layout = compute_layout(view, side_rows)
    keys = _legend_keys(view, styles, layout)
    key_rows = math.ceil(len(keys) / 2)
    map_bottom = HEADER_HEIGHT + layout.map_height
    legend_bottom = map_bottom + _legend_height(side_rows, key_rows)
    dial_at = None if view.dial is None else _dial_corner(layout)
    band = DIAL_HEIGHT + MARGIN if view.dial is not None and dial_at is None else 0
    image = Image.new("P", (WIDTH, legend_bottom + band), 0)
    image.putpalette(layout.base.getpalette() or bytes(BACKGROUND))
    image.paste(layout.base, (0, 0))
    canvas = _Canvas(image)

    holder = {sector: side for side, sectors in (view.captured or {}).items() for sector in sectors}
    for sector, side in holder.items():
        _draw_outline(canvas, layout.shapes[sector], styles[side])
        _draw_title(canvas, layout.shapes[sector], view.language)
    rows = _rows(view, styles, layout, holder)
    moves, arrows, points = _plan_moves(view, styles, layout, rows)
    labels = [
        (_draw_move(canvas, arrow, style, text, size), point)
        for arrow, (style, _source, _to, text, size), point in zip(
            arrows, moves, points, strict=True
        )
    ]
    for shape in layout.shapes.values():  # a title an arrow could not miss goes over it
        box = title_box(shape, view.language)
        if any(_title_crossings(arrow, [box]) for arrow in arrows):
            held = holder.get(shape.sector.id)
            fill = tint(styles[held].colour, 0.22) if held is not None else SECTOR_FILL
            _draw_title(canvas, shape, view.language, fill)
    for sector, shape in layout.shapes.items():
        _draw_sector(canvas, view, styles, shape, rows[sector])
    for label, middle in labels:
        _draw_chip(canvas, label, middle[0] - _segment_width(label) / 2, middle[1])
    _draw_header(canvas, view, styles)
    _draw_legend(canvas, view, styles, map_bottom, columns, keys)
    if view.dial is not None:
        _draw_dial(canvas, view.dial, dial_at or (MARGIN, legend_bottom))
    return image


def _rows(
    view: MapView, styles: dict[SideId, Style], layout: Layout, holder: dict[SectorId, SideId]
) -> dict[SectorId, list[list[_Segment]]]:
    """Each sector's badge rows (flag and tag, battles, marks) as the map draws them."""
    new = {s for sectors in (view.week.new if view.week else {}).values() for s in sectors}
    return {
        sector: _sector_rows(
            view, styles, shape, holder.get(sector), sector in new, layout.links[sector]
        )
        for sector, shape in layout.shapes.items()
    }


_Move = tuple[Style, SectorId, SectorId, str, int]


def _plan_moves(
    view: MapView,
    styles: dict[SideId, Style],
    layout: Layout,
    rows: dict[SectorId, list[list[_Segment]]],
) -> tuple[list[_Move], list[Arrow], list[Point]]:
    """The map's moves (style, from, to, label, label size), their arrows and where their
    labels go."""
    avoid = tuple(
        box for sector, shape in layout.shapes.items() for box in _row_boxes(shape, rows[sector])
    )
    # Move arrows go under the sectors' contents, so that they never hide a count: their heads
    # end at the destination's edge, where no content is drawn; their count labels go on top.
    # Each is bent to miss the titles and badge rows where it can.
    count_size = max(16, min(44, round(layout.scale * 0.036)))
    moves: list[_Move] = []
    if view.week is not None:
        for arrival in view.week.moves:
            style = styles[arrival.side]
            count = f"{style.tag} {arrival.count}"
            moves.append((style, arrival.source, arrival.to, count, count_size))
    if view.private is not None:
        own = styles[view.private.side]
        moves += [
            (own, m.source, m.to, str(m.count), count_size) for m in view.private.orders.moves
        ]
    heroes = {hero.id: hero for hero in view.heroes}
    for move in view.hero_moves:
        hero = heroes[move.hero]
        name, size = hero_label(hero, layout.scale)
        moves.append((styles[hero.side], move.source, move.to, name, size))
    arrows = [layout.arrow(source, to, avoid) for _style, source, to, _text, _size in moves]
    texts = (*(title_box(shape, view.language) for shape in layout.shapes.values()), *avoid)
    points = place_labels(arrows, [(text, size) for *_move, text, size in moves], texts)
    return moves, arrows, points


def move_label_boxes(view: MapView) -> list[Box]:
    """Where the map puts each move's label, in the order of its moves (the checks' view)."""
    styles = side_styles(view.sides)
    columns = 1 if len(view.sides) <= 1 else 2 if len(view.sides) <= 4 else 3
    layout = compute_layout(view, max(1, math.ceil(len(view.sides) / columns)))
    holder = {sector: side for side, sectors in (view.captured or {}).items() for sector in sectors}
    moves, _arrows, points = _plan_moves(view, styles, layout, _rows(view, styles, layout, holder))
    return [
        label_box(point, text, size)
        for (*_move, text, size), point in zip(moves, points, strict=True)
    ]
