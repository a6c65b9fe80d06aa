"""Speed and size of the map picture: render time and PNG bytes for planet-5 and a 60-sector map.

Run from the repository root: ``.venv/bin/python bench/render_bench.py [--renders N]``.

Scenarios: the worked example of RULES.md section 4 (planet-5, two sides) in its public,
Friday, private and resolved variants, and a 10x6 grid (``rules.mapgen.grid_map``) with
twelve sides. Each view is built once; then ``render_map`` (drawing and PNG encoding) is timed
``N`` times with ``time.perf_counter`` after one warm-up render that loads the fonts.
Targets (docs/map.md): planet-5 well under 100 ms and under 300 KB.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

# The repository root, so the script also runs where the package is not installed.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules import CampaignState  # noqa: E402
from rules.mapgen import grid_map  # noqa: E402
from rules.render import MapView, SideView, render_map, view_of_document  # noqa: E402

GRID_SIDES = (
    "Orks",
    "Necrons",
    "Tau",
    "Eldar",
    "Chaos",
    "Imperium",
    "Tyranids",
    "Votann",
    "Sisters",
    "Knights",
    "Admech",
    "Genestealers",
)


def worked_example(variant: str, side: str | None = None) -> MapView:
    """The worked example, as ``python -m rules render --variant VARIANT`` draws it."""
    text = (ROOT / "examples" / "worked-example.json").read_text(encoding="utf-8")
    return view_of_document(text, variant, side, "Worked example", "en")


def grid_view() -> MapView:
    """A 10x6 grid with 12 sides, each in three sectors, some sectors shared."""
    armies: dict[str, dict[str, int]] = {}
    for index, name in enumerate(GRID_SIDES):
        placement: dict[str, int] = {}
        for sector, count in (
            ((index * 5) % 60 + 1, 3 + index % 4),
            ((index * 5 + 17) % 60 + 1, 2),
            ((index * 7 + 3) % 60 + 1, 10 - index % 5),
        ):
            placement[str(sector)] = placement.get(str(sector), 0) + count
        armies[name.lower()] = placement
    return MapView(
        map=grid_map(10, 6),
        state=CampaignState(turn=7, armies=armies),
        sides=tuple(
            SideView(id=name.lower(), name=name, colour=index)
            for index, name in enumerate(GRID_SIDES)
        ),
        title="Sixty sectors",
        captured={"orks": ("1",)},
    )


def measure(name: str, view: MapView, renders: int) -> None:
    """Render ``view`` ``renders`` times and print the time and the PNG size."""
    data = render_map(view)
    times: list[float] = []
    for _ in range(renders):
        start = time.perf_counter()
        again = render_map(view)
        times.append((time.perf_counter() - start) * 1000)
        if again != data:
            raise SystemExit(f"{name}: two renders of the same view differ")
    times.sort()
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    print(
        f"{name:<32} mean {statistics.fmean(times):6.1f} ms  p50 {statistics.median(times):6.1f} ms"
        f"  p99 {p99:6.1f} ms  PNG {len(data) / 1024:6.1f} KB"
    )


def main() -> None:
    """Run every scenario and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--renders", type=int, default=50, help="timed renders per scenario")
    args = parser.parse_args()
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
        f"{args.renders} renders per scenario"
    )
    measure("planet-5 worked example", worked_example("public"), args.renders)
    measure("planet-5 Friday", worked_example("friday"), args.renders)
    measure("planet-5 private (red)", worked_example("private", "red"), args.renders)
    measure("planet-5 resolved (Monday)", worked_example("resolved"), args.renders)
    measure("grid 10x6, 60 sectors, 12 sides", grid_view(), args.renders)


if __name__ == "__main__":
    main()
