"""Contact's bot side (MODULES.md C; the rules are ``rules.modules.contact``): ``setup`` (the
wizard's settings: defences, transports, the VP that win), ``orders`` (a side's groups, yields
and retreats as the orders screen edits them), ``texts`` (its orders, refusals, battle list and
summary in words). The shared bot reaches it through
:class:`ContactBotModule`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aiogram.types import InlineKeyboardButton

from bot.modules.protocol import BotModule, VictoryFix

if TYPE_CHECKING:
    from aiogram.types import Message
    from pydantic import JsonValue

    from bot.clock import Clock
    from bot.handlers.group.gm_state import GmStateScreen
    from rules import CampaignMap, CampaignState
    from storage import Campaign, Person, Store

# The hooks import the package's handlers when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class ContactBotModule(BotModule):
    """Contact behind the bot's extension point."""

    name = "contact"

    # hooks: hgroup

    def gm_state_rows(
        self, campaign: Campaign, state: CampaignState
    ) -> Sequence[list[InlineKeyboardButton]]:
        from bot.modules.contact.gm_state import state_rows

        return state_rows(campaign, state)

    def gm_state_screens(self) -> Mapping[str, GmStateScreen]:
        from bot.modules.contact.gm_state import SCREENS

        return SCREENS

    async def gm_state_reason(
        self,
        message: Message,
        store: Store,
        clock: Clock,
        person: Person,
        campaign: Campaign,
        data: Mapping[str, JsonValue],
        reason: str,
    ) -> bool:
        from bot.modules.contact.gm_state import typed_reason

        return await typed_reason(message, store, clock, person, campaign, data, reason)

    def describe_edit_problem(
        self, params: Mapping[str, str | int], campaign_map: CampaignMap, language: str
    ) -> str | None:
        from bot.modules.contact.gm_state import describe_edit_problem

        return describe_edit_problem(params, campaign_map, language)

    def victory_fix(self, overrides: Mapping[str, Any], sectors: int) -> VictoryFix | None:
        from bot.modules.contact.victory import victory_fix

        return victory_fix(overrides, sectors)
