"""The Night Watch's bot side (MODULES.md part W): the wizard's heroes, NPC and deck
(``setup``, ``handlers/wizard``), typed watch orders (``orders``), the duel steps (``duels``,
``duel_screens``, ``posts``, ``handlers/duels``, ``handlers/duels_gm``), the GM's "-1" tokens
(``gm``, ``handlers/gm``), the heroes in ``/status`` and ``/map`` (``status``), and their words
(``texts``, ``duel_texts``, ``gm_texts``). The shared bot reaches it through
:class:`WatchBotModule`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from aiogram import Router
from aiogram.types import InlineKeyboardButton

from bot.modules.protocol import AdjustmentWords, BotModule

if TYPE_CHECKING:
    from pydantic import JsonValue

    from bot.handlers.private.callbacks import OrdersButton
    from bot.modules.protocol import DeskPress, Screen
    from bot.posts import Renderer
    from bot.services.orders import Desk
    from rules import CampaignMap, CampaignState, ModuleOrder, Order, TurnReport
    from storage import Campaign, Store

# The hooks import the package's handlers and posts when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class WatchBotModule(BotModule):
    """The Night Watch behind the bot's extension point."""

    name = "watch"

    def group_routers(self) -> Sequence[Router]:
        from bot.modules.watch.handlers import duels_gm, gm

        return (duels_gm.build(), gm.build())

    def gm_routers(self) -> Sequence[Router]:
        from bot.modules.watch.handlers import duels_gm, gm

        return (duels_gm.build(), gm.build())

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

    async def map_caption(
        self, store: Store, campaign: Campaign, state: CampaignState, now: datetime
    ) -> str | None:
        from bot.modules.watch.status import map_caption

        return await map_caption(store, campaign, state, now)

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
        self, plan: JsonValue, campaign_map: CampaignMap, names: Mapping[str, str], language: str
    ) -> Sequence[str]:
        from bot.modules.watch.texts import describe_watch_plan

        return describe_watch_plan(plan, campaign_map, names, language)

    def summary_lines(
        self,
        data: JsonValue,
        report: TurnReport,
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

    # hooks: horders

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


__all__ = ["WatchBotModule"]
