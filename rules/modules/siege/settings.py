"""Settings of ``siege`` (MODULES.md S2), with the seed's reward prices (S8) as default data."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rules.maps import SectorId
from rules.state import SideId

_MODEL = ConfigDict(frozen=True, extra="forbid")

Role = Literal["stormer", "defender"]
TokenKind = Literal["fortification", "occult"]
TOKEN_KINDS: tuple[TokenKind, ...] = ("fortification", "occult")
DEFAULT_STRENGTH = 10


class WeatherState(BaseModel):
    """One of the eight states of the wind rose: a name and the GM's rule text for it."""

    model_config = _MODEL

    name: str = Field(min_length=1, max_length=64)
    names: dict[str, str] = Field(default_factory=dict)
    text: str = Field(default="", max_length=1000)
    texts: dict[str, str] = Field(default_factory=dict)


def _compass(name: str, russian: str) -> WeatherState:
    return WeatherState(name=name, names={"ru": russian})


DEFAULT_WEATHER_STATES: tuple[WeatherState, ...] = (
    _compass("North", "Север"),
    _compass("North-East", "Северо-восток"),
    _compass("East", "Восток"),
    _compass("South-East", "Юго-восток"),
    _compass("South", "Юг"),
    _compass("South-West", "Юго-запад"),
    _compass("West", "Запад"),
    _compass("North-West", "Северо-запад"),
)
"""Placeholders: the seed names no states and gives no effects, so the GM writes them; the
states are named after the wind rose's points, clockwise from North (state 0)."""

WEATHER_STATES = 8
MAX_REWARDS = 30
"""The longest price list: the claim screen's buttons carry a digit per item."""


class RewardVariant(BaseModel):
    """One thing the GM may give for an item that says "or" (the curator's choice)."""

    model_config = _MODEL

    text: str = Field(min_length=1, max_length=200)
    texts: dict[str, str] = Field(default_factory=dict)


class RewardItem(BaseModel):
    """An item of the reward price list: bought with siege VP when the campaign finishes.

    ``variants``: what the GM chooses between after the claim (an item that says "or");
    ``choice``: the GM chooses details the bot does not know (which abilities), with no
    variants listed. Either way the claim names the item, never the variant (S8)."""

    model_config = _MODEL

    id: str = Field(min_length=1, max_length=32)
    price: int = Field(ge=1, le=1000)
    text: str = Field(min_length=1, max_length=1000)
    texts: dict[str, str] = Field(default_factory=dict)
    variants: tuple[RewardVariant, ...] = Field(default=(), max_length=8)
    choice: bool = False

    @property
    def chosen_by_gm(self) -> bool:
        """Whether the GM chooses something for this item after the claim."""
        return self.choice or bool(self.variants)


def _reward(
    item_id: str,
    price: int,
    english: str,
    russian: str,
    variants: tuple[tuple[str, str], ...] = (),
    choice: bool = False,
) -> RewardItem:
    return RewardItem(
        id=item_id,
        price=price,
        text=english,
        texts={"ru": russian},
        variants=tuple(RewardVariant(text=en, texts={"ru": ru}) for en, ru in variants),
        choice=choice,
    )


