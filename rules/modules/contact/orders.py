"""``contact`` orders (MODULES.md C3): transport, yield, retreat_to, and their rule codes.

Moves are the core's ``move`` orders, several allowed from one sector (A2.6). Each module order
is a :class:`rules.ModuleOrder` with ``module="contact"`` and ``data`` holding ``"order"`` (its
kind) and its fields; build them with :func:`transport`, :func:`yield_sector` and
:func:`retreat_to`. None of them is its sector's order (``claims_sector`` stays false).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

from rules.maps import SectorId
from rules.modules.contact.state import NAME
from rules.orders import ModuleOrder, ModuleOrderError

_DATA = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class ContactRule(StrEnum):
    """Why ``contact`` refuses an order (``Rejection.params["rule"]``; params named per member)."""

    BAD_ORDER = "bad_order"  # detail
    UNKNOWN_SECTOR = "unknown_sector"  # sector
    NO_FORCE = "no_force"  # sector
    BOUND_BY_COMBAT = "bound_by_combat"  # sector
    PATH_NOT_ADJACENT = "path_not_adjacent"  # sector, to
    PATH_TOO_LONG = "path_too_long"  # length, range
    TRANSPORT_LIMIT = "transport_limit"  # limit
    OVER_CAPACITY = "over_capacity"  # count, capacity
    EXHAUSTED_TRANSPORT = "exhausted_transport"  # sector, count, fresh
    MOVE_COUNT_OUT_OF_RANGE = "move_count_out_of_range"  # sector, count, min, max
    MOVE_AND_ATTACK_IN_SECTOR = "move_and_attack_in_sector"  # sector
    SECTOR_HAS_ORDER = "sector_has_order"  # sector
    SECOND_YIELD = "second_yield"  # sector
    RETREAT_NOT_ADJACENT = "retreat_not_adjacent"  # sector, to
    RETREAT_REPEATED = "retreat_repeated"  # sector, to
    SECOND_RETREAT_TO = "second_retreat_to"  # sector


class TransportData(BaseModel):
    """Carry ``count`` fresh armies from ``from`` along ``path`` (1 to ``transport_range``
    sectors, each adjacent to the one before). ``rank`` places the group in the side's list of
    groups (1 = first; ``None``: before the moves)."""

    model_config = _DATA

    order: Literal["transport"]
    source: SectorId = Field(alias="from")
    path: tuple[SectorId, ...] = Field(min_length=1)
    count: int
    rank: int | None = Field(default=None, ge=1, le=100)


class YieldData(BaseModel):
    """Give up ``sector`` before its chain of battles: retreat instead of defending it."""

    model_config = _DATA

    order: Literal["yield"]
    sector: SectorId


class RetreatToData(BaseModel):
    """Where armies retreating out of ``sector`` go first, in order (standing until replaced);
    an empty ``to`` forgets the standing preference (the default rule of C7 applies)."""

    model_config = _DATA

    order: Literal["retreat_to"]
    sector: SectorId
    to: tuple[SectorId, ...] = Field(max_length=10)


ContactOrderData = TransportData | YieldData | RetreatToData
_ADAPTER: TypeAdapter[ContactOrderData] = TypeAdapter(
    Annotated[ContactOrderData, Field(discriminator="order")]
)
ORDER_KINDS = ("transport", "yield", "retreat_to")


class OrderDataError(ModuleOrderError):
    """The data of a contact order does not fit any order kind."""


def parse_data(data: dict[str, JsonValue]) -> ContactOrderData:
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


def sector_of(typed: ContactOrderData) -> SectorId:
    """The sector a contact order is given for."""
    return typed.source if isinstance(typed, TransportData) else typed.sector


def module_order(data: dict[str, JsonValue]) -> ModuleOrder:
    """A contact :class:`ModuleOrder` for ``data``, its sector set when ``data`` is good."""
    try:
        sector = sector_of(parse_data(data))
    except OrderDataError:
        return ModuleOrder(module=NAME, data=data)
    return ModuleOrder(module=NAME, data=data, sector=sector)


def transport(
    source: SectorId,
    path: tuple[SectorId, ...] | list[SectorId],
    count: int,
    rank: int | None = None,
) -> ModuleOrder:
    """Order: carry ``count`` armies from ``source`` along ``path``."""
    data: dict[str, JsonValue] = {
        "order": "transport",
        "from": source,
        "path": list(path),
        "count": count,
    }
    if rank is not None:
        data["rank"] = rank
    return module_order(data)


def yield_sector(sector: SectorId) -> ModuleOrder:
    """Order: give up ``sector`` rather than defend it."""
    return module_order({"order": "yield", "sector": sector})


def retreat_to(sector: SectorId, to: tuple[SectorId, ...] | list[SectorId]) -> ModuleOrder:
    """Order: armies retreating out of ``sector`` go to ``to`` first, in order."""
    return module_order({"order": "retreat_to", "sector": sector, "to": list(to)})
