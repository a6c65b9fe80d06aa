"""The fixed rules of one campaign (map, ruleset, modules) and the extension point for modules.

A rules module (RULES.md section 5, MODULES.md A) adds to the core without rewriting it. A module
is a package ``rules/modules/<name>/`` whose :class:`RulesModule` subclass may add:

* **settings**: ``Settings``, a pydantic model of its parameters; a campaign stores only the
  overrides in ``Ruleset.module_settings[name]``, checked by :meth:`Game.create`, which also
  asks the module to check the map (:meth:`RulesModule.check_map`);
* **state**: ``CampaignState.modules[name]``, JSON the module owns, made by
  :meth:`RulesModule.initial_state` (with a deployment choice, if the module has one), brought up
  to date by :meth:`RulesModule.upgrade` (the state carries its version as ``"v"``) and changed
  at the start of a turn by :meth:`RulesModule.begin_turn`;
* **orders**: ``ModuleOrder(module=name, data=...)`` checked by
  :meth:`RulesModule.validate_order` and listed by :meth:`RulesModule.legal_options`; an order
  may be a sector's order (``claims_sector``); core orders may be refused by
  :meth:`RulesModule.check_core_order`; **late orders** (given after the battle list) are checked
  by :meth:`RulesModule.validate_late_order`;
* **the battle list**: :meth:`RulesModule.plan` runs after the core battles are numbered and
  may draw dice and add battles (numbered after the core's, in ``ruleset.modules`` order);
* **resolution steps**: :meth:`RulesModule.hooks` returns functions run before, after or instead
  of a core step (at most one module replaces a step); after ``victory`` a hook may name a
  winner only when the core named none;
* **the GM's edits**: a :class:`rules.edits.StateEdit` carries each module's part in
  ``modules[name]``, in the shape the module defines; :meth:`RulesModule.edit` checks it and
  returns the module's state after it.

The core knows no module by name; a campaign enables modules through ``Ruleset.modules`` and the
caller hands the implementations (``rules.modules.BUILTIN_MODULES``) to :meth:`Game.create`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from rules.maps import CampaignMap, MapError, MapProblem, SectorId
from rules.orders import (
    Attack,
    Fortify,
    ModuleOrder,
    Move,
    OrderRule,
    Reinforce,
    Rejection,
    SideOrders,
)
from rules.ruleset import Ruleset
from rules.state import CampaignState, SideId

if TYPE_CHECKING:
    from rules.battles import Battle, BattlePlan, PlanWork
    from rules.dice import Dice
    from rules.render import MapFigures
    from rules.resolution import TurnWork

CoreOrder = Move | Attack | Fortify | Reinforce
SettingsT = TypeVar("SettingsT", bound=BaseModel)


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
    """Run ``run`` on the turn's working copy just ``when`` the core step ``anchor``
    (``instead``: the core step does not run; at most one module per step)."""

    anchor: Step
    when: Literal["before", "after", "instead"]
    run: Callable[[TurnWork], None]


class NoSettings(BaseModel):
    """The settings of a module that has none: nothing may be given."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class DeploymentChoice(BaseModel):
    """A choice a module needs after deployment, before turn 1 (a starting setting picked
    once the board is known, say).

    ``side`` makes it (``None``: the GM); ``options`` are the values it may pick.
    """

    model_config = ConfigDict(frozen=True)

    module: str
    key: str
    side: SideId | None
    options: tuple[JsonValue, ...]


class EditProblemCode(StrEnum):
    """Why a GM's edit of the state (:class:`rules.edits.StateEdit`) is refused."""

    UNKNOWN_SECTOR = "unknown_sector"  # sector
    UNKNOWN_SIDE = "unknown_side"  # side
    ARMIES_OUT_OF_RANGE = "armies_out_of_range"  # side, sector, count, most
    NO_CHANGE = "no_change"
    NO_ARMIES_LEFT = "no_armies_left"  # the edit would leave no side on the map
    MODULE_RULE = "module_rule"  # module, rule ("not_played", "no_edits" or the module's own)
    # and the rule's details


