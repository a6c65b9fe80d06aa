"""The state ``siege`` keeps in ``CampaignState.modules["siege"]`` (versioned by ``"v"``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, model_validator

from rules.game import Game, ModuleStateError
from rules.maps import SectorId
from rules.modules.siege.settings import TokenKind
from rules.state import CampaignState, SideId

NAME = "siege"
VERSION = 1


class Token(BaseModel):
    """A fortification or occult token on the map.

    A fortification is removed from the state when it falls. An occult token stays; its
    ``controller`` holds its card, ``ready`` or tapped.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=32)
    kind: TokenKind
    sector: SectorId
    strength: int = Field(ge=1, le=1000)
    name: str | None = None
    names: dict[str, str] = Field(default_factory=dict)
    controller: SideId | None = None
    ready: bool = True

    def display_name(self, language: str | None = None) -> str:
        """The token's name in ``language`` if given, else its name, else its id."""
        if language is not None and language in self.names:
            return self.names[language]
        return self.name or self.id


class SiegeState(BaseModel):
    """Tokens in map order of appearance, the weather marker (0-7; ``None`` until the starting
    weather is picked) and each stormer's victory points."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = VERSION
    weather: int | None = Field(ge=0, le=7)
    tokens: tuple[Token, ...]
    vp: dict[SideId, int] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Self:
        ids = [token.id for token in self.tokens]
        if len(set(ids)) != len(ids):
            raise ValueError("a token id is used twice")
        if any(points < 0 for points in self.vp.values()):
            raise ValueError("victory points cannot be negative")
        return self

    def token(self, token_id: str) -> Token | None:
        """The token called ``token_id``, if it stands."""
        return next((token for token in self.tokens if token.id == token_id), None)

    def as_json(self) -> JsonValue:
        """The state as stored: fields at their defaults left out of each token."""
        data: dict[str, Any] = {
            "v": self.v,
            "weather": self.weather,
            "tokens": [
                token.model_dump(mode="json", exclude_defaults=True) for token in self.tokens
            ],
            "vp": dict(self.vp),
        }
        return data


_UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}
"""``_UPGRADES[n]`` turns a state of version ``n`` into version ``n + 1`` (none yet)."""


def upgrade(data: JsonValue) -> JsonValue:
    """``data`` brought to :data:`VERSION`; raises :class:`ModuleStateError` if it cannot be."""
    if not isinstance(data, dict):
        raise ModuleStateError(f'{NAME}: no module state (expected an object with "v")')
    version = data.get("v")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ModuleStateError(f'{NAME}: the module state has no version "v"')
    if version > VERSION:
        raise ModuleStateError(
            f"{NAME}: state version {version} is newer than this code's {VERSION}"
        )
    upgraded: dict[str, Any] = dict(data)
    while upgraded["v"] < VERSION:
        step = _UPGRADES.get(upgraded["v"])
        if step is None:
            raise ModuleStateError(f"{NAME}: no upgrade from state version {upgraded['v']}")
        upgraded = step(upgraded)
    return upgraded


def load_in(game: Game, state: CampaignState) -> SiegeState:
    """:func:`load` of ``state``'s siege state, remembered in ``game.memo`` for as long as the
    same state object is asked about."""
    raw = state.modules.get(NAME)
    kept = game.memo.get(NAME)
    if kept is not None and kept[0] is raw and isinstance(kept[1], SiegeState):
        return kept[1]
    loaded = load(raw)
    game.memo[NAME] = (raw, loaded)
    return loaded


def load(data: JsonValue) -> SiegeState:
    """The module state in ``data`` (any stored version); :class:`ModuleStateError` if bad."""
    try:
        return SiegeState.model_validate(upgrade(data))
    except ValidationError as error:
        issue = error.errors()[0]
        where = ".".join(str(part) for part in issue["loc"])
        raise ModuleStateError(f"{NAME}: {where}: {issue['msg']}") from error
