"""A sector's drawn parts: its area (white, or tinted for its holder), its title, and its
contents: the badge rows at its bottom (holder, battles, orders, modules' marks, links), the
armies and the named figures standing in it.
"""

from __future__ import annotations

from rules.colours import Rgb
from rules.maps import SectorId
from rules.render.chips import _draw_armies
from rules.render.figures import place_figures
from rules.render.geometry import Shape, _title_row, sector_sizes, title_box
from rules.render.primitives import (
    INK,
    MUTED,
    NEUTRAL,
    SECTOR_FILL,
    Box,
    Style,
    _Canvas,
    _Chip,
    _draw_row,
    _Icon,
    _row_width,
    _Segment,
    _Text,
    tint,
)
from rules.render.view import BattleMark, MapView
from rules.state import SideId


def _draw_outline(canvas: _Canvas, shape: Shape, held: Style | None) -> None:
    """A sector's area: white, or tinted and bordered in the colour of the side holding it."""
    if held is None:
        canvas.stamp(shape.stamp, (SECTOR_FILL, SECTOR_FILL, INK))
    else:
        canvas.stamp(shape.stamp, (tint(held.colour, 0.22), held.colour, INK))


def _draw_title(canvas: _Canvas, shape: Shape, language: str, backing: Rgb | None = None) -> None:
    """A sector's title; on ``backing`` (the sector's fill) when an arrow may run under it, so
    the arrow stops at the title instead of running through its letters."""
    row, left, middle, gap = _title_row(shape, language)
    if backing is not None:
        x0, y0, x1, y1 = title_box(shape, language)
        canvas.draw.rectangle((x0 + 2, y0 + 2, x1 - 2, y1 - 2), fill=canvas.ink(backing))
    _draw_row(canvas, row, left, middle, gap)


def _draw_sector(
    canvas: _Canvas,
    view: MapView,
    styles: dict[SideId, Style],
    shape: Shape,
    rows: list[list[_Segment]],
) -> None:
    """A sector's contents (its outline and name are drawn already): armies and badges."""
    left, top, right, bottom = shape.box
    width = right - left
    title_size, badge_size = sector_sizes(shape)
    row_height = badge_size * 1.55
    for row, (row_left, middle, gap) in zip(rows, _row_places(shape, rows), strict=True):
        _draw_row(canvas, row, row_left, middle, gap)

    area_top = top + title_size * 1.35
    area_bottom = bottom - row_height * len(rows) - (4 if rows else 0)
    occupants = [
        (side.id, view.state.armies_of(side.id, shape.sector.id))
        for side in view.sides
        if view.state.armies_of(side.id, shape.sector.id) > 0
    ]
    area = (left + width * 0.03, area_top, right - width * 0.03, area_bottom)
    places, area_bottom = place_figures(view, styles, shape, area, bool(occupants))
    for place in places:
        _draw_row(canvas, [place.segment], place.left, place.middle, 0)
    inset = width * 0.08
    _draw_armies(canvas, styles, occupants, (left + inset, area_top, right - inset, area_bottom))


def _sector_rows(
    view: MapView,
    styles: dict[SideId, Style],
    shape: Shape,
    held: SideId | None,
    new: bool,
    links: list[SectorId],
) -> list[list[_Segment]]:
    """The badge rows at the bottom of a sector (:func:`_badge_rows`), top row first."""
    left, top, right, bottom = shape.box
    badge_size = sector_sizes(shape)[1]
    return _badge_rows(
        view, styles, shape.sector.id, held, new, links, badge_size, right - left, bottom - top
    )


def _row_places(shape: Shape, rows: list[list[_Segment]]) -> list[tuple[float, float, float]]:
    """Where each badge row goes: its left, its middle and the gap between its segments."""
    left, _top, _right, bottom = shape.box
    badge_size = sector_sizes(shape)[1]
    row_height = badge_size * 1.55
    return [
        (left, bottom - row_height * (len(rows) - index - 0.5), badge_size * 0.3)
        for index in range(len(rows))
    ]


def _row_boxes(shape: Shape, rows: list[list[_Segment]]) -> list[Box]:
    """The boxes a sector's badge rows cover."""
    half = sector_sizes(shape)[1] * 0.7
    return [
        (left - 2, middle - half, left + _row_width(row, gap) + 2, middle + half)
        for row, (left, middle, gap) in zip(rows, _row_places(shape, rows), strict=True)
    ]


