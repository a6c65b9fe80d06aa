"""The campaign map as SVG, for the Mini App: the same geometry and marks as the PNG.

:func:`map_svg` draws the map part of a :class:`~rules.render.MapView` (no header, no legend:
the Mini App shows those as text) from the very layout :mod:`rules.render` computes for the
PNG (sector shapes, the lines between sectors, the arrows' paths, the side colours and tags),
so the two pictures cannot disagree. Every sector is a ``<g class="sector" data-sector="ID">``
that the page can tap; a held sector has the PNG's flag and its holder's tag; a side's secret
orders (``view.private``) are drawn as arrows, attack marks and the reinforcement's "+1",
exactly what the private PNG shows. A rule module's named
figures (heroes with initiative and wound pips, an NPC) stand where the PNG puts them
(:func:`~rules.render.place_figures`), each a ``<g class="hero" data-hero="ID">``, their moves
are the PNG's arrows, and a hub sector has the PNG's two rings. Pure: the same view gives the
same text.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from rules.colours import Rgb
from rules.maps import Point, SectorId
from rules.render import (
    BACKGROUND,
    CONNECTOR,
    HEADER_HEIGHT,
    HUB_RINGS,
    HUB_TAG,
    INK,
    NEUTRAL,
    NPC_FILL,
    SECTOR_FILL,
    WHITE,
    WIDTH,
    Arrow,
    FigurePlace,
    HeroChip,
    HeroMark,
    MapView,
    Shape,
    Style,
    compute_layout,
    hero_label,
    hero_parts,
    hub_ring,
    label_point,
    place_figures,
    sector_sizes,
    side_styles,
    tint,
)
from rules.state import SideId


def _hex(colour: Rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def _points(points: Sequence[Point]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _outline(shape: Shape, fill: Rgb, stroke: Rgb, width: float) -> str:
    paint = f'fill="{_hex(fill)}" stroke="{_hex(stroke)}" stroke-width="{width:.0f}"'
    if shape.polygon is None:
        x, y = shape.centre
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{shape.radius:.1f}" {paint}/>'
    return f'<polygon points="{_points(shape.polygon)}" {paint}/>'


def _chip(x: float, y: float, text: str, style: Style, size: float) -> str:
    """A side-coloured rounded chip with ``text`` centred at ``(x, y)``."""
    width = size * (0.62 * len(text) + 0.9)
    height = size * 1.45
    return (
        f'<rect x="{x - width / 2:.1f}" y="{y - height / 2:.1f}" width="{width:.1f}" '
        f'height="{height:.1f}" rx="{height / 3:.1f}" fill="{_hex(style.fill)}" '
        f'stroke="{_hex(style.border)}" stroke-width="{style.border_width}"/>'
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:.0f}" font-weight="bold" '
        f'text-anchor="middle" dominant-baseline="central" fill="{_hex(style.text)}">'
        f"{escape(text)}</text>"
    )


def map_svg(view: MapView) -> str:
    """The map of ``view`` as an SVG document (its viewBox is the PNG's map area)."""
    styles = side_styles(view.sides)
    layout = compute_layout(view, 1)
    top, height = HEADER_HEIGHT, layout.map_height
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 {top} {WIDTH} {height}" '
        f'font-family="PT Sans, sans-serif" role="img">',
        f'<rect x="0" y="{top}" width="{WIDTH}" height="{height}" fill="{_hex(BACKGROUND)}"/>',
    ]
    line_width = max(4, round(layout.scale * 0.009))
    order = view.map.order
    for sector in view.map.sectors:
        for neighbour in sector.neighbours:
            if order[neighbour] < order[sector.id] or neighbour in layout.links[sector.id]:
                continue
            (x1, y1), (x2, y2) = layout.shapes[sector.id].centre, layout.shapes[neighbour].centre
            parts.append(
                f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                f'stroke="{_hex(CONNECTOR)}" stroke-width="{line_width}"/>'
            )
    for shape in layout.shapes.values():
        if HUB_TAG in shape.sector.tags:
            parts.append(_hub(shape))
    holder = {s: side for side, sectors in (view.captured or {}).items() for s in sectors}
    marks_in: dict[SectorId, list[tuple[str, Style]]] = {}
    for mark in view.marks:
        style = styles[mark.side] if mark.side is not None else NEUTRAL
        marks_in.setdefault(mark.sector, []).append((mark.text, style))
    private = view.private
    orders = private.orders if private is not None else None
    own = styles[private.side] if private is not None else None
    for shape in layout.shapes.values():
        parts.append(_sector(view, styles, shape, holder.get(shape.sector.id), marks_in))
    if view.hero_moves:
        heroes = {hero.id: hero for hero in view.heroes}
        parts.append('<g class="hero-moves" pointer-events="none">')
        for hero_move in view.hero_moves:
            hero = heroes[hero_move.hero]
            label, size = hero_label(hero, layout.scale)
            arrow = layout.arrow(hero_move.source, hero_move.to)
            parts.append(_arrow(arrow, styles[hero.side], label, size))
        parts.append("</g>")
    if orders is not None and own is not None:
        parts.append('<g class="orders" pointer-events="none">')
        for move in orders.moves:
            parts.append(_arrow(layout.arrow(move.source, move.to), own, str(move.count)))
        for attack in orders.attacks:
            shape = layout.shapes[attack.sector]
            _title, badge = sector_sizes(shape)
            x, y = shape.box[2] - badge, shape.box[1] + badge * 0.9
            parts.append(_swords(x - badge * 1.9, y, badge, own.colour))
            parts.append(_chip(x, y, styles[attack.target].tag, own, badge))
        if orders.reinforce is not None:
            shape = layout.shapes[orders.reinforce]
            _title, badge = sector_sizes(shape)
            x, y = shape.box[2] - badge, shape.box[3] - badge * 0.9
            parts.append(_chip(x, y, "+1", own, badge))
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _sector(
    view: MapView,
    styles: dict[SideId, Style],
    shape: Shape,
    held: SideId | None,
    marks_in: dict[SectorId, list[tuple[str, Style]]],
) -> str:
    sector = shape.sector
    left, top, right, bottom = shape.box
    title, badge = sector_sizes(shape)
    style = styles.get(held) if held is not None else None
    fill, stroke = (
        (tint(style.colour, 0.22), style.colour) if style is not None else (SECTOR_FILL, INK)
    )
    border = max(5, round(min(right - left, bottom - top) * 0.035)) if style else 2
    name = sector.display_name(view.language)
    parts = [
        f'<g class="sector" data-sector={quoteattr(sector.id)} tabindex="0" role="button" '
        f"aria-label={quoteattr(f'{sector.id} {name}')}>",
        _outline(shape, fill, stroke, border),
        f'<text x="{left:.1f}" y="{top + title:.1f}" font-size="{title}" fill="{_hex(INK)}">'
        f'<tspan font-weight="bold">{escape(sector.id)}</tspan> {escape(name)}</text>',
    ]
    occupants = [
        (side.id, view.state.armies_of(side.id, sector.id))
        for side in view.sides
        if view.state.armies_of(side.id, sector.id) > 0
    ]
    area = (left + (right - left) * 0.03, top + title * 1.35, right - (right - left) * 0.03, bottom)
    places, figures_top = place_figures(view, styles, shape, area, bool(occupants))
    parts += [_figure(place) for place in places]
    middle_y = (top + title * 1.4 + figures_top) / 2
    step = (right - left) / (len(occupants) + 1) if occupants else 0
    longest = max((len(f"{styles[side].tag} {count}") for side, count in occupants), default=1)
    size = min(badge * 1.6, step * 0.9 / (0.62 * longest + 0.9)) if occupants else badge
    for index, (side, count) in enumerate(occupants):
        parts.append(
            _chip(
                left + step * (index + 1),
                middle_y,
                f"{styles[side].tag} {count}",
                styles[side],
                size,
            )
        )
    x = left + badge * 0.2
    if style is not None:  # the holder's flag and tag: colour is never the only cue
        parts.append(_flag(x, bottom - badge, badge, style))
        tag_width = badge * (0.62 * len(style.tag) + 0.9)
        parts.append(
            _chip(x + badge * 1.2 + tag_width / 2, bottom - badge, style.tag, style, badge)
        )
        x += badge * 1.5 + tag_width
    for text, mark_style in marks_in.get(sector.id, ()):
        width = badge * (0.62 * len(text) + 0.9)
        parts.append(_chip(x + width / 2, bottom - badge, text, mark_style, badge))
        x += width + badge * 0.3
    parts.append("</g>")
    return "".join(parts)


