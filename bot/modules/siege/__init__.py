"""The Midnight Siege's bot side (MODULES.md S; the rules are ``rules.modules.siege``):
``setup`` (the wizard's settings: tokens, weather-control sectors, weather states, cards and
rewards), ``texts`` (its orders, refusals, battle list, Monday summary and adjustments in words),
``screens`` (the weather's buttons, the late window's cards), ``callbacks`` (the weather's and
the rewards' callback data), ``reward_screens`` and ``rewards``
(the VP spent on rewards when the campaign finishes), ``gm`` (a GM carries out a card's
effect), ``cards`` (the GMs' notes on the cards played) and ``handlers/``: ``wizard`` (the
wizard's siege step), ``gm`` (the typed card effect), ``private`` (the starting weather, the
reward claim) and ``late`` (the cards played after the battles). The shared bot reaches it
through :class:`SiegeBotModule`."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aiogram import Router
from aiogram.types import InlineKeyboardButton, Message

from bot.modules.protocol import BotModule, WizardButton, WizardChange, WizardRows

if TYPE_CHECKING:
    from lark import Token, Tree
    from pydantic import JsonValue

    from bot.demo.modules import DemoStory
    from bot.handlers.group.gm import GmScreen
    from bot.handlers.private.callbacks import OrdersButton
    from bot.modules.protocol import DeskPress, Screen
    from bot.posts import Renderer
    from bot.services.orders import Desk
    from bot.texts.orders import ParsedLine, Reader, TypedGrammar, TypedNames
    from bot.texts.rules import RulesView
    from rules import Battle, CampaignMap, CampaignState, Game, ModuleOrder, Order, Roll, TurnReport
    from rules.maps import Feature
    from rules.render import DialView, SectorMark
    from storage import Campaign, NewOutboxMessage, Person, Store

# The hooks import the package's handlers when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415

# The hooks import the package's posts when called (bot/modules/protocol.py).
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

    def pending_choice_words(self) -> str | None:
        from bot.modules.siege.gm_panel import weather_pending

        return weather_pending()

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

    # hooks: r2typed
    def typed_grammar(self) -> TypedGrammar | None:
        from bot.modules.siege.typed import GRAMMAR

        return GRAMMAR

    def typed_order(self, tree: Tree[Token], reader: Reader) -> ModuleOrder | None:
        from bot.modules.siege.typed import order

        return order(tree, reader)

    def typed_vocabulary(self, state: CampaignState) -> Sequence[TypedNames]:
        from bot.modules.siege.typed import siege_tokens, token_names

        return (token_names(siege_tokens(state.modules)),)

    # hooks: p35screens
    def typed_problem(
        self, line: ParsedLine, desk: Desk, names: Mapping[str, str], language: str
    ) -> str | None:
        from bot.modules.siege.texts import typed_problem

        return typed_problem(line, desk, names, language)
