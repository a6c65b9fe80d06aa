"""Map views the render tests and the benchmark draw: the worked example, a custom map, a
campaign played through ``resolve_turn`` and the 60-sector grid."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import JsonValue

from rules import (
    BattleResult,
    CampaignState,
    Game,
    Outcome,
    SideOrders,
    builtin_map,
    deployed_state,
    parse_map_toml,
    plan_battles,
    resolve_turn,
)
from rules.mapgen import grid_map
from rules.modules.watch import Hero, Npc, WatchState
from rules.modules.watch.figures import map_figures
from rules.orders import Attack, Move
from rules.render import (
    HUB_TAG,
    RUSSIAN_LABELS,
    DialView,
    HeroMark,
    HeroMove,
    MapView,
    NpcMark,
    PrivateOrders,
    SectorMark,
    SideView,
    view_of_document,
    week_of,
)

WORKED_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "worked-example.json"


def worked_example(variant: str, side: str | None = None, language: str = "en") -> MapView:
    """The worked example of RULES.md section 4, drawn as ``python -m rules render`` does."""
    title = "Кампания на Планете" if language == "ru" else "Worked example"
    text = WORKED_EXAMPLE.read_text(encoding="utf-8")
    return view_of_document(text, variant, side, title, language)


CUSTOM_MAP = """
id = "hive-world"
name = "Hive World"
names = { ru = "Мир-улей" }

[[sectors]]
id = "hive"
name = "Hive Primus"
names = { ru = "Улей Примус" }
neighbours = ["north", "east", "south", "west", "orbit"]
x = 0.5
y = 0.5

[[sectors]]
id = "north"
name = "Ash Wastes"
neighbours = ["hive", "east", "west"]
x = 0.5
y = 0.14
polygon = [[0.2, 0.02], [0.8, 0.02], [0.62, 0.3], [0.38, 0.3]]

[[sectors]]
id = "east"
name = "Spire Docks"
neighbours = ["hive", "north", "south"]
x = 0.86
y = 0.5
polygon = [[0.98, 0.2], [0.98, 0.8], [0.7, 0.62], [0.7, 0.38]]

[[sectors]]
id = "south"
name = "Underhive"
neighbours = ["hive", "east", "west"]
x = 0.5
y = 0.86
polygon = [[0.2, 0.98], [0.38, 0.7], [0.62, 0.7], [0.8, 0.98]]

[[sectors]]
id = "west"
name = "Promethium Refinery"
neighbours = ["hive", "north", "south"]
x = 0.14
y = 0.5
polygon = [[0.02, 0.2], [0.3, 0.38], [0.3, 0.62], [0.02, 0.8]]

[[sectors]]
id = "orbit"
name = "Orbital Station"
neighbours = ["hive"]
x = 0.88
y = 0.12
"""


def custom_map_view() -> MapView:
    """A GM's own map: polygons of its own and sectors drawn as circles, three sides."""
    campaign_map = parse_map_toml(CUSTOM_MAP)
    state = CampaignState(
        turn=2,
        armies={
            "tyranids": {"hive": 4, "north": 6, "orbit": 1},
            "inquisition": {"hive": 2, "west": 3},
            "mechanicus": {"hive": 1, "east": 5, "south": 2},
        },
    )
    sides = (
        SideView(id="tyranids", name="Hive Fleet Leviathan", colour=6),
        SideView(id="inquisition", name="Ордо Еретикус", colour=1),
        SideView(id="mechanicus", name="Mechanicus", colour="#8B4513", tag="AM"),
    )
    return MapView(
        map=campaign_map,
        state=state,
        sides=sides,
        title="Hive War",
        captured={"tyranids": ("north",), "inquisition": (), "mechanicus": ("east",)},
    )


PLANET_SIDES = ("red", "blue", "green")


def _orders(game: Game, state: CampaignState) -> dict[str, SideOrders]:
    """A fixed policy: attack the first opponent where there is one, else move on."""
    orders: dict[str, SideOrders] = {}
    for side in state.sides():
        moves: list[Move] = []
        attacks: list[Attack] = []
        for sector, count in state.armies[side].items():
            opponents = [s for s in state.occupants(sector) if s != side]
            if opponents:
                attacks.append(Attack(sector=sector, target=opponents[0]))
            elif count >= 2:
                neighbours = game.map.by_id[sector].neighbours
                to = neighbours[state.turn % len(neighbours)]
                moves.append(Move(source=sector, to=to, count=count - 1))
        smallest = min(state.armies[side], key=lambda s: (state.armies[side][s], s))
        orders[side] = SideOrders(moves=tuple(moves), attacks=tuple(attacks), reinforce=smallest)
    return orders


