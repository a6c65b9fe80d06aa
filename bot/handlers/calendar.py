"""``/calendar``: the campaign's deadlines as a file to add to a phone's calendar, in the group
(the group's campaign) or in private (the person's current campaign). It is queued like every
post, so the chat is also sent the file again when a GM moves a deadline. When there are no
dates to list (paused, manual mode, a phase only the GM or the players' readiness ends) the
answer says so, once, and nothing is queued."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.group.guards import campaign_here, no_campaign_words
from bot.handlers.private.base import seat_or_answer
from bot.posts.turns import no_deadline_reason
from bot.runtime.clock import Clock
from bot.services.calendars import calendar_plan, calendar_post
from bot.services.window import undone_back
from storage import Campaign, CampaignStatus, Person, Store


async def campaign_or_answer(message: Message, store: Store, person: Person) -> Campaign | None:
    """The campaign a command in this chat is about: the group's, or in private the sender's
    seat's; ``None`` (answered why) when there is none."""
    if message.chat.type == "private":
        seat = await seat_or_answer(message, store, person)
        if seat is None:
            return None
        return await store.campaign(seat.campaign.id) or seat.campaign
    found = await campaign_here(store, message)
    if found is None:
        await message.answer(await no_campaign_words(store, message))
    return found


async def calendar_command(message: Message, store: Store, clock: Clock, person: Person) -> None:
    """Queue the calendar file for this chat."""
    campaign = await campaign_or_answer(message, store, person)
    if campaign is None:
        return
    if campaign.status is CampaignStatus.FINISHED:
        await message.answer(
            _("«{title}» is over: it has no deadlines left.").format(title=campaign.title)
        )
        return
    now = clock.now()
    if not await calendar_plan(store, campaign, now):
        await message.answer(no_dates_words(campaign, await undone_back(store, campaign)))
        return
    key = f"asked:{message.chat.id}:{message.message_id}"
    await store.enqueue(calendar_post(campaign, message.chat.id, key), now)
    await message.answer(
        _("The calendar file is on its way: open it to add the deadlines to your calendar.")
    )


def no_dates_words(campaign: Campaign, returned: bool = False) -> str:
    """Why there is no calendar to send now, and when there will be one: one answer instead of
    a promise of a file followed by none (``returned``: the GM's undo came back to the phase)."""
    if campaign.status is CampaignStatus.PAUSED:
        return _(
            "«{title}» is paused: its dates are not known until the GM resumes it. Ask "
            "/calendar again then."
        ).format(title=campaign.title)
    if campaign.schedule.mode == "manual":
        return _(
            "«{title}» has no dated deadlines: the GM ends every phase by hand, so there is no "
            "calendar to send."
        ).format(title=campaign.title)
    return _(
        "«{title}» has no dated deadline now: {reason}. The weekly dates follow from then: ask "
        "/calendar again once this phase has ended."
    ).format(title=campaign.title, reason=no_deadline_reason(campaign, campaign.phase, returned))


def build() -> Router:
    """This module's router: it serves the group and the private chat."""
    router = Router(name=__name__)
    router.message.register(calendar_command, Command("calendar"))
    return router
