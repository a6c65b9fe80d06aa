"""The GMs' notes on the siege cards played (MODULES.md S7): a card's text is the GM's to carry
out, so each GM who can be written to in private is sent the cards with their texts when the
play becomes known: the cards played before the battles with the battle list (held until the
list goes out: the play is secret until then, G7), those played after the battles with the
resolution."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from bot.services.posting import private_post
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import SiegePlan, SiegeReport
from storage import Campaign, NewOutboxMessage, Store


def played(window: str, modules: Mapping[str, JsonValue]) -> bool:
    """Whether a card was played in ``window``: ``before`` read from a battle list's module data,
    ``after`` from a resolution report's."""
    raw = modules.get(SIEGE)
    if raw is None:
        return False
    if window == "before":
        return bool(SiegePlan.model_validate(raw).cards_before)
    return any(card.window == "after" for card in SiegeReport.model_validate(raw).cards)


async def card_notes(
    store: Store,
    campaign: Campaign,
    turn: int,
    window: str,
    modules: Mapping[str, JsonValue],
    key: str,
) -> list[NewOutboxMessage]:
    """A ``siege_cards_gm`` post to every GM the bot can write to, if a card was played in
    ``window`` (the post reads the cards and their texts when it is sent)."""
    if not played(window, modules):
        return []
    gms = [member.user_id for member in await store.members(campaign.id) if member.is_gm]
    people = await store.people(gms)
    return [
        private_post(campaign, gm, "siege_cards_gm", f"{key}:cards_gm", turn=turn, window=window)
        for gm in gms
        if (person := people.get(gm)) is not None and person.can_receive_private
    ]
