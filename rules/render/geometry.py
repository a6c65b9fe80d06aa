"""The map in pixels: each sector's :class:`Shape` (its outline, a polygon or a circle, and the
box its contents go in), the frame from the map's unit coordinates to the picture, whether
the straight line between two sectors is blocked, the curve an arrow follows, and where a
sector's title goes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PIL import ImageDraw

from rules.maps import CampaignMap, Point, Sector, SectorId
from rules.render.primitives import (
    Box,
    _fit,
    _font,
    _row_width,
    _Segment,
    _segment_width,
    _Stamp,
    _stamp,
    _Text,
)


@dataclass(frozen=True)
class Shape:
    """A sector in pixels: its outline (polygon or circle) and the box its content goes in."""

    sector: Sector
    centre: Point
    polygon: tuple[Point, ...] | None
    radius: float
    box: tuple[float, float, float, float]
    bounds: tuple[float, float, float, float]
    stamp: _Stamp = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stamp", _sector_stamp(self))

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


def _shapes(campaign_map: CampaignMap, frame: _Frame) -> dict[SectorId, Shape]:
    radii = _marker_radii(campaign_map)
    shapes: dict[SectorId, Shape] = {}
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
        shapes[sector.id] = Shape(sector, centre, polygon, radius, box, bounds)
    return shapes


def _blocked(a: Shape, b: Shape, shapes: dict[SectorId, Shape]) -> bool:
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


def _sector_stamp(shape: Shape) -> _Stamp:
    """A sector's fill, its thick border and its thin outline."""
    left, top, right, bottom = shape.box
    border = max(5, round(min(right - left, bottom - top) * 0.035))
    polygon = shape.polygon
    x, y, r = shape.centre[0], shape.centre[1], shape.radius

    def paint(
        width: int | None,
    ) -> Callable[[ImageDraw.ImageDraw, Callable[[Point], Point]], None]:
        def draw(layer: ImageDraw.ImageDraw, shift: Callable[[Point], Point]) -> None:
            if polygon is not None:
                points = [shift(point) for point in polygon]
                if width is None:
                    layer.polygon(points, fill=1)
                else:
                    layer.polygon(points, outline=1, width=width)
            else:
                (x0, y0), (x1, y1) = shift((x - r, y - r)), shift((x + r, y + r))
                if width is None:
                    layer.ellipse((x0, y0, x1, y1), fill=1)
                else:
                    layer.ellipse((x0, y0, x1, y1), outline=1, width=width)

        return draw

    return _stamp(shape.bounds, paint(None), paint(border), paint(2))


def sector_sizes(shape: Shape) -> tuple[int, int]:
    """The sector's title size and badge size."""
    left, top, right, bottom = shape.box
    base = min(right - left, bottom - top)
    return min(max(round(base * 0.11), 14), 30), min(max(round(base * 0.1), 12), 28)


def _title_row(shape: Shape, language: str) -> tuple[list[_Segment], float, float, float]:
    """A sector's title (its id in bold, its name cut to fit), where it starts, its middle and
    the gap between its parts."""
    left, top, right, _ = shape.box
    title_size, _badge = sector_sizes(shape)
    sector_id = _Text(shape.sector.id, title_size, True)
    name_room = right - left - _segment_width(sector_id) - title_size * 0.35
    name = _fit(shape.sector.display_name(language), _font(title_size), name_room)
    return [sector_id, _Text(name, title_size)], left, top + title_size * 0.6, title_size * 0.35


def title_box(shape: Shape, language: str) -> Box:
    """The box a sector's title covers, with a little room around it."""
    row, left, middle, gap = _title_row(shape, language)
    size = sector_sizes(shape)[0]
    return (left - 4, middle - size * 0.65, left + _row_width(row, gap) + 4, middle + size * 0.65)
