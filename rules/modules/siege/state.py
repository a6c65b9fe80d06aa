"""The state ``siege`` keeps in ``CampaignState.modules["siege"]`` (versioned by ``"v"``)."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from rules.maps import SectorId
from rules.module_state import Upgrade, VersionedState
from rules.modules.siege.settings import TokenKind
from rules.state import SideId

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


_UPGRADES: dict[int, Upgrade] = {}
"""``_UPGRADES[n]`` turns a state of version ``n`` into version ``n + 1`` (none yet)."""

_STATE = VersionedState(NAME, VERSION, SiegeState, _UPGRADES)
upgrade = _STATE.upgrade
"""``data`` brought to :data:`VERSION`; raises :class:`ModuleStateError` if it cannot be."""
load = _STATE.load
"""The module state in ``data`` (any stored version); :class:`ModuleStateError` if bad."""
load_in = _STATE.load_in
""":func:`load` of ``state``'s siege state, remembered in ``game.memo`` for as long as the same
state object is asked about."""
