"""The words around the map: the header (title, turn, what the picture is), the final map's
banner, and the legend (each side's line, and a key to every kind of mark the picture
shows).
"""

from __future__ import annotations

import math
from dataclasses import replace

from rules.render.figures import _figure_segment
from rules.render.layout import HUB_TAG, Layout
from rules.render.primitives import (
    CONNECTOR,
    HEADER_HEIGHT,
    INK,
    LEGEND_KEY_ROW,
    LEGEND_SIDE_ROW,
    MARGIN,
    MUTED,
    NEUTRAL,
    WHITE,
    WIDTH,
    Style,
    _Canvas,
    _Chip,
    _draw_chip,
    _draw_row,
    _fit,
    _font,
    _Icon,
    _row_width,
    _Segment,
    _segment_width,
    _Text,
    _text_on,
    _text_width,
    tint,
)
from rules.render.view import MapView
from rules.state import SideId


def _draw_header(canvas: _Canvas, view: MapView, styles: dict[SideId, Style]) -> None:
    if view.private is not None:
        canvas.draw.rectangle((0, 0, WIDTH, 10), fill=styles[view.private.side].colour)
    turn = f"{view.labels.turn} {view.state.turn}"
    turn_width = _text_width(turn, _font(40, True))
    canvas.text((WIDTH - MARGIN, 42), turn, 40, True, INK, "rm")
    title_room = WIDTH - 3 * MARGIN - turn_width - 20
    canvas.text((MARGIN, 42), _fit(view.title, _font(40, True), title_room), 40, True, INK)
    if view.week is not None and view.week.game_over:
        _draw_banner(canvas, view, styles)
        return
    subtitle: list[_Segment] = [
        _Text(view.map.names.get(view.language, view.map.name), 26, False, MUTED)
    ]
    if view.battles is not None:
        subtitle += [
            _Text("·", 26, True, MUTED),
            _Icon("swords", 22),
            _Text(view.labels.battles, 26, True),
        ]
    if view.week is not None:
        subtitle += [
            _Text("·", 26, True, MUTED),
            _Text(view.labels.last_turn.format(turn=view.week.turn), 26, True),
        ]
    if view.private is not None:
        side = next(s for s in view.sides if s.id == view.private.side)
        subtitle += [
            _Text("·", 26, True, MUTED),
            _Text(f"{view.labels.orders}:", 26, True),
            _Chip(styles[side.id].tag, 22, styles[side.id]),
            _Text(side.name, 26, True),
        ]
    _draw_row(canvas, subtitle, MARGIN, 88, 10)


def _draw_banner(canvas: _Canvas, view: MapView, styles: dict[SideId, Style]) -> None:
    """The final map's banner: the winner, in its colour, with a star and its tag."""
    winner = view.week.winner if view.week is not None else None
    box = (MARGIN, 66, WIDTH - MARGIN, HEADER_HEIGHT - 4)
    middle = (box[1] + box[3]) / 2
    if winner is None:
        canvas.draw.rounded_rectangle(box, radius=10, fill=MUTED, outline=INK, width=2)
        canvas.text((MARGIN + 16, middle), view.labels.no_winner, 30, True, WHITE)
        return
    style = styles[winner]
    name = next(side.name for side in view.sides if side.id == winner)
    text = _text_on(style.colour)
    canvas.draw.rounded_rectangle(box, radius=10, fill=style.colour, outline=INK, width=2)
    words = view.labels.winner.format(side=name)
    held = len((view.captured or {}).get(winner, ()))
    if view.sectors_to_win is not None:
        words += " · " + view.labels.progress_of(held, view.sectors_to_win)
    row: list[_Segment] = [
        _Icon("star", 32, WHITE if text == WHITE else INK),
        _Chip(style.tag, 26, replace(style, fill=WHITE, text=INK, border=INK)),
        _Text(_fit(words, _font(30, True), WIDTH - 4 * MARGIN - 120), 30, True, text),
    ]
    _draw_row(canvas, row, MARGIN + 14, middle, 12)


