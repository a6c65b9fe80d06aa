"""What a map's pictures share, worked out once per map and kept (:func:`compute_layout`): the
geometry, the lines between sectors (and the adjacencies no line can show), the hub rings,
and the static layer of background, outlines and titles every picture starts from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image

from rules.maps import CampaignMap, Point, SectorId
from rules.render.arrows import Arrow, _arrow_path
from rules.render.geometry import Shape, _blocked, _Frame, _map_bounds, _shapes, title_box
from rules.render.primitives import (
    BACKGROUND,
    CONNECTOR,
    HEADER_HEIGHT,
    INK,
    LEGEND_KEY_ROW,
    LEGEND_SIDE_ROW,
    MARGIN,
    MAX_HEIGHT,
    WIDTH,
    Box,
    _Canvas,
)
from rules.render.sectors import _draw_outline, _draw_title
from rules.render.view import MapView


@dataclass
class Layout:
    """What a map's pictures share: geometry, and the picture of the parts that never change
    (background, lines between sectors, outlines and names), ``base``."""

    scale: float
    shapes: dict[SectorId, Shape]
    links: dict[SectorId, list[SectorId]]
    map_height: int
    base: Image.Image
    language: str = "en"
    arrows: dict[tuple[SectorId, SectorId, tuple[Box, ...]], Arrow] = field(default_factory=dict)

    def arrow(self, source: SectorId, destination: SectorId, avoid: tuple[Box, ...] = ()) -> Arrow:
        """The arrow of a move from ``source`` to ``destination``, worked out once: bent to
        miss the sectors' titles and the boxes ``avoid`` (a picture's badge rows) as best it
        can."""
        key = (source, destination, avoid)
        if key not in self.arrows:
            if len(self.arrows) > 256:  # a long-lived layout keeps a few pictures' worth
                self.arrows.clear()
            a, b = self.shapes[source], self.shapes[destination]
            titles = [title_box(shape, self.language) for shape in self.shapes.values()]
            others = [s for s in self.shapes.values() if s is not a and s is not b]
            self.arrows[key] = _arrow_path(
                a, b, _blocked(a, b, self.shapes), self.scale, [*titles, *avoid], others
            )
        return self.arrows[key]


def _legend_height(side_rows: int, key_rows: int) -> int:
    return side_rows * LEGEND_SIDE_ROW + 28 + key_rows * LEGEND_KEY_ROW + (8 if key_rows else 0)


KEY_ROWS_RESERVED = 4
"""Rows of the legend's key the map leaves room for; more make the picture taller."""


def compute_layout(view: MapView, side_rows: int) -> Layout:
    return _cached_layout(view.map.model_dump_json(), view.language, side_rows)


@lru_cache(maxsize=16)
def _cached_layout(map_json: str, language: str, side_rows: int) -> Layout:
    campaign_map = CampaignMap.model_validate_json(map_json)
    left, top, right, bottom = _map_bounds(campaign_map)
    reserve = _legend_height(side_rows, KEY_ROWS_RESERVED)
    budget = max(MAX_HEIGHT - HEADER_HEIGHT - reserve, 480)  # taller with many sides
    span_w, span_h = max(right - left, 1e-6), max(bottom - top, 1e-6)
    scale = min((WIDTH - 2 * MARGIN) / span_w, (budget - 2 * MARGIN) / span_h)
    map_height = math.ceil(span_h * scale) + 2 * MARGIN
    frame = _Frame(scale, (WIDTH - span_w * scale) / 2, HEADER_HEIGHT + MARGIN, (left, top))
    base = Image.new("P", (WIDTH, HEADER_HEIGHT + map_height), 0)
    base.putpalette(bytes(BACKGROUND))
    canvas = _Canvas(base)
    shapes = _shapes(campaign_map, frame)
    links = _draw_connectors(canvas, campaign_map, shapes, scale)
    for shape in shapes.values():
        if HUB_TAG in shape.sector.tags:
            _draw_hub_ring(canvas, shape)
    for shape in shapes.values():
        _draw_outline(canvas, shape, None)
        _draw_title(canvas, shape, language)
    return Layout(scale, shapes, links, map_height, base, language)


def _draw_connectors(
    canvas: _Canvas,
    campaign_map: CampaignMap,
    shapes: dict[SectorId, Shape],
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
                canvas.draw.line([a.centre, b.centre], fill=CONNECTOR, width=width)
    for listed in links.values():
        listed.sort(key=order.__getitem__)
    return links


HUB_TAG = "hub"
"""The map tag of a sector every way passes through (a metro, say): ringed twice outside."""


HUB_RINGS = (7.0, 15.0)


def hub_ring(shape: Shape, reach: float) -> tuple[Point, ...] | float:
    """A ring ``reach`` pixels outside a sector's outline: its polygon grown from the centre,
    or for a circle its radius."""
    if shape.polygon is None:
        return shape.radius + reach
    x, y = shape.centre
    ring = []
    for px, py in shape.polygon:
        grow = 1 + reach / (math.dist((px, py), (x, y)) or 1.0)
        ring.append((x + (px - x) * grow, y + (py - y) * grow))
    return tuple(ring)


def _draw_hub_ring(canvas: _Canvas, shape: Shape) -> None:
    """Two thin rings just outside a hub sector's outline (drawn under its neighbours)."""
    x, y = shape.centre
    for reach in HUB_RINGS:
        ring = hub_ring(shape, reach)
        if isinstance(ring, float):
            box = (x - ring, y - ring, x + ring, y + ring)
            canvas.draw.ellipse(box, outline=canvas.ink(INK), width=3)
        else:
            canvas.draw.polygon(list(ring), outline=canvas.ink(INK), width=3)
