"""Rule modules' named figures (heroes, an NPC) as the map draws them: their markers
(:class:`HeroChip`, :class:`NpcChip`, each a :class:`~rules.render.primitives.Marker`), where
they stand in a sector (:func:`place_figures`, shared with the SVG) and a hero move's label.
Which figures a picture shows is the module's to say (``RulesModule.map_figures``, built in
``rules/modules/<name>/figures.py``); this file knows no module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rules.colours import Rgb
from rules.maps import SectorId
from rules.render.geometry import Shape, sector_sizes
from rules.render.primitives import (
    INK,
    MUTED,
    WHITE,
    Style,
    _Canvas,
    _draw_box,
    _fit,
    _font,
    _name_width,
    _row_width,
    _segment_width,
)
from rules.render.view import HeroMark, MapView, NpcMark
from rules.state import SideId


@dataclass(frozen=True)
class HeroChip:
    """A named figure's marker: its initiative in a white disc, its name, one pip per wound up
    to the killing one (filled: taken), in its side's colours; struck through when killed."""

    name: str
    initiative: int
    wounds: int
    pips: int
    size: int
    style: Style
    killed: bool = False

    def width(self) -> float:
        s = self.size
        pips = self.pips * s * 0.5 + max(self.pips - 1, 0) * s * 0.16
        return s * 0.25 + s * 1.1 + s * 0.3 + _name_width(self.name, s) + s * 0.35 + pips + s * 0.35

    def draw(self, canvas: _Canvas, left: float, middle: float) -> None:
        _draw_hero(canvas, self, left, middle)


@dataclass(frozen=True)
class NpcChip:
    """The NPC's marker: a black diamond and its name on a pale box, no side's colours."""

    name: str
    size: int

    def width(self) -> float:
        s = self.size
        return s * 0.3 + s * 0.9 + s * 0.3 + _name_width(self.name, s) + s * 0.4

    def draw(self, canvas: _Canvas, left: float, middle: float) -> None:
        _draw_npc(canvas, self, left, middle)


NPC_FILL: Rgb = (0xFF, 0xF3, 0xC4)


@dataclass(frozen=True)
class HeroParts:
    """A hero marker's parts in pixels, for the PNG and the SVG alike: its box, colours, the
    initiative disc, where the name starts, the wound pips' centres (x) and radius."""

    box: tuple[float, float, float, float]
    fill: Rgb
    border: Rgb
    text: Rgb
    disc: tuple[float, float]
    name_x: float
    pips: tuple[float, ...]
    pip_radius: float


def hero_parts(hero: HeroChip, left: float, middle: float) -> HeroParts:
    """Where the parts of ``hero``'s marker go when its left edge is at ``left``."""
    s, style = hero.size, hero.style
    width, height = _segment_width(hero), s * 1.5
    fill, border, text = (
        (WHITE, MUTED, MUTED) if hero.killed else (style.fill, style.border, style.text)
    )
    name_x = left + s * 1.65
    pip_x = name_x + _name_width(hero.name, s) + s * 0.35
    radius = s * 0.25
    return HeroParts(
        box=(left, middle - height / 2, left + width, middle + height / 2),
        fill=fill,
        border=border,
        text=text,
        disc=(left + s * 0.8, s * 0.55),
        name_x=name_x,
        pips=tuple(pip_x + index * s * 0.66 + radius for index in range(hero.pips)),
        pip_radius=radius,
    )


def _draw_hero(canvas: _Canvas, hero: HeroChip, left: float, middle: float) -> None:
    s = hero.size
    parts = hero_parts(hero, left, middle)
    box = parts.box
    border_width = max(2, hero.style.border_width)
    _draw_box(canvas, box, (box[3] - box[1]) * 0.3, parts.fill, parts.border, border_width)
    disc_x, reach = parts.disc
    canvas.draw.ellipse(
        (disc_x - reach, middle - reach, disc_x + reach, middle + reach),
        fill=canvas.ink(WHITE),
        outline=canvas.ink(INK),
        width=2,
    )
    canvas.text((disc_x, middle), str(hero.initiative), round(s * 0.72), True, INK, "mm")
    canvas.text((parts.name_x, middle), hero.name, s, True, parts.text, "lm")
    radius = parts.pip_radius
    for index, cx in enumerate(parts.pips):
        canvas.draw.ellipse(
            (cx - radius, middle - radius, cx + radius, middle + radius),
            fill=canvas.ink(parts.text) if index < hero.wounds else None,
            outline=canvas.ink(parts.text),
            width=max(2, round(s / 10)),
        )
    if hero.killed:
        canvas.draw.line(
            [(box[0] + s * 0.2, middle), (box[2] - s * 0.2, middle)],
            fill=canvas.ink(INK),
            width=max(3, round(s / 7)),
        )


