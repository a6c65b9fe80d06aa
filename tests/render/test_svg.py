"""The Mini App's SVG map is drawn from the PNG's own layout: every sector where the PNG puts
it, tappable by its id, the lines between sectors the PNG draws, a side's orders as the arrows
of the PNG; the same view always gives the same text."""

from __future__ import annotations

import re

from rules.render import compute_layout
from rules.svg import map_svg
from tests.render.views import custom_map_view, worked_example


def test_every_sector_is_drawn_where_the_png_draws_it() -> None:
    view = worked_example("friday")
    svg = map_svg(view)
    layout = compute_layout(view, 1)
    tapped = re.findall(r'<g class="sector" data-sector="([^"]+)"', svg)
    assert tapped == [sector.id for sector in view.map.sectors]
    for sector_id, shape in layout.shapes.items():
        if shape.polygon is not None:
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in shape.polygon)
            assert f'points="{points}"' in svg, sector_id
        else:
            x, y = shape.centre
            assert f'cx="{x:.1f}" cy="{y:.1f}" r="{shape.radius:.1f}"' in svg, sector_id
    assert svg == map_svg(view)
    assert svg.startswith("<svg")
    assert svg.endswith("</svg>")


def test_a_sides_orders_are_its_pngs_arrows() -> None:
    view = worked_example("private", "red")
    assert view.private is not None
    svg = map_svg(view)
    orders = svg[svg.index('<g class="orders"') :]
    layout = compute_layout(view, 1)
    for move in view.private.orders.moves:
        arrow = layout.arrow(move.source, move.to)
        tip = f"{arrow.tip[0]:.1f},{arrow.tip[1]:.1f}"
        assert tip in orders, move
    assert orders.count("<polyline") == 2 * len(view.private.orders.moves)
    public = map_svg(view.model_copy(update={"private": None}))
    assert '<g class="orders"' not in public


def test_names_are_escaped() -> None:
    view = custom_map_view()
    first = view.map.sectors[0].model_copy(update={"name": "<script>&"})
    hostile_map = view.map.model_copy(update={"sectors": (first, *view.map.sectors[1:])})
    svg = map_svg(view.model_copy(update={"map": hostile_map}))
    assert "<script>" not in svg
    assert "&lt;script&gt;&amp;" in svg
