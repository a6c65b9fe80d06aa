"""``/calendar``: the campaign's deadlines as a file to add to a phone's calendar, in the group
(the group's campaign) or in private (the person's current campaign). It is queued like every
post, so the chat is also sent the file again when a GM moves a deadline."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message
from aiogram.utils.i18n import gettext as _

from bot.clock import Clock
from bot.handlers.group.guards import campaign_here, no_campaign_words
from bot.handlers.private.base import seat_or_answer
from bot.services.calendars import calendar_post
from storage import CampaignStatus, Person, Store


async def calendar_command(message: Message, store: Store, clock: Clock, person: Person) -> None:
    """Queue the calendar file for this chat."""
    if message.chat.type == "private":
        seat = await seat_or_answer(message, store, person)
        if seat is None:
            return
        campaign = await store.campaign(seat.campaign.id) or seat.campaign
    else:
        found = await campaign_here(store, message)
        if found is None:
            await message.answer(await no_campaign_words(store, message))
            return
        campaign = found
    if campaign.status is CampaignStatus.FINISHED:
        await message.answer(
            _("«{title}» is over: it has no deadlines left.").format(title=campaign.title)
        )
        return
    now = clock.now()
    key = f"asked:{message.chat.id}:{message.message_id}"
    await store.enqueue(calendar_post(campaign, message.chat.id, key), now)
    await message.answer(
        _("The calendar file is on its way: open it to add the deadlines to your calendar.")
    )


def build() -> Router:
    """This module's router: it serves the group and the private chat."""
    router = Router(name=__name__)
    router.message.register(calendar_command, Command("calendar"))
    return router
