"""Maps: the built-in planet-5 (RULES.md section 1) and the checks on a GM's own map file."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from rules import (
    BUILTIN_MAPS,
    MapError,
    MapProblemCode,
    builtin_map,
    load_map_file,
    parse_map,
    parse_map_toml,
)

HEADER = 'id = "test"\nname = "Test"\n'


def sector_toml(
    sector_id: str,
    neighbours: list[str],
    x: float,
    y: float = 0.5,
    polygon: list[tuple[float, float]] | None = None,
) -> str:
    lines = [
        "[[sectors]]",
        f'id = "{sector_id}"',
        f'name = "Sector {sector_id}"',
        "neighbours = [" + ", ".join(f'"{n}"' for n in neighbours) + "]",
        f"x = {x}",
        f"y = {y}",
    ]
    if polygon is not None:
        lines.append("polygon = [" + ", ".join(f"[{px}, {py}]" for px, py in polygon) + "]")
    return "\n".join(lines) + "\n"


def map_toml(*sectors: str) -> str:
    return HEADER + "\n".join(sectors)


def problems_of(text: str) -> list[tuple[MapProblemCode, str | None, str | None]]:
    with pytest.raises(MapError) as raised:
        parse_map_toml(text)
    return [(p.code, p.sector, p.other) for p in raised.value.problems]


def codes_of(text: str) -> list[MapProblemCode]:
    return [code for code, _, _ in problems_of(text)]


def test_planet_5_is_built_in() -> None:
    planet = builtin_map("planet-5")
    assert "planet-5" in BUILTIN_MAPS
    assert planet.id == "planet-5"
    assert planet.sector_ids() == ("1", "2", "3", "4", "5")


def test_planet_5_adjacency_is_every_pair_but_the_poles() -> None:
    planet = builtin_map("planet-5")
    for a, b in itertools.permutations(planet.sector_ids(), 2):
        assert planet.adjacent(a, b) == ({a, b} != {"4", "5"}), (a, b)
    for sector in planet.sector_ids():
        assert not planet.adjacent(sector, sector)
    assert planet.adjacency["4"] == frozenset({"1", "2", "3"})
    assert planet.adjacency["5"] == frozenset({"1", "2", "3"})
    assert planet.adjacency["1"] == frozenset({"2", "3", "4", "5"})


def test_planet_5_has_russian_names() -> None:
    planet = builtin_map("planet-5")
    assert planet.names["ru"] == "Планета"
    russian = {s.id: s.display_name("ru") for s in planet.sectors}
    assert russian == {
        "1": "Экватор",
        "2": "Запад",
        "3": "Восток",
        "4": "Северный полюс",
        "5": "Южный полюс",
    }
    assert planet.by_id["4"].display_name() == "North Pole"
    assert planet.by_id["4"].display_name("de") == "North Pole"


def test_planet_5_layout_is_a_cross() -> None:
    planet = builtin_map("planet-5").by_id
    assert planet["4"].y < planet["1"].y < planet["5"].y
    assert planet["2"].x < planet["1"].x < planet["3"].x
    assert planet["4"].x == planet["1"].x == planet["5"].x


def test_unknown_builtin_map() -> None:
    with pytest.raises(KeyError):
        builtin_map("planet-6")


def test_syntax_error() -> None:
    assert codes_of('id = "test"\nname = [') == [MapProblemCode.SYNTAX]


def test_schema_error_names_the_field() -> None:
    text = HEADER + '[[sectors]]\nid = "1"\nname = "One"\nneighbours = []\ny = 0.5\n'
    with pytest.raises(MapError) as raised:
        parse_map_toml(text)
    assert [p.code for p in raised.value.problems] == [MapProblemCode.SCHEMA]
    detail = raised.value.problems[0].detail
    assert detail is not None
    assert "sectors.0.x" in detail


def test_schema_error_for_unknown_field_and_spaced_id() -> None:
    text = map_toml(sector_toml("1", [], 0.5)) + "colour = 'red'\n"
    assert codes_of(text) == [MapProblemCode.SCHEMA]
    assert codes_of(map_toml(sector_toml("a b", [], 0.5))) == [MapProblemCode.SCHEMA]


def test_empty_map() -> None:
    assert codes_of(HEADER + "sectors = []\n") == [MapProblemCode.EMPTY]


def test_duplicate_id() -> None:
    text = map_toml(sector_toml("1", [], 0.2), sector_toml("1", [], 0.8))
    assert problems_of(text) == [(MapProblemCode.DUPLICATE_ID, "1", None)]


def test_unknown_neighbour() -> None:
    text = map_toml(sector_toml("1", ["2", "9"], 0.2), sector_toml("2", ["1"], 0.8))
    assert problems_of(text) == [(MapProblemCode.UNKNOWN_NEIGHBOUR, "1", "9")]


def test_self_neighbour() -> None:
    text = map_toml(sector_toml("1", ["1", "2"], 0.2), sector_toml("2", ["1"], 0.8))
    assert problems_of(text) == [(MapProblemCode.SELF_NEIGHBOUR, "1", None)]


def test_asymmetric_edge() -> None:
    text = map_toml(
        sector_toml("1", ["2", "3"], 0.2),
        sector_toml("2", ["1"], 0.5),
        sector_toml("3", ["2"], 0.8),
    )
    assert sorted(problems_of(text)) == [
        (MapProblemCode.ASYMMETRIC_EDGE, "1", "3"),
        (MapProblemCode.ASYMMETRIC_EDGE, "3", "2"),
    ]


def test_unreachable_sector() -> None:
    text = map_toml(
        sector_toml("1", ["2"], 0.2),
        sector_toml("2", ["1"], 0.4),
        sector_toml("3", ["4"], 0.6),
        sector_toml("4", ["3"], 0.8),
    )
    assert problems_of(text) == [
        (MapProblemCode.UNREACHABLE_SECTOR, "3", "1"),
        (MapProblemCode.UNREACHABLE_SECTOR, "4", "1"),
    ]


SQUARE = [(0.1, 0.1), (0.3, 0.1), (0.3, 0.3), (0.1, 0.3)]


@pytest.mark.parametrize(
    ("sector", "detail"),
    [
        pytest.param(sector_toml("1", [], 1.5), "outside the unit square", id="centre-x>1"),
        pytest.param(sector_toml("1", [], 0.5, -0.1), "outside the unit square", id="centre-y<0"),
        pytest.param(
            sector_toml("1", [], 0.2, 0.2, [(0.1, 0.1), (0.3, 0.3)]),
            "at least 3 points",
            id="polygon-2-points",
        ),
        pytest.param(
            sector_toml("1", [], 0.2, 0.2, [(0.1, 0.1), (0.2, 0.2), (0.3, 0.3)]),
            "no area",
            id="polygon-collinear",
        ),
        pytest.param(
            sector_toml("1", [], 0.2, 0.2, [(0.1, 0.1), (1.3, 0.1), (0.3, 0.3)]),
            "outside the unit square",
            id="polygon-point-outside",
        ),
        pytest.param(
            sector_toml("1", [], 0.5, 0.5, SQUARE),
            "outside the sector's own polygon",
            id="centre-outside-polygon",
        ),
        pytest.param(
            sector_toml(
                "1",
                [],
                0.3,
                0.3,
                [(0.1, 0.1), (0.4, 0.1), (0.4, 0.2), (0.2, 0.2), (0.2, 0.4), (0.1, 0.4)],
            ),
            "outside the sector's own polygon",
            id="centre-in-the-notch-of-an-l",
        ),
    ],
)
def test_bad_geometry(sector: str, detail: str) -> None:
    with pytest.raises(MapError) as raised:
        parse_map_toml(map_toml(sector))
    [problem] = raised.value.problems
    assert problem.code is MapProblemCode.BAD_GEOMETRY
    assert problem.sector == "1"
    assert problem.detail is not None
    assert detail in problem.detail


def test_bad_geometry_same_centre() -> None:
    text = map_toml(sector_toml("1", ["2"], 0.5), sector_toml("2", ["1"], 0.5))
    with pytest.raises(MapError) as raised:
        parse_map_toml(text)
    [problem] = raised.value.problems
    assert (problem.code, problem.sector) == (MapProblemCode.BAD_GEOMETRY, "2")
    assert problem.detail is not None
    assert "sector 1" in problem.detail


def test_valid_polygon_is_accepted() -> None:
    parsed = parse_map_toml(map_toml(sector_toml("1", [], 0.2, 0.2, SQUARE)))
    assert parsed.by_id["1"].polygon == tuple(SQUARE)


def test_every_problem_is_reported_at_once() -> None:
    text = map_toml(
        sector_toml("1", ["1", "2", "7"], 0.2),
        sector_toml("2", [], 0.5),
        sector_toml("2", ["1"], 0.8),
        sector_toml("3", ["1"], 0.2, polygon=[(0.1, 0.1), (0.2, 0.2)]),
    )
    with pytest.raises(MapError) as raised:
        parse_map_toml(text)
    codes = {p.code for p in raised.value.problems}
    assert codes == {
        MapProblemCode.DUPLICATE_ID,
        MapProblemCode.SELF_NEIGHBOUR,
        MapProblemCode.UNKNOWN_NEIGHBOUR,
        MapProblemCode.ASYMMETRIC_EDGE,
        MapProblemCode.BAD_GEOMETRY,
    }
    message = str(raised.value)
    assert "sector id 2 is used twice" in message
    assert "names itself" in message
    assert "7" in message
    assert message.count(";") == len(raised.value.problems) - 1


def test_parse_map_from_a_dict() -> None:
    parsed = parse_map(
        {
            "id": "duo",
            "name": "Duo",
            "sectors": [
                {"id": "n", "name": "North", "neighbours": ["s"], "x": 0.5, "y": 0.2},
                {"id": "s", "name": "South", "neighbours": ["n"], "x": 0.5, "y": 0.8},
            ],
        }
    )
    assert parsed.sector_ids() == ("n", "s")
    assert parsed.adjacent("n", "s")


def test_load_a_custom_map_file(tmp_path: Path) -> None:
    path = tmp_path / "ring.toml"
    path.write_text(
        'id = "ring"\nname = "Ring"\nnames = { ru = "Кольцо" }\n\n'
        + sector_toml("c", ["a", "b"], 0.8)
        + 'names = { ru = "Це" }\n\n'
        + sector_toml("a", ["b", "c"], 0.2)
        + "\n"
        + sector_toml("b", ["a", "c"], 0.5, 0.2, [(0.4, 0.1), (0.6, 0.1), (0.5, 0.3)]),
        encoding="utf-8",
    )
    loaded = load_map_file(path)
    assert loaded.id == "ring"
    assert loaded.names == {"ru": "Кольцо"}
    assert loaded.sector_ids() == ("c", "a", "b")
    assert loaded.order == {"c": 0, "a": 1, "b": 2}
    assert loaded.by_id["c"].display_name("ru") == "Це"
    assert all(loaded.adjacent(x, y) for x, y in itertools.permutations("abc", 2))


def test_load_a_bad_map_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(map_toml(sector_toml("1", ["2"], 0.5)), encoding="utf-8")
    with pytest.raises(MapError) as raised:
        load_map_file(path)
    assert [p.code for p in raised.value.problems] == [MapProblemCode.UNKNOWN_NEIGHBOUR]


@pytest.mark.parametrize(
    ("x", "y"),
    [(0.2, 0.2), (0.1, 0.2), (0.3, 0.3), (0.1, 0.1)],
    ids=["inside", "on-an-edge", "on-a-corner", "on-the-first-corner"],
)
def test_a_centre_inside_or_on_the_edge_of_its_polygon_is_accepted(x: float, y: float) -> None:
    parsed = parse_map_toml(map_toml(sector_toml("1", [], x, y, SQUARE)))
    assert parsed.by_id["1"].polygon == tuple(SQUARE)
