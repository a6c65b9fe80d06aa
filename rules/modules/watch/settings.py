"""Settings of ``watch`` (MODULES.md W1, W3): the GM's heroes, the NPC marker, the spell deck."""

from __future__ import annotations

import re
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rules.maps import SectorId
from rules.state import SideId

_MODEL = ConfigDict(frozen=True, extra="forbid")

HERO_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
"""A hero id is a slug: lower-case Latin letters, digits, ``_`` and ``-``, 1 to 32 long."""
CARD = re.compile(r"^[AD](0|[1-9][0-9]?)$")
"""A spell card: ``A<n>`` (attack) or ``D<n>`` (defence) of power ``n``, 0 to 99."""

DEFAULT_SPELL_DECK: tuple[str, ...] = (
    "A1",
    "A2",
    "A2",
    "A3",
    "A3",
    "A4",
    "D1",
    "D2",
    "D2",
    "D3",
    "D3",
    "D4",
)
"""The deck dealt from each turn (W3): the seed's spell-drawing section is missing, so the
spread is a decision."""

DEFAULT_NPC_NAME = "Егор"
MAX_HEROES = 24
MAX_HAND = 6
"""The largest hand: a step's keyboard lists each card of the hand."""
MAX_WOUNDS = 99
"""The most wounds ``wounds_to_kill`` may ask for."""
MAX_DECK = 200
"""The most cards a spell deck holds."""


def check_hero_id(value: str) -> str:
    """``value`` if it is a hero id (:data:`HERO_ID`); ``ValueError`` otherwise."""
    if not HERO_ID.fullmatch(value):
        raise ValueError(
            "a hero id is 1-32 lower-case Latin letters, digits, _ or -, starting with a "
            "letter or digit"
        )
    return value


class HeroSpec(BaseModel):
    """A hero the GM lists (W1): copied to the state at deployment, or added to a running
    campaign by :func:`rules.modules.watch.adjust.add_hero`. It is in play from the start of
    turn ``enters_turn`` on, standing at ``start``."""

    model_config = _MODEL

    id: str = Field(min_length=1, max_length=32)
    side: SideId = Field(min_length=1)
    name: str = Field(min_length=1, max_length=64)
    initiative: int = Field(ge=0, le=99)
    start: SectorId
    enters_turn: int = Field(default=1, ge=1)

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        return check_hero_id(value)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a hero's name cannot be blank")
        return value.strip()


class NpcSpec(BaseModel):
    """The NPC marker (Egor, W1): public, moved only by the GM, one adjacent location a turn."""

    model_config = _MODEL

    name: str = Field(default=DEFAULT_NPC_NAME, min_length=1, max_length=64)
    start: SectorId


class WatchSettings(BaseModel):
    """Parameters of ``watch``; a campaign stores only what differs from these defaults."""

    model_config = _MODEL

    heroes: tuple[HeroSpec, ...] = Field(default=(), max_length=MAX_HEROES)
    npc: NpcSpec | None = None
    wounds_to_kill: int = Field(default=4, ge=1, le=MAX_WOUNDS)
    hand_size: int = Field(default=3, ge=0, le=MAX_HAND)
    spell_deck: tuple[str, ...] = Field(
        default=DEFAULT_SPELL_DECK, min_length=1, max_length=MAX_DECK
    )
    duel_mode: Literal["initiative", "sealed"] = "initiative"
    duel_step_hours: int = Field(default=6, ge=1, le=72)
    hero_victory: bool = False

    @field_validator("spell_deck")
    @classmethod
    def _cards(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [card for card in value if not CARD.fullmatch(card)]
        if bad:
            raise ValueError(f"not a spell card: {bad[0]!r} (A<power> or D<power>, power 0-99)")
        return value

    @model_validator(mode="after")
    def _check(self) -> Self:
        ids = [hero.id for hero in self.heroes]
        twice = sorted({hero for hero in ids if ids.count(hero) > 1})
        if twice:
            raise ValueError(f"heroes: hero id {twice[0]} is used twice")
        return self

    def hero(self, hero_id: str) -> HeroSpec | None:
        """The listed hero called ``hero_id``, if any."""
        return next((hero for hero in self.heroes if hero.id == hero_id), None)
