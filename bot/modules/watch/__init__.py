"""The Night Watch's bot side (MODULES.md part W): the wizard's heroes, NPC and deck
(``setup``, ``handlers/wizard``), typed watch orders (``orders``), the duel steps (``duels``,
``duel_screens``, ``posts``, ``handlers/duels``, ``handlers/duels_gm``), the GM's "-1" tokens
(``gm``, ``handlers/gm``), the heroes in ``/status`` and ``/map`` (``status``) and on every
map (``map_view``), and their words (``texts``, ``duel_texts``, ``gm_texts``). The shared bot
reaches it through :class:`WatchBotModule`."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from aiogram import Router
from aiogram.types import InlineKeyboardButton

from bot.modules.protocol import (
    AdjustmentWords,
    BotModule,
    OfferedMap,
    VictoryFix,
    WizardButton,
    WizardChange,
    WizardRows,
)

if TYPE_CHECKING:
    from aiogram.types import Message
    from lark import Token, Tree
    from pydantic import JsonValue

    from bot.demo.modules import DemoStory
    from bot.handlers.group.gm_state import GmStateScreen
    from bot.handlers.private.callbacks import OrdersButton
    from bot.modules.protocol import DeskPress, Screen
    from bot.posts import Renderer
    from bot.runtime.clock import Clock
    from bot.services.orders import Desk
    from bot.texts.orders import ParsedLine, Reader, TypedGrammar, TypedNames
    from bot.texts.rules import RulesView
    from rules import (
        Battle,
        CampaignMap,
        CampaignState,
        Game,
        ModuleOrder,
        Order,
        SideOrders,
        TurnReport,
    )
    from rules.render import MapFigures
    from storage import Campaign, Person, Store

# The hooks import the package's handlers and posts when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class WatchBotModule(BotModule):
    """The Night Watch behind the bot's extension point."""

    name = "watch"

    def group_routers(self) -> Sequence[Router]:
        from bot.modules.watch.handlers import duels_gm, gm

        return (duels_gm.build(), gm.build())

    def gm_routers(self) -> Sequence[Router]:
        from bot.modules.watch import gm_state
        from bot.modules.watch.handlers import duels_gm, gm

        return (duels_gm.build(), gm.build(), gm_state.build())

    def private_routers(self) -> Sequence[Router]:
        from bot.modules.watch.handlers import duels, hand

        return (duels.build(), hand.build())

    def renderers(self) -> Mapping[str, Renderer]:
        from bot.modules.watch import posts

        return posts.RENDERERS

    def describe_order(
        self,
        order: ModuleOrder,
        campaign_map: CampaignMap,
        sides: Mapping[str, str],
        language: str,
    ) -> str | None:
        from bot.modules.watch.texts import describe_hero_move

        return describe_hero_move(order, campaign_map, sides, language)

    def describe_rejection(
        self,
        params: Mapping[str, str | int],
        campaign_map: CampaignMap,
        sides: Mapping[str, str],
        language: str,
    ) -> str | None:
        from bot.modules.watch.texts import describe_watch_rejection

        return describe_watch_rejection(params, campaign_map, sides, language)

    async def status_sections(
        self, store: Store, campaign: Campaign, now: datetime
    ) -> Sequence[str]:
        from bot.modules.watch.status import hero_status

        return await hero_status(store, campaign, now)

    def describe_adjustment(
        self,
        adjustment: Mapping[str, JsonValue],
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
        *,
        undone: bool,
    ) -> AdjustmentWords | None:
        from bot.modules.watch.gm_texts import change_lines
        from rules.modules.watch import WatchChange
        from rules.modules.watch.adjust import is_change

        if not is_change(adjustment):
            return None
        change = WatchChange.model_validate(adjustment)
        lines = change_lines(change, campaign_map, names, language, undone=undone)
        return AdjustmentWords(reason=change.reason or "", lines=lines)

    def names(self, state: CampaignState) -> Mapping[str, str]:
        from bot.modules.watch.orders import hero_names

        return hero_names(state)

    def battle_list_lines(
        self,
        campaign: Campaign,
        plan: JsonValue,
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        from bot.modules.watch.texts import describe_watch_plan

        return describe_watch_plan(plan, campaign_map, names, language)

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
        from bot.modules.watch.texts import summary_lines

        return summary_lines(data, report, campaign_map, names, language)

    def orders_open_lines(
        self,
        state: CampaignState,
        turn: int,
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        from bot.modules.watch.orders import public
        from bot.modules.watch.texts import entering_lines

        return entering_lines(public(state.modules), campaign_map, names, language, turn)

    async def battle_list_published(
        self, store: Store, campaign_id: int, turn: int, opens_at: datetime, now: datetime
    ) -> None:
        from bot.modules.watch.duels import start_duels

        await start_duels(store, campaign_id, turn, opens_at, now)

    async def run_steps(self, store: Store, campaign_id: int, now: datetime) -> bool:
        from bot.modules.watch.duels import run_duel_steps

        return await run_duel_steps(store, campaign_id, now)

    async def next_step_moment(
        self, store: Store, campaign: Campaign, now: datetime
    ) -> datetime | None:
        from bot.modules.watch.duels import next_duel_moment

        return await next_duel_moment(store, campaign, now)

    async def shift_steps(
        self,
        store: Store,
        campaign: Campaign,
        by: timedelta,
        results: datetime | None,
        now: datetime,
    ) -> None:
        from bot.modules.watch.duels import shift_duel_steps

        await shift_duel_steps(store, campaign, by, results, now)

    async def before_resolution(self, store: Store, campaign: Campaign, now: datetime) -> None:
        from bot.modules.watch.duels import close_remaining_steps

        await close_remaining_steps(store, campaign, now)

    def gm_panel_rows(self, campaign: Campaign) -> Sequence[list[InlineKeyboardButton]]:
        from bot.modules.watch.handlers.duels_gm import duels_button
        from bot.modules.watch.handlers.gm import cards_button

        return [row for row in (duels_button(campaign), cards_button(campaign)) if row]

    # hooks: hwizard

    def wizard_entry(self) -> str | None:
        from aiogram.utils.i18n import gettext as _

        return _("🌃 Watches")

    def wizard_summary_line(self, campaign: Campaign) -> str | None:
        from bot.modules.watch.handlers.wizard import watch_label

        return watch_label(campaign)

    def wizard_screen(
        self,
        campaign: Campaign,
        sides: Sequence[tuple[str, str]],
        step: str,
        button: WizardButton,
    ) -> tuple[str, WizardRows] | None:
        from aiogram.utils.i18n import gettext as _

        from bot.modules.watch.handlers.wizard import watch_screen

        if step != self.name:
            return None
        text, rows = watch_screen(campaign, sides, button)
        rows.append([button(_("◀ Back"), campaign, "go", "summary")])
        return text, rows

    def wizard_actions(self) -> Collection[str]:
        from bot.modules.watch.handlers.wizard import WATCH_ACTIONS

        return WATCH_ACTIONS

    def wizard_press(
        self, campaign: Campaign, sides: Sequence[str], action: str, value: str
    ) -> WizardChange | None:
        from bot.modules.watch.handlers.wizard import watch_change
        from bot.modules.watch.setup import DEMO_MAP

        if action == "wmap":
            return WizardChange(self.name, map=DEMO_MAP)
        changed = watch_change(campaign, action, value)
        return None if changed is None else WizardChange(self.name, overrides=changed)

    def wizard_fitted(
        self, overrides: dict[str, Any], new_map: CampaignMap, sides: Sequence[str]
    ) -> dict[str, Any]:
        from bot.modules.watch.setup import fitted

        return fitted(overrides, new_map, sides)

    def wizard_question(
        self, campaign: Campaign, action: str, value: str
    ) -> tuple[str, dict[str, JsonValue]] | None:
        if action == "ask" and value in ("heroes", "npc", "deck"):
            return value, {}
        return None

    def wizard_typed_fields(self) -> Collection[str]:
        from bot.modules.watch.handlers.wizard import TYPED_FIELDS

        return TYPED_FIELDS

    def wizard_ask_text(
        self, what: str, data: Mapping[str, JsonValue], campaign: Campaign, name: str
    ) -> str:
        from bot.modules.watch.handlers.wizard import ask_text

        return ask_text(what).format(name=name)

    def wizard_typed_setting(
        self,
        campaign: Campaign,
        sides: Sequence[tuple[str, str]],
        field: str,
        data: Mapping[str, JsonValue],
        text: str,
    ) -> tuple[dict[str, Any] | None, str]:
        from bot.modules.watch.handlers.wizard import typed_watch

        return typed_watch(campaign, field, text, sides)

    def wizard_next_step(
        self, campaign: Campaign, field: str, data: Mapping[str, JsonValue]
    ) -> str:
        return self.name

    # hooks: hgroup

    def gm_state_lines(
        self,
        campaign: Campaign,
        state: CampaignState,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        from bot.modules.watch.gm_state import state_lines

        return state_lines(campaign, state, names, language)

    def gm_state_rows(
        self, campaign: Campaign, state: CampaignState
    ) -> Sequence[list[InlineKeyboardButton]]:
        from bot.modules.watch.gm_state import state_rows

        return state_rows(campaign, state)

    def gm_state_screens(self) -> Mapping[str, GmStateScreen]:
        from bot.modules.watch.gm_state import SCREENS

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
        from bot.modules.watch.gm_state import typed_reason

        return await typed_reason(message, store, clock, person, campaign, data, reason)

    def victory_fix(self, overrides: Mapping[str, Any], sectors: int) -> VictoryFix | None:
        from bot.modules.watch.victory import victory_fix

        return victory_fix(overrides, sectors)

    def gm_state_help(self) -> str | None:
        from bot.modules.watch.gm_state import state_help

        return state_help()

    def gm_help_tools(self) -> Sequence[tuple[str, str]]:
        from bot.modules.watch.gm_state import help_tools

        return help_tools()

    # hooks: hposts
    async def map_figures(
        self,
        store: Store,
        campaign: Campaign,
        state: CampaignState,
        *,
        week: bool,
        battles: tuple[Battle, ...] | None,
        now: datetime | None,
    ) -> MapFigures | None:
        from bot.modules.watch.map_view import watch_figures

        return await watch_figures(store, campaign, state, week=week, battles=battles, now=now)

    def map_label_words(self) -> Mapping[str, str]:
        from bot.modules.watch.map_view import label_words

        return label_words()

    def replay_adjustment(
        self, game: Game, state: CampaignState, data: Mapping[str, JsonValue]
    ) -> CampaignState | None:
        from rules.modules.watch import WatchChange, apply_change
        from rules.modules.watch.adjust import is_change

        if not is_change(data):
            return None
        return apply_change(game, state, WatchChange.model_validate(data))

    def rules_button(self) -> str | None:
        from bot.modules.watch import rules_text

        return rules_text.button()

    def rules_lines(self, view: RulesView) -> Sequence[str]:
        from bot.modules.watch import rules_text

        return rules_text.rules_lines(view)

    def rules_victory_lines(self, view: RulesView) -> Sequence[str]:
        from bot.modules.watch import rules_text

        return rules_text.victory_lines(view)

    def demo_story(self) -> DemoStory | None:
        from bot.modules.watch.demo import STORY

        return STORY

    def orders_desk_rows(self, desk: Desk) -> Sequence[list[InlineKeyboardButton]]:
        from bot.modules.watch.order_screens import home_rows

        return home_rows(desk)

    def orders_desk_press(
        self, desk: Desk, data: OrdersButton, names: Mapping[str, str]
    ) -> DeskPress | None:
        from bot.modules.watch.order_screens import press

        return press(desk, data, names)

    def orders_desk_after(
        self, before: Desk, after: Desk, order: Order | ModuleOrder, names: Mapping[str, str]
    ) -> Screen | None:
        from bot.modules.watch.order_screens import after as screen_after

        return screen_after(before, after, order, names)

    def late_orders_final(self) -> bool:
        return True

    # hooks: r2typed
    def typed_grammar(self) -> TypedGrammar | None:
        from bot.modules.watch.typed import GRAMMAR

        return GRAMMAR

    def typed_order(self, tree: Tree[Token], reader: Reader) -> ModuleOrder | None:
        from bot.modules.watch.typed import order

        return order(tree, reader)

    def typed_vocabulary(self, state: CampaignState) -> Sequence[TypedNames]:
        from bot.modules.watch.orders import hero_names as named
        from bot.modules.watch.typed import hero_names

        return (hero_names({hero: [name] for hero, name in named(state).items()}),)

    # hooks: r2battles
    def entering_order(
        self, orders: SideOrders, order: ModuleOrder
    ) -> tuple[ModuleOrder, SideOrders]:
        from bot.modules.watch.orders import replacing_move

        return order, replacing_move(orders, order)

    # hooks: p35screens
    def typed_problem(
        self, line: ParsedLine, desk: Desk, names: Mapping[str, str], language: str
    ) -> str | None:
        from bot.modules.watch.texts import typed_problem

        return typed_problem(line, desk, names, language)

    # hooks: p35store
    def wizard_maps(self, language: str) -> Sequence[OfferedMap]:
        from bot.modules.watch.handlers.wizard import night_map

        return (night_map(language),)

    # hooks: p35last
    async def map_caption_head(
        self, store: Store, campaign: Campaign, state: CampaignState, now: datetime
    ) -> str | None:
        from bot.modules.watch.status import map_caption

        return await map_caption(store, campaign, state, now)


__all__ = ["WatchBotModule"]