def _swords(x: float, middle: float, size: float, colour: Rgb) -> str:
    """The PNG's crossed swords (an attack), drawn, not a font's emoji."""
    top, bottom, right = middle - size / 2, middle + size / 2, x + size
    paint = f'stroke="{_hex(colour)}" stroke-width="{max(2, round(size / 6))}"'
    return (
        f'<g class="attack"><line x1="{x:.1f}" y1="{top:.1f}" x2="{right:.1f}" '
        f'y2="{bottom:.1f}" {paint}/><line x1="{x:.1f}" y1="{bottom:.1f}" x2="{right:.1f}" '
        f'y2="{top:.1f}" {paint}/></g>'
    )


def _flag(x: float, middle: float, size: float, style: Style) -> str:
    """The PNG's flag: a pole and a pennant in the holder's colour."""
    top, bottom = middle - size / 2, middle + size / 2
    pennant = [(x, top), (x + size, top + size * 0.28), (x, top + size * 0.56)]
    return (
        f'<g class="held"><line x1="{x:.1f}" y1="{top:.1f}" x2="{x:.1f}" y2="{bottom:.1f}" '
        f'stroke="{_hex(INK)}" stroke-width="{max(2, round(size / 7))}"/>'
        f'<polygon points="{_points(pennant)}" fill="{_hex(style.colour)}" '
        f'stroke="{_hex(INK)}"/></g>'
    )