def _result_segments(
    mark: BattleMark, styles: dict[SideId, Style], size: int, chip: int
) -> list[_Segment]:
    """How a battle ended: a star and the winner's chip, "=" for a draw, "?" for no result;
    then each side's losses in a chip of its own ("B −2"), so a loss never reads as the
    winner's."""
    if mark.outcome is None:
        return [_Text("?", size, True)]
    segments: list[_Segment] = []
    if mark.winner is not None:
        won = styles[mark.winner]
        segments += [_Icon("star", size, won.colour), _Chip(won.tag, chip, won)]
    else:
        segments.append(_Text("=", size, True))
    for side, lost in mark.losses.items():
        segments.append(_Chip(f"{styles[side].tag} −{lost}", chip, styles[side]))
    return segments


def _badge_rows(
    view: MapView,
    styles: dict[SideId, Style],
    sector: SectorId,
    held: SideId | None,
    new: bool,
    links: list[SectorId],
    size: int,
    width: float,
    height: float,
) -> list[list[_Segment]]:
    """Rows drawn at the bottom of a sector: who holds it (a flag and the holder's tag, and
    "new" when it was captured this turn: these are never left out), battles, orders, modules'
    marks, and the adjacencies no line can show. Each kind has a compact form, used when the
    full ones do not fit."""
    chip = round(size * 0.85)
    kinds: list[tuple[list[list[_Segment]], list[list[_Segment]]]] = []  # (full, compact)
    if held is not None:
        holder = styles[held]
        flag: list[_Segment] = [_Icon("flag", size, holder.colour), _Chip(holder.tag, chip, holder)]
        if new:
            flag.append(_Text(view.labels.new, size, True))
        kinds.append(([flag], [flag]))
    battles = [battle for battle in view.battles or () if battle.sector == sector]
    if battles:
        listed: list[list[_Segment]] = [
            [
                _Icon("swords", size),
                _Text(f"#{battle.id}", size, True),
                _Chip(styles[battle.attacker].tag, chip, styles[battle.attacker]),
                _Icon("arrow", size),
                # A chain battle's defender is the winner of an earlier one: named by its number.
                _Text(f"#{battle.defender_from}", size, True)
                if battle.defender_from is not None
                else _Chip(styles[battle.defender].tag, chip, styles[battle.defender]),
            ]
            for battle in battles
        ]
        ids = " ".join(f"#{battle.id}" for battle in battles)
        short = _Text(ids if len(battles) <= 3 else f"×{len(battles)}", size, True)
        kinds.append((listed, [[_Icon("swords", size), short]]))
    fought = [mark for mark in (view.week.battles if view.week else ()) if mark.sector == sector]
    if fought:
        full: list[list[_Segment]] = []
        compact: list[list[_Segment]] = []
        for mark in fought:
            attacker, defender = styles[mark.attacker], styles[mark.defender]
            result = _result_segments(mark, styles, size, chip)
            full.append(
                [
                    _Icon("swords", size),
                    _Text(f"#{mark.id}", size, True),
                    _Chip(attacker.tag, chip, attacker),
                    _Icon("arrow", size),
                    _Chip(defender.tag, chip, defender),
                ]
            )
            full.append(result)
            compact.append([_Icon("swords", size), _Text(f"#{mark.id}", size, True), *result])
        kinds.append((full, compact))
    if view.private is not None:
        own = styles[view.private.side]
        orders = view.private.orders
        targets: dict[SideId, int] = {}
        for attack in orders.attacks_in(sector):
            targets[attack.target] = targets.get(attack.target, 0) + 1
        if targets:
            row: list[_Segment] = [_Icon("swords", size, own.colour)]
            for target, count in targets.items():
                row.append(_Chip(styles[target].tag, chip, styles[target]))
                if count > 1:
                    row.append(_Text(f"×{count}", size, True))
            kinds.append(([row], [row]))
        if orders.reinforce == sector:
            plus = _Chip("+1", chip, own)
            kinds.append(([[plus, _Text(view.labels.reinforce, size)]], [[plus]]))
    marks: list[_Segment] = [
        _Chip(mark.text, chip, styles[mark.side] if mark.side is not None else NEUTRAL)
        for mark in view.marks
        if mark.sector == sector
    ]
    if marks:
        kinds.append(([marks], [marks]))
    if links:
        row = [_Icon("link", size, MUTED), _Text(" ".join(links), size, True, MUTED)]
        kinds.append(([row], [row]))
    gap = size * 0.3
    limit = max(1, int(height * 0.5 // (size * 1.55)))
    longest = max((len(full) for full, _ in kinds), default=0)
    candidates = [
        [row for full, compact in kinds for row in (full if len(full) < keep else compact)]
        for keep in (longest + 1, 2, 0)
    ]
    for rows in candidates:
        if len(rows) <= limit and all(_row_width(row, gap) <= width for row in rows):
            return rows
    return candidates[-1][:limit]
