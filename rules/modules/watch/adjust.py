"""GM adjustments of ``watch`` (MODULES.md W1, W7), each an audited change of the state.

* :func:`move_npc`: the NPC marker (Egor) to an adjacent location, before the orders window
  (W1: one location a turn, by the heroes' rule; unmoved, he stays). Adjacency is measured
  from where he stood at the turn's start, so a second move of a turn replaces the first.
* :func:`add_hero`: a hero joins a running campaign (the settings stay locked); it enters at
  the start of a turn not begun yet (:func:`earliest_entry`), so it is dealt with the others.
* :func:`adjust_card`: the seed's "-1" tokens: a card laid this turn counts ``lowered_by``
  less (never below 0), until the results deadline, before wounds are counted. The GM sets
  the total (0 takes the tokens off).

Each takes and returns the whole :class:`rules.CampaignState` (the bot stores it as the turn's
start state) and raises :class:`WatchAdjustmentError` with a code and its details when the
change is refused; nothing is changed then.

The bot keeps each change as a :class:`WatchChange` with the turn's other adjustments;
:func:`apply_change` applies a kept one again when a correction makes the turn's start anew.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.game import Game
from rules.maps import SectorId
from rules.modules.watch.orders import DuelStepData, typed_orders
from rules.modules.watch.settings import MAX_HEROES, HeroSpec
from rules.modules.watch.state import NAME, CardModifier, Hero, Npc, WatchState, load
from rules.orders import ModuleOrder
from rules.state import CampaignState, SideId

MAX_LOWERED = 99


class WatchAdjustCode(StrEnum):
    """Why a GM adjustment is refused (``WatchAdjustmentError.params`` named per member)."""

    NO_NPC = "no_npc"
    UNKNOWN_SECTOR = "unknown_sector"  # sector
    NPC_MOVE_NOT_ADJACENT = "npc_move_not_adjacent"  # sector, to
    HERO_ID_TAKEN = "hero_id_taken"  # hero
    TOO_MANY_HEROES = "too_many_heroes"  # max (the dead count: they keep their ids)
    SIDE_NOT_IN_PLAY = "side_not_in_play"  # side
    TURN_ALREADY_BEGUN = "turn_already_begun"  # enters_turn, earliest
    UNKNOWN_HERO = "unknown_hero"  # hero
    NO_SUCH_PLAY = "no_such_play"  # hero, play (from 1, as shown)
    LOWERED_OUT_OF_RANGE = "lowered_out_of_range"  # lowered_by, max


class WatchAdjustmentError(ValueError):
    """A GM adjustment that cannot be applied: its ``code`` and ``params``."""

    def __init__(self, code: WatchAdjustCode, **params: str | int) -> None:
        self.code = code
        self.params = params
        super().__init__(f"{NAME}: {code.value} {params}")


def _with(state: CampaignState, watch: WatchState) -> CampaignState:
    return state.model_copy(update={"modules": {**state.modules, NAME: watch.as_json()}})


def npc_destinations(
    game: Game, state: CampaignState, origin: SectorId | None = None
) -> list[SectorId]:
    """Where the NPC marker may go now, in map order: the locations next to ``origin`` (where he
    stood at the turn's start, before the GM's edits of this turn; None: where he stands), and
    ``origin`` itself once he has left it, so that a second move of a turn replaces the first
    and he never goes two locations in one turn."""
    npc = load(state.modules.get(NAME)).npc
    if npc is None:
        return []
    start = npc.sector if origin is None else origin
    return [
        s
        for s in game.map.sector_ids()
        if s != npc.sector and (s == start or game.map.adjacent(start, s))
    ]


def move_npc(
    game: Game, state: CampaignState, to: SectorId, origin: SectorId | None = None
) -> CampaignState:
    """The NPC marker moved to the location ``to``: adjacent to ``origin``, where he stood at
    the turn's start before this turn's edits (None: where he stands now), or back there; a
    second move of a turn thus replaces the first (W1: one location a turn)."""
    watch = load(state.modules.get(NAME))
    if watch.npc is None:
        raise WatchAdjustmentError(WatchAdjustCode.NO_NPC)
    if to not in game.map.by_id:
        raise WatchAdjustmentError(WatchAdjustCode.UNKNOWN_SECTOR, sector=to)
    if to not in npc_destinations(game, state, origin):
        start = watch.npc.sector if origin is None else origin
        raise WatchAdjustmentError(WatchAdjustCode.NPC_MOVE_NOT_ADJACENT, sector=start, to=to)
    npc = Npc(name=watch.npc.name, sector=to)
    return _with(state, watch.model_copy(update={"npc": npc}))


def earliest_entry(state: CampaignState) -> int:
    """The first turn a hero added now can enter: the state's turn if it has not begun (its
    hands are not dealt yet), else the next one."""
    watch = load(state.modules.get(NAME))
    return max(state.turn, watch.begun + 1)


def add_hero(game: Game, state: CampaignState, spec: HeroSpec) -> CampaignState:
    """``spec``'s hero added to a running campaign, entering at the start of turn
    ``spec.enters_turn`` (at least :func:`earliest_entry`) at ``spec.start``; refused past
    ``MAX_HEROES`` heroes, the dead ones included (as many as the setup lists)."""
    watch = load(state.modules.get(NAME))
    if len(watch.heroes) >= MAX_HEROES:
        raise WatchAdjustmentError(WatchAdjustCode.TOO_MANY_HEROES, max=MAX_HEROES)
    if watch.hero(spec.id) is not None:
        raise WatchAdjustmentError(WatchAdjustCode.HERO_ID_TAKEN, hero=spec.id)
    if spec.side not in state.armies:
        raise WatchAdjustmentError(WatchAdjustCode.SIDE_NOT_IN_PLAY, side=spec.side)
    if spec.start not in game.map.by_id:
        raise WatchAdjustmentError(WatchAdjustCode.UNKNOWN_SECTOR, sector=spec.start)
    earliest = earliest_entry(state)
    if spec.enters_turn < earliest:
        raise WatchAdjustmentError(
            WatchAdjustCode.TURN_ALREADY_BEGUN, enters_turn=spec.enters_turn, earliest=earliest
        )
    heroes = (*watch.heroes, Hero.from_spec(spec))
    return _with(state, watch.model_copy(update={"heroes": heroes}))


def played_cards(late: Mapping[SideId, Iterable[ModuleOrder]], hero_id: str) -> tuple[str, ...]:
    """The cards ``hero_id`` laid this turn, in order, among the accepted late orders."""
    for orders in late.values():
        for typed in typed_orders(orders):
            if isinstance(typed, DuelStepData) and typed.hero == hero_id:
                return tuple(play.card for play in typed.plays)
    return ()


def adjust_card(
    game: Game,
    state: CampaignState,
    late: Mapping[SideId, Iterable[ModuleOrder]],
    hero: str,
    play: int,
    lowered_by: int,
) -> CampaignState:
    """The ``play``-th card (from 0) ``hero`` laid this turn counts ``lowered_by`` less
    (0: as printed). ``state`` is the turn's start state and ``late`` the accepted late orders
    (the duel steps) of every side."""
    watch = load(state.modules.get(NAME))
    if watch.hero(hero) is None:
        raise WatchAdjustmentError(WatchAdjustCode.UNKNOWN_HERO, hero=hero)
    if not 0 <= play < len(played_cards(late, hero)):
        raise WatchAdjustmentError(WatchAdjustCode.NO_SUCH_PLAY, hero=hero, play=play + 1)
    if not 0 <= lowered_by <= MAX_LOWERED:
        raise WatchAdjustmentError(
            WatchAdjustCode.LOWERED_OUT_OF_RANGE, lowered_by=lowered_by, max=MAX_LOWERED
        )
    kept = tuple(
        m for m in watch.modifiers if m.turn == state.turn and (m.hero, m.play) != (hero, play)
    )
    if lowered_by:
        kept = (
            *kept,
            CardModifier(turn=state.turn, hero=hero, play=play, lowered_by=lowered_by),
        )
    return _with(state, watch.model_copy(update={"modifiers": kept}))


class WatchChange(BaseModel):
    """A GM's watch adjustment as the bot keeps it: ``change`` ``npc`` (the marker to ``to``,
    measured from ``origin``: where he stood at the turn's start before this turn's edits),
    ``hero`` (``spec`` added) or ``card`` (``hero``'s ``play``-th card lowered by
    ``lowered_by``), with the GM's ``reason``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["watch"] = "watch"
    change: Literal["npc", "hero", "card"]
    to: SectorId | None = None
    origin: SectorId | None = None
    spec: HeroSpec | None = None
    hero: str | None = None
    play: int = Field(default=0, ge=0)
    lowered_by: int = Field(default=0, ge=0, le=MAX_LOWERED)
    reason: str = Field(default="", max_length=1000)


