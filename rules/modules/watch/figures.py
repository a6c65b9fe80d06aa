"""What the map shows of ``watch`` (MODULES.md W1, W6): the heroes in play where they stand, with
initiative and wounds, the NPC marker and the heroes' moves, as :mod:`rules.render`'s figures
(:class:`~rules.render.MapFigures`, drawn by :mod:`rules.render.figures`). The watch module
gives them through :meth:`~rules.game.RulesModule.map_figures`.

Drawn only from :func:`~rules.modules.watch.state.public_view` with no side: the map is
public, so no hand ever reaches the picture. A hero not yet in play is not drawn, nor one killed
before; one killed in the turn the picture shows (``killed``) is drawn struck through.
"""

from __future__ import annotations

from collections.abc import Collection

from pydantic import JsonValue

from rules.modules.watch.state import initiative_order, load, public_view
from rules.render import HeroMark, HeroMove, MapFigures, NpcMark


def plan_moves(plan: JsonValue) -> tuple[tuple[str, str, str], ...]:
    """The accepted hero moves of a list's watch data (``BattlePlan.modules["watch"]``) as
    (hero, from, to), in initiative order; none for anything else."""
    moves = plan.get("moves") if isinstance(plan, dict) else None
    found: list[tuple[str, str, str]] = []
    for move in moves if isinstance(moves, list) else ():
        if isinstance(move, dict):
            hero, source, to = move.get("hero"), move.get("from"), move.get("to")
            if isinstance(hero, str) and isinstance(source, str) and isinstance(to, str):
                found.append((hero, source, to))
    return tuple(found)


def killed_in(notes: JsonValue) -> tuple[str, ...]:
    """The heroes a resolution's watch notes (``TurnReport.modules["watch"]``) say were killed
    that turn; none for anything else."""
    found = notes.get("killed") if isinstance(notes, dict) else None
    return tuple(hero for hero in found if isinstance(hero, str)) if isinstance(found, list) else ()


def map_figures(
    data: JsonValue,
    turn: int,
    wounds_to_kill: int,
    *,
    plan: JsonValue = None,
    killed: Collection[str] = (),
) -> MapFigures:
    """The figures of the stored watch state ``data`` at the start of ``turn``: the heroes in
    play, those in ``killed`` (killed in the turn shown) struck through, the NPC, and the
    moves of ``plan`` (a list's watch data: the moves of the turn shown) as arrows."""
    watch = load(public_view(data, None))
    heroes = tuple(
        HeroMark(
            id=hero.id,
            name=hero.name,
            side=hero.side,
            sector=hero.sector,
            initiative=hero.initiative,
            wounds=hero.wounds,
            wounds_to_kill=wounds_to_kill,
            killed=not hero.alive,
        )
        for hero in initiative_order(watch.heroes)
        if hero.in_play(turn) or (not hero.alive and hero.id in killed)
    )
    shown = {hero.id for hero in heroes}
    moves = tuple(
        HeroMove(hero=hero, source=source, to=to)
        for hero, source, to in plan_moves(plan)
        if hero in shown and source != to
    )
    npc = NpcMark(name=watch.npc.name, sector=watch.npc.sector) if watch.npc else None
    return MapFigures(heroes, moves, npc)
