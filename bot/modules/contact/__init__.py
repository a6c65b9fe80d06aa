"""Contact's bot side (MODULES.md C; the rules are ``rules.modules.contact``): ``setup`` (the
wizard's settings: defences, transports, the VP that win), ``handlers/wizard`` (the wizard's
contact screens), ``orders`` (a side's groups, yields
and retreats as the orders screen edits them), ``texts`` (its orders, refusals, battle list and
summary in words). The shared bot reaches it through
:class:`ContactBotModule`."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bot.modules.protocol import BotModule, WizardButton, WizardChange, WizardRows

if TYPE_CHECKING:
    from rules import CampaignMap
    from rules.maps import Feature
    from storage import Campaign

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
