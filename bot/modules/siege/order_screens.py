"""The Midnight Siege's part of the orders desk (``bot.handlers.private.orders``): its button on
the home screen, its screen (the assaults, guards, steering and cards the side may give, each
given one to take back), the orders its buttons give, and its claim's mark on a sector's
button."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot.handlers.private.callbacks import OrdersButton
from bot.handlers.private.screens import button, language, orders_button
from bot.modules.protocol import DeskPress, Screen
from bot.modules.siege.typed import siege_tokens
from bot.services.orders import Desk
from bot.texts.core import describe_order
from rules import Fortify, ModuleOrder, Order
from rules.modules import siege
from rules.modules.siege import NAME as SIEGE

Names = Mapping[str, str]

SIEGE_ACTIONS = ("sa", "sd", "ss", "sc")
"""Siege buttons: assault (``arg`` token, ``to`` 1 for the weather reward), guard (``sector``
the guarding sector, ``arg`` token), steer (``sector``), card (``arg`` token, ``to`` 1 after)."""


def siege_token_ids(desk: Desk) -> list[str]:
    """The siege tokens of the turn start, in state order (buttons name them by index)."""
    return list(siege_tokens(desk.state.modules))


def siege_button(desk: Desk, order: ModuleOrder) -> str | None:
    """The button data that gives ``order``; ``None`` if it is not a siege order."""
    data = order.data
    tokens = siege_token_ids(desk)
    token = tokens.index(str(data["token"])) if data.get("token") in tokens else -1
    match data.get("order"):
        case "assault":
            weather = 1 if data.get("reward") == "weather" else 0
            return orders_button(desk, "sa", str(data["sector"]), arg=token, to=weather)
        case "guard":
            return orders_button(desk, "sd", str(data["from"]), arg=token)
        case "steer":
            return orders_button(desk, "ss", str(data["sector"]))
        case "play_card":
            return orders_button(
                desk, "sc", arg=token, to=1 if data.get("window") == "after" else 0
            )
    return None


def siege_screen(desk: Desk, names: Names) -> Screen:
    """The side's siege orders now, a button for every siege order it may add, and one to take
    back each it gave."""
    map_ = desk.game.map
    given = [
        describe_order(order, map_, names, language())
        for order in desk.orders.extra
        if order.module == SIEGE
    ]
    lines = [
        _("🏰 Siege orders for turn {turn}.").format(turn=desk.turn),
        *(f"• {line}" for line in given),
    ]
    if not given:
        lines.append(_("None given yet."))
    offered = desk.listing().modules.get(SIEGE, ())
    lines.append(
        _("Add one below; an assault or steering is its sector's order for the turn.")
        if offered
        else _("No other siege order is possible now.")
    )
    rows: list[list[InlineKeyboardButton]] = []
    for order in offered:
        data = siege_button(desk, order)
        if data is not None:
            rows.append([button(describe_order(order, map_, names, language()), data)])
    for index, order in enumerate(desk.orders.extra):
        if order.module != SIEGE:
            continue
        words = describe_order(order, map_, names, language())
        if order.claims_sector and order.sector is not None:
            data = orders_button(desk, "fo", order.sector)
        else:
            data = orders_button(desk, "sx", arg=index)
        rows.append([button(_("✖ {order}").format(order=words), data)])
    rows.append([button(_("◀ Back"), orders_button(desk, "home"))])
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)


def home_rows(desk: Desk) -> list[list[InlineKeyboardButton]]:
    """The home screen's button to the siege screen, while the side may give or has given a
    siege order."""
    if desk.listing().modules.get(SIEGE) or any(o.module == SIEGE for o in desk.orders.extra):
        return [[button(_("🏰 Siege orders"), orders_button(desk, "sg"))]]
    return []


def _sector(desk: Desk, index: int) -> str | None:
    sectors = desk.game.map.sector_ids()
    return sectors[index] if 0 <= index < len(sectors) else None


def order_of(desk: Desk, data: OrdersButton) -> ModuleOrder | None:
    """The siege order a siege button gives (:data:`SIEGE_ACTIONS`), or ``None``."""
    tokens = siege_token_ids(desk)
    token = tokens[data.arg] if 0 <= data.arg < len(tokens) else None
    sector = _sector(desk, data.sector)
    match data.action:
        case "sa" if token is not None and sector is not None and data.to in (0, 1):
            return siege.assault(sector, token, "weather" if data.to == 1 else "vp")
        case "sd" if token is not None and sector is not None:
            return siege.guard(token, sector)
        case "ss" if sector is not None:
            return siege.steer(sector)
        case "sc" if token is not None and data.to in (0, 1):
            return siege.play_card(token, "after" if data.to == 1 else "before")
    return None


def press(desk: Desk, data: OrdersButton, names: Names) -> DeskPress | None:
    """A siege button on the desk: its screen (``sg``), an order given, or a guard or card
    taken back (``sx``, ``arg`` its index in the set's module orders)."""
    if data.action in SIEGE_ACTIONS:
        order = order_of(desk, data)
        return DeskPress() if order is None else DeskPress(give=order)
    match data.action:
        case "sg":
            return DeskPress(show=siege_screen(desk, names))
        case "sx":
            return DeskPress(drop=data.arg, then=siege_screen)
    return None


def after(before: Desk, desk: Desk, order: Order | ModuleOrder, names: Names) -> Screen | None:
    """The siege screen after a siege order, or after a sector its siege order claimed was
    set back to fortify."""
    if isinstance(order, ModuleOrder):
        return siege_screen(desk, names) if order.module == SIEGE else None
    if isinstance(order, Fortify):
        claim = before.orders.module_order_in(order.sector)
        if claim is not None and claim.module == SIEGE:
            return siege_screen(desk, names)
    return None


def sector_short(desk: Desk, sector: str) -> str | None:
    """A sector claimed by a siege order (and not attacking): its token, or the wind."""
    claim = desk.orders.module_order_in(sector)
    if claim is None or claim.module != SIEGE or desk.orders.attacks_in(sector):
        return None
    token = claim.data.get("token")
    return f"🏰 {token}" if token is not None else "🌬"