def _draw_npc(canvas: _Canvas, npc: NpcChip, left: float, middle: float) -> None:
    s = npc.size
    width, height = _segment_width(npc), s * 1.5
    box = (left, middle - height / 2, left + width, middle + height / 2)
    _draw_box(canvas, box, height * 0.15, NPC_FILL, INK, 2)
    cx, reach = left + s * 0.3 + s * 0.45, s * 0.45
    canvas.draw.polygon(
        [(cx, middle - reach), (cx + reach, middle), (cx, middle + reach), (cx - reach, middle)],
        fill=canvas.ink(INK),
    )
    canvas.text((left + s * 1.5, middle), npc.name, s, True, INK, "lm")


def _figures_in(view: MapView, sector: SectorId) -> list[HeroMark | NpcMark]:
    """The named figures standing in ``sector``: the NPC first, then heroes by initiative."""
    heroes = sorted(
        (hero for hero in view.heroes if hero.sector == sector),
        key=lambda hero: (hero.initiative, hero.id),
    )
    npc = [view.npc] if view.npc is not None and view.npc.sector == sector else []
    return [*npc, *heroes]


def _figure_segment(
    figure: HeroMark | NpcMark, style: Style | None, size: int, room: float
) -> HeroChip | NpcChip:
    """The figure's marker, its name cut so that the whole marker is at most ``room`` wide."""
    if isinstance(figure, NpcMark) or style is None:
        fixed = _segment_width(NpcChip("", size))
        return NpcChip(_fit(figure.name, _font(size, True), room - fixed), size)
    hero = HeroChip(
        "",
        figure.initiative,
        min(figure.wounds, figure.wounds_to_kill),
        figure.wounds_to_kill,
        size,
        style,
        figure.killed,
    )
    name = _fit(figure.name, _font(size, True), room - _segment_width(hero))
    return replace(hero, name=name)


def _figure_rows(
    figures: Sequence[HeroMark | NpcMark],
    styles: dict[SideId, Style],
    size: int,
    width: float,
) -> list[list[tuple[HeroMark | NpcMark, HeroChip | NpcChip]]]:
    """The figures' markers flowed into rows no wider than ``width``."""
    rows: list[list[tuple[HeroMark | NpcMark, HeroChip | NpcChip]]] = [[]]
    gap = size * 0.4
    for figure in figures:
        style = styles.get(figure.side) if isinstance(figure, HeroMark) else None
        segment = _figure_segment(figure, style, size, width)
        if rows[-1] and _row_width([*(s for _f, s in rows[-1]), segment], gap) > width:
            rows.append([])
        rows[-1].append((figure, segment))
    return rows


FIGURE_ROW = 1.75
"""A row of figures' markers, in marker sizes."""


@dataclass(frozen=True)
class FigurePlace:
    """Where a figure's marker goes: the ``figure``, its ``segment`` (the marker with its name
    cut to fit), the marker's left edge and middle."""

    figure: HeroMark | NpcMark
    segment: HeroChip | NpcChip
    left: float
    middle: float
    width: float


def place_figures(
    view: MapView,
    styles: dict[SideId, Style],
    shape: Shape,
    area: tuple[float, float, float, float],
    armies: bool,
) -> tuple[list[FigurePlace], float]:
    """Where the figures standing in ``shape``'s sector go, as large as they fit: with
    ``armies`` at the bottom of ``area`` in at most 60% of it (the rest is the armies'), else
    in its middle. Returns the places and the top of what they take (the bottom of what is
    left for the armies; ``area``'s bottom without figures). The PNG and the SVG both use it."""
    figures = _figures_in(view, shape.sector.id)
    left, top, right, bottom = area
    if not figures:
        return [], bottom
    _title, badge = sector_sizes(shape)
    width, height = right - left, max(bottom - top, 1.0)
    share = 0.6 if armies else 1.0
    size = max(min(round(badge * 1.15), 32), 10)
    whole = max(10, round(size * 0.7))  # down to this size, shrink rather than cut a name
    rows = _figure_rows(figures, styles, size, width)
    while size > 10 and (
        len(rows) * size * FIGURE_ROW > height * share
        or any(_row_width([s for _f, s in row], size * 0.4) > width for row in rows)
        or (size > whole and any(s.name != f.name for row in rows for f, s in row))
    ):
        size -= 1
        rows = _figure_rows(figures, styles, size, width)
    row_height, gap = size * FIGURE_ROW, size * 0.4
    block_top = (
        bottom - row_height * len(rows) if armies else top + (height - row_height * len(rows)) / 2
    )
    places: list[FigurePlace] = []
    for index, row in enumerate(rows):
        x = left + (width - _row_width([s for _f, s in row], gap)) / 2
        middle = block_top + row_height * (index + 0.5)
        for figure, segment in row:
            wide = _segment_width(segment)
            places.append(FigurePlace(figure, segment, x, middle, wide))
            x += wide + gap
    return places, block_top - 4


def hero_label(hero: HeroMark, scale: float) -> tuple[str, int]:
    """A hero's move arrow's label and its size: the first word of its name, cut to fit."""
    size = max(16, min(28, round(scale * 0.024)))
    return _fit(hero.name.split()[0], _font(size, True), size * 5), size
