"""The state ``watch`` keeps in ``CampaignState.modules["watch"]`` (versioned by ``"v"``), the
initiative order, spell cards and :func:`public_view`, the only way the bot shows a state.

Hands are secret (W4: private to the hero's side): everything else in the state is public.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from rules.maps import SectorId
from rules.module_state import Upgrade, VersionedState
from rules.modules.watch.settings import CARD, HeroSpec, NpcSpec, check_hero_id
from rules.state import SideId

NAME = "watch"
VERSION = 1


class Card(BaseModel):
    """A spell card: ``kind`` ``A`` (attack) or ``D`` (defence) and its printed ``power``."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["A", "D"]
    power: int = Field(ge=0)

    def __str__(self) -> str:
        return f"{self.kind}{self.power}"


def parse_card(text: str) -> Card:
    """The card ``"A3"`` or ``"D1"`` names; ``ValueError`` for anything else."""
    if not isinstance(text, str) or not CARD.fullmatch(text):
        raise ValueError(f"not a spell card: {text!r} (A<power> or D<power>)")
    return Card(kind="A" if text[0] == "A" else "D", power=int(text[1:]))


class Hero(BaseModel):
    """A hero (an Other, W1) in the state: where it stands, its wounds and its hand.

    ``alive`` is false once killed (or once its side is out); a dead hero keeps its last
    sector and wounds and holds no cards. It is in play from turn ``enters_turn`` on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=32)
    side: SideId
    name: str = Field(min_length=1, max_length=64)
    initiative: int = Field(ge=0, le=99)
    sector: SectorId
    wounds: int = Field(default=0, ge=0)
    hand: tuple[str, ...] = ()
    alive: bool = True
    enters_turn: int = Field(default=1, ge=1)

    @model_validator(mode="after")
    def _check(self) -> Self:
        check_hero_id(self.id)
        for card in self.hand:
            parse_card(card)
        return self

    def in_play(self, turn: int) -> bool:
        """True when the hero is alive and has entered by ``turn``."""
        return self.alive and self.enters_turn <= turn

    @classmethod
    def from_spec(cls, spec: HeroSpec) -> Hero:
        """A hero as the GM listed it: at its start, unwounded, empty-handed."""
        return cls(
            id=spec.id,
            side=spec.side,
            name=spec.name,
            initiative=spec.initiative,
            sector=spec.start,
            enters_turn=spec.enters_turn,
        )


class Npc(BaseModel):
    """The NPC marker (Egor): a name and where he stands. Public, moved only by the GM."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    sector: SectorId

    @classmethod
    def from_spec(cls, spec: NpcSpec) -> Npc:
        """The marker at its start."""
        return cls(name=spec.name, sector=spec.start)


class CardModifier(BaseModel):
    """A GM's "-1" tokens (W7) on a card played this turn: the ``play``-th card (from 0) of
    ``hero``'s duel step in turn ``turn`` counts ``lowered_by`` less (never below 0)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: int = Field(ge=1)
    hero: str
    play: int = Field(ge=0)
    lowered_by: int = Field(ge=1, le=99)


class WatchState(BaseModel):
    """Heroes in the GM's order, the NPC marker, the last turn whose start dealt hands
    (``begun``, 0 before turn 1) and the GM's card modifiers of the turn being played."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = VERSION
    heroes: tuple[Hero, ...] = ()
    npc: Npc | None = None
    begun: int = Field(default=0, ge=0)
    modifiers: tuple[CardModifier, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> Self:
        ids = [hero.id for hero in self.heroes]
        if len(set(ids)) != len(ids):
            raise ValueError("a hero id is used twice")
        return self

    def hero(self, hero_id: str) -> Hero | None:
        """The hero called ``hero_id``, if any (living or dead)."""
        return next((hero for hero in self.heroes if hero.id == hero_id), None)

    def in_play(self, turn: int) -> tuple[Hero, ...]:
        """Living heroes that have entered by ``turn``, in initiative order."""
        return initiative_order(hero for hero in self.heroes if hero.in_play(turn))

    def replace(self, *changed: Hero) -> WatchState:
        """This state with the heroes of the same ids replaced by ``changed``."""
        by_id = {hero.id: hero for hero in changed}
        return self.model_copy(
            update={"heroes": tuple(by_id.get(hero.id, hero) for hero in self.heroes)}
        )

    def as_json(self) -> JsonValue:
        """The state as stored (every hero with all its fields; ``modifiers`` only when any)."""
        data: dict[str, Any] = {
            "v": self.v,
            "heroes": [hero.model_dump(mode="json") for hero in self.heroes],
            "npc": None if self.npc is None else self.npc.model_dump(mode="json"),
            "begun": self.begun,
        }
        if self.modifiers:
            data["modifiers"] = [item.model_dump(mode="json") for item in self.modifiers]
        return data


HeroT = TypeVar("HeroT", Hero, HeroSpec)


def initiative_order(heroes: Iterable[HeroT]) -> tuple[HeroT, ...]:
    """``heroes`` in initiative order: ascending initiative, ties by hero id (W1)."""
    return tuple(sorted(heroes, key=lambda hero: (hero.initiative, hero.id)))


def public_view(data: JsonValue, side: SideId | None) -> JsonValue:
    """The stored watch state ``data`` as ``side`` may see it: every hand removed except
    ``side``'s own heroes' (``None``: every hand removed). Card modifiers are public (they are
    on cards already on the table). Anything not a watch state comes back as it is.

    The bot shows a watch state only through this function."""
    if not isinstance(data, dict):
        return data
    view = copy.deepcopy(data)
    heroes = view.get("heroes")
    if isinstance(heroes, list):
        for hero in heroes:
            if isinstance(hero, dict) and (side is None or hero.get("side") != side):
                hero.pop("hand", None)
    return view


def hand_of(data: JsonValue, hero_id: str) -> tuple[str, ...]:
    """The hand of ``hero_id`` in the stored state ``data`` (empty if unknown)."""
    hero = load(data).hero(hero_id)
    return hero.hand if hero is not None else ()


_UPGRADES: dict[int, Upgrade] = {}
"""``_UPGRADES[n]`` turns a state of version ``n`` into version ``n + 1`` (none yet)."""

_STATE = VersionedState(NAME, VERSION, WatchState, _UPGRADES)
upgrade = _STATE.upgrade
"""``data`` brought to :data:`VERSION`; raises :class:`ModuleStateError` if it cannot be."""
load = _STATE.load
"""The module state in ``data`` (any stored version); :class:`ModuleStateError` if bad."""
load_in = _STATE.load_in
""":func:`load` of ``state``'s watch state, remembered in ``game.memo`` for as long as the same
state object is asked about."""


def heroes_at(heroes: Iterable[Hero], sector: SectorId) -> tuple[Hero, ...]:
    """The heroes of ``heroes`` standing in ``sector``, in initiative order."""
    return initiative_order(hero for hero in heroes if hero.sector == sector)
