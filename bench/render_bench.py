"""Speed and size of the map picture, the old renderer beside today's, in one run.

Run from the repository root: ``.venv/bin/python bench/render_bench.py [--renders N]``.

Scenarios: the worked example of RULES.md section 4 (planet-5, two sides) in its public,
Friday, private and Monday (resolved) variants, its final map (the same Monday with a winner),
and a 10x6 grid (``rules.mapgen.grid_map``) with twelve sides and a week of moves and battles.
The siege scenario is the worked example with a fortification, the wind rose and each side's VP
(issue 17): its two lines are today's renderer without and with the rose and VP. The watch
scenario (issue 19) is the night-demo map on a Monday: four heroes (one killed that turn,
struck), Egor, three hero moves and the hub; its lines are today's renderer without and with
the figures, and the Mini App's SVG of the same view.
Each view is built once; then each renderer draws it (drawing and PNG encoding) ``N`` times,
the two renderers taking turns so that the machine's load falls on both alike, timed with
``time.process_time`` (CPU of this one thread: one core) after one warm-up draw. "cold" is
today's first draw of a map (its static layer not kept yet). The old renderer is
``rules/render.py`` before issue 20 (``bench/old_drawing.py``).
Targets (issue 20): at most 8 ms a planet-5 map and 25 ms for 60 sectors on one core.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# The repository root and bench/, so the script also runs where the package is not installed.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from old_drawing import OLD_COMMIT, draw_old  # noqa: E402
from pydantic import JsonValue  # noqa: E402

from rules import CampaignState, builtin_map  # noqa: E402
from rules.mapgen import grid_map  # noqa: E402
from rules.modules.watch import Hero, Npc, WatchState  # noqa: E402
from rules.modules.watch.figures import map_figures  # noqa: E402
from rules.render import (  # noqa: E402
    BattleMark,
    DialView,
    MapView,
    SectorMark,
    SideView,
    WeekView,
    render_map,
    view_of_document,
)
from rules.render.layout import _cached_layout  # noqa: E402
from rules.resolution import Arrival  # noqa: E402
from rules.ruleset import Outcome  # noqa: E402
from rules.svg import map_svg  # noqa: E402

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


def final_map() -> MapView:
    """The worked example's Monday as if Red had won the campaign."""
    view = worked_example("resolved")
    assert view.week is not None
    return view.model_copy(
        update={"week": view.week.model_copy(update={"game_over": True, "winner": "red"})}
    )


def grid_view() -> MapView:
    """A 10x6 grid with 12 sides, each in three sectors, some sectors shared, after a week of
    twelve moves and six battles."""
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
    ids = [name.lower() for name in GRID_SIDES]
    moves = tuple(
        Arrival(side=side, source=str(n), to=str(n + 1), count=2)
        for side, n in zip(ids, range(2, 60, 5), strict=False)
        if n % 10 != 0
    )
    battles = tuple(
        BattleMark(
            id=i + 1,
            sector=str(sector),
            attacker=ids[i],
            defender=ids[i + 1],
            outcome=Outcome.SOLID,
            winner=ids[i],
            losses={ids[i + 1]: 1},
        )
        for i, sector in enumerate((11, 18, 21, 46, 23, 36))
    )
    week = WeekView(turn=6, moves=moves, battles=battles, new={"orks": ("1",)})
    return MapView(
        map=grid_map(10, 6),
        state=CampaignState(turn=7, armies=armies),
        sides=tuple(
            SideView(id=name.lower(), name=name, colour=index)
            for index, name in enumerate(GRID_SIDES)
        ),
        title="Sixty sectors",
        captured={"orks": ("1",)},
        sectors_to_win=3,
        week=week,
    )


COMPASS = ("North", "North-East", "East", "South-East", "South", "South-West", "West", "North-West")


def siege_map() -> MapView:
    """The worked example with a fortification, the siege's wind rose and each side's VP."""
    return worked_example("public").model_copy(
        update={
            "marks": (SectorMark(sector="2", text="F1·10", meaning="fortification F1"),),
            "dial": DialView(title="Weather: North-East", states=COMPASS, current=1),
            "side_notes": {"red": "3 VP", "blue": "0 VP"},
        }
    )


def measure_rose(renders: int) -> None:
    """The siege map drawn without and with the rose and VP, in turns (today's renderer)."""
    rose = siege_map()
    plain = rose.model_copy(update={"dial": None, "side_notes": {}})
    _cached_layout.cache_clear()
    cold = timed(render_map, rose)
    without: list[float] = []
    with_rose: list[float] = []
    for _ in range(renders):
        without.append(timed(render_map, plain))
        with_rose.append(timed(render_map, rose))
    print("planet-5 siege: fortification, wind rose and VP")
    print(f"  without the rose  {summary(without)}  PNG {len(render_map(plain)) / 1024:6.1f} KB")
    print(
        f"  with the rose     {summary(with_rose)}  PNG {len(render_map(rose)) / 1024:6.1f} KB  "
        f"(cold {cold:.1f} ms)"
    )


