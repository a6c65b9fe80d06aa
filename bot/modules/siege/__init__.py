"""The Midnight Siege's bot side (MODULES.md S; the rules are ``rules.modules.siege``):
``setup`` (the wizard's settings: tokens, weather-control sectors, weather states, cards and
rewards), ``texts`` (its orders, refusals, battle list, Monday summary and adjustments in words),
``screens`` (the weather's buttons, the late window's cards), ``reward_screens`` and ``rewards``
(the VP spent on rewards when the campaign finishes), ``gm`` (a GM carries out a card's
effect), ``cards`` (the GMs' notes on the cards played), ``map_view`` (its tokens, wind rose and
VP on the maps), ``posts`` (its post kinds: the starting weather's choice, the late window, a
card's effect carried out, the cards for the GMs, the rewards) and ``handlers/``: ``wizard``
(the wizard's siege step), ``gm`` (the typed card effect), ``private`` (the starting weather,
the reward claim) and ``late`` (the cards played after the battles). The shared bot reaches it
through :class:`SiegeBotModule`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bot.modules.protocol import BotModule

if TYPE_CHECKING:
    from pydantic import JsonValue

    from bot.posts import Renderer
    from rules import Battle, CampaignMap, CampaignState, Game, TurnReport
    from rules.render import DialView, SectorMark
    from storage import Campaign, NewOutboxMessage, Store

# The hooks import the package's posts when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class SiegeBotModule(BotModule):
    """The Midnight Siege behind the bot's extension point."""

    name = "siege"

    def renderers(self) -> Mapping[str, Renderer]:
        from bot.modules.siege import posts

        return posts.RENDERERS

    # hooks: hposts
    def map_marks(
        self, campaign: Campaign, state: CampaignState, names: Mapping[str, str]
    ) -> Sequence[SectorMark]:
        from bot.modules.siege.map_view import siege_marks

        return siege_marks(state, names)

    def map_dial(self, campaign: Campaign, state: CampaignState) -> DialView | None:
        from bot.modules.siege.map_view import weather_dial

        return weather_dial(campaign, state)

    def map_side_notes(
        self, campaign: Campaign, state: CampaignState, names: Mapping[str, str]
    ) -> Mapping[str, str]:
        from bot.modules.siege.map_view import vp_notes

        return vp_notes(campaign, state, names)

    def battle_list_lines(
        self,
        campaign: Campaign,
        plan: JsonValue,
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        from bot.modules.siege.posts import weather_words
        from bot.modules.siege.texts import describe_siege_plan
        from rules.modules.siege import SiegePlan

        return describe_siege_plan(
            SiegePlan.model_validate(plan),
            campaign_map,
            names,
            language,
            weather_words(campaign, language),
        )

    def summary_lines(
        self,
        campaign: Campaign,
        data: JsonValue,
        report: TurnReport,
        state: CampaignState,
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        from bot.modules.siege.posts import weather_words
        from bot.modules.siege.texts import describe_siege_report
        from rules.modules.siege import NAME, SiegeReport, load

        held = state.modules.get(NAME)
        return describe_siege_report(
            SiegeReport.model_validate(data),
            None if held is None else load(held),
            campaign_map,
            names,
            language,
            weather_words(campaign, language),
        )

    def battle_lines(
        self, battle: Battle, names: Mapping[str, str], language: str
    ) -> Sequence[str]:
        from bot.modules.siege.texts import describe_assault_abilities

        return describe_assault_abilities(battle, names)

    async def turn_step_posts(
        self,
        store: Store,
        campaign: Campaign,
        turn: int,
        window: str,
        modules: Mapping[str, JsonValue],
        key: str,
    ) -> Sequence[NewOutboxMessage]:
        from bot.modules.siege.cards import card_notes

        return await card_notes(store, campaign, turn, window, modules, key)

    async def campaign_over_posts(
        self, store: Store, campaign: Campaign, state: CampaignState, key: str
    ) -> Sequence[NewOutboxMessage]:
        from bot.modules.siege.rewards import reward_posts

        return await reward_posts(store, campaign, state, key)

    def late_window(self) -> bool:
        return True

    def replay_adjustment(
        self, game: Game, state: CampaignState, data: Mapping[str, JsonValue]
    ) -> CampaignState | None:
        from rules.modules.siege import Adjustment, apply_adjustment

        if "kind" in data:  # the siege's adjustments came first and carry no kind
            return None
        return apply_adjustment(game, state, Adjustment.model_validate(data))

    def pending_choice_alarm(self) -> str | None:
        from bot.modules.siege.posts import choice_alarm

        return choice_alarm()
