"""The battle list's part of ``watch`` (MODULES.md W5, W6): hero moves, positions, duels.

``BattlePlan.modules["watch"]`` is::

    {"moves": [{"hero", "from", "to"}, ...],          # accepted moves, initiative order
     "positions": {hero: sector, ...},                # living heroes in play, after the moves
     "npc": sector | None,
     "duels": [{"sector": s, "steps": [hero, ...]}]}  # map order; steps in initiative order

Duels take no battle numbers. :func:`duels_of` and :func:`duel_at` read that data back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import JsonValue

from rules.battles import PlanWork
from rules.game import Game
from rules.modules.watch.orders import HeroMoveData, typed_orders
from rules.modules.watch.state import NAME, Hero, WatchState, load
from rules.orders import SideOrders
from rules.state import SideId


@dataclass(frozen=True)
class Duel:
    """A duel of the list: its location and its heroes, one step each, in initiative order."""

    sector: str
    steps: tuple[str, ...]


def duels_of(plan_modules: JsonValue) -> tuple[Duel, ...]:
    """The duels in a list's watch data (``BattlePlan.modules["watch"]``, or the whole
    ``BattlePlan.modules``); none if there is no watch data."""
    data = plan_modules
    if isinstance(data, dict) and NAME in data and "duels" not in data:
        data = data[NAME]
    if not isinstance(data, dict):
        return ()
    found = data.get("duels")
    if not isinstance(found, list):
        return ()
    duels: list[Duel] = []
    for item in found:
        if not isinstance(item, dict):
            continue
        sector, steps = item.get("sector"), item.get("steps")
        if isinstance(sector, str) and isinstance(steps, list):
            duels.append(Duel(sector=sector, steps=tuple(str(hero) for hero in steps)))
    return tuple(duels)


def positions_of(plan_modules: JsonValue) -> dict[str, str]:
    """Where the list puts each living hero in play (``positions``), by hero id."""
    data = plan_modules
    if isinstance(data, dict) and NAME in data and "positions" not in data:
        data = data[NAME]
    found = data.get("positions") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        return {}
    return {str(hero): str(sector) for hero, sector in found.items()}


def duel_at(plan_modules: JsonValue, hero_id: str) -> Duel | None:
    """The duel ``hero_id`` fights in, if any."""
    return next((duel for duel in duels_of(plan_modules) if hero_id in duel.steps), None)


def moves_of(watch: WatchState, turn: int, accepted: dict[SideId, SideOrders]) -> dict[str, str]:
    """Each moving hero's destination: the last accepted move of each living hero in play."""
    playing = {hero.id: hero for hero in watch.in_play(turn)}
    moves: dict[str, str] = {}
    for side, orders in accepted.items():
        for typed in typed_orders(orders.extra):
            if not isinstance(typed, HeroMoveData):
                continue
            hero = playing.get(typed.hero)
            if hero is not None and hero.side == side:
                moves[hero.id] = typed.to
    return moves


def positions_after(heroes: tuple[Hero, ...], moves: dict[str, str]) -> dict[str, str]:
    """Where ``heroes`` stand once ``moves`` are made."""
    return {hero.id: moves.get(hero.id, hero.sector) for hero in heroes}


def find_duels(
    game: Game, heroes: tuple[Hero, ...], positions: Mapping[str, JsonValue]
) -> list[Duel]:
    """Duels where living heroes of at least two sides stand (W6), in map order."""
    duels: list[Duel] = []
    for sector in game.map.sector_ids():
        here = [hero for hero in heroes if positions[hero.id] == sector]
        if len({hero.side for hero in here}) >= 2:
            duels.append(Duel(sector=sector, steps=tuple(hero.id for hero in here)))
    return duels


def plan_data(game: Game, watch: WatchState, turn: int, moves: dict[str, str]) -> JsonValue:
    """The list's watch data for ``moves`` (see the module's docstring)."""
    heroes = watch.in_play(turn)
    positions: dict[str, JsonValue] = dict(positions_after(heroes, moves))
    return {
        "moves": [
            {"hero": hero.id, "from": hero.sector, "to": moves[hero.id]}
            for hero in heroes
            if hero.id in moves
        ],
        "positions": positions,
        "npc": None if watch.npc is None else watch.npc.sector,
        "duels": [
            {"sector": duel.sector, "steps": list(duel.steps)}
            for duel in find_duels(game, heroes, positions)
        ],
    }


def plan(work: PlanWork) -> None:
    """Add the watch data to the list (no battles, no dice)."""
    watch = load(work.state.modules.get(NAME))
    moves = moves_of(watch, work.state.turn, work.accepted)
    work.modules[NAME] = plan_data(work.game, watch, work.state.turn, moves)