def _hub(shape: Shape) -> str:
    """The PNG's two rings outside a hub sector."""
    rings = []
    for reach in HUB_RINGS:
        ring = hub_ring(shape, reach)
        paint = f'fill="none" stroke="{_hex(INK)}" stroke-width="3"'
        if isinstance(ring, float):
            x, y = shape.centre
            rings.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{ring:.1f}" {paint}/>')
        else:
            rings.append(f'<polygon points="{_points(ring)}" {paint}/>')
    return f'<g class="hub" data-sector={quoteattr(shape.sector.id)}>{"".join(rings)}</g>'


def _figure(place: FigurePlace) -> str:
    """A hero's marker (initiative disc, name, wound pips; struck through when killed) or the
    NPC's (a diamond and its name), where the PNG draws it."""
    segment, left, middle = place.segment, place.left, place.middle
    size = segment.size
    if not isinstance(segment, HeroChip):
        height, width = size * 1.5, place.width
        reach, cx = size * 0.45, left + size * 0.75
        diamond = [
            (cx, middle - reach),
            (cx + reach, middle),
            (cx, middle + reach),
            (cx - reach, middle),
        ]
        return (
            f'<g class="npc"><rect x="{left:.1f}" y="{middle - height / 2:.1f}" '
            f'width="{width:.1f}" height="{height:.1f}" rx="{height * 0.15:.1f}" '
            f'fill="{_hex(NPC_FILL)}" stroke="{_hex(INK)}" stroke-width="2"/>'
            f'<polygon points="{_points(diamond)}" fill="{_hex(INK)}"/>'
            f'<text x="{left + size * 1.5:.1f}" y="{middle:.1f}" font-size="{size}" '
            f'font-weight="bold" dominant-baseline="central" fill="{_hex(INK)}">'
            f"{escape(segment.name)}</text></g>"
        )
    parts = hero_parts(segment, left, middle)
    x0, y0, x1, y1 = parts.box
    disc_x, reach = parts.disc
    figure_id = place.figure.id if isinstance(place.figure, HeroMark) else ""
    out = [
        f'<g class="hero" data-hero={quoteattr(figure_id)}>'
        f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" '
        f'rx="{(y1 - y0) * 0.3:.1f}" fill="{_hex(parts.fill)}" stroke="{_hex(parts.border)}" '
        f'stroke-width="{max(2, segment.style.border_width)}"/>'
        f'<circle cx="{disc_x:.1f}" cy="{middle:.1f}" r="{reach:.1f}" fill="{_hex(WHITE)}" '
        f'stroke="{_hex(INK)}" stroke-width="2"/>'
        f'<text x="{disc_x:.1f}" y="{middle:.1f}" font-size="{round(size * 0.72)}" '
        f'font-weight="bold" text-anchor="middle" dominant-baseline="central" '
        f'fill="{_hex(INK)}">{segment.initiative}</text>'
        f'<text x="{parts.name_x:.1f}" y="{middle:.1f}" font-size="{size}" font-weight="bold" '
        f'dominant-baseline="central" fill="{_hex(parts.text)}">{escape(segment.name)}</text>'
    ]
    for index, cx in enumerate(parts.pips):
        fill = _hex(parts.text) if index < segment.wounds else "none"
        out.append(
            f'<circle class="{"wound" if index < segment.wounds else "pip"}" cx="{cx:.1f}" '
            f'cy="{middle:.1f}" r="{parts.pip_radius:.1f}" fill="{fill}" '
            f'stroke="{_hex(parts.text)}" stroke-width="{max(2, round(size / 10))}"/>'
        )
    if segment.killed:
        out.append(
            f'<line class="killed" x1="{x0 + size * 0.2:.1f}" y1="{middle:.1f}" '
            f'x2="{x1 - size * 0.2:.1f}" y2="{middle:.1f}" stroke="{_hex(INK)}" '
            f'stroke-width="{max(3, round(size / 7))}"/>'
        )
    out.append("</g>")
    return "".join(out)


def _arrow(arrow: Arrow, style: Style, label: str, size: float | None = None) -> str:
    line = [*arrow.shaft, arrow.base]
    x, y = label_point(arrow, label, round(size if size is not None else arrow.width * 2.4))
    return (
        f'<polyline points="{_points(line)}" fill="none" stroke="{_hex(INK)}" '
        f'stroke-width="{arrow.width + 4}" stroke-linejoin="round"/>'
        f'<polyline points="{_points(line)}" fill="none" stroke="{_hex(style.colour)}" '
        f'stroke-width="{arrow.width}" stroke-linejoin="round"/>'
        f'<polygon points="{_points([arrow.tip, *arrow.wings])}" fill="{_hex(style.colour)}" '
        f'stroke="{_hex(INK)}"/>'
        + _chip(x, y, label, style, size if size is not None else max(16, arrow.width * 2.4))
    )