def watch_map() -> MapView:
    """The night-demo map on the Monday after a duel in the metro: four heroes (Andrey killed
    this turn), Egor on the roof, three hero moves, the metro ringed as the hub."""
    heroes = (
        Hero(id="larisa", side="day", name="Larisa", initiative=2, sector="metro", wounds=1),
        Hero(id="andrey", side="night", name="Andrey", initiative=4, sector="metro", alive=False),
        Hero(id="anton", side="night", name="Anton Gorodetsky", initiative=7, sector="entrance"),
        Hero(id="zavulon", side="day", name="Zavulon", initiative=9, sector="metro", hand=("A2",)),
    )
    watch = WatchState(heroes=heroes, npc=Npc(name="Egor", sector="roof"), begun=2).as_json()
    plan: JsonValue = {
        "moves": [
            {"hero": "andrey", "from": "cafe", "to": "metro"},
            {"hero": "anton", "from": "metro", "to": "entrance"},
            {"hero": "zavulon", "from": "entrance", "to": "metro"},
        ]
    }
    figures = map_figures(watch, 3, 4, plan=plan, killed=("andrey",))
    return MapView(
        map=builtin_map("night-demo"),
        state=CampaignState(
            turn=3,
            armies={"day": {"hairdresser": 3, "metro": 1}, "night": {"cafe": 2, "entrance": 2}},
            modules={"watch": watch},
        ),
        sides=(SideView(id="day", name="Day Watch"), SideView(id="night", name="Night Watch")),
        title="Night Watch",
        captured={"day": ("hairdresser", "metro"), "night": ("cafe", "entrance")},
        **figures.view_fields(),
    )


def measure_watch(renders: int) -> None:
    """The watch map drawn without and with its figures, in turns, and its Mini App SVG."""
    watch = watch_map()
    plain = watch.model_copy(update={"heroes": (), "hero_moves": (), "npc": None})
    _cached_layout.cache_clear()
    cold = timed(render_map, watch)
    without: list[float] = []
    with_figures: list[float] = []
    svg: list[float] = []
    for _ in range(renders):
        without.append(timed(render_map, plain))
        with_figures.append(timed(render_map, watch))
        svg.append(timed(lambda view: map_svg(view).encode(), watch))
    print("night-demo watch: 4 heroes (1 killed), Egor, 3 hero moves, the hub")
    print(f"  without figures   {summary(without)}  PNG {len(render_map(plain)) / 1024:6.1f} KB")
    print(
        f"  with figures      {summary(with_figures)}  PNG "
        f"{len(render_map(watch)) / 1024:6.1f} KB  (cold {cold:.1f} ms)"
    )
    print(f"  Mini App SVG      {summary(svg)}  SVG {len(map_svg(watch)) / 1024:6.1f} KB")


def timed(draw: Callable[[MapView], bytes], view: MapView) -> float:
    """Milliseconds of this thread's CPU to draw ``view`` once."""
    start = time.process_time()
    draw(view)
    return (time.process_time() - start) * 1000


def summary(times: list[float]) -> str:
    times = sorted(times)
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return (
        f"min {times[0]:5.1f}  p50 {statistics.median(times):5.1f}  mean "
        f"{statistics.fmean(times):5.1f}  p99 {p99:5.1f} ms"
    )


def measure(name: str, view: MapView, renders: int) -> None:
    """Draw ``view`` ``renders`` times with each renderer, in turns; print one line each."""
    _cached_layout.cache_clear()
    cold = timed(render_map, view)
    new_png, old_png = render_map(view), draw_old(view)
    if render_map(view) != new_png:
        raise SystemExit(f"{name}: two renders of the same view differ")
    new: list[float] = []
    old: list[float] = []
    for _ in range(renders):
        old.append(timed(draw_old, view))
        new.append(timed(render_map, view))
    print(f"{name}")
    print(f"  old  {summary(old)}  PNG {len(old_png) / 1024:6.1f} KB")
    print(
        f"  new  {summary(new)}  PNG {len(new_png) / 1024:6.1f} KB  (cold {cold:.1f} ms)  "
        f"x{statistics.median(old) / statistics.median(new):.1f} faster"
    )


def main() -> None:
    """Run every scenario and print two lines each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--renders", type=int, default=50, help="timed renders per scenario")
    args = parser.parse_args()
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load average {load}; {args.renders} renders per scenario; old = {OLD_COMMIT}"
    )
    measure("planet-5 worked example", worked_example("public"), args.renders)
    measure("planet-5 Friday", worked_example("friday"), args.renders)
    measure("planet-5 private (red)", worked_example("private", "red"), args.renders)
    measure("planet-5 Monday (resolved)", worked_example("resolved"), args.renders)
    measure("planet-5 final map", final_map(), args.renders)
    measure("grid 10x6, 60 sectors, 12 sides, Monday", grid_view(), args.renders)
    measure_rose(args.renders)
    measure_watch(args.renders)
    print(f"load average at the end {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
