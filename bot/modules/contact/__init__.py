"""Contact's bot side (MODULES.md C; the rules are ``rules.modules.contact``): ``setup`` (the
wizard's settings: defences, transports, the VP that win), ``handlers/wizard`` (the wizard's
contact screens), ``orders`` (a side's groups, yields
and retreats as the orders screen edits them), ``texts`` (its orders, refusals, battle list and
summary in words). The shared bot reaches it through
:class:`ContactBotModule`."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aiogram.types import InlineKeyboardButton

from bot.modules.protocol import BotModule, VictoryFix, WizardButton, WizardChange, WizardRows

if TYPE_CHECKING:
    from aiogram.types import Message
    from pydantic import JsonValue

    from bot.clock import Clock
    from bot.handlers.group.gm_state import GmStateScreen
    from rules import CampaignMap, CampaignState
    from rules.maps import Feature
    from storage import Campaign, Person, Store

# The hooks import the package's handlers when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class ContactBotModule(BotModule):
    """Contact behind the bot's extension point."""

    name = "contact"

    # hooks: hwizard

    def wizard_entry(self) -> str | None:
        from aiogram.utils.i18n import gettext as _

        return _("🧟 Contact")

    def wizard_summary_line(self, campaign: Campaign) -> str | None:
        from bot.modules.contact.handlers.wizard import contact_label

        return contact_label(campaign)

    def wizard_screen(
        self,
        campaign: Campaign,
        sides: Sequence[tuple[str, str]],
        step: str,
        button: WizardButton,
    ) -> tuple[str, WizardRows] | None:
        from bot.modules.contact.handlers.wizard import wizard_screen

        return wizard_screen(campaign, sides, step, button)

    def wizard_actions(self) -> Collection[str]:
        from bot.modules.contact.handlers.wizard import ACTIONS

        return ACTIONS

    def wizard_press(
        self, campaign: Campaign, sides: Sequence[str], action: str, value: str
    ) -> WizardChange | None:
        from bot.modules.contact.handlers.wizard import contact_change, owner_step

        if action == "cdp":
            step = owner_step(campaign, value)
            return None if step is None else WizardChange(step)
        changed = contact_change(campaign, action, value, sides)
        return None if changed is None else WizardChange(self.name, overrides=changed)

    def wizard_fitted(
        self, overrides: dict[str, Any], new_map: CampaignMap, sides: Sequence[str]
    ) -> dict[str, Any]:
        from bot.modules.contact.setup import fitted

        return fitted(overrides, new_map, sides)

    def wizard_reads_owner(self, overrides: Mapping[str, Any], feature: Feature) -> bool:
        from rules.modules.contact.settings import DEFENCES_KIND

        if self.name not in (overrides.get("modules") or ()) or feature.kind != DEFENCES_KIND:
            return False
        stored = (overrides.get("module_settings") or {}).get(self.name) or {}
        return feature.sector not in {spec.get("sector") for spec in stored.get("defences") or ()}

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
