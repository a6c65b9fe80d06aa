"""Orders a side gives for a turn, and the record of an order that was refused."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, JsonValue

from rules.fields import unset
from rules.maps import SectorId
from rules.state import SideId

_ORDER = ConfigDict(frozen=True, extra="forbid")


class Move(BaseModel):
    """Move ``count`` armies from ``source`` to the adjacent sector ``to``."""

    model_config = _ORDER

    kind: Literal["move"] = Field(default="move")
    source: SectorId = Field(
        validation_alias=AliasChoices("from", "source"), serialization_alias="from"
    )
    to: SectorId
    count: int

    @property
    def sector(self) -> SectorId:
        """The sector this order is for."""
        return self.source


class Attack(BaseModel):
    """Attack side ``target`` in ``sector``: one battle."""

    model_config = _ORDER

    kind: Literal["attack"] = Field(default="attack")
    sector: SectorId
    target: SideId


class Fortify(BaseModel):
    """Fortify ``sector``: clears any move or attack given there (it is also the default)."""

    model_config = _ORDER

    kind: Literal["fortify"] = Field(default="fortify")
    sector: SectorId


class Reinforce(BaseModel):
    """Ask for the turn's orbital reinforcement in ``sector``."""

    model_config = _ORDER

    kind: Literal["reinforce"] = Field(default="reinforce")
    sector: SectorId


class ModuleOrder(BaseModel):
    """An order of an optional rules module: ``module`` names it, ``data`` is the module's own.

    ``sector`` is the sector the order is given for, if any; with ``claims_sector`` the order is
    that sector's order (like a move or attacks): it cannot stand beside a move out of or attacks
    in the sector, and the sector does not fortify. The module sets both from ``data``
    (:meth:`rules.game.RulesModule.parse_order`) and refuses an order whose fields disagree.
    """

    model_config = _ORDER

    kind: Literal["module"] = Field(default="module")
    module: str
    data: dict[str, JsonValue]
    sector: SectorId | None = Field(default=None, exclude_if=unset)
    claims_sector: bool = Field(default=False, exclude_if=unset)

    def claims(self, sector: SectorId) -> bool:
        """True when this order is ``sector``'s order."""
        return self.claims_sector and self.sector == sector


Order = Annotated[Move | Attack | Fortify | Reinforce | ModuleOrder, Field(discriminator="kind")]


class SideOrders(BaseModel):
    """Everything one side ordered for a turn. Sectors with no move or attack fortify."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    moves: tuple[Move, ...] = ()
    attacks: tuple[Attack, ...] = ()
    reinforce: SectorId | None = None
    extra: tuple[ModuleOrder, ...] = ()

    def move_from(self, sector: SectorId) -> Move | None:
        """The (first) move out of ``sector``, if any."""
        return next((move for move in self.moves if move.source == sector), None)

    def attacks_in(self, sector: SectorId) -> tuple[Attack, ...]:
        """Attacks declared in ``sector``, in declaration order."""
        return tuple(attack for attack in self.attacks if attack.sector == sector)

    def module_order_in(self, sector: SectorId) -> ModuleOrder | None:
        """The module order that is ``sector``'s order (an assault, a steer ...), if any."""
        return next((order for order in self.extra if order.claims(sector)), None)

    def is_fortifying(self, sector: SectorId) -> bool:
        """True when the side neither moves out of nor attacks in ``sector``, and no module
        order is that sector's order."""
        return (
            self.move_from(sector) is None
            and not self.attacks_in(sector)
            and self.module_order_in(sector) is None
        )

    def without_sector(self, sector: SectorId) -> SideOrders:
        """These orders with ``sector`` back to fortify (a module order claiming it goes too)."""
        return self.model_copy(
            update={
                "moves": tuple(move for move in self.moves if move.source != sector),
                "attacks": tuple(attack for attack in self.attacks if attack.sector != sector),
                "extra": tuple(order for order in self.extra if not order.claims(sector)),
            }
        )

    def without_move(self, sector: SectorId) -> SideOrders:
        """These orders without the move out of ``sector`` and without a module order claiming
        it (its attacks kept): what an attack there replaces."""
        return self.model_copy(
            update={
                "moves": tuple(move for move in self.moves if move.source != sector),
                "extra": tuple(order for order in self.extra if not order.claims(sector)),
            }
        )

    def without_extra(self, order: ModuleOrder) -> SideOrders:
        """These orders without the module order ``order`` (every equal copy of it)."""
        return self.model_copy(update={"extra": tuple(o for o in self.extra if o != order)})

    def with_order(self, order: Move | Attack | Fortify | Reinforce | ModuleOrder) -> SideOrders:
        """These orders plus ``order``, added as it is (no validation: see ``rules.validation``)."""
        match order:
            case Move():
                return self.model_copy(update={"moves": (*self.moves, order)})
            case Attack():
                return self.model_copy(update={"attacks": (*self.attacks, order)})
            case Fortify():
                return self.without_sector(order.sector)
            case Reinforce():
                return self.model_copy(update={"reinforce": order.sector})
            case ModuleOrder():
                return self.model_copy(update={"extra": (*self.extra, order)})

    def as_json(self) -> dict[str, Any]:
        """The Appendix A shape of these orders."""
        data: dict[str, Any] = {
            "moves": [order_json(move) for move in self.moves],
            "attacks": [order_json(attack) for attack in self.attacks],
            "reinforce": self.reinforce,
        }
        if self.extra:
            data["modules"] = [order_json(order) for order in self.extra]
        return data


