"""Contact's bot side (MODULES.md C; the rules are ``rules.modules.contact``): ``setup`` (the
wizard's settings: defences, transports, the VP that win), ``orders`` (a side's groups, yields
and retreats as the orders screen edits them), ``texts`` (its orders, refusals, battle list and
summary in words). The shared bot reaches it through
:class:`ContactBotModule`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from aiogram.types import InlineKeyboardButton

from bot.modules.protocol import BotModule

if TYPE_CHECKING:
    from bot.handlers.private.callbacks import OrdersButton
    from bot.modules.protocol import DeskPress, Screen
    from bot.services.orders import Desk
    from rules import ModuleOrder, Move, Order

# The hooks import the package's screens when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class ContactBotModule(BotModule):
    """Contact behind the bot's extension point."""

    name = "contact"

    # hooks: horders

    def orders_desk_rows(self, desk: Desk) -> Sequence[list[InlineKeyboardButton]]:
        from bot.modules.contact.order_screens import home_rows

        return home_rows(desk)

    def orders_desk_press(
        self, desk: Desk, data: OrdersButton, names: Mapping[str, str]
    ) -> DeskPress | None:
        from bot.modules.contact.order_screens import press

        return press(desk, data, names)

    def orders_desk_after(
        self, before: Desk, after: Desk, order: Order | ModuleOrder, names: Mapping[str, str]
    ) -> Screen | None:
        from bot.modules.contact.order_screens import after as screen_after

        return screen_after(before, after, order, names)

    def orders_groups(self, desk: Desk) -> Sequence[Move | ModuleOrder] | None:
        from bot.modules.contact.order_screens import desk_groups

        return desk_groups(desk)

    def orders_sector_buttons(self, desk: Desk, sector: str) -> Sequence[InlineKeyboardButton]:
        from bot.modules.contact.order_screens import sector_buttons

        return sector_buttons(desk, sector)

    def orders_sector_short(self, desk: Desk, sector: str) -> str | None:
        from bot.modules.contact.order_screens import sector_short

        return sector_short(desk, sector)

    def orders_leaving(self, desk: Desk, sector: str) -> Sequence[ModuleOrder]:
        from bot.modules.contact.order_screens import leaving

        return leaving(desk, sector)
