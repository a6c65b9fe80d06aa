"""Generated grid maps: valid, ordered, adjacent by grid, drawn inside the unit square."""

import pytest

from rules import CampaignMap, parse_map
from rules.mapgen import grid_map

SIZES = [(1, 1), (1, 4), (4, 1), (2, 2), (3, 5), (5, 3), (10, 6), (7, 7)]


Box = tuple[float, float, float, float]


def bounding_box(polygon: tuple[tuple[float, float], ...] | None) -> Box:
    """(left, top, right, bottom) of a polygon."""
    assert polygon is not None
    xs = [x for x, _ in polygon]
    ys = [y for _, y in polygon]
    return min(xs), min(ys), max(xs), max(ys)


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_grid_map_is_valid_and_has_every_cell(columns: int, rows: int) -> None:
    campaign_map = grid_map(columns, rows)

    assert isinstance(campaign_map, CampaignMap)
    assert len(campaign_map.sectors) == columns * rows
    assert campaign_map.id == f"grid-{columns}x{rows}"
    assert parse_map(campaign_map.model_dump()) == campaign_map


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_ids_run_in_row_major_order_with_names(columns: int, rows: int) -> None:
    campaign_map = grid_map(columns, rows)

    assert campaign_map.sector_ids() == tuple(str(n) for n in range(1, columns * rows + 1))
    for sector in campaign_map.sectors:
        assert sector.name == f"Sector {sector.id}"
        assert sector.display_name("ru") == f"Сектор {sector.id}"
    if columns > 1:
        second = campaign_map.by_id["2"]
        assert second.y == campaign_map.by_id["1"].y
        assert second.x > campaign_map.by_id["1"].x


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_neighbours_are_symmetric_and_orthogonal(columns: int, rows: int) -> None:
    campaign_map = grid_map(columns, rows)

    assert len(campaign_map.sectors) == columns * rows
    for sector in campaign_map.sectors:
        row, column = divmod(int(sector.id) - 1, columns)
        expected = {
            str(r * columns + c + 1)
            for r, c in ((row - 1, column), (row + 1, column), (row, column - 1), (row, column + 1))
            if 0 <= r < rows and 0 <= c < columns
        }
        assert set(sector.neighbours) == expected
        assert len(sector.neighbours) == len(expected)
        for neighbour in sector.neighbours:
            assert campaign_map.adjacent(neighbour, sector.id)


def test_corner_edge_and_interior_adjacency_on_4x3() -> None:
    #  1  2  3  4
    #  5  6  7  8
    #  9 10 11 12
    adjacency = grid_map(4, 3).adjacency

    assert adjacency["1"] == {"2", "5"}
    assert adjacency["4"] == {"3", "8"}
    assert adjacency["9"] == {"5", "10"}
    assert adjacency["12"] == {"8", "11"}
    assert adjacency["2"] == {"1", "3", "6"}
    assert adjacency["5"] == {"1", "6", "9"}
    assert adjacency["8"] == {"4", "7", "12"}
    assert adjacency["10"] == {"6", "9", "11"}
    assert adjacency["6"] == {"2", "5", "7", "10"}
    assert adjacency["7"] == {"3", "6", "8", "11"}


def test_one_by_one_is_a_one_sector_map() -> None:
    campaign_map = grid_map(1, 1)

    assert campaign_map.sector_ids() == ("1",)
    assert campaign_map.sectors[0].neighbours == ()
    assert (campaign_map.sectors[0].x, campaign_map.sectors[0].y) == (0.5, 0.5)


def test_a_single_row_is_a_chain() -> None:
    adjacency = grid_map(5, 1).adjacency

    assert adjacency["1"] == {"2"}
    assert adjacency["3"] == {"2", "4"}
    assert adjacency["5"] == {"4"}


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_geometry_is_inside_the_unit_square_with_square_separate_cells(
    columns: int, rows: int
) -> None:
    campaign_map = grid_map(columns, rows)
    side = 1 / max(columns, rows)

    assert len(campaign_map.sectors) == columns * rows
    for sector in campaign_map.sectors:
        assert 0.0 <= sector.x <= 1.0
        assert 0.0 <= sector.y <= 1.0
        assert sector.polygon is not None
        assert len(sector.polygon) == 4
        assert all(0.0 <= x <= 1.0 and 0.0 <= y <= 1.0 for x, y in sector.polygon)
        left, top, right, bottom = bounding_box(sector.polygon)
        assert right - left == pytest.approx(bottom - top)
        assert 0.5 * side < right - left < side
        assert left < sector.x < right
        assert top < sector.y < bottom
        for neighbour_id in sector.neighbours:
            n_left, n_top, n_right, n_bottom = bounding_box(
                campaign_map.by_id[neighbour_id].polygon
            )
            assert n_left > right or left > n_right or n_top > bottom or top > n_bottom


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_grid_is_centred_in_the_unit_square(columns: int, rows: int) -> None:
    campaign_map = grid_map(columns, rows)
    points = [point for sector in campaign_map.sectors for point in sector.polygon or ()]
    xs = [x for x, _ in points]
    ys = [y for _, y in points]

    assert min(xs) == pytest.approx(1 - max(xs))
    assert min(ys) == pytest.approx(1 - max(ys))
    long_side = max(max(xs) - min(xs), max(ys) - min(ys))
    assert 1 - long_side == pytest.approx(min(*xs, *ys) * 2)


def test_ten_by_six_has_sixty_sectors_on_a_wide_grid() -> None:
    campaign_map = grid_map(10, 6)

    assert len(campaign_map.sectors) == 60
    assert campaign_map.sector_ids()[-1] == "60"
    assert campaign_map.adjacency["1"] == {"2", "11"}
    assert campaign_map.adjacency["10"] == {"9", "20"}
    assert campaign_map.adjacency["51"] == {"41", "52"}
    assert campaign_map.adjacency["60"] == {"50", "59"}
    assert campaign_map.adjacency["25"] == {"15", "24", "26", "35"}
    assert sum(len(s.neighbours) for s in campaign_map.sectors) == 2 * (9 * 6 + 10 * 5)
    xs = [s.x for s in campaign_map.sectors]
    ys = [s.y for s in campaign_map.sectors]
    assert (min(xs), max(xs)) == pytest.approx((0.05, 0.95))
    assert (min(ys), max(ys)) == pytest.approx((0.25, 0.75))


def test_map_id_can_be_given() -> None:
    assert grid_map(2, 3, map_id="bench-grid").id == "bench-grid"


def test_generation_is_deterministic() -> None:
    assert grid_map(10, 6) == grid_map(10, 6)
    assert grid_map(10, 6).model_dump() == grid_map(10, 6).model_dump()


@pytest.mark.parametrize(("columns", "rows"), [(0, 1), (1, 0), (0, 0), (-3, 4), (4, -1)])
def test_fewer_than_one_column_or_row_is_refused(columns: int, rows: int) -> None:
    with pytest.raises(ValueError, match="at least 1 column and 1 row"):
        grid_map(columns, rows)
