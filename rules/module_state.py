"""A module's versioned state in ``CampaignState.modules[name]``: brought to the current version,
validated, and remembered per state object (MODULES.md A2.14). Each module keeps one
:class:`VersionedState` for its state model."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, JsonValue, ValidationError

from rules.game import Game, ModuleStateError
from rules.state import CampaignState

M = TypeVar("M", bound=BaseModel)

Upgrade = Callable[[dict[str, Any]], dict[str, Any]]
"""Turns a module state of version ``n`` into version ``n + 1``."""


class VersionedState(Generic[M]):
    """Loading of module ``name``'s state, of model ``model`` at version ``version``;
    ``upgrades[n]`` turns version ``n`` into ``n + 1``."""

    def __init__(
        self, name: str, version: int, model: type[M], upgrades: Mapping[int, Upgrade]
    ) -> None:
        self.name = name
        self.version = version
        self.model = model
        self.upgrades = upgrades

    def upgrade(self, data: JsonValue) -> JsonValue:
        """``data`` brought to the current version; :class:`ModuleStateError` if it cannot be."""
        name, current = self.name, self.version
        if not isinstance(data, dict):
            raise ModuleStateError(f'{name}: no module state (expected an object with "v")')
        version = data.get("v")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ModuleStateError(f'{name}: the module state has no version "v"')
        if version > current:
            raise ModuleStateError(
                f"{name}: state version {version} is newer than this code's {current}"
            )
        upgraded: dict[str, Any] = dict(data)
        while upgraded["v"] < current:
            step = self.upgrades.get(upgraded["v"])
            if step is None:
                raise ModuleStateError(f"{name}: no upgrade from state version {upgraded['v']}")
            upgraded = step(upgraded)
        return upgraded

    def load(self, data: JsonValue) -> M:
        """The module state in ``data`` (any stored version); :class:`ModuleStateError` if bad."""
        try:
            return self.model.model_validate(self.upgrade(data))
        except ValidationError as error:
            issue = error.errors()[0]
            where = ".".join(str(part) for part in issue["loc"])
            raise ModuleStateError(f"{self.name}: {where}: {issue['msg']}") from error

    def load_in(self, game: Game, state: CampaignState) -> M:
        """:meth:`load` of ``state``'s module state, remembered in ``game.memo`` for as long as
        the same state object is asked about."""
        raw = state.modules.get(self.name)
        kept = game.memo.get(self.name)
        if kept is not None and kept[0] is raw and isinstance(kept[1], self.model):
            return kept[1]
        loaded = self.load(raw)
        game.memo[self.name] = (raw, loaded)
        return loaded