DEFAULT_REWARDS: tuple[RewardItem, ...] = (
    _reward(
        "club",
        1,
        "Welcome to the club! No bonus by itself: only the start of the road.",
        "Добро пожаловать в клуб! Само по себе бонусов не даёт, это лишь начало пути.",
    ),
    _reward(
        "simple_cheque",
        2,
        "A simple cheque without history, or a pawn, or 3 units of energy (curator's choice).",
        "Простой чек без истории, или пешка, или 3 единицы энергии (по выбору куратора).",
        (
            ("A simple cheque without history", "Простой чек без истории"),
            ("A pawn", "Пешка"),
            ("3 units of energy", "3 единицы энергии"),
        ),
    ),
    _reward("cheque_with_history", 3, "A simple cheque with history.", "Простой чек с историей."),
    _reward(
        "knight",
        4,
        "A knight, or one ability dot on your character sheet (curator's choice).",
        "Конь или одна точка способности в ваш чарник (по выбору куратора).",
        (("A knight", "Конь"), ("One ability dot", "Одна точка способности")),
    ),
    _reward("officer", 5, "A bishop (officer).", "Офицер."),
    _reward(
        "ability_dots",
        6,
        "Three ability dots on your character sheet (curator's choice).",
        "Три точки способностей в ваш чарник (по выбору куратора).",
        choice=True,
    ),
    _reward(
        "cheque_with_need",
        7,
        "A cheque with a need, or one Attribute dot (curator's choice).",
        "Чек с нуждой или одна точка Атрибута в ваш чарник (по выбору куратора).",
        (("A cheque with a need", "Чек с нуждой"), ("One Attribute dot", "Одна точка Атрибута")),
    ),
    _reward("rook", 8, "A rook.", "Ладья."),
    _reward(
        "magic_dot",
        9,
        "A new magic ability dot (curator's choice).",
        "Новая точка магической способности в чарник (по выбору куратора).",
        choice=True,
    ),
    _reward("bankruptcy", 10, "A cheque with bankruptcy.", "Чек с банкротством."),
)
"""The seed's price list (prices 1 to 10); where an item says "or", the GM picks after the claim."""


class CardText(BaseModel):
    """The card of an occult token: the GM's text, and ``effect`` for the engine to apply."""

    model_config = _MODEL

    text: str = Field(default="", max_length=1000)
    texts: dict[str, str] = Field(default_factory=dict)
    effect: Literal["weather_step"] | None = None


class TokenSpec(BaseModel):
    """A token the GM places without editing the map (same fields as a map feature); one with
    the id of a map's token stands in its place (the GM's strength and starting holder)."""

    model_config = _MODEL

    id: str = Field(min_length=1, max_length=32)
    kind: TokenKind
    sector: SectorId
    name: str | None = Field(default=None, min_length=1, max_length=64)
    names: dict[str, str] = Field(default_factory=dict)
    strength: int = Field(default=DEFAULT_STRENGTH, ge=1, le=1000)
    owner: SideId | None = None

    @field_validator("id")
    @classmethod
    def _id_has_no_spaces(cls, value: str) -> str:
        if value != value.strip() or any(ch.isspace() for ch in value):
            raise ValueError("a token id must not contain spaces")
        return value


class SiegeSettings(BaseModel):
    """Parameters of ``siege``; a campaign stores only what differs from these defaults.

    ``weather_control`` ``None`` means the map's sectors tagged ``weather_control``; an unlisted
    side in ``roles`` is both stormer and defender; ``cards`` hold the card texts by occult token
    id; ``tokens`` are placed by the GM in addition to the map's ``[[features]]``, or replace the
    map's token of the same id.
    """

    model_config = _MODEL

    strength_per_army: int = Field(default=2, ge=1, le=100)
    die: int = Field(default=6, ge=2, le=100)
    assault_loss: int = Field(default=1, ge=0, le=100)
    guard_range: int = Field(default=2, ge=0, le=100)
    weather_steps_per_turn: int = Field(default=3, ge=0, le=100)
    weather_control: tuple[SectorId, ...] | None = None
    roles: dict[SideId, tuple[Role, ...]] = Field(default_factory=dict)
    weather_states: tuple[WeatherState, ...] = DEFAULT_WEATHER_STATES
    rewards: tuple[RewardItem, ...] = Field(
        default=DEFAULT_REWARDS, min_length=1, max_length=MAX_REWARDS
    )
    cards: dict[str, CardText] = Field(default_factory=dict)
    tokens: tuple[TokenSpec, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> Self:
        if len(self.weather_states) != WEATHER_STATES:
            raise ValueError(f"weather_states needs exactly {WEATHER_STATES} states")
        ids = [item.id for item in self.rewards]
        if len(set(ids)) != len(ids):
            raise ValueError("rewards: an item id is used twice")
        for side, roles in self.roles.items():
            if not roles or len(set(roles)) != len(roles):
                raise ValueError(f"roles.{side}: name stormer, defender or both, once each")
        return self

    def has_role(self, side: SideId, role: Role) -> bool:
        """Whether ``side`` plays ``role`` (a side not listed plays both)."""
        return role in self.roles.get(side, ("stormer", "defender"))