def campaign_views(turns: int = 4) -> Iterator[tuple[str, MapView]]:
    """Every map of a planet-5 campaign of ``turns`` turns played through ``resolve_turn``:
    deployment, then each turn's Friday map, private maps and Monday map."""
    game = Game.create(builtin_map("planet-5"))
    state = deployed_state(
        game,
        {
            "red": {"1": 4, "2": 3, "4": 3},
            "blue": {"1": 3, "3": 5, "5": 2},
            "green": {"2": 2, "3": 2, "5": 6},
        },
    )
    sides = (
        SideView(id="red", name="Red", colour=5),
        SideView(id="blue", name="Blue", colour=4),
        SideView(id="green", name="Green", colour=2),
    )
    base = {"map": game.map, "sides": sides, "title": "Four turns"}
    yield "deployment", MapView(state=state, **base)
    outcomes = list(Outcome)
    held: dict[str, tuple[str, ...]] = {}
    for turn in range(turns):
        orders = _orders(game, state)
        plan = plan_battles(game, state, orders)
        yield f"turn {state.turn} friday", MapView(state=state, battles=plan.battles, **base)
        for side, accepted in plan.accepted.items():
            private = PrivateOrders(side=side, orders=accepted)
            yield f"turn {state.turn} private {side}", MapView(state=state, private=private, **base)
        results = [
            BattleResult(
                battle=battle.id,
                outcome=outcomes[(battle.id + turn) % len(outcomes)],
                winner=battle.attacker
                if outcomes[(battle.id + turn) % len(outcomes)].has_winner
                else None,
            )
            for battle in plan.battles
        ]
        resolution = resolve_turn(game, state, orders, results)
        state = resolution.state
        week = week_of(resolution.report, game.ruleset.losses, held)
        held = dict(resolution.report.captured)
        monday = MapView(state=state, captured=held, week=week, sectors_to_win=3, **base)
        yield f"turn {state.turn} monday", monday
        if resolution.report.game_over:
            return


