"""``siege`` orders (MODULES.md S3): assault, guard, steer, play_card, and their rule codes.

Each order is a :class:`rules.ModuleOrder` with ``module="siege"`` and ``data`` holding
``"order"`` (its kind) and its fields. Build them with :func:`assault`, :func:`guard`,
:func:`steer` and :func:`play_card`, which also set the order's sector fields: an assault and a
steer are their sector's order; a guard is given for its ``from`` sector but does not claim it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

from rules.maps import SectorId
from rules.modules.siege.state import NAME
from rules.orders import ModuleOrder, ModuleOrderError

_DATA = ConfigDict(frozen=True, extra="forbid")


class SiegeRule(StrEnum):
    """Why ``siege`` refuses an order (``Rejection.params["rule"]``; params named per member)."""

    BAD_ORDER = "bad_order"  # detail
    NOT_A_STORMER = "not_a_stormer"
    NOT_A_DEFENDER = "not_a_defender"
    UNKNOWN_TOKEN = "unknown_token"  # token
    TOKEN_NOT_IN_SECTOR = "token_not_in_sector"  # token, sector, token_sector
    OWN_TOKEN = "own_token"  # token
    NO_FORCE = "no_force"  # sector
    SECTOR_HAS_ORDER = "sector_has_order"  # sector
    BAD_REWARD = "bad_reward"  # token, reward
    OUT_OF_RANGE = "out_of_range"  # token, from, distance, range
    GUARD_FROM_MOVING = "guard_from_moving"  # token, from
    GUARD_FROM_STEERING = "guard_from_steering"  # token, from
    SECOND_GUARD = "second_guard"  # token
    GUARD_OWN_ASSAULT = "guard_own_assault"  # token
    NOT_WEATHER_CONTROL = "not_weather_control"  # sector
    STEER_LIMIT = "steer_limit"  # limit
    NOT_YOUR_CARD = "not_your_card"  # token
    CARD_TAPPED = "card_tapped"  # token
    SECOND_CARD_IN_WINDOW = "second_card_in_window"  # window, token (of the card kept)
    WRONG_WINDOW = "wrong_window"  # window (the window open now)


class AssaultData(BaseModel):
    """Assault ``token`` in ``sector`` with the side's force there; ``reward`` if it falls."""

    model_config = _DATA

    order: Literal["assault"]
    sector: SectorId
    token: str
    reward: Literal["vp", "weather"] = "vp"


class GuardData(BaseModel):
    """Stand ready to defend ``token`` with the force in ``from``."""

    model_config = _DATA

    order: Literal["guard"]
    token: str
    source: SectorId = Field(alias="from")


class SteerData(BaseModel):
    """Move the weather one step with the force in the weather-control ``sector``."""

    model_config = _DATA

    order: Literal["steer"]
    sector: SectorId


class PlayCardData(BaseModel):
    """Play the card of occult ``token`` in ``window`` (``before`` the battles, or ``after``)."""

    model_config = _DATA

    order: Literal["play_card"]
    token: str
    window: Literal["before", "after"]


SiegeOrderData = Annotated[
    AssaultData | GuardData | SteerData | PlayCardData, Field(discriminator="order")
]
_ADAPTER: TypeAdapter[AssaultData | GuardData | SteerData | PlayCardData] = TypeAdapter(
    SiegeOrderData
)


ORDER_KINDS = ("assault", "guard", "steer", "play_card")


class OrderDataError(ModuleOrderError):
    """The data of a siege order does not fit any order kind."""


def parse_data(data: dict[str, JsonValue]) -> AssaultData | GuardData | SteerData | PlayCardData:
    """The typed order in ``data``; raises :class:`OrderDataError` with the first problem."""
    kind = data.get("order")
    if kind not in ORDER_KINDS:
        raise OrderDataError(f"order: {kind!r} is not one of {', '.join(ORDER_KINDS)}")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as error:
        issue = error.errors()[0]
        where = ".".join(str(part) for part in issue["loc"])
        raise OrderDataError(f"{where}: {issue['msg']}" if where else issue["msg"]) from error


def sector_fields(
    typed: AssaultData | GuardData | SteerData | PlayCardData,
) -> tuple[str | None, bool]:
    """``(sector, claims_sector)`` of a siege order."""
    match typed:
        case AssaultData() | SteerData():
            return typed.sector, True
        case GuardData():
            return typed.source, False
        case PlayCardData():
            return None, False


def module_order(data: dict[str, JsonValue]) -> ModuleOrder:
    """A siege :class:`ModuleOrder` for ``data``, its sector fields set when ``data`` is good."""
    try:
        sector, claims = sector_fields(parse_data(data))
    except OrderDataError:
        return ModuleOrder(module=NAME, data=data)
    return ModuleOrder(module=NAME, data=data, sector=sector, claims_sector=claims)


def assault(sector: SectorId, token: str, reward: Literal["vp", "weather"] = "vp") -> ModuleOrder:
    """Order: assault ``token`` in ``sector``."""
    return module_order({"order": "assault", "sector": sector, "token": token, "reward": reward})


def guard(token: str, source: SectorId) -> ModuleOrder:
    """Order: guard ``token`` with the force in ``source``."""
    return module_order({"order": "guard", "token": token, "from": source})


def steer(sector: SectorId) -> ModuleOrder:
    """Order: steer the weather from ``sector``."""
    return module_order({"order": "steer", "sector": sector})


def play_card(token: str, window: Literal["before", "after"]) -> ModuleOrder:
    """Order: play the card of ``token`` in ``window``."""
    return module_order({"order": "play_card", "token": token, "window": window})
