"""The Midnight Siege's bot side (MODULES.md S; the rules are ``rules.modules.siege``):
``setup`` (the wizard's settings: tokens, weather-control sectors, weather states, cards and
rewards), ``texts`` (its orders, refusals, battle list, Monday summary and adjustments in words),
``screens`` (the weather's buttons, the late window's cards), ``reward_screens`` and ``rewards``
(the VP spent on rewards when the campaign finishes), ``gm`` (a GM carries out a card's
effect), ``cards`` (the GMs' notes on the cards played) and ``handlers/``: ``wizard`` (the
wizard's siege step), ``gm`` (the typed card effect), ``private`` (the starting weather, the
reward claim) and ``late`` (the cards played after the battles). The shared bot reaches it
through :class:`SiegeBotModule`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from aiogram import Router
from aiogram.types import InlineKeyboardButton, Message

from bot.modules.protocol import BotModule

if TYPE_CHECKING:
    from bot.handlers.private.callbacks import OrdersButton
    from bot.modules.protocol import DeskPress, Screen
    from bot.services.orders import Desk
    from rules import ModuleOrder, Order
    from storage import Person, Store

# The hooks import the package's screens when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class SiegeBotModule(BotModule):
    """The Midnight Siege behind the bot's extension point."""

    name = "siege"

    # hooks: horders

    def private_routers(self) -> Sequence[Router]:
        from bot.modules.siege.handlers import late, private

        return (private.build(), late.build())

    def orders_desk_rows(self, desk: Desk) -> Sequence[list[InlineKeyboardButton]]:
        from bot.modules.siege.order_screens import home_rows

        return home_rows(desk)

    def orders_desk_press(
        self, desk: Desk, data: OrdersButton, names: Mapping[str, str]
    ) -> DeskPress | None:
        from bot.modules.siege.order_screens import press

        return press(desk, data, names)

    def orders_desk_after(
        self, before: Desk, after: Desk, order: Order | ModuleOrder, names: Mapping[str, str]
    ) -> Screen | None:
        from bot.modules.siege.order_screens import after as screen_after

        return screen_after(before, after, order, names)

    async def read_typed(self, message: Message, store: Store, person: Person) -> bool:
        from bot.modules.siege.handlers.private import typed_claim

        return await typed_claim(message, store, person)

    def orders_sector_short(self, desk: Desk, sector: str) -> str | None:
        from bot.modules.siege.order_screens import sector_short

        return sector_short(desk, sector)
