"""Contact's bot side (MODULES.md C; the rules are ``rules.modules.contact``): ``setup`` (the
wizard's settings: defences, transports, the VP that win), ``orders`` (a side's groups, yields
and retreats as the orders screen edits them), ``texts`` (its orders, refusals, battle list and
summary in words), ``posts`` (its parts of the Monday summary and of a GM's
state edit), ``map_view`` (defences,
exhausted armies, VP and the groups' paths on the maps; the defences in words). The shared bot
reaches it through :class:`ContactBotModule`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bot.modules.protocol import BotModule

if TYPE_CHECKING:
    from pydantic import JsonValue

    from rules import CampaignMap, CampaignState, ModuleOrder, Move, SideOrders, TurnReport
    from rules.render import SectorMark
    from rules.resolution import Arrival
    from storage import Campaign

# The hooks import the package's code when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class ContactBotModule(BotModule):
    """Contact behind the bot's extension point."""

    name = "contact"

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
