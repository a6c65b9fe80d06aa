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
from aiogram.types import InlineKeyboardButton

from bot.modules.protocol import BotModule

if TYPE_CHECKING:
    from bot.handlers.group.gm import GmScreen
    from rules import CampaignState
    from storage import Campaign, NewOutboxMessage, Store

# The hooks import the package's handlers when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class SiegeBotModule(BotModule):
    """The Midnight Siege behind the bot's extension point."""

    name = "siege"

    # hooks: hgroup

    def gm_panel_edit_rows(self, campaign: Campaign) -> Sequence[list[InlineKeyboardButton]]:
        from bot.modules.siege.gm_panel import edit_rows

        return edit_rows(campaign)

    def gm_panel_screens(self) -> Mapping[str, GmScreen]:
        from bot.modules.siege.gm_panel import SCREENS

        return SCREENS

    def gm_answer_routers(self) -> Sequence[Router]:
        from bot.modules.siege.handlers import gm

        return (gm.build(),)

    def gm_help_tools(self) -> Sequence[tuple[str, str]]:
        from bot.modules.siege.gm_panel import help_tools

        return help_tools()

    async def finished_posts(
        self, store: Store, campaign: Campaign, state: CampaignState, key: str
    ) -> Sequence[NewOutboxMessage]:
        from bot.modules.siege.rewards import reward_posts

        return await reward_posts(store, campaign, state, key)

    def pending_choice_words(self) -> str | None:
        from bot.modules.siege.gm_panel import weather_pending

        return weather_pending()