class EditProblem(BaseModel):
    """One problem of an edit, with its details."""

    model_config = ConfigDict(frozen=True)

    code: EditProblemCode
    params: dict[str, str | int] = Field(default_factory=dict)


class EditError(ValueError):
    """An edit that cannot be applied; ``problems`` lists every reason."""

    def __init__(self, problems: list[EditProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(p.code.value for p in problems))


def module_edit_problem(module: str, rule: str, **params: str | int) -> EditProblem:
    """A problem of ``module``'s part of an edit: its ``rule`` and details."""
    return EditProblem(
        code=EditProblemCode.MODULE_RULE, params={"module": module, "rule": rule, **params}
    )


class RulesModule:
    """Base of an optional rules module. Subclasses set ``name`` and override what they add.

    Every default here changes nothing, so a module overrides only what it adds.
    """

    name: str = ""
    Settings: type[BaseModel] = NoSettings
    uses_dice: bool = False
    """True when the module draws from the turn's seeds: planning without them is an error."""
    maps: tuple[str, ...] = ()
    """Maps made for this module, shipped as ``rules/data/<name>.toml`` and usable by any
    campaign (:func:`rules.maps.builtin_map` loads them)."""
    several_moves_per_sector: bool = False
    """True when a side may give several moves from one sector (MODULES.md A2.6; in all at most
    its armies there minus one): the core then refuses no second move."""

    def check_map(self, game: Game) -> Sequence[MapProblem]:
        """Problems of the map's features (and of the settings against the map) for this
        module; :meth:`Game.create` refuses the game if there are any."""
        return ()

    def initial_state(self, game: Game, choice: JsonValue = None) -> JsonValue:
        """The module's state at deployment, given its deployment choice (``None``: not made)."""
        return None

    def pending_choice(self, game: Game, state: CampaignState) -> DeploymentChoice | None:
        """The deployment choice ``state`` still waits for, if any."""
        return None

    def check_choice(self, game: Game, sides: Sequence[SideId], choice: JsonValue) -> str | None:
        """Why ``choice`` cannot be this module's deployment choice; ``None`` if it can."""
        return "this module has no deployment choice"

    def public_state(self, data: JsonValue, side: SideId | None) -> JsonValue:
        """The module's stored state ``data`` as ``side`` may see it (``None``: anyone),
        secrets left out; the default keeps no secret."""
        return data

    def upgrade(self, data: JsonValue) -> JsonValue:
        """The module's state brought to the current version (it carries ``"v"``)."""
        return data

    def begin_turn(self, game: Game, state: CampaignState, dice: Dice) -> JsonValue:
        """The module's state when a turn's orders window opens (cards dealt, pieces entering)."""
        return state.modules.get(self.name)

    def parse_order(self, data: dict[str, JsonValue]) -> ModuleOrder:
        """A module order from its ``data`` (as the command reads it), ``sector`` and
        ``claims_sector`` filled in from it."""
        return ModuleOrder(module=self.name, data=data)

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

    def departures(self, game: Game, side: SideId, orders: SideOrders) -> Mapping[SectorId, int]:
        """Armies this module's orders in ``orders`` take out of each sector at turn start (a
        transport): they fight there no more and do not stay, like a move's."""
        return {}

    def check_core_order(
        self,
        game: Game,
        state: CampaignState,
        side: SideId,
        order: CoreOrder,
        current: SideOrders,
    ) -> Rejection | None:
        """Refuse a core order the core accepts (a move out of a guarded sector ...).

        For a move the answer may depend on its source and destination, not on its count: the
        legal-orders listing asks once per destination."""
        return None

    def legal_options(
        self, game: Game, state: CampaignState, side: SideId, current: SideOrders
    ) -> tuple[ModuleOrder, ...]:
        """Every order of this module ``side`` may add to ``current`` now (each one accepted by
        :meth:`validate_order`)."""
        return ()

    def plan(self, work: PlanWork) -> None:
        """Add to the battle list: draw dice, add battles, record what the list shows."""

    def validate_late_order(
        self,
        game: Game,
        state: CampaignState,
        plan: BattlePlan,
        side: SideId,
        order: ModuleOrder,
        current: tuple[ModuleOrder, ...],
    ) -> Rejection | None:
        """Check an order given after the battle list (``current``: the side's late orders so
        far); ``None`` accepts it. By default the module has no late orders."""
        return Rejection(
            side=side,
            order=order,
            rule=OrderRule.MODULE_RULE,
            params={"module": self.name, "rule": "no_late_orders"},
        )

    def legal_late_options(
        self,
        game: Game,
        state: CampaignState,
        plan: BattlePlan,
        side: SideId,
        current: tuple[ModuleOrder, ...],
    ) -> tuple[ModuleOrder, ...]:
        """Every late order ``side`` may add to ``current`` now."""
        return ()

    def check_result(self, battle: Battle, data: JsonValue) -> str | None:
        """Why ``data`` (a result's ``modules[name]``) is wrong for ``battle``; ``None`` if not.
        By default a module takes no data with results."""
        return "this module takes no data with a battle result"

    def hooks(self) -> Sequence[StepHook]:
        """Resolution steps this module adds."""
        return ()

    def describe_rejection(self, rejection: Rejection) -> str | None:
        """English text for one of this module's rejections (the command's ``message``)."""
        return None

    def edit(
        self, game: Game, state: CampaignState, data: JsonValue, sides: Sequence[SideId]
    ) -> JsonValue:
        """The module's state after its part ``data`` of a GM's edit (a
        :class:`rules.edits.StateEdit`'s ``modules[name]``) is applied to ``state``; ``sides``
        are the campaign's sides in play. Raises :class:`EditError` with every problem; by
        default the module takes no edit."""
        raise EditError([module_edit_problem(self.name, "no_edits")])

    def map_figures(
        self,
        game: Game,
        data: JsonValue,
        turn: int,
        *,
        plan: JsonValue = None,
        notes: JsonValue = None,
    ) -> MapFigures | None:
        """This module's named figures on the map at the start of ``turn``
        (:mod:`rules.render.figures` draws them; ``None``: it has none): from its stored state
        ``data``, and for a map that shows a turn's moves, the module's part of that turn's
        battle list (``plan``) and of its resolution's report (``notes``). Only what anyone may
        see: the map is public."""
        return None


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


class ModuleSettingsError(ValueError):
    """A module's settings do not fit its ``Settings`` model."""

    def __init__(self, module: str, error: ValidationError) -> None:
        self.module = module
        self.error = error
        parts = [
            ".".join(str(part) for part in issue["loc"]) + ": " + issue["msg"]
            for issue in error.errors()[:5]
        ]
        super().__init__(f"module_settings.{module}: " + "; ".join(parts))


class ModuleConflictError(ValueError):
    """Two enabled modules both replace one core step."""


class ModuleStateError(ValueError):
    """A module's state in a campaign state is missing, of an unknown version or malformed."""


class ModuleContractError(RuntimeError):
    """A module broke the extension point's contract (a bug in the module, not bad input)."""


_SETTINGS_KEPT = 256
_settings_cache: dict[tuple[type[BaseModel], str], BaseModel] = {}


def _validated_settings(model: type[BaseModel], raw: Mapping[str, JsonValue]) -> BaseModel:
    """``raw`` validated as ``model``, the same object for the same input: the bot makes a
    :class:`Game` for almost every update and post, and validating a module's settings (its
    defaults deep-copied, its lists checked) was most of that. Shared only when the model
    is frozen (every built-in module's is) and nothing changes a validated one; the key is the
    canonical JSON of the input, so equal input gets the equal answer it got before. A failed
    validation is not kept (it raises again)."""
    if not model.model_config.get("frozen"):  # a mutable model is not shared
        return model.model_validate(raw)
    try:
        key = (model, json.dumps(raw, sort_keys=True, separators=(",", ":")))
    except (TypeError, ValueError):  # not JSON: validate it every time
        return model.model_validate(raw)
    found = _settings_cache.get(key)
    if found is None:
        found = model.model_validate(raw)
        if len(_settings_cache) >= _SETTINGS_KEPT:
            _settings_cache.clear()
        _settings_cache[key] = found
    return found


@dataclass(frozen=True)
class Game:
    """Map, ruleset and module implementations: everything fixed for a campaign's life.

    ``settings`` holds each enabled module's validated settings, by module name. ``memo`` lets a
    module keep what it derived from an input it was given, keyed by that input's identity
    (states are immutable), so that listing many orders does not parse one state many times;
    it never changes an answer.
    """

    map: CampaignMap
    ruleset: Ruleset = field(default_factory=Ruleset)
    modules: tuple[RulesModule, ...] = ()
    settings: Mapping[str, BaseModel] = field(default_factory=dict)
    memo: dict[str, tuple[object, object]] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    @classmethod
    def create(
        cls,
        campaign_map: CampaignMap,
        ruleset: Ruleset | None = None,
        available: Iterable[RulesModule] = (),
    ) -> Game:
        """A game whose modules are those ``ruleset.modules`` names, taken from ``available``.

        Raises :class:`UnknownModuleError`, :class:`ModuleSettingsError`,
        :class:`ModuleConflictError`, or :class:`rules.maps.MapError` when a module refuses the
        map.
        """
        ruleset = ruleset or Ruleset()
        by_name = {module.name: module for module in available}
        missing = [name for name in ruleset.modules if name not in by_name]
        if missing:
            raise UnknownModuleError(", ".join(missing))
        modules = tuple(by_name[name] for name in ruleset.modules)
        replaced: dict[Step, str] = {}
        for module in modules:
            for hook in module.hooks():
                if hook.when != "instead":
                    continue
                other = replaced.setdefault(hook.anchor, module.name)
                if other != module.name:
                    raise ModuleConflictError(
                        f"modules {other} and {module.name} both replace step {hook.anchor.value}"
                    )
        settings: dict[str, BaseModel] = {}
        for module in modules:
            try:
                settings[module.name] = _validated_settings(
                    module.Settings, ruleset.module_settings.get(module.name, {})
                )
            except ValidationError as error:
                raise ModuleSettingsError(module.name, error) from error
        game = cls(map=campaign_map, ruleset=ruleset, modules=modules, settings=settings)
        problems = [problem for module in modules for problem in module.check_map(game)]
        if problems:
            raise MapError(problems)
        return game

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

    def settings_of(self, name: str, model: type[SettingsT]) -> SettingsT:
        """The validated settings of module ``name`` as ``model``."""
        value = self.settings.get(name)
        if not isinstance(value, model):
            raise ModuleContractError(f"module {name} has no settings of type {model.__name__}")
        return value

    def hooks(self, anchor: Step, when: Literal["before", "after", "instead"]) -> list[StepHook]:
        """Module hooks for one point of the pipeline, in module order."""
        return [
            hook
            for module in self.modules
            for hook in module.hooks()
            if hook.anchor == anchor and hook.when == when
        ]

    def several_moves(self) -> bool:
        """True when an enabled module lets a side give several moves from one sector."""
        return any(module.several_moves_per_sector for module in self.modules)

    def moving_out(self, side: SideId, orders: SideOrders, sector: SectorId) -> int:
        """Armies ``orders`` take out of ``sector``: its moves (several where a module allows
        them) and the modules' departures (transports)."""
        moved = sum(move.count for move in orders.moves if move.source == sector)
        for module in self.modules:
            moved += module.departures(self, side, orders).get(sector, 0)
        return moved

    def uses_dice(self) -> bool:
        """True when an enabled module draws from the turn's seeds."""
        return any(module.uses_dice for module in self.modules)

    def pending_choices(self, state: CampaignState) -> tuple[DeploymentChoice, ...]:
        """The deployment choices ``state`` still waits for, in module order."""
        found = (module.pending_choice(self, state) for module in self.modules)
        return tuple(choice for choice in found if choice is not None)

    def upgraded(self, state: CampaignState) -> CampaignState:
        """``state`` with every enabled module's state brought to its current version."""
        if not self.modules:
            return state
        modules = dict(state.modules)
        for module in self.modules:
            modules[module.name] = module.upgrade(state.modules.get(module.name))
        if modules == state.modules:
            return state
        return state.model_copy(update={"modules": modules})
