"""Contact's bot side (MODULES.md C; the rules are ``rules.modules.contact``): ``setup`` (the
wizard's settings: defences, transports, the VP that win), ``orders`` (a side's groups, yields
and retreats as the orders screen edits them), ``texts`` (its orders, refusals, battle list and
summary in words), ``map_view`` (defences, exhausted armies, VP and the groups' paths on the
maps; the defences in words). The shared bot reaches it through :class:`ContactBotModule`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bot.modules.protocol import BotModule

if TYPE_CHECKING:
    from pydantic import JsonValue

    from rules import CampaignState
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