def _legend_keys(
    view: MapView, styles: dict[SideId, Style], layout: Layout
) -> list[tuple[list[_Segment], str]]:
    """The legend's key: one entry for each kind of mark this picture shows."""
    labels, size = view.labels, 22
    chip = round(size * 0.85)
    keys: list[tuple[list[_Segment], str]] = []
    holders = [side for side, sectors in (view.captured or {}).items() if sectors]
    if holders:
        style = styles[holders[0]]
        held: list[_Segment] = [
            _Icon("swatch", 20, style.colour, tint(style.colour, 0.22)),
            _Icon("flag", size, style.colour),
            _Chip(style.tag, chip, style),
        ]
        keys.append((held, labels.held))
    week = view.week
    if week is not None and any(week.new.values()):
        style = styles[next(side for side, sectors in week.new.items() if sectors)]
        flag: list[_Segment] = [
            _Icon("flag", size, style.colour),
            _Chip(style.tag, chip, style),
            _Text(labels.new, size, True),
        ]
        keys.append((flag, labels.new_key))
    movers = [move.side for move in week.moves] if week is not None else []
    if view.private is not None and view.private.orders.moves:
        movers.append(view.private.side)
    if movers:
        style = styles[movers[0]]
        keys.append(([_Icon("arrow", size, style.colour), _Chip("3", chip, style)], labels.moved))
    marks = week.battles if week is not None else ()
    if view.battles or marks:
        keys.append(([_Icon("swords", size), _Text("#1", size, True)], labels.battle))
    if any(mark.winner is not None for mark in marks):
        keys.append(([_Icon("star", size, MUTED)], labels.won))
    if any(mark.outcome is not None and mark.winner is None for mark in marks):
        keys.append(([_Text("=", size, True)], labels.draw))
    if any(mark.outcome is None for mark in marks):
        keys.append(([_Text("?", size, True)], labels.no_result))
    losers = [side for mark in marks for side in mark.losses]
    if losers:
        keys.append(([_Chip(f"{styles[losers[0]].tag} −2", chip, styles[losers[0]])], labels.lost))
    if view.private is not None and view.private.orders.reinforce is not None:
        keys.append(([_Chip("+1", chip, styles[view.private.side])], labels.reinforce))
    keys += _figure_keys(view, styles, size)
    meanings: dict[tuple[str, SideId | None], str] = {}
    for mark in view.marks:
        meanings.setdefault((mark.text, mark.side), mark.meaning)
    for (text, side), meaning in meanings.items():
        keys.append(([_Chip(text, chip, styles[side] if side else NEUTRAL)], meaning))
    if any(layout.links.values()):
        keys.append(([_Icon("link", size, MUTED)], labels.linked))
    return keys


def _figure_keys(
    view: MapView, styles: dict[SideId, Style], size: int
) -> list[tuple[list[_Segment], str]]:
    """The legend's entries for a hub and a module's named figures, when the picture has them."""
    labels = view.labels
    keys: list[tuple[list[_Segment], str]] = []
    if any(HUB_TAG in sector.tags for sector in view.map.sectors):
        keys.append(([_Icon("hub", size)], labels.hub))
    shown = sorted(view.heroes, key=lambda hero: (hero.killed, hero.initiative, hero.id))
    if shown and not shown[0].killed:
        sample = _figure_segment(shown[0], styles[shown[0].side], size, size * 9)
        keys.append(([sample], labels.hero))
    if view.hero_moves:
        mover = next(hero for hero in view.heroes if hero.id == view.hero_moves[0].hero)
        style = styles[mover.side]
        keys.append(([_Icon("arrow", size, style.colour)], labels.hero_moved))
    if killed := [hero for hero in view.heroes if hero.killed]:
        sample = _figure_segment(killed[0], styles[killed[0].side], size, size * 9)
        keys.append(([sample], labels.killed))
    if view.npc is not None:
        keys.append(([_figure_segment(view.npc, None, size, size * 9)], labels.npc))
    return keys


def _draw_legend(
    canvas: _Canvas,
    view: MapView,
    styles: dict[SideId, Style],
    top: float,
    columns: int,
    keys: list[tuple[list[_Segment], str]],
) -> None:
    canvas.draw.line([(MARGIN, top), (WIDTH - MARGIN, top)], fill=CONNECTOR, width=2)
    column_width = (WIDTH - 2 * MARGIN) / columns
    chip_room = max(
        (_segment_width(_Chip(styles[s.id].tag, 26, styles[s.id])) for s in view.sides), default=0
    )
    winner = view.week.winner if view.week is not None else None
    for index, side in enumerate(view.sides):
        row, column = divmod(index, columns)
        x = MARGIN + column * column_width
        y = top + 16 + row * LEGEND_SIDE_ROW
        style = styles[side.id]
        total = view.state.total(side.id)
        _draw_chip(canvas, _Chip(style.tag, 26, style), x, y + 22)
        text_x = x + chip_room + 12
        room = column_width - (text_x - x) - 12
        star: list[_Segment] = [_Icon("star", 26, style.colour)] if side.id == winner else []
        fitted = _fit(side.name, _font(28, True), room - 36 * len(star))
        name = [*star, _Text(fitted, 28, True, INK if total > 0 else MUTED)]
        _draw_row(canvas, name, text_x, y + 18, 10)
        stats = view.labels.armies_of(total)
        if view.sectors_to_win is not None:
            held = len((view.captured or {}).get(side.id, ()))
            stats += " · " + view.labels.progress_of(held, view.sectors_to_win)
        if side.id in view.side_notes:
            stats += " · " + view.side_notes[side.id]
        canvas.text((text_x, y + 46), _fit(stats, _font(22), room), 22, False, MUTED)
    rows = math.ceil(len(view.sides) / columns)
    key_top = top + 20 + rows * LEGEND_SIDE_ROW
    key_width = (WIDTH - 2 * MARGIN) / 2
    for index, (segments, meaning) in enumerate(keys):
        row, column = divmod(index, 2)
        x = MARGIN + column * key_width
        middle = key_top + row * LEGEND_KEY_ROW + LEGEND_KEY_ROW / 2
        mark_width = _row_width(segments, 6)
        _draw_row(canvas, segments, x, middle, 6)
        room = key_width - mark_width - 30
        canvas.text((x + mark_width + 12, middle), _fit(meaning, _font(22), room), 22, False, INK)
