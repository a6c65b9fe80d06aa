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

from bot.modules.protocol import BotModule

if TYPE_CHECKING:
    from bot.demo_modules import DemoStory
    from bot.rules_text import RulesView
    from rules import CampaignMap, ModuleOrder, Roll

# The hooks import the package's code when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class SiegeBotModule(BotModule):
    """The Midnight Siege behind the bot's extension point."""

    name = "siege"

    # hooks: htexts

    def rules_button(self) -> str | None:
        from bot.modules.siege import rules_text

        return rules_text.button()

    def rules_lines(self, view: RulesView) -> Sequence[str]:
        from bot.modules.siege import rules_text

        return rules_text.rules_lines(view)

    def demo_story(self) -> DemoStory | None:
        from bot.modules.siege.demo import STORY

        return STORY

    def describe_order(
        self,
        order: ModuleOrder,
        campaign_map: CampaignMap,
        sides: Mapping[str, str],
        language: str,
    ) -> str | None:
        from bot.modules.siege.texts import describe_siege_order

        return describe_siege_order(order, campaign_map, language)

    def describe_rejection(
        self,
        params: Mapping[str, str | int],
        campaign_map: CampaignMap,
        sides: Mapping[str, str],
        language: str,
    ) -> str | None:
        from bot.modules.siege.texts import describe_siege_rejection

        return describe_siege_rejection(params, campaign_map, language)

    def roll_words(
        self,
        label: Sequence[str],
        roll: Roll,
        campaign_map: CampaignMap,
        sides: Mapping[str, str],
        language: str,
    ) -> str | None:
        from bot.modules.siege.texts import roll_words

        return roll_words(label, roll, campaign_map, sides, language)

    def shuffle_words(self, label: Sequence[str], rolls: int) -> str | None:
        from bot.modules.siege.texts import shuffle_words

        return shuffle_words(label, rolls)

    def describe_sector_taken(self, sector: str) -> str | None:
        from bot.modules.siege.texts import sector_taken

        return sector_taken(sector)
