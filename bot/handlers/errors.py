"""The last resort: an error no handler expected is logged with its update and answered with a
calm message, so the bot never goes silent on a person and never crashes its polling loop.

The answer is true about what was kept: :class:`CommitWatch` counts the update's saves, and
"nothing was changed" is said only when none went through before the error. A database that
cannot save (:class:`~storage.db.StorageUnavailableError`) gets its own answer, and the
campaign's GMs are told (:class:`~bot.runtime.storage_faults.StorageAlarm`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

from aiogram import BaseMiddleware, Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import ExceptionMessageFilter, ExceptionTypeFilter
from aiogram.types import Chat, ErrorEvent, TelegramObject, Update
from aiogram.types.update import UpdateTypeLookupError
from aiogram.utils.i18n import gettext as _

from bot.runtime.logs import log_context
from bot.runtime.middlewares import GROUP_CHATS, UpdateHeldError
from bot.runtime.storage_faults import Notice, StorageAlarm
from bot.services.orders import is_active, pick_campaign
from storage import Campaign, Person, Store
from storage.db import CommitCount, StorageUnavailableError, counting_commits

log = logging.getLogger(__name__)


class CommitWatch(BaseMiddleware):
    """Outer update middleware: counts the update's commits in ``data["commits"]`` (after the
    sender is recorded), so an error answer can say whether anything was saved."""

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        with counting_commits() as count:
            data["commits"] = count
            return await handler(event, data)


def _chat_of(update: Update) -> int | None:
    query = update.callback_query
    if query is not None:
        return query.message.chat.id if query.message is not None else None
    try:
        event = update.event
    except UpdateTypeLookupError:  # an update of a kind this aiogram does not know
        return None
    return event.chat.id if hasattr(event, "chat") and event.chat else None


def _context(
    chat_campaign: Campaign | None, person: Person | None
) -> contextlib.AbstractContextManager[None]:
    if chat_campaign is not None:
        return log_context(chat_campaign.id, chat_campaign.turn)
    return log_context(person.current_campaign_id if person else None)


async def _tell(bot: Bot, update: Update, text: str) -> None:
    """Answer the press (or the message); a press the handler answered already cannot be
    answered again, so then the text goes to its chat."""
    # Telegram itself may be what failed: telling the person is best effort, never a second
    # failure.
    with contextlib.suppress(TelegramAPIError):
        query = update.callback_query
        if query is not None:
            try:
                await query.answer(text, show_alert=True)
            except TelegramAPIError:
                if query.message is not None:
                    thread = getattr(query.message, "message_thread_id", None)
                    await bot.send_message(query.message.chat.id, text, message_thread_id=thread)
        elif update.message is not None:
            await update.message.answer(text)


async def unexpected_error(
    event: ErrorEvent,
    bot: Bot,
    chat_campaign: Campaign | None = None,
    person: Person | None = None,
    commits: CommitCount | None = None,
) -> bool:
    """Log the failure (update id, chat and campaign, never the text of an order) and tell the
    person, saying "nothing was changed" only when nothing of the update was saved."""
    update = event.update
    with _context(chat_campaign, person):
        log.error(
            "unhandled error in update %s (chat %s): %r",
            update.update_id,
            _chat_of(update),
            event.exception,
            exc_info=event.exception,
        )
    if commits is not None and commits.commits == 0:
        text = _(
            "Something went wrong on my side; nothing was changed. Please try again in a minute."
        )
    else:
        text = _(
            "Something went wrong on my side, and part of this may have been saved. Check what "
            "is saved now (/orders, /battles, /status) before you try again."
        )
    await _tell(bot, update, text)
    return True


async def _campaigns_of(
    store: Store,
    chat_campaign: Campaign | None,
    person: Person | None,
    chat: Chat | None,
    thread_id: int | None,
) -> list[Campaign]:
    """The campaigns the failed update was about: the group's, else the person's current one
    (or all they play in, when they have not chosen). A failure before the sender was recorded
    leaves only the group to go by."""
    if chat_campaign is not None:
        return [chat_campaign]
    try:
        if chat is not None and chat.type in GROUP_CHATS:
            found = await store.active_campaign(chat.id, thread_id or 0)
            return [] if found is None else [found]
        if person is None:
            return []
        pick = await pick_campaign(store, person)
    except StorageUnavailableError:
        return []
    if pick.seat is not None:
        return [pick.seat.campaign]
    return [choice.campaign for choice in pick.choices if is_active(choice.campaign)]


async def storage_unavailable(
    event: ErrorEvent,
    bot: Bot,
    store: Store,
    storage_alarm: StorageAlarm | None = None,
    chat_campaign: Campaign | None = None,
    person: Person | None = None,
    commits: CommitCount | None = None,
    event_chat: Chat | None = None,
    event_thread_id: int | None = None,
) -> bool:
    """The database cannot save: one error line with the cause, the campaign's GMs told (at
    most once an hour), and the person told that this was not saved and to try later."""
    update = event.update
    error = cast(StorageUnavailableError, event.exception)  # the filter lets only these in
    notice = Notice(new=False, gms_know=False)
    if storage_alarm is not None:
        campaigns = await _campaigns_of(store, chat_campaign, person, event_chat, event_thread_id)
        notice = await storage_alarm.tell_gms(bot, campaigns, error)
    with _context(chat_campaign, person):
        log.error(
            "update %s (chat %s) not saved, the database cannot save: %s",
            update.update_id,
            _chat_of(update),
            error,
        )
    if commits is not None and commits.commits > 0:
        text = _(
            "I could not save all of this: the bot's database stopped taking changes, and "
            "part of it may be saved. Check what is saved (/orders, /battles, /status) and try "
            "again later."
        )
    elif notice.gms_know:
        text = _(
            "I cannot save anything right now (the bot's database is not taking changes), so "
            "nothing was changed. The GM has been told. Please try again later."
        )
    else:
        text = _(
            "I cannot save anything right now (the bot's database is not taking changes), so "
            "nothing was changed. Please try again later."
        )
    await _tell(bot, update, text)
    return True


async def unchanged_edit(event: ErrorEvent) -> bool:
    """Telegram refuses an edit that would change nothing (a button pressed for the choice
    already shown, a screen shown twice): the screen is already right, so it is no error."""
    log.debug("update %s: the edit changed nothing", event.update.update_id)
    if event.update.callback_query is not None:
        with contextlib.suppress(TelegramAPIError):
            await event.update.callback_query.answer()
    return True


async def held_elsewhere(event: ErrorEvent) -> bool:
    """Not an error of the update: another process is handling it. It goes on up to the webhook,
    which asks Telegram to send it again later (:class:`bot.runtime.runner.WebhookUpdates`)."""
    raise event.exception


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.errors.register(held_elsewhere, ExceptionTypeFilter(UpdateHeldError))
    router.errors.register(unchanged_edit, ExceptionMessageFilter(r".*message is not modified"))
    router.errors.register(storage_unavailable, ExceptionTypeFilter(StorageUnavailableError))
    router.errors.register(unexpected_error)
    return router
