"""The Night Watch in the group's ``/status`` and ``/map`` (MODULES.md W4): the heroes as
everyone may see them, never a hand."""

from __future__ import annotations

from datetime import datetime

from aiogram.utils.i18n import gettext as _

from bot.modules.watch import duels
from bot.modules.watch import orders as watch_orders
from bot.modules.watch.texts import hero_lines
from bot.services.turns import game_for
from rules import CampaignState
from storage import Campaign, Store


async def hero_status(store: Store, campaign: Campaign, now: datetime) -> list[str]:
    """The Night Watch's heroes as everyone may see them (no hands): where each stands (at the
    turn's start; once the battle list is public, where it put them), its wounds, the fallen,
    the NPC marker; nothing without the module."""
    game = game_for(campaign)
    if not watch_orders.is_on(game) or campaign.turn < 1:
        return []
    state = await store.turn_start(campaign.id, campaign.turn)
    if state is None:
        return []
    names = {side.id: side.name for side in await store.sides(campaign.id)}
    lines = hero_lines(
        watch_orders.public((await duels.heroes_now(store, campaign, state, now)).modules),
        game.map,
        names | watch_orders.hero_names(state),
        campaign.language,
        watch_orders.settings(game).wounds_to_kill,
        turn=campaign.turn,
    )
    return ["\n".join([_("Heroes:"), *lines])] if lines else []


async def map_caption(
    store: Store, campaign: Campaign, state: CampaignState, now: datetime
) -> str | None:
    """``/map``'s caption once the battle list is public: the heroes stand where it put them."""
    if await duels.public_watch_plan(store, campaign, state, now) is None:
        return None
    return _(
        "{title}: the map at the start of turn {turn}; the heroes stand where the battle "
        "list put them, with this turn's moves."
    ).format(title=campaign.title, turn=campaign.turn)
