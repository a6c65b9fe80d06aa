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

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aiogram import Router
from aiogram.types import InlineKeyboardButton

from bot.modules.protocol import BotModule, WizardButton, WizardChange, WizardRows

if TYPE_CHECKING:
    from pydantic import JsonValue

    from bot.handlers.group.gm import GmScreen
    from rules import CampaignMap, CampaignState
    from rules.maps import Feature
    from storage import Campaign, NewOutboxMessage, Store

# The hooks import the package's handlers when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class SiegeBotModule(BotModule):
    """The Midnight Siege behind the bot's extension point."""

    name = "siege"

    # hooks: hwizard

    def wizard_entry(self) -> str | None:
        from aiogram.utils.i18n import gettext as _

        return _("🏰 Midnight Siege")

    def wizard_summary_line(self, campaign: Campaign) -> str | None:
        from aiogram.utils.i18n import gettext as _

        from bot.modules.siege.handlers.wizard import siege_label

        return _("Midnight Siege: {siege}").format(siege=siege_label(campaign))

    def wizard_screen(
        self,
        campaign: Campaign,
        sides: Sequence[tuple[str, str]],
        step: str,
        button: WizardButton,
    ) -> tuple[str, WizardRows] | None:
        from bot.modules.siege.handlers.wizard import wizard_screen

        return wizard_screen(campaign, sides, step, button)

    def wizard_actions(self) -> Collection[str]:
        from bot.modules.siege.handlers.wizard import ACTION_STEPS

        return (*ACTION_STEPS, "sgp")

    def wizard_press(
        self, campaign: Campaign, sides: Sequence[str], action: str, value: str
    ) -> WizardChange | None:
        from bot.modules.siege.handlers.wizard import holder_step, siege_change, step_after

        if action == "sgp":
            step = holder_step(campaign, value)
            return None if step is None else WizardChange(step)
        changed = siege_change(campaign, action, value, sides)
        if changed is None:
            return None
        return WizardChange(step_after(campaign, action, value), overrides=changed)

    def wizard_fitted(
        self, overrides: dict[str, Any], new_map: CampaignMap, sides: Sequence[str]
    ) -> dict[str, Any]:
        from bot.modules.siege.setup import fitted

        return fitted(overrides, new_map, sides)

    def wizard_question(
        self, campaign: Campaign, action: str, value: str
    ) -> tuple[str, dict[str, JsonValue]] | None:
        from bot.modules.siege.handlers.wizard import question

        return question(campaign, action, value)

    def wizard_typed_fields(self) -> Collection[str]:
        from bot.modules.siege.handlers.wizard import TYPED_FIELDS

        return TYPED_FIELDS

    def wizard_ask_text(
        self, what: str, data: Mapping[str, JsonValue], campaign: Campaign, name: str
    ) -> str:
        from bot.modules.siege.handlers.wizard import ask_text

        return ask_text(what, dict(data), campaign, name)

    def wizard_typed_setting(
        self,
        campaign: Campaign,
        sides: Sequence[tuple[str, str]],
        field: str,
        data: Mapping[str, JsonValue],
        text: str,
    ) -> tuple[dict[str, Any] | None, str]:
        from bot.modules.siege.handlers.wizard import typed_siege

        return typed_siege(campaign, field, dict(data), text)

    def wizard_reads_owner(self, overrides: Mapping[str, Any], feature: Feature) -> bool:
        if self.name not in (overrides.get("modules") or ()) or feature.kind != "occult":
            return False
        stored = (overrides.get("module_settings") or {}).get(self.name) or {}
        return feature.id not in {token["id"] for token in stored.get("tokens") or ()}

    def wizard_next_step(
        self, campaign: Campaign, field: str, data: Mapping[str, JsonValue]
    ) -> str:
        from bot.modules.siege.handlers.wizard import NEXT_STEP, tokens_step

        if field == "setup.strength":
            return tokens_step(campaign, str(data.get("token", "")))
        return NEXT_STEP.get(field, self.name)

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
