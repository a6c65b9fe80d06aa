"""A rule module's named figures on the map (watch's heroes, its NPC and a hub sector): drawn
in their sectors in their side's colours, with initiative and wound pips, the killed struck, the
moves as arrows, every kind explained in the legend; unknown heroes and sectors refused."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from pydantic import ValidationError

from rules.render import (
    HeroMark,
    compute_layout,
    render_image,
    render_map,
    side_styles,
)
from rules.render.legend import _legend_keys
from tests.render.views import custom_map_view, figures_view, hub_view


def _colours_in(image: Image.Image, box: tuple[float, float, float, float]) -> set[object]:
    """The colours of ``image`` inside ``box``."""
    left, top, right, bottom = (round(value) for value in box)
    rgb = image.convert("RGB").crop((left, top, right, bottom))
    return {colour for _count, colour in rgb.getcolors(1 << 20) or ()}


def test_a_hub_is_ringed_and_explained() -> None:
    plain, hub = custom_map_view(), hub_view()
    assert render_map(plain) != render_map(hub)
    shape = compute_layout(hub, 1).shapes["hive"]
    left, top, _right, bottom = shape.bounds
    ring = (left - 20, top - 20, left - 2, bottom)
    assert (0x22, 0x22, 0x22) in _colours_in(render_image(hub), ring)
    assert (0x22, 0x22, 0x22) not in _colours_in(render_image(plain), ring)
    keys = [
        meaning
        for _mark, meaning in _legend_keys(hub, side_styles(hub.sides), compute_layout(hub, 1))
    ]
    assert hub.labels.hub in keys
    assert plain.labels.hub not in [
        meaning
        for _mark, meaning in _legend_keys(
            plain, side_styles(plain.sides), compute_layout(plain, 1)
        )
    ]


def test_heroes_stand_in_their_sectors_in_their_sides_colour() -> None:
    view = figures_view()
    image = render_image(view)
    styles = side_styles(view.sides)
    shapes = compute_layout(view, 1).shapes
    assert styles["inquisition"].colour in _colours_in(image, shapes["north"].box)
    assert styles["tyranids"].colour in _colours_in(image, shapes["south"].box)
    without = render_image(view.model_copy(update={"heroes": (), "hero_moves": ()}))
    assert styles["inquisition"].colour not in _colours_in(without, shapes["north"].box)
    assert styles["tyranids"].colour not in _colours_in(without, shapes["south"].box)


def test_wounds_and_initiative_change_the_picture() -> None:
    view = figures_view()
    wounded = view.model_copy(
        update={"heroes": (view.heroes[0].model_copy(update={"wounds": 3}), view.heroes[1])}
    )
    faster = view.model_copy(
        update={"heroes": (view.heroes[0].model_copy(update={"initiative": 1}), view.heroes[1])}
    )
    pictures = {render_map(view), render_map(wounded), render_map(faster)}
    assert len(pictures) == 3


def test_every_kind_of_figure_is_in_the_legend() -> None:
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
    meanings = [
        meaning
        for _mark, meaning in _legend_keys(view, side_styles(view.sides), compute_layout(view, 1))
    ]
    labels = view.labels
    for label in (labels.hub, labels.hero, labels.hero_moved, labels.killed, labels.npc):
        assert meanings.count(label) == 1, label
    alive = figures_view(npc=None, hero_moves=())
    meanings = [
        meaning
        for _mark, meaning in _legend_keys(
            alive, side_styles(alive.sides), compute_layout(alive, 1)
        )
    ]
    assert labels.hero in meanings
    assert not {labels.hero_moved, labels.killed, labels.npc} & set(meanings)


def test_the_npc_and_a_hero_move_are_drawn() -> None:
    view = figures_view()
    shapes = compute_layout(view, 1).shapes
    npc_box = shapes["orbit"].bounds
    assert (0xFF, 0xF3, 0xC4) in _colours_in(render_image(view), npc_box)
    assert render_map(view) != render_map(view.model_copy(update={"npc": None}))
    assert render_map(view) != render_map(view.model_copy(update={"hero_moves": ()}))


def test_many_heroes_in_one_sector_fit_and_render() -> None:
    heroes = tuple(
        HeroMark(
            id=f"h{i}",
            name=f"Очень длинное имя героя номер {i}",
            side=("tyranids", "inquisition", "mechanicus")[i % 3],
            sector="orbit",
            initiative=i,
            wounds=i % 4,
            wounds_to_kill=4,
        )
        for i in range(8)
    )
    view = figures_view(heroes=[h.model_dump() for h in heroes], hero_moves=())
    image = Image.open(io.BytesIO(render_map(view)))
    assert image.size[0] == 1280


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hero_moves": [{"hero": "nobody", "source": "hive", "to": "west"}]}, "hero nobody"),
        ({"npc": {"name": "Egor", "sector": "moon"}}, "moon"),
        (
            {
                "heroes": [
                    {
                        "id": "x",
                        "name": "X",
                        "side": "orks",
                        "sector": "hive",
                        "initiative": 1,
                        "wounds": 0,
                        "wounds_to_kill": 4,
                    }
                ],
                "hero_moves": [],
            },
            "orks",
        ),
    ],
)
def test_unknown_heroes_sides_and_sectors_are_refused(
    changes: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        figures_view(**changes)


def test_a_hero_listed_twice_is_refused() -> None:
    view = figures_view()
    with pytest.raises(ValidationError, match="listed twice"):
        figures_view(heroes=[h.model_dump() for h in (*view.heroes, view.heroes[0])])
