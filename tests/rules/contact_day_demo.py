"""The map of MODULES.md C11 (``day-demo``) and Example A's starting state, for contact's tests."""

from __future__ import annotations

from typing import Any

from rules import CampaignMap, CampaignState, Game, Ruleset
from rules.maps import parse_map
from rules.modules import BUILTIN_MODULES

SIDES = ("bikers", "party", "bees")

DAY_DEMO: dict[str, Any] = {
    "id": "day-demo",
    "name": "Day demo",
    "sectors": [
        {"id": "bb", "name": "Bikers' base", "neighbours": ["ph", "ps"], "x": 0.1, "y": 0.5},
        {"id": "ph", "name": "Pharmacy", "neighbours": ["bb", "hb", "pb"], "x": 0.4, "y": 0.3},
        {"id": "ps", "name": "Police station", "neighbours": ["bb", "hb"], "x": 0.4, "y": 0.7},
        {"id": "hb", "name": "Hive", "neighbours": ["ph", "ps", "pb"], "x": 0.7, "y": 0.5},
        {"id": "pb", "name": "Party base", "neighbours": ["ph", "hb"], "x": 0.9, "y": 0.2},
    ],
    "features": [
        {"id": "bb-barricade", "kind": "defences", "sector": "bb", "owner": "bikers", "level": 1},
        {"id": "hb-barricade", "kind": "defences", "sector": "hb", "owner": "bees", "level": 1},
        {"id": "pb-barricade", "kind": "defences", "sector": "pb", "owner": "party", "level": 1},
        {"id": "ps-blockpost", "kind": "defences", "sector": "ps", "level": 2},
    ],
}


def day_demo() -> CampaignMap:
    """The ``day-demo`` map."""
    return parse_map(DAY_DEMO)


def contact_game(**settings: Any) -> Game:
    """A game on ``day-demo`` with ``contact`` enabled (``settings``: its overrides)."""
    ruleset = Ruleset(
        modules=("contact",), module_settings={"contact": settings} if settings else {}
    )
    return Game.create(day_demo(), ruleset, BUILTIN_MODULES)


def example_a_state(game: Game) -> CampaignState:
    """Turn 4 of Example A: bikers {bb:5}, party {pb:5}, bees {hb:4}, no exhaustion."""
    module = game.module("contact")
    assert module is not None
    return CampaignState(
        turn=4,
        armies={"bikers": {"bb": 5}, "party": {"pb": 5}, "bees": {"hb": 4}},
        modules={"contact": module.initial_state(game)},
    )
