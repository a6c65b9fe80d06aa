"""Resolution of ``watch`` (MODULES.md W6, W7), run as hooks on the turn's working copy.

After the core's arrivals, heroes take the list's positions and the duels are counted: per
hero, wounds += max(0, attacks laid on it - defences laid on it) (powers lowered by the GM's
card modifiers, never below 0); a hero reaching ``wounds_to_kill`` is killed and its hand is
gone; every card laid leaves its player's hand. Before the core's victory step, the heroes of a
side that is out are lost; after it, with ``hero_victory``, the only side with living heroes
wins (when the core named no winner).

``TurnReport.modules["watch"]`` is::

    {"steps": [{"hero", "sector", "plays": [{"card", "target", "power"}]}],  # duel order
     "wounds": {hero: added, ...},   # heroes wounded this turn (added > 0)
     "killed": [hero, ...],          # killed in duels, initiative order
     "lost": [hero, ...],            # living heroes of sides that are out
     "positions": {hero: sector}}    # living heroes in play after the moves
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rules.game import ModuleContractError
from rules.modules.watch.orders import DuelStepData, typed_orders
from rules.modules.watch.plan import duels_of, positions_of
from rules.modules.watch.state import NAME, CardModifier, Hero, initiative_order, load, parse_card
from rules.modules.watch.validate import settings_of
from rules.resolution import TurnWork


def _notes(work: TurnWork) -> dict[str, Any]:
    notes = work.notes.setdefault(
        NAME, {"steps": [], "wounds": {}, "killed": [], "lost": [], "positions": {}}
    )
    if not isinstance(notes, dict):
        raise ModuleContractError("watch: the report data is not an object")
    return notes


def card_power(card: str, modifiers: tuple[CardModifier, ...], hero: str, play: int) -> int:
    """The power ``card`` counts for as ``hero``'s ``play``-th card: printed, less the GM's
    modifier on it, never below 0."""
    lowered = sum(m.lowered_by for m in modifiers if m.hero == hero and m.play == play)
    return max(0, parse_card(card).power - lowered)


def apply_duels(work: TurnWork) -> None:
    """After arrivals: heroes take the list's positions; the duels' wounds, kills and spent
    cards apply."""
    settings = settings_of(work.game)
    turn = work.start.turn
    watch = load(work.modules.get(NAME))
    plan_data = work.plan.modules.get(NAME) if work.plan is not None else None
    positions = positions_of(plan_data)
    steps: dict[str, DuelStepData] = {}
    for orders in work.late.values():
        for typed in typed_orders(orders):
            if isinstance(typed, DuelStepData):
                steps.setdefault(typed.hero, typed)
    modifiers = tuple(m for m in watch.modifiers if m.turn == turn)
    attack: Counter[str] = Counter()
    defence: Counter[str] = Counter()
    spent: dict[str, Counter[str]] = {}
    notes = _notes(work)
    for duel in duels_of(plan_data):
        for hero_id in duel.steps:
            step = steps.get(hero_id)
            plays: list[dict[str, Any]] = []
            for index, play in enumerate(step.plays if step is not None else ()):
                power = card_power(play.card, modifiers, hero_id, index)
                kind = parse_card(play.card).kind
                (attack if kind == "A" else defence)[play.target] += power
                spent.setdefault(hero_id, Counter())[play.card] += 1
                plays.append({"card": play.card, "target": play.target, "power": power})
            notes["steps"].append({"hero": hero_id, "sector": duel.sector, "plays": plays})
    changed: list[Hero] = []
    killed: list[str] = []
    for hero in watch.in_play(turn):
        added = max(0, attack[hero.id] - defence[hero.id])
        hand = list(hero.hand)
        for card, count in spent.get(hero.id, Counter()).items():
            for _ in range(count):
                hand.remove(card)
        wounds = hero.wounds + added
        alive = wounds < settings.wounds_to_kill
        if added:
            notes["wounds"][hero.id] = added
        if not alive:
            killed.append(hero.id)
        changed.append(
            hero.model_copy(
                update={
                    "sector": positions.get(hero.id, hero.sector),
                    "wounds": wounds,
                    "hand": tuple(hand) if alive else (),
                    "alive": alive,
                }
            )
        )
    notes["killed"] = killed
    notes["positions"] = positions
    work.modules[NAME] = watch.replace(*changed).model_copy(update={"modifiers": ()}).as_json()
    work.log.append(_log_line(notes, {hero.id: hero.wounds for hero in changed}))


def _log_line(notes: dict[str, Any], wounds: dict[str, int]) -> str:
    duels = list(dict.fromkeys(step["sector"] for step in notes["steps"]))
    if not duels:
        return "Watch: no duels."
    hurt = [
        f"{hero} +{added} ({wounds[hero]}{', killed' if hero in notes['killed'] else ''})"
        for hero, added in notes["wounds"].items()
    ]
    return f"Watch: duels in {', '.join(duels)}: " + ("; ".join(hurt) or "no wounds") + "."


def lose_heroes_of_sides_out(work: TurnWork) -> None:
    """Before the victory step: the living heroes of a side with no armies left are lost."""
    watch = load(work.modules.get(NAME))
    left = set(work.sides_on_map())
    lost = initiative_order(hero for hero in watch.heroes if hero.alive and hero.side not in left)
    if not lost:
        return
    _notes(work)["lost"] = [hero.id for hero in lost]
    work.modules[NAME] = watch.replace(
        *(hero.model_copy(update={"alive": False, "hand": ()}) for hero in lost)
    ).as_json()
    work.log.append(
        f"6. Watch: heroes of sides that are out leave the game: {', '.join(h.id for h in lost)}."
    )


def hero_victory(work: TurnWork) -> None:
    """After the victory step, with ``hero_victory`` and no winner named: the only side with
    living heroes wins, when heroes of at least two sides were listed (W7)."""
    if not settings_of(work.game).hero_victory or work.winner is not None or work.game_over:
        return
    watch = load(work.modules.get(NAME))
    listed = {hero.side for hero in watch.heroes}
    living = {hero.side for hero in watch.heroes if hero.alive}
    if len(listed) < 2 or len(living) != 1:
        return
    (winner,) = living
    work.winner, work.victory, work.game_over = winner, "watch_heroes", True
    work.log.append(f"6. Watch: {winner} has the only living heroes and wins.")
