"""The Night Watch's orders and views for the bot (MODULES.md W5, G7): a side's hero moves (one
per hero: a new one replaces the old), its heroes as the side may see them, and the public view
every other place shows.

Every hand the bot shows comes from :func:`side_view` (the side's own, for its private chat);
everything else (status, map captions, history, the Mini App, the GM's state screens) reads
:func:`public` (no hands at all).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import JsonValue

from rules import CampaignState, Game, ModuleOrder, SideOrders
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import WatchSettings, public_view, without_hero_move
from rules.modules.watch.state import load


def is_on(game: Game) -> bool:
    """Whether the campaign plays the Night Watch."""
    return game.module(WATCH) is not None


def settings(game: Game) -> WatchSettings:
    """The watch settings in force."""
    return game.settings_of(WATCH, WatchSettings)


def public(modules: Mapping[str, JsonValue]) -> JsonValue:
    """The watch state without any hand (``None`` without the module)."""
    raw = modules.get(WATCH)
    return None if raw is None else public_view(raw, None)


def side_view(modules: Mapping[str, JsonValue], side: str) -> JsonValue:
    """The watch state with ``side``'s hands only: for that side's private chat alone."""
    raw = modules.get(WATCH)
    return None if raw is None else public_view(raw, side)


def public_modules(modules: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """A state's module data with the watch's hands taken out (the others as they are)."""
    shown = dict(modules)
    if WATCH in shown:
        shown[WATCH] = public_view(shown[WATCH], None)
    return shown


def public_state(state: CampaignState) -> CampaignState:
    """``state`` with no hand in it: for anything outside a side's private chat."""
    if WATCH not in state.modules:
        return state
    return state.model_copy(update={"modules": public_modules(state.modules)})


def _records(value: JsonValue) -> list[dict[str, JsonValue]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def hero_ids(state: CampaignState) -> list[str]:
    """The heroes of a turn-start state, in state order (buttons name them by index)."""
    data = public(state.modules)
    heroes = data.get("heroes") if isinstance(data, dict) else None
    return [str(hero.get("id")) for hero in _records(heroes)]


def hero_names(state: CampaignState) -> dict[str, str]:
    """Hero id -> name in a state (empty without the module)."""
    data = public(state.modules)
    heroes = data.get("heroes") if isinstance(data, dict) else None
    return {str(hero.get("id")): str(hero.get("name")) for hero in _records(heroes)}


def side_heroes(state: CampaignState, side: str) -> list[str]:
    """The heroes of ``side`` in a state, in state order."""
    data = public(state.modules)
    heroes = data.get("heroes") if isinstance(data, dict) else None
    return [str(hero.get("id")) for hero in _records(heroes) if hero.get("side") == side]


def is_hero_move(order: ModuleOrder) -> bool:
    """Whether ``order`` is a hero's move."""
    return order.module == WATCH and order.data.get("order") == "hero_move"


def replacing_move(orders: SideOrders, order: ModuleOrder) -> SideOrders:
    """``orders`` ready for ``order``: a hero move takes the place of that hero's earlier one
    (last write wins); any other order leaves the set as it is."""
    if not is_hero_move(order):
        return orders
    return without_hero_move(orders, str(order.data.get("hero")))


def move_of(orders: SideOrders, hero: str) -> ModuleOrder | None:
    """The move the set gives ``hero``, if any."""
    return next((o for o in orders.extra if is_hero_move(o) and o.data.get("hero") == hero), None)


def as_listed(
    modules: Mapping[str, JsonValue],
    plan: JsonValue,
    played: Mapping[str, Sequence[str]],
) -> dict[str, JsonValue]:
    """A turn start's module data as the turn stands once its battle list is public: heroes in
    the list's positions (after this turn's moves), the NPC marker where the list has it, and
    ``played`` (hero -> cards of its closed duel step) out of the hands. Still secret: read it
    through :func:`public` or :func:`side_view` like any state."""
    raw = modules.get(WATCH)
    if raw is None:
        return dict(modules)
    state = load(raw)
    listed = plan if isinstance(plan, dict) else {}
    positions = listed.get("positions")
    where = positions if isinstance(positions, dict) else {}
    heroes = []
    for hero in state.heroes:
        hand = list(hero.hand)
        for card in played.get(hero.id, ()):
            if card in hand:
                hand.remove(card)
        sector = where.get(hero.id)
        heroes.append(
            hero.model_copy(
                update={
                    "hand": tuple(hand),
                    "sector": sector if isinstance(sector, str) else hero.sector,
                }
            )
        )
    npc = state.npc
    moved_npc = listed.get("npc")
    if npc is not None and isinstance(moved_npc, str):
        npc = npc.model_copy(update={"sector": moved_npc})
    shown = dict(modules)
    shown[WATCH] = state.model_copy(update={"heroes": tuple(heroes), "npc": npc}).as_json()
    return shown