def order_json(order: Move | Attack | Fortify | Reinforce | ModuleOrder) -> dict[str, Any]:
    """An order in the Appendix A shape (``from`` for a move's source, no ``kind``); a module
    order as ``{module, data}``, its sector fields being derived from ``data``."""
    if isinstance(order, ModuleOrder):
        return order.model_dump(mode="json", include={"module", "data"})
    return order.model_dump(mode="json", by_alias=True, exclude={"kind"})


class OrderRule(StrEnum):
    """The rule an order breaks. ``Rejection.params`` carries the details named per member."""

    SIDE_NOT_IN_PLAY = "side_not_in_play"  # the side has no armies on the map
    UNKNOWN_SECTOR = "unknown_sector"  # sector
    NO_ARMIES_IN_SECTOR = "no_armies_in_sector"  # sector
    SECOND_MOVE_FROM_SECTOR = "second_move_from_sector"  # sector, to (of the move kept)
    MOVE_TO_SAME_SECTOR = "move_to_same_sector"  # sector
    MOVE_NOT_ADJACENT = "move_not_adjacent"  # sector, to
    MOVE_COUNT_OUT_OF_RANGE = "move_count_out_of_range"  # sector, count, min, max
    MOVE_AND_ATTACK_IN_SECTOR = "move_and_attack_in_sector"  # sector, to (of the move)
    ATTACK_OWN_SIDE = "attack_own_side"  # sector
    UNKNOWN_SIDE = "unknown_side"  # target
    ATTACK_WITHOUT_OPPONENT = "attack_without_opponent"  # sector, target
    ATTACK_LIMIT_EXCEEDED = "attack_limit_exceeded"  # sector, armies, limit
    REINFORCE_WITHOUT_ARMIES = "reinforce_without_armies"  # sector
    UNKNOWN_MODULE = "unknown_module"  # module
    MODULE_RULE = "module_rule"  # module, rule, and the module's own parameters
    SECTOR_HAS_MODULE_ORDER = "sector_has_module_order"  # sector, module (of the order kept)
    DEPLOY_UNKNOWN_SECTOR = "deploy_unknown_sector"  # sector
    DEPLOY_SECTOR_EMPTY = "deploy_sector_empty"  # sector, count
    DEPLOY_WRONG_TOTAL = "deploy_wrong_total"  # total, required
    DEPLOY_WRONG_SECTOR_COUNT = "deploy_wrong_sector_count"  # sectors, required


class Rejection(BaseModel):
    """An order refused: which side, the order as given, the rule it breaks and its details."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    side: SideId
    order: Order | None = None
    rule: OrderRule
    params: dict[str, str | int] = Field(default_factory=dict)


class ModuleOrderError(ValueError):
    """A module order's data that does not fit any of the module's order kinds."""


Typed = TypeVar("Typed")


def typed_module_orders(
    orders: Iterable[ModuleOrder],
    module: str,
    parse: Callable[[dict[str, JsonValue]], Typed],
) -> list[Typed]:
    """``module``'s orders among ``orders``, typed by ``parse`` (those it refuses with a
    :class:`ModuleOrderError` are skipped)."""
    typed: list[Typed] = []
    for order in orders:
        if order.module != module:
            continue
        try:
            typed.append(parse(order.data))
        except ModuleOrderError:
            continue
    return typed


def module_rejection(
    module: str, side: SideId, order: Order, rule: StrEnum, **params: str | int
) -> Rejection:
    """A ``module_rule`` rejection by ``module``: its ``rule`` and parameters."""
    return Rejection(
        side=side,
        order=order,
        rule=OrderRule.MODULE_RULE,
        params={"module": module, "rule": rule.value, **params},
    )
