"""``watch`` orders (MODULES.md W5, W6): hero moves, duel steps, and their rule codes.

Each order is a :class:`rules.ModuleOrder` with ``module="watch"`` and ``data`` holding
``"order"`` (its kind) and its fields; neither claims a sector (a hero's move is not its
sector's order, armies there keep theirs). Build them with :func:`hero_move` (orders window;
one per hero, the last given counts) and :func:`duel_step` (a late order, after the list; one
per hero; no plays: nothing played).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

from rules.maps import SectorId
from rules.modules.watch.settings import MAX_HAND
from rules.modules.watch.state import NAME
from rules.orders import ModuleOrder, ModuleOrderError, SideOrders, typed_module_orders

_DATA = ConfigDict(frozen=True, extra="forbid")


class WatchRule(StrEnum):
    """Why ``watch`` refuses an order (``Rejection.params["rule"]``; params named per member;
    every rule names its ``hero``)."""

    BAD_ORDER = "bad_order"  # detail
    UNKNOWN_HERO = "unknown_hero"  # hero
    NOT_YOUR_HERO = "not_your_hero"  # hero
    HERO_DEAD = "hero_dead"  # hero
    HERO_NOT_IN_PLAY = "hero_not_in_play"  # hero, enters_turn
    HERO_MOVE_NOT_ADJACENT = "hero_move_not_adjacent"  # hero, sector, to
    NOT_IN_DUEL = "not_in_duel"  # hero, sector
    CARD_NOT_IN_HAND = "card_not_in_hand"  # hero, card
    TARGET_NOT_IN_SECTOR = "target_not_in_sector"  # hero, target, sector
    NOT_YOUR_STEP = "not_your_step"  # hero (the bot's step order, initiative mode)
    STEP_ALREADY_PLAYED = "step_already_played"  # hero


class HeroMoveData(BaseModel):
    """Move ``hero`` to the adjacent location ``to``."""

    model_config = _DATA

    order: Literal["hero_move"]
    hero: str
    to: SectorId


class Play(BaseModel):
    """One spell of a step: ``card`` from the hand laid on the hero ``target``."""

    model_config = _DATA

    card: str
    target: str


class DuelStepData(BaseModel):
    """``hero``'s duel step: its ``plays`` in the order laid (none: nothing played)."""

    model_config = _DATA

    order: Literal["duel_step"]
    hero: str
    plays: tuple[Play, ...] = Field(default=(), max_length=MAX_HAND)


WatchOrderData = Annotated[HeroMoveData | DuelStepData, Field(discriminator="order")]
_ADAPTER: TypeAdapter[HeroMoveData | DuelStepData] = TypeAdapter(WatchOrderData)
ORDER_KINDS = ("hero_move", "duel_step")


class OrderDataError(ModuleOrderError):
    """The data of a watch order does not fit any order kind."""


def parse_data(data: Mapping[str, JsonValue]) -> HeroMoveData | DuelStepData:
    """The typed order in ``data``; raises :class:`OrderDataError` with the first problem."""
    kind = data.get("order")
    if kind not in ORDER_KINDS:
        raise OrderDataError(f"order: {kind!r} is not one of {', '.join(ORDER_KINDS)}")
    try:
        return _ADAPTER.validate_python(dict(data))
    except ValidationError as error:
        issue = error.errors()[0]
        where = ".".join(str(part) for part in issue["loc"])
        raise OrderDataError(f"{where}: {issue['msg']}" if where else issue["msg"]) from error


def module_order(data: dict[str, JsonValue]) -> ModuleOrder:
    """A watch :class:`ModuleOrder` for ``data`` (watch orders claim no sector)."""
    return ModuleOrder(module=NAME, data=data)


def hero_move(hero: str, to: SectorId) -> ModuleOrder:
    """Order (orders window): move ``hero`` to the adjacent location ``to``."""
    return module_order({"order": "hero_move", "hero": hero, "to": to})


def duel_step(hero: str, plays: Iterable[tuple[str, str]] = ()) -> ModuleOrder:
    """Late order: ``hero``'s duel step, laying each ``(card, target)`` of ``plays`` in order."""
    return module_order(
        {
            "order": "duel_step",
            "hero": hero,
            "plays": [{"card": card, "target": target} for card, target in plays],
        }
    )


def without_hero_move(current: SideOrders, hero: str) -> SideOrders:
    """``current`` without any move of ``hero``: the bot enters a new move onto this, so a
    side's orders keep one move per hero (the plan counts the last one anyway)."""
    kept = tuple(
        order
        for order in current.extra
        if not (
            order.module == NAME
            and order.data.get("order") == "hero_move"
            and order.data.get("hero") == hero
        )
    )
    return current.model_copy(update={"extra": kept})


def typed_orders(orders: Iterable[ModuleOrder]) -> list[HeroMoveData | DuelStepData]:
    """The watch orders among ``orders``, typed (orders that do not parse are skipped)."""
    return typed_module_orders(orders, NAME, parse_data)
