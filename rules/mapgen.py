"""Generated maps: a grid of square sectors, for benchmarks, tests and the map renderer.

The generator is deterministic (no randomness, no I/O) and goes through
:func:`rules.maps.parse_map`, so a generated map is checked exactly like a TOML map.
"""

from __future__ import annotations

from typing import Any

from rules.maps import CampaignMap, parse_map

CELL_GAP = 0.1
"""Gap between neighbouring cells, as a share of a cell's side."""


def grid_map(columns: int, rows: int, *, map_id: str | None = None) -> CampaignMap:
    """A ``columns`` x ``rows`` grid map; sectors "1".."N" in row-major order.

    Neighbours are the orthogonal grid neighbours. Cells are squares of side
    ``1 / max(columns, rows)``, the grid is centred in the unit square, and each sector's
    ``polygon`` is its cell shrunk by half of :data:`CELL_GAP` on every side.
    Raises ``ValueError`` if ``columns`` or ``rows`` is below 1.
    """
    if columns < 1 or rows < 1:
        raise ValueError(f"a grid needs at least 1 column and 1 row, got {columns}x{rows}")
    cells_across = max(columns, rows)
    inset = CELL_GAP / 2 / cells_across

    def edge(index: int, count: int) -> float:
        # Cell ``index``'s near edge, in half-cell units over integers so the far edge of the
        # last cell is exactly 1.0 on the long side.
        return ((cells_across - count) + 2 * index) / (2 * cells_across)

    sectors: list[dict[str, Any]] = []
    for row in range(rows):
        for column in range(columns):
            number = row * columns + column + 1
            neighbours = []
            if row > 0:
                neighbours.append(number - columns)
            if column > 0:
                neighbours.append(number - 1)
            if column < columns - 1:
                neighbours.append(number + 1)
            if row < rows - 1:
                neighbours.append(number + columns)
            left, right = edge(column, columns), edge(column + 1, columns)
            top, bottom = edge(row, rows), edge(row + 1, rows)
            sectors.append(
                {
                    "id": str(number),
                    "name": f"Sector {number}",
                    "names": {"ru": f"Сектор {number}"},
                    "neighbours": [str(n) for n in neighbours],
                    "x": (left + right) / 2,
                    "y": (top + bottom) / 2,
                    "polygon": [
                        (left + inset, top + inset),
                        (right - inset, top + inset),
                        (right - inset, bottom - inset),
                        (left + inset, bottom - inset),
                    ],
                }
            )
    return parse_map(
        {
            "id": map_id if map_id is not None else f"grid-{columns}x{rows}",
            "name": f"Grid {columns}x{rows}",
            "names": {"ru": f"Сетка {columns}x{rows}"},
            "sectors": sectors,
        }
    )