GRID_SIDE_NAMES = (
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


def grid_view() -> MapView:
    """The 60-sector 10x6 grid with 12 sides, three sectors each, some shared."""
    armies: dict[str, dict[str, int]] = {}
    for index, name in enumerate(GRID_SIDE_NAMES):
        placement: dict[str, int] = {}
        for sector, count in (
            ((index * 5) % 60 + 1, 3 + index % 4),
            ((index * 5 + 17) % 60 + 1, 2),
            ((index * 7 + 3) % 60 + 1, 10 - index % 5),
        ):
            placement[str(sector)] = placement.get(str(sector), 0) + count
        armies[name.lower()] = placement
    sides = tuple(
        SideView(id=name.lower(), name=name, colour=index)
        for index, name in enumerate(GRID_SIDE_NAMES)
    )
    return MapView(
        map=grid_map(10, 6),
        state=CampaignState(turn=7, armies=armies),
        sides=sides,
        title="Sixty sectors",
        captured={"orks": ("1",)},
    )


def russian_custom_view() -> MapView:
    """The custom map in Russian."""
    return custom_map_view().model_copy(update={"language": "ru", "labels": RUSSIAN_LABELS})


COMPASS = {
    "en": (
        "North",
        "North-East",
        "East",
        "South-East",
        "South",
        "South-West",
        "West",
        "North-West",
    ),
    "ru": (
        "Север",
        "Северо-восток",
        "Восток",
        "Юго-восток",
        "Юг",
        "Юго-запад",
        "Запад",
        "Северо-запад",
    ),
}


def siege_view(language: str = "en") -> MapView:
    """The worked example with a siege's marks, its wind rose (weather 1 in force) and VP, as
    the bot draws them (the words as its catalogs give them)."""
    view = worked_example("public", language=language)
    states = COMPASS[language]
    words = {
        "en": ("Weather: {name}", "{n} VP", "fortification «F1», strength 10"),
        "ru": ("Погода: {name}", "{n} ПО", "укрепление «F1», прочность 10"),
    }[language]
    return view.model_copy(
        update={
            "marks": (SectorMark(sector="2", text="F1·10", meaning=words[2]),),
            "dial": DialView(title=words[0].format(name=states[1]), states=states, current=1),
            "side_notes": {"red": words[1].format(n=3), "blue": words[1].format(n=0)},
        }
    )


def hub_view() -> MapView:
    """The custom map with its hive tagged as a hub."""
    view = custom_map_view()
    sectors = tuple(
        sector.model_copy(update={"tags": (HUB_TAG,)}) if sector.id == "hive" else sector
        for sector in view.map.sectors
    )
    return view.model_copy(update={"map": view.map.model_copy(update={"sectors": sectors})})


def figures_view(**changes: object) -> MapView:
    """The hub view with two heroes, a hero's move and the NPC; ``changes`` replace fields."""
    heroes = (
        HeroMark(
            id="gaunt",
            name="Ibram Gaunt",
            side="inquisition",
            sector="north",
            initiative=3,
            wounds=1,
            wounds_to_kill=4,
        ),
        HeroMark(
            id="swarmlord",
            name="Swarmlord",
            side="tyranids",
            sector="south",
            initiative=7,
            wounds=0,
            wounds_to_kill=4,
        ),
    )
    view = hub_view().model_copy(
        update={
            "heroes": heroes,
            "hero_moves": (HeroMove(hero="swarmlord", source="hive", to="south"),),
            "npc": NpcMark(name="Egor", sector="orbit"),
        }
    )
    return MapView.model_validate({**view.model_dump(), **changes})


WATCH_WORDS = {
    "en": (
        "Night Watch",
        "Day Watch",
        "Night Watch",
        "Larisa",
        "Andrey",
        "Anton Gorodetsky",
        "Zavulon",
        "Egor",
    ),
    "ru": (
        "Ночной Дозор",
        "Дневной Дозор",
        "Ночной Дозор",
        "Лариса",
        "Андрей",
        "Антон Городецкий",
        "Завулон",
        "Егор",
    ),
}


def watch_view(language: str = "en") -> MapView:
    """The night-demo map on the Monday after MODULES W9's duel in the metro (turn 3 starts):
    Larisa wounded once, Andrey killed there this turn (struck), Zavulon unhurt, Anton at the
    entrance, Egor on the roof; the turn's hero moves as arrows; every hero holds cards, which
    the picture never shows (it is drawn through ``public_view``)."""
    words = WATCH_WORDS[language]
    heroes = (
        Hero(
            id="larisa",
            side="day",
            name=words[3],
            initiative=2,
            sector="metro",
            wounds=1,
            hand=("D1", "D2"),
        ),
        Hero(
            id="andrey",
            side="night",
            name=words[4],
            initiative=4,
            sector="metro",
            wounds=4,
            alive=False,
        ),
        Hero(
            id="anton",
            side="night",
            name=words[5],
            initiative=7,
            sector="entrance",
            hand=("A3", "D2", "D3"),
        ),
        Hero(id="zavulon", side="day", name=words[6], initiative=9, sector="metro", hand=("A2",)),
    )
    watch = WatchState(heroes=heroes, npc=Npc(name=words[7], sector="roof"), begun=2)
    state = CampaignState(
        turn=3,
        armies={"day": {"hairdresser": 3, "metro": 1}, "night": {"cafe": 2, "entrance": 2}},
        modules={"watch": watch.as_json()},
    )
    plan: JsonValue = {
        "moves": [
            {"hero": "andrey", "from": "cafe", "to": "metro"},
            {"hero": "anton", "from": "metro", "to": "entrance"},
            {"hero": "zavulon", "from": "entrance", "to": "metro"},
        ]
    }
    figures = map_figures(state.modules["watch"], 3, 4, plan=plan, killed=("andrey",))
    return MapView(
        map=builtin_map("night-demo"),
        state=state,
        sides=(
            SideView(id="day", name=words[1], colour=0),
            SideView(id="night", name=words[2], colour=4),
        ),
        title=words[0],
        language=language,
        labels=RUSSIAN_LABELS if language == "ru" else MapView.model_fields["labels"].default,
        captured={"day": ("hairdresser", "metro"), "night": ("cafe", "entrance")},
        **figures.view_fields(),
    )
