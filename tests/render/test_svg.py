"""The Mini App's SVG map is drawn from the PNG's own layout: every sector where the PNG puts
it, tappable by its id, the lines between sectors the PNG draws, a side's orders as the arrows
of the PNG; the same view always gives the same text."""

from __future__ import annotations

import re

from rules.render import HeroMark, compute_layout, place_figures, sector_sizes, side_styles
from rules.svg import map_svg
from tests.render.views import custom_map_view, figures_view, worked_example


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


def test_figures_stand_where_the_png_puts_them() -> None:
    killed = HeroMark(
        id="fallen",
        name="Fallen",
        side="mechanicus",
        sector="east",
        initiative=5,
        wounds=4,
        wounds_to_kill=4,
        killed=True,
    )
    view = figures_view()
    view = view.model_copy(update={"heroes": (*view.heroes, killed)})
    svg = map_svg(view)
    assert re.findall(r'<g class="hero" data-hero="([^"]+)"', svg) == [
        "gaunt",
        "fallen",
        "swarmlord",
    ]
    gaunt = svg[svg.index('data-hero="gaunt"') :]
    gaunt = gaunt[: gaunt.index("</g>")]
    assert gaunt.count('class="wound"') == 1
    assert gaunt.count('class="pip"') == 3
    assert ">Ibram Gaunt</text>" in gaunt
    assert ">3</text>" in gaunt
    assert 'class="killed"' not in gaunt
    fallen = svg[svg.index('data-hero="fallen"') :]
    assert 'class="killed"' in fallen[: fallen.index("</g>")]
    assert '<g class="npc">' in svg
    assert ">Egor</text>" in svg
    assert '<g class="hub" data-sector="hive">' in svg
    layout = compute_layout(view, 1)
    shape = layout.shapes["north"]
    title, _badge = sector_sizes(shape)
    left, top, right, bottom = shape.box
    area = (left + (right - left) * 0.03, top + title * 1.35, right - (right - left) * 0.03, bottom)
    places, _top = place_figures(view, side_styles(view.sides), shape, area, True)
    assert [place.figure.id for place in places if isinstance(place.figure, HeroMark)] == ["gaunt"]
    assert f'<rect x="{places[0].left:.1f}"' in gaunt
    moves = svg[svg.index('<g class="hero-moves"') :]
    arrow = layout.arrow("hive", "south")
    assert f"{arrow.tip[0]:.1f},{arrow.tip[1]:.1f}" in moves
    assert ">Swarmlord</text>" in moves


def test_a_map_without_figures_has_no_figure_groups() -> None:
    svg = map_svg(custom_map_view())
    for group in ('class="hero"', 'class="npc"', 'class="hub"', 'class="hero-moves"'):
        assert group not in svg
