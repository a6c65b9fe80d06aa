"""The watch module's map (issue 19): heroes, the NPC and the heroes' moves drawn from the public
view of the state only, a hero not yet in play or killed before not drawn, one killed in the
turn shown struck through; the night-demo map's hub ringed."""

from __future__ import annotations

from pydantic import JsonValue

from rules.modules import BUILTIN_MODULES
from rules.modules.watch import Hero, Npc, WatchState
from rules.modules.watch.figures import map_figures, plan_moves
from rules.render import HUB_TAG, compute_layout, move_label_boxes, render_map
from rules.svg import map_svg
from tests.render.views import watch_view
from tests.rules.test_watch import watch_game


def _state(*heroes: Hero) -> WatchState:
    return WatchState(heroes=heroes, npc=Npc(name="Егор", sector="roof"), begun=2)


LARISA = Hero(id="larisa", side="day", name="Лариса", initiative=2, sector="metro", wounds=1)


def test_no_hand_reaches_the_picture() -> None:
    view = watch_view()
    raw = view.state.modules["watch"]
    assert isinstance(raw, dict)
    watch = WatchState.model_validate(raw)
    assert any(hero.hand for hero in watch.heroes)
    emptied = watch.model_copy(
        update={"heroes": tuple(hero.model_copy(update={"hand": ()}) for hero in watch.heroes)}
    ).as_json()
    empty_view = view.model_copy(
        update={"state": view.state.model_copy(update={"modules": {"watch": emptied}})}
    )
    figures = map_figures(raw, 3, 4, killed=("andrey",))
    assert figures == map_figures(emptied, 3, 4, killed=("andrey",))
    assert render_map(view) == render_map(empty_view)
    svg = map_svg(view)
    for card in ("D1", "D2", "A3", "A2"):
        assert card not in str(figures)
        assert f">{card}<" not in svg


def test_heroes_in_play_are_drawn_in_initiative_order_with_their_wounds() -> None:
    later = Hero(id="zavulon", side="day", name="Завулон", initiative=1, sector="entrance")
    anton = Hero(id="anton", side="night", name="Антон", initiative=7, sector="cafe", wounds=3)
    waiting = Hero(
        id="gesar", side="night", name="Гесер", initiative=5, sector="cafe", enters_turn=4
    )
    figures = map_figures(_state(anton, LARISA, later, waiting).as_json(), 3, 4)
    assert [(h.id, h.sector, h.wounds, h.initiative) for h in figures.heroes] == [
        ("zavulon", "entrance", 0, 1),
        ("larisa", "metro", 1, 2),
        ("anton", "cafe", 3, 7),
    ]
    assert all(h.wounds_to_kill == 4 and not h.killed for h in figures.heroes)
    assert figures.npc is not None
    assert (figures.npc.name, figures.npc.sector) == ("Егор", "roof")


def test_only_a_hero_killed_in_the_turn_shown_is_drawn_struck() -> None:
    dead = Hero(
        id="andrey",
        side="night",
        name="Андрей",
        initiative=4,
        sector="metro",
        wounds=4,
        alive=False,
    )
    raw = _state(LARISA, dead).as_json()
    struck = map_figures(raw, 3, 4, killed=("andrey",))
    assert [(h.id, h.killed) for h in struck.heroes] == [("larisa", False), ("andrey", True)]
    assert [h.id for h in map_figures(raw, 4, 4).heroes] == ["larisa"]


def test_the_lists_moves_become_arrows_of_the_heroes_shown() -> None:
    plan: JsonValue = {
        "moves": [
            {"hero": "larisa", "from": "hairdresser", "to": "metro"},
            {"hero": "nobody", "from": "cafe", "to": "metro"},
            {"hero": "larisa", "from": "metro", "to": "metro"},
            {"broken": True},
        ],
        "positions": {"larisa": "metro"},
    }
    figures = map_figures(_state(LARISA).as_json(), 1, 4, plan=plan)
    assert [(m.hero, m.source, m.to) for m in figures.hero_moves] == [
        ("larisa", "hairdresser", "metro")
    ]
    assert plan_moves(None) == ()
    assert plan_moves({"moves": "no"}) == ()


def test_the_watch_module_gives_its_figures_through_the_rules_protocol() -> None:
    """The map reads a module's figures through ``RulesModule.map_figures`` (issue 35): watch
    gives its heroes with the game's wounds to kill, the list's moves and the heroes its
    resolution's notes killed; a module without figures gives none."""
    game = watch_game(wounds_to_kill=3)
    dead = Hero(id="andrey", side="night", name="Андрей", initiative=4, sector="metro", alive=False)
    raw = _state(LARISA, dead).as_json()
    plan: JsonValue = {"moves": [{"hero": "larisa", "from": "hairdresser", "to": "metro"}]}
    watch = game.module("watch")
    assert watch is not None
    figures = watch.map_figures(game, raw, 3, plan=plan, notes={"killed": ["andrey"]})
    assert figures == map_figures(raw, 3, 3, plan=plan, killed=("andrey",))
    assert figures is not None
    assert [(h.id, h.killed, h.wounds_to_kill) for h in figures.heroes] == [
        ("larisa", False, 3),
        ("andrey", True, 3),
    ]
    assert [move.hero for move in figures.hero_moves] == ["larisa"]
    assert watch.map_figures(game, raw, 3, notes={"killed": "andrey"}) == map_figures(raw, 3, 3)
    others = [module for module in BUILTIN_MODULES if module.name != "watch"]
    assert others
    assert all(module.map_figures(game, None, 3) is None for module in others)


def test_the_night_demo_map_rings_its_metro_as_the_hub() -> None:
    view = watch_view("ru")
    assert view.map.tagged(HUB_TAG) == ("metro",)
    layout = compute_layout(view, 1)
    names = [shape.sector.display_name("ru") for shape in layout.shapes.values()]
    assert "Метро" in names
    assert '<g class="hub" data-sector="metro">' in map_svg(view)


def test_two_heroes_crossing_keep_their_names_apart() -> None:
    """Антон and Завулон swap the metro and the entrance: their arrows run side by side, and
    the second name goes where it does not cover the first (issue 33)."""
    boxes = move_label_boxes(watch_view("ru"))
    assert len(boxes) >= 2
    for index, (x1, y1, x2, y2) in enumerate(boxes):
        for a1, b1, a2, b2 in boxes[index + 1 :]:
            assert x2 <= a1 or a2 <= x1 or y2 <= b1 or b2 <= y1, boxes
