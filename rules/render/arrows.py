"""Move arrows: each move's curved path from inside its source to the edge of its destination,
bent to miss titles, badge rows and other sectors, and where its label goes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from rules.maps import Point
from rules.render.geometry import Shape, _curve
from rules.render.primitives import (
    INK,
    Box,
    Style,
    _Canvas,
    _Chip,
    _font,
    _overlaps,
    _Stamp,
    _stamp,
    _text_width,
)


@dataclass(frozen=True)
class Arrow:
    """A move arrow's path between two sectors, in pixels, and where its count label goes."""

    shaft: tuple[Point, ...]
    base: Point
    tip: Point
    wings: tuple[Point, Point]
    width: int
    at: Callable[[float], Point]
    between: float
    start: float
    chord: float
    stamp: _Stamp | None = None

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        xs = [x for x, _ in (*self.shaft, self.tip)]
        ys = [y for _, y in (*self.shaft, self.tip)]
        return min(xs), min(ys), max(xs), max(ys)


BENDS = {
    False: (0.14, -0.14, 0.24, -0.24, 0.06, -0.06, 0.34, -0.34),
    True: (0.32, -0.32, 0.42, -0.42, 0.24, -0.24, 0.55, -0.55, 0.7, -0.7),
}
"""The bends a move's arrow may take, first choice first: slight between neighbours whose line
is clear, wide around a sector in the way."""


def _arrow_path(
    source: Shape,
    destination: Shape,
    blocked: bool,
    scale: float,
    titles: Sequence[Box] = (),
    others: Sequence[Shape] = (),
) -> Arrow:
    """A move's curved arrow from inside ``source`` to the edge of ``destination``, bent the
    first way of :data:`BENDS` that runs through no text (``titles``: the sectors' titles and
    badge rows) and no other sector (``others``), else the way that does so least (text
    counts four times a sector's inside: an arrow under a sector's armies still reads)."""
    candidates = [_arrow_for(source, destination, bend, blocked, scale) for bend in BENDS[blocked]]
    crossings = [
        4 * _title_crossings(arrow, titles) + _sector_crossings(arrow, others)
        for arrow in candidates
    ]
    arrow = candidates[crossings.index(min(crossings))]
    line = [*arrow.shaft, arrow.base]
    reach = arrow.width + 4
    xs, ys = [x for x, _ in line], [y for _, y in line]
    stamp = _stamp(
        (min(xs) - reach, min(ys) - reach, max(xs) + reach, max(ys) + reach),
        lambda d, shift: d.line(
            [shift(p) for p in line], fill=1, width=arrow.width + 4, joint="curve"
        ),
        lambda d, shift: d.line([shift(p) for p in line], fill=1, width=arrow.width, joint="curve"),
    )
    return replace(arrow, stamp=stamp)


def _path_points(arrow: Arrow) -> list[Point]:
    """Points along the arrow, every few pixels."""
    path = [*arrow.shaft, arrow.base, arrow.tip]
    return [
        (a[0] + (b[0] - a[0]) * k / 6, a[1] + (b[1] - a[1]) * k / 6)
        for a, b in pairwise(path)
        for k in range(6)
    ]


def _sector_crossings(arrow: Arrow, others: Sequence[Shape]) -> int:
    """How many points along the arrow fall inside the sectors ``others``."""
    return sum(1 for point in _path_points(arrow) for shape in others if shape.contains(point))


def _title_crossings(arrow: Arrow, titles: Sequence[Box]) -> int:
    """How many points along the arrow (with its width) fall on a title."""
    reach = arrow.width / 2 + 2
    points = _path_points(arrow)
    return sum(
        1
        for x, y in points
        for x0, y0, x1, y1 in titles
        if x0 - reach <= x <= x1 + reach and y0 - reach <= y <= y1 + reach
    )


def _arrow_for(
    source: Shape, destination: Shape, bend: float, blocked: bool, scale: float
) -> Arrow:
    at = _curve(source.centre, destination.centre, bend)
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
    shaft = tuple(p for p in points if math.dist(p, points[0]) < math.dist(base, points[0]))
    wings = (
        (base[0] - uy * head * 0.6, base[1] + ux * head * 0.6),
        (base[0] + uy * head * 0.6, base[1] - ux * head * 0.6),
    )
    # The count goes where the arrow leaves its sector; for an arrow around a sector, just
    # inside the source (its middle would cover the sector it goes around).
    size = max(16, min(44, round(scale * 0.036)))
    label_at = leaves - (size * 1.2 / chord if blocked else 0.0)
    return Arrow(shaft, base, (x2, y2), wings, width, at, label_at, start, chord)


def label_point(arrow: Arrow, text: str, size: int, avoid: Sequence[Box] = ()) -> Point:
    """Where a move's label goes: where the arrow leaves its sector (between the two sectors,
    where no count is drawn), or the nearest place along the arrow where the label covers no
    title or badge row of ``avoid``."""
    first = max(arrow.between, arrow.start)
    for step in (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6):
        t = first + step * 0.035
        if not arrow.start <= t <= 0.92:
            continue
        point = arrow.at(t)
        if not any(_overlaps(label_box(point, text, size), other) for other in avoid):
            return point
    return arrow.at(first)


def label_box(point: Point, text: str, size: int) -> Box:
    """The box a move's label ``text`` (``size`` high) covers when centred on ``point``."""
    half_w = (_text_width(text, _font(size, True)) + size * 0.6) / 2 + 2
    half_h = size * 0.65
    x, y = point
    return (x - half_w, y - half_h, x + half_w, y + half_h)


def place_labels(
    arrows: Sequence[Arrow], labels: Sequence[tuple[str, int]], avoid: Sequence[Box] = ()
) -> list[Point]:
    """Where each arrow's label (text, size) goes, in order (:func:`label_point`): clear of
    ``avoid`` and of the labels placed before it, where the arrow leaves room."""
    taken = list(avoid)
    points = []
    for arrow, (text, size) in zip(arrows, labels, strict=True):
        point = label_point(arrow, text, size, taken)
        points.append(point)
        taken.append(label_box(point, text, size))
    return points


def _draw_move(canvas: _Canvas, arrow: Arrow, style: Style, text: str, size: int) -> _Chip:
    """A move: its arrow in the side's colour, outlined. Returns its label (``size`` high), to
    be drawn over everything else where :func:`place_labels` puts it."""
    if arrow.stamp is not None:  # always, once chosen by _arrow_path
        canvas.stamp(arrow.stamp, (INK, style.colour))
    canvas.draw.polygon([arrow.tip, *arrow.wings], fill=style.colour, outline=INK)
    return _Chip(text, size, style)
