"""Plain text in private, when no dialogue waits for it: a placement during deployment, orders
during the orders window, and a clear answer in any other phase."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import Message

from bot.handlers.filters import TYPED
from bot.handlers.private import screens
from bot.handlers.private.base import seat_or_answer
from bot.handlers.private.battles import typed_scores
from bot.handlers.private.deployment import repeated_placement, typed_placement
from bot.handlers.private.orders import typed_orders
from bot.modules import BOT_MODULES
from bot.runtime.clock import Clock
from bot.services.orders import Refusal, Seat
from storage import Person, Phase, Store


async def no_prompt_waiting(message: Message, store: Store) -> bool:
    """True when no other dialogue waits for this person's typed input (a stored Prompt)."""
    if message.from_user is None:
        return False
    return await store.prompt(message.chat.id, message.from_user.id) is None


async def typed(message: Message, store: Store, clock: Clock, person: Person) -> None:
    """Read the text as what the campaign's phase takes, unless a module reads it first (a
    typed claim once the campaign is over, say)."""
    for module in BOT_MODULES.values():
        if await module.read_typed(message, store, person):
            return
    seat = await seat_or_answer(message, store, person)
    if seat is None:
        return
    if seat.campaign.phase is not Phase.DEPLOYMENT and await repeated_placement(
        message, store, clock, seat
    ):
        return
    match seat.campaign.phase:
        case Phase.DEPLOYMENT:
            await typed_placement(message, store, clock, seat)
        case Phase.ORDERS:
            if seat.side is None:
                await message.answer(_titled(seat, Refusal.NO_SIDE))
            elif not seat.gives_orders:
                await message.answer(_titled(seat, Refusal.NOT_STRATEGIST))
            else:
                await typed_orders(message, store, clock, person, seat)
        case Phase.BATTLES | Phase.RESOLUTION if await typed_scores(message, store, clock, seat):
            return
        case _:
            await message.answer(screens.refusal_words(Refusal.WRONG_PHASE, seat.campaign))


def _titled(seat: Seat, refusal: Refusal) -> str:
    """A refusal that does not name its campaign, after the campaign's title (a person in
    several campaigns sees which one refused)."""
    return f"«{seat.campaign.title}»: {screens.refusal_words(refusal, seat.campaign)}"


def build() -> Router:
    """This module's router (a new one per dispatcher); register it after the others."""
    router = Router(name=__name__)
    router.message.register(typed, TYPED, no_prompt_waiting)
    return router
