"""Random planar maps for the campaign player: 4 to 30 sectors, valid geometry, as TOML.

A map is a connected set of cells of a square grid, grown at random from one cell; two cells
side by side are neighbours unless the edge is dropped (a spanning tree is always kept, so the
map stays connected). Each sector's polygon is its cell, shrunk a little: polygons never
overlap, every edge is drawn between cells that touch, so the graph is planar and its drawing
is valid for :func:`rules.maps.parse_map` (and for the renderer). Names come in both
languages, some of several words, as players' maps have them.
"""

from __future__ import annotations

import random

WORDS = (
    ("Hive", "Улей"),
    ("Ash Waste", "Пепельная пустошь"),
    ("Spire", "Шпиль"),
    ("Forge", "Кузня"),
    ("Old Dock", "Старый док"),
    ("Fort", "Форт"),
    ("Swamp", "Болото"),
    ("Ridge", "Хребет"),
    ("Bastion", "Бастион"),
    ("Crater", "Кратер"),
    ("Temple", "Храм"),
    ("Mine", "Шахта"),
    ("North Gate", "Северные ворота"),
    ("Canal", "Канал"),
    ("Ruins", "Руины"),
)


def random_map_toml(sectors: int, seed: int) -> str:
    """A map of ``sectors`` sectors (4-30) drawn from ``seed``, as a TOML document."""
    rng = random.Random(seed)
    size = 2
    while size * size < sectors:
        size += 1
    size += rng.choice((0, 1))
    start = (rng.randrange(size), rng.randrange(size))
    cells = [start]
    taken = {start}
    frontier = _around(start, size)
    while len(cells) < sectors:
        cell = rng.choice(sorted(frontier - taken))
        cells.append(cell)
        taken.add(cell)
        frontier |= _around(cell, size)
    order = {cell: index for index, cell in enumerate(sorted(cells, key=lambda c: (c[1], c[0])))}
    edges = {frozenset((a, b)) for a in cells for b in _around(a, size) if b in taken}
    tree = _spanning_tree(cells, edges, rng)
    kept = {edge for edge in edges if edge in tree or rng.random() < 0.7}
    cell_side = 1 / size
    inset = cell_side * 0.05
    names = rng.sample(WORDS, min(len(WORDS), sectors))
    lines = [
        f'id = "random-{seed}"',
        'name = "Random world"',
        'names = { ru = "Случайный мир" }',
    ]
    for cell in sorted(cells, key=lambda c: order[c]):
        number = order[cell] + 1
        english, russian = names[order[cell]] if order[cell] < len(names) else ("Zone", "Зона")
        neighbours = sorted(
            str(order[other] + 1)
            for edge in kept
            if cell in edge
            for other in edge
            if other != cell
        )
        left, top = cell[0] * cell_side, cell[1] * cell_side
        right, bottom = left + cell_side, top + cell_side
        polygon = [
            [round(left + inset, 4), round(top + inset, 4)],
            [round(right - inset, 4), round(top + inset, 4)],
            [round(right - inset, 4), round(bottom - inset, 4)],
            [round(left + inset, 4), round(bottom - inset, 4)],
        ]
        lines += [
            "",
            "[[sectors]]",
            f'id = "{number}"',
            f'name = "{english} {number}"' if order[cell] >= len(names) else f'name = "{english}"',
            f'names = {{ ru = "{russian}" }}',
            "neighbours = [" + ", ".join(f'"{n}"' for n in neighbours) + "]",
            f"x = {round((left + right) / 2, 4)}",
            f"y = {round((top + bottom) / 2, 4)}",
            f"polygon = {polygon}",
        ]
    return "\n".join(lines) + "\n"


def _around(cell: tuple[int, int], size: int) -> set[tuple[int, int]]:
    x, y = cell
    return {
        (a, b)
        for a, b in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1))
        if 0 <= a < size and 0 <= b < size
    }


def _spanning_tree(
    cells: list[tuple[int, int]],
    edges: set[frozenset[tuple[int, int]]],
    rng: random.Random,
) -> set[frozenset[tuple[int, int]]]:
    """A random spanning tree of the cells' graph (Kruskal over shuffled edges)."""
    parent = {cell: cell for cell in cells}

    def root(cell: tuple[int, int]) -> tuple[int, int]:
        while parent[cell] != cell:
            parent[cell] = parent[parent[cell]]
            cell = parent[cell]
        return cell

    tree: set[frozenset[tuple[int, int]]] = set()
    shuffled = sorted(edges, key=sorted)
    rng.shuffle(shuffled)
    for edge in shuffled:
        a, b = tuple(edge)
        if root(a) != root(b):
            parent[root(a)] = root(b)
            tree.add(edge)
    return tree
