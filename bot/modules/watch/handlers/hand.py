"""``/hand`` in private: the heroes of the sender's side with their spells (the GM: every
side's)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.private.base import answer_text, seat_or_answer
from bot.handlers.private.screens import language, phase_words
from bot.modules.watch import duels, texts
from bot.modules.watch.orders import hero_names, is_on, settings, side_view
from bot.runtime.clock import Clock
from bot.services.turns import game_for
from storage import Person, Store


async def show_hand(message: Message, store: Store, person: Person, clock: Clock) -> None:
    """``/hand``: the heroes of the sender's side with their spells (the GM: every side's),
    from this turn's start (once the battle list is public: where it put them, without the
    spells their closed duel steps played, which are listed); secret, so in private only."""
    seat = await seat_or_answer(message, store, person)
    if seat is None:
        return
    campaign = seat.campaign
    game = game_for(campaign)
    if not is_on(game):
        await message.answer(_("This campaign plays without the Watches: it has no heroes."))
        return
    state = await store.turn_start(campaign.id, campaign.turn) if campaign.turn >= 1 else None
    if state is None:
        await message.answer(
            _("The heroes take the field and are dealt their spells when turn 1 begins.")
        )
        return
    sides = await store.sides(campaign.id)
    names = {side.id: side.name for side in sides} | hero_names(state)
    to_kill = settings(game).wounds_to_kill
    shown = [seat.side] if seat.side is not None else [s.id for s in sides] if seat.is_gm else []
    standing = await duels.heroes_now(store, campaign, state, clock.now())
    parts = [
        texts.hand_text(
            side_view(standing.modules, side),
            game.map,
            names,
            language(),
            to_kill,
            side,
            campaign.turn,
            played=standing.played,
        )
        for side in shown
    ]
    await answer_text(message, "\n\n".join(parts) or phase_words(campaign))


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(show_hand, Command("hand"))
    return router