def is_change(data: object) -> bool:
    """Whether stored adjustment JSON is a :class:`WatchChange`."""
    return isinstance(data, dict) and data.get("kind") == NAME


def apply_change(
    game: Game,
    state: CampaignState,
    change: WatchChange,
    late: Mapping[SideId, Iterable[ModuleOrder]] | None = None,
) -> CampaignState:
    """``state`` with ``change`` applied (:func:`move_npc`, :func:`add_hero` or
    :func:`adjust_card`). Without ``late`` (a kept change applied again to a start made anew)
    a card's tokens are put back as they were, the cards laid being unknown there."""
    match change.change:
        case "npc":
            if change.to is None:
                raise WatchAdjustmentError(WatchAdjustCode.UNKNOWN_SECTOR, sector="")
            return move_npc(game, state, change.to, change.origin)
        case "hero":
            if change.spec is None:
                raise WatchAdjustmentError(WatchAdjustCode.UNKNOWN_HERO, hero="")
            return add_hero(game, state, change.spec)
        case _:
            hero = change.hero or ""
            if late is not None:
                return adjust_card(game, state, late, hero, change.play, change.lowered_by)
            watch = load(state.modules.get(NAME))
            if watch.hero(hero) is None:
                raise WatchAdjustmentError(WatchAdjustCode.UNKNOWN_HERO, hero=hero)
            kept = tuple(
                m
                for m in watch.modifiers
                if m.turn == state.turn and (m.hero, m.play) != (hero, change.play)
            )
            if change.lowered_by:
                modifier = CardModifier(
                    turn=state.turn, hero=hero, play=change.play, lowered_by=change.lowered_by
                )
                kept = (*kept, modifier)
            return _with(state, watch.model_copy(update={"modifiers": kept}))
