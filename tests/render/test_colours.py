"""Side colours: the colour-vision simulation and the colour difference the promise rests on,
the safe colour a name names, and every pair of safe colours drawn on a map and told apart under
protanopia, deuteranopia and tritanopia."""

from __future__ import annotations

from itertools import combinations

import pytest

from rules import Game, builtin_map, deployed_state
from rules.colours import (
    DEFICIENCIES,
    DISTINCT,
    OKABE_ITO,
    ciede2000,
    delta_e,
    least_difference,
    named_colour,
    palette_for,
    simulate,
)
from rules.render import MapView, SideView, render_image, side_styles

INDEX = {name: index for index, (name, _rgb) in enumerate(OKABE_ITO)}


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        # Sharma, Wu and Dalal (2005), table 1: pairs 1, 3, 7, 17 and 24.
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 2.8361, -74.0200), (50.0, 0.0, -82.7485), 3.4412),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ],
)
def test_the_colour_difference_is_ciede2000(
    first: tuple[float, float, float], second: tuple[float, float, float], expected: float
) -> None:
    assert ciede2000(first, second) == pytest.approx(expected, abs=1e-4)
    assert ciede2000(second, first) == pytest.approx(expected, abs=1e-4)


def test_the_simulations_are_machados() -> None:
    """Red and green, which deuteranopia confuses, come out alike; blue and yellow, which
    tritanopia confuses, too; grey stays grey (each row of the matrices sums to 1)."""
    red, green = (0xC8, 0x1E, 0x1E), (0x1B, 0x8A, 0x3C)
    assert delta_e(red, green) > 50
    assert delta_e(simulate(red, "deuteranopia"), simulate(green, "deuteranopia")) < DISTINCT
    assert delta_e(simulate(red, "protanopia"), simulate(green, "protanopia")) < DISTINCT * 2
    for deficiency in DEFICIENCIES:
        assert simulate((128, 128, 128), deficiency) == (128, 128, 128)
    assert simulate((0, 0, 255), "tritanopia")[2] < 200  # blue loses its blue


@pytest.mark.parametrize(
    ("name", "colour"),
    [
        ("Red", "vermillion"),
        ("reds", "vermillion"),
        ("Красные", "vermillion"),
        ("Алая гвардия", "vermillion"),
        ("Синие", "blue"),
        ("Blue Legion", "blue"),
        ("Голубые", "sky blue"),
        ("Зелёные", "bluish green"),
        ("Green", "bluish green"),
        ("Жёлтые", "yellow"),
        ("Рыжие", "orange"),
        ("Фиолетовые", "reddish purple"),
        ("Pink", "reddish purple"),
        ("Чёрный легион", "black"),
        ("Sons of Red", "vermillion"),
        ("Бурые", "vermillion"),
        ("Red and Blue", None),
        ("Белые", None),
        ("Grey Knights", None),
        ("Орки", None),
        ("Сердце Хаоса", None),
        ("Redemptors", None),
        ("Буря", None),
    ],
)
def test_a_name_names_the_nearest_safe_colour(name: str, colour: str | None) -> None:
    assert named_colour(name) == (INDEX[colour] if colour is not None else None)


def test_sides_named_after_colours_take_them_first_come() -> None:
    assert palette_for(["blue", "necrons", "red", "orange", "red2"]) == [4, 1, 5, 0, 2]
    assert palette_for(["Red", "Green"]) == [INDEX["vermillion"], INDEX["bluish green"]]


def _pair_view(first: int, second: int) -> MapView:
    game_map = builtin_map("planet-5")
    sides = (
        SideView(id="a", name="A", colour=first),
        SideView(id="b", name="B", colour=second),
    )
    state = deployed_state(
        Game(map=game_map), {"a": {"1": 4, "2": 3, "5": 3}, "b": {"3": 4, "4": 3, "5": 3}}
    )
    return MapView(
        map=game_map,
        state=state,
        sides=sides,
        title="Pair",
        captured={"a": ("1",), "b": ("3",)},
    )


@pytest.mark.parametrize(("first", "second"), list(combinations(range(len(OKABE_ITO)), 2)), ids=str)
def test_every_pair_of_safe_colours_is_drawn_distinct_under_each_deficiency(
    first: int, second: int
) -> None:
    """The wizard gives sides only safe colours, one each; every pair of them, drawn as chips,
    borders and arrows on a map, stays at least ``DISTINCT`` apart (CIEDE2000) for normal
    vision and under each simulated deficiency. Held sectors' pale tints are too alike to be
    told apart by colour alone, and they need not be: each shows its holder's tag."""
    view = _pair_view(first, second)
    styles = side_styles(view.sides)
    colours = (styles["a"].colour, styles["b"].colour)
    assert colours == (OKABE_ITO[first][1], OKABE_ITO[second][1])
    drawn = {rgb for _count, rgb in render_image(view).convert("RGB").getcolors(1 << 16) or []}
    assert set(colours) <= drawn
    assert least_difference(*colours) >= DISTINCT, [
        (d, round(delta_e(simulate(colours[0], d), simulate(colours[1], d)), 1))
        for d in DEFICIENCIES
    ]
