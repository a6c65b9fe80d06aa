"""Contact's bot side (MODULES.md C; the rules are ``rules.modules.contact``): ``setup`` (the
wizard's settings: defences, transports, the VP that win), ``orders`` (a side's groups, yields
and retreats as the orders screen edits them), ``texts`` (its orders, refusals, battle list and
summary in words). The shared bot reaches it through
:class:`ContactBotModule`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bot.modules.protocol import BotModule

if TYPE_CHECKING:
    from pydantic import JsonValue

    from bot.demo_modules import DemoStory
    from bot.rules_text import RulesView
    from rules import CampaignMap, ModuleOrder

# The hooks import the package's code when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class ContactBotModule(BotModule):
    """Contact behind the bot's extension point."""

    name = "contact"

    # hooks: htexts

    def rules_button(self) -> str | None:
        from bot.modules.contact import rules_text

        return rules_text.button()

    def rules_lines(self, view: RulesView) -> Sequence[str]:
        from bot.modules.contact import rules_text

        return rules_text.rules_lines(view)

    def rules_victory_lines(self, view: RulesView) -> Sequence[str]:
        from bot.modules.contact import rules_text

        return rules_text.victory_lines(view)

    def demo_story(self) -> DemoStory | None:
        from bot.modules.contact.demo import STORY

        return STORY

    def describe_order(
        self,
        order: ModuleOrder,
        campaign_map: CampaignMap,
        sides: Mapping[str, str],
        language: str,
    ) -> str | None:
        from bot.modules.contact.texts import describe_contact_order

        return describe_contact_order(order, campaign_map, language)

    def describe_rejection(
        self,
        params: Mapping[str, str | int],
        campaign_map: CampaignMap,
        sides: Mapping[str, str],
        language: str,
    ) -> str | None:
        from bot.modules.contact.texts import describe_contact_rejection

        return describe_contact_rejection(params, campaign_map, language)

    def result_notes(self, data: JsonValue, sides: Mapping[str, str]) -> Sequence[str]:
        from bot.modules.contact.texts import result_notes

        return result_notes(data, sides)

    def shuffle_words(self, label: Sequence[str], rolls: int) -> str | None:
        from bot.modules.contact.texts import shuffle_words

        return shuffle_words(label, rolls)
