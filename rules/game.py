"""The fixed rules of one campaign (map, ruleset, modules) and the extension point for modules.

A rules module (RULES.md section 5) adds to the core without rewriting it:

* **state**: ``CampaignState.modules[module.name]``, any JSON value the module owns;
* **order kinds**: ``ModuleOrder(module=name, data=...)``, checked by ``module.validate_order``;
* **resolution steps**: ``module.hooks()`` returns functions run before or after a core step.

The core knows no module by name; a campaign enables modules through ``Ruleset.modules`` and the
caller hands the implementations to :meth:`Game.create`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from pydantic import JsonValue

from rules.maps import CampaignMap
from rules.orders import ModuleOrder, Rejection, SideOrders
from rules.ruleset import Ruleset
from rules.state import CampaignState, SideId

if TYPE_CHECKING:
    from rules.resolution import TurnWork


class Step(StrEnum):
    """The core resolution steps of RULES.md 3.4, in the order they run."""

    LOSSES = "losses"
    ARRIVALS = "arrivals"
    CAPTURE = "capture"
    REPLENISHMENT = "replenishment"
    REINFORCEMENT = "reinforcement"
    VICTORY = "victory"


@dataclass(frozen=True)
class StepHook:
    """Run ``run`` on the turn's working copy just ``when`` the core step ``anchor``."""

    anchor: Step
    when: Literal["before", "after"]
    run: Callable[[TurnWork], None]


class RulesModule:
    """Base of an optional rules module. Subclasses set ``name`` and override what they add."""

    name: str = ""

    def initial_state(self, game: Game) -> JsonValue:
        """The module's state at deployment."""
        return None

    def validate_order(
        self,
        game: Game,
        state: CampaignState,
        side: SideId,
        order: ModuleOrder,
        current: SideOrders,
    ) -> Rejection | None:
        """Check one of this module's orders; ``None`` accepts it."""
        return None

    def hooks(self) -> Sequence[StepHook]:
        """Resolution steps this module adds."""
        return ()


class StateOffMapError(ValueError):
    """A state places armies in sectors that are not on the game's map."""

    def __init__(self, misplaced: list[tuple[SideId, str]]) -> None:
        self.misplaced = misplaced
        super().__init__(
            "armies in sectors not on the map: "
            + ", ".join(f"{side} in {sector}" for side, sector in misplaced)
        )


class UnknownModuleError(KeyError):
    """A ruleset names a module whose implementation was not supplied."""


@dataclass(frozen=True)
class Game:
    """Map, ruleset and module implementations: everything fixed for a campaign's life."""

    map: CampaignMap
    ruleset: Ruleset = field(default_factory=Ruleset)
    modules: tuple[RulesModule, ...] = ()

    @classmethod
    def create(
        cls,
        campaign_map: CampaignMap,
        ruleset: Ruleset | None = None,
        available: Iterable[RulesModule] = (),
    ) -> Game:
        """A game whose modules are those ``ruleset.modules`` names, taken from ``available``."""
        ruleset = ruleset or Ruleset()
        by_name = {module.name: module for module in available}
        missing = [name for name in ruleset.modules if name not in by_name]
        if missing:
            raise UnknownModuleError(", ".join(missing))
        return cls(
            map=campaign_map,
            ruleset=ruleset,
            modules=tuple(by_name[name] for name in ruleset.modules),
        )

    def check_state(self, state: CampaignState) -> None:
        """Raise :class:`StateOffMapError` if ``state`` has armies off this game's map."""
        misplaced = [
            (side, sector)
            for side, sectors in state.armies.items()
            for sector in sectors
            if sector not in self.map.by_id
        ]
        if misplaced:
            raise StateOffMapError(misplaced)

    def module(self, name: str) -> RulesModule | None:
        """The enabled module called ``name``, if any."""
        return next((module for module in self.modules if module.name == name), None)

    def hooks(self, anchor: Step, when: Literal["before", "after"]) -> list[StepHook]:
        """Module hooks for one point of the pipeline, in module order."""
        return [
            hook
            for module in self.modules
            for hook in module.hooks()
            if hook.anchor == anchor and hook.when == when
        ]
