"""Contact's bot side (MODULES.md C; the rules are ``rules.modules.contact``): ``setup`` (the
wizard's settings: defences, transports, the VP that win), ``handlers/wizard`` (the wizard's
contact screens), ``orders`` (a side's groups, yields
and retreats as the orders screen edits them), ``texts`` (its orders, refusals, battle list and
summary in words), ``posts`` (its parts of the Monday summary and of a GM's
state edit), ``map_view`` (defences,
exhausted armies, VP and the groups' paths on the maps; the defences in words). The shared bot
reaches it through :class:`ContactBotModule`."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aiogram.types import InlineKeyboardButton

from bot.modules.protocol import BotModule, VictoryFix, WizardButton, WizardChange, WizardRows

if TYPE_CHECKING:
    from aiogram.types import Message
    from lark import Token, Tree
    from pydantic import JsonValue

    from bot.demo.modules import DemoStory
    from bot.handlers.group.gm_state import GmStateScreen
    from bot.handlers.private.callbacks import OrdersButton
    from bot.modules.protocol import DeskPress, ReportQuestion, Screen
    from bot.runtime.clock import Clock
    from bot.services.orders import Desk
    from bot.texts.orders import Reader, TypedGrammar
    from bot.texts.rules import RulesView
    from rules import (
        Battle,
        BattleResult,
        CampaignMap,
        CampaignState,
        ModuleOrder,
        Move,
        Order,
        Outcome,
        SideOrders,
        TurnReport,
    )
    from rules.maps import Feature
    from rules.render import SectorMark
    from rules.resolution import Arrival
    from storage import Campaign, Person, Store

# The hooks import the package's handlers when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415

# The hooks import the package's code when called (bot/modules/protocol.py).
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

    # hooks: hposts
    def map_marks(
        self, campaign: Campaign, state: CampaignState, names: Mapping[str, str]
    ) -> Sequence[SectorMark]:
        from bot.modules.contact.map_view import contact_marks

        return contact_marks(state, names)

    def map_title(self, state: CampaignState, names: Mapping[str, str]) -> str:
        from bot.modules.contact.map_view import contact_title

        return contact_title(state, names)

    def map_week_moves(self, plan: JsonValue, notes: JsonValue) -> Sequence[Arrival] | None:
        from bot.modules.contact.map_view import week_moves

        return week_moves(plan, notes)

    def battle_list_lines(
        self,
        campaign: Campaign,
        plan: JsonValue,
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        from bot.modules.contact.texts import describe_contact_plan
        from rules.modules.contact import ContactPlan

        contact_plan = ContactPlan.model_validate(plan)
        return describe_contact_plan(contact_plan, campaign_map, names, language)

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
        from bot.modules.contact.posts import summary_lines

        return summary_lines(data, report, campaign_map, names, language)

    def summary_told_battles(self, data: JsonValue) -> Sequence[int]:
        from rules.modules.contact import ContactReport

        return [item.battle for item in ContactReport.model_validate(data).unopposed]

    def state_edit_lines(
        self,
        campaign_map: CampaignMap,
        before: CampaignState,
        after: CampaignState,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        from bot.modules.contact.posts import defences_lines

        return defences_lines(campaign_map, before, after, names, language)

    def ordered_groups(self, orders: SideOrders) -> Sequence[Move | ModuleOrder] | None:
        from bot.modules.contact.orders import listed

        return listed(orders)

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

    def orders_desk_rows(self, desk: Desk) -> Sequence[list[InlineKeyboardButton]]:
        from bot.modules.contact.order_screens import home_rows

        return home_rows(desk)

    def orders_desk_press(
        self, desk: Desk, data: OrdersButton, names: Mapping[str, str]
    ) -> DeskPress | None:
        from bot.modules.contact.order_screens import press

        return press(desk, data, names)

    def orders_desk_after(
        self, before: Desk, after: Desk, order: Order | ModuleOrder, names: Mapping[str, str]
    ) -> Screen | None:
        from bot.modules.contact.order_screens import after as screen_after

        return screen_after(before, after, order, names)

    def orders_groups(self, desk: Desk) -> Sequence[Move | ModuleOrder] | None:
        from bot.modules.contact.order_screens import desk_groups

        return desk_groups(desk)

    def orders_sector_buttons(self, desk: Desk, sector: str) -> Sequence[InlineKeyboardButton]:
        from bot.modules.contact.order_screens import sector_buttons

        return sector_buttons(desk, sector)

    def orders_sector_short(self, desk: Desk, sector: str) -> str | None:
        from bot.modules.contact.order_screens import sector_short

        return sector_short(desk, sector)

    def orders_leaving(self, desk: Desk, sector: str) -> Sequence[ModuleOrder]:
        from bot.modules.contact.order_screens import leaving

        return leaving(desk, sector)

    # hooks: r2typed
    def typed_grammar(self) -> TypedGrammar | None:
        from bot.modules.contact.typed import GRAMMAR

        return GRAMMAR

    def typed_order(self, tree: Tree[Token], reader: Reader) -> ModuleOrder | None:
        from bot.modules.contact.typed import order

        return order(tree, reader)

    # hooks: r2battles
    def report_question(
        self,
        campaign: Campaign,
        battle: Battle,
        outcome: Outcome,
        winner: str | None,
        names: Mapping[str, str],
    ) -> ReportQuestion | None:
        from bot.modules.contact.battle_screens import question

        return question(campaign, battle, outcome, winner, names)

    def report_data(self, battle: Battle, answer: str) -> JsonValue | None:
        from bot.modules.contact.battle_screens import data

        return data(battle, answer)

    def report_answer(self, battle: Battle, result: BattleResult) -> str | None:
        from bot.modules.contact.battle_screens import answer

        return answer(battle, result)

    def entering_order(
        self, orders: SideOrders, order: ModuleOrder
    ) -> tuple[ModuleOrder, SideOrders]:
        from bot.modules.contact.orders import at_the_end, replacing_retreat

        order = at_the_end(order, orders)
        return order, replacing_retreat(orders, order)

    def repeat_lines(self, orders: SideOrders) -> list[tuple[Order, ...]] | None:
        from bot.modules.contact.orders import repeat_lines

        return repeat_lines(orders)
