"""The last resort: an error no handler expected is logged with its update and answered with a
calm message, so the bot never goes silent on a person and never crashes its polling loop."""

from __future__ import annotations

import contextlib
import logging

from aiogram import Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import ExceptionMessageFilter
from aiogram.types import ErrorEvent
from aiogram.utils.i18n import gettext as _

from bot.logs import log_context
from storage import Campaign, Person

log = logging.getLogger(__name__)


async def unexpected_error(
    event: ErrorEvent, chat_campaign: Campaign | None = None, person: Person | None = None
) -> bool:
    """Log the failure (update id, chat and campaign, never the text of an order) and tell the
    person."""
    update = event.update
    chat = update.event.chat.id if hasattr(update.event, "chat") and update.event.chat else None
    if chat_campaign is not None:
        context = log_context(chat_campaign.id, chat_campaign.turn)
    else:
        context = log_context(person.current_campaign_id if person else None)
    with context:
        log.error(
            "unhandled error in update %s (chat %s): %r",
            update.update_id,
            chat,
            event.exception,
            exc_info=event.exception,
        )
    text = _("Something went wrong on my side; nothing was changed. Please try again in a minute.")
    # The handler may have answered the press already (a second answer is refused), or Telegram
    # itself may be what failed: telling the person is best effort, never a second failure.
    with contextlib.suppress(TelegramAPIError):
        if update.callback_query is not None:
            await update.callback_query.answer(text, show_alert=True)
        elif update.message is not None:
            await update.message.answer(text)
    return True


async def unchanged_edit(event: ErrorEvent) -> bool:
    """Telegram refuses an edit that would change nothing (a button pressed for the choice
    already shown, a screen shown twice): the screen is already right, so it is no error."""
    log.debug("update %s: the edit changed nothing", event.update.update_id)
    if event.update.callback_query is not None:
        with contextlib.suppress(TelegramAPIError):
            await event.update.callback_query.answer()
    return True


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.errors.register(unchanged_edit, ExceptionMessageFilter(r".*message is not modified"))
    router.errors.register(unexpected_error)
    return router
