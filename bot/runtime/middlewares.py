"""Per-update middlewares: who is writing (stored), in which language to answer, and the answer
to what no handler took."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from aiogram import BaseMiddleware, Router
from aiogram.dispatcher.event.bases import UNHANDLED
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Chat, Message, TelegramObject, Update, User
from aiogram.utils.i18n import I18n, I18nMiddleware
from aiogram.utils.i18n import gettext as _

from bot.runtime.clock import Clock
from bot.runtime.logs import log_context
from bot.services.orders import one_update
from bot.texts.i18n import language_of
from storage import Campaign, Person, Store, UpdateTake
from storage.names import clean_name

GROUP_CHATS = frozenset({"group", "supergroup"})


def display_name(user: User) -> str:
    """How a person is named in posts: first and last name, else the username, cleaned of
    control and invisible format characters (a right-to-left override in a name would reverse
    every line it is shown in)."""
    name = clean_name(" ".join(part for part in (user.first_name, user.last_name) if part))
    return (name or clean_name(user.username or "") or str(user.id))[:128]


UPDATE_LEASE = timedelta(seconds=30)
"""How long an update taken by a process is its own. A process that has not finished it by then
is taken to be dead, and Telegram's retry is handled by whichever process gets it. Handling
takes milliseconds, and aiogram answers Telegram after 55 s at most, so a retry of an update
still being handled comes only when that answer was lost."""


class UpdateHeldError(RuntimeError):
    """Another process is handling this update now: Telegram should send it again later (the
    webhook answers 503, :class:`bot.runtime.runner.WebhookUpdates`)."""

    def __init__(self, update_id: int) -> None:
        super().__init__(f"update {update_id} is being handled by another process")
        self.update_id = update_id


class UpdateOnce(BaseMiddleware):
    """Outer middleware, first of all: an update is handled once by one of the processes that
    share the database. Several webhook processes behind one address may each get the same
    update: Telegram sends it again when it had no answer (late, or its process died).

    Taking an update is a lease (``Store.take_update``, :data:`UPDATE_LEASE`): an update handled
    to the end goes no further; one that another process is handling raises
    :class:`UpdateHeldError` (Telegram tries again later); one whose process died before it
    finished is handled again. An update whose handling failed counts as handled: a retry would
    fail the same way."""

    def __init__(self, lease: timedelta = UPDATE_LEASE) -> None:
        self.lease = lease

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not isinstance(event, Update):
            return await handler(event, data)
        store: Store = data["store"]
        clock: Clock = data["clock"]
        taken = await store.take_update(event.update_id, clock.now(), self.lease)
        if taken is UpdateTake.DONE:
            return None
        if taken is UpdateTake.HELD:
            raise UpdateHeldError(event.update_id)
        try:
            return await handler(event, data)
        finally:
            await store.finish_update(event.update_id, clock.now())


class PersonMiddleware(BaseMiddleware):
    """Outer middleware: records the sender as a :class:`~storage.Person` and puts it in
    ``data["person"]``. It writes only when something changed (name, username, Telegram
    language, or the first private message), so most updates cost one read. Log lines of the
    update name its campaign (the group's, or the person's current one). An update in a private
    chat with no person behind it (no sender, or a bot) goes no further."""

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        user: User | None = data.get("event_from_user")
        chat: Chat | None = data.get("event_chat")
        person: Person | None = None
        if user is not None and not user.is_bot:
            person = await self._person(user, chat, data)
            data["person"] = person
        elif chat is not None and chat.type == "private":
            return None  # no sender, or a bot: every private screen is about who writes
        campaign_id: int | None = None
        turn: int | None = None
        if chat is not None and chat.type in GROUP_CHATS:
            store: Store = data["store"]
            campaign = await store.active_campaign(chat.id, data.get("event_thread_id") or 0)
            data["chat_campaign"] = campaign
            if campaign is not None:
                campaign_id, turn = campaign.id, campaign.turn
        elif person is not None:
            campaign_id = person.current_campaign_id
        with log_context(campaign_id, turn):
            return await handler(event, data)

    @staticmethod
    async def _person(user: User, chat: Chat | None, data: dict[str, Any]) -> Person:
        store: Store = data["store"]
        clock: Clock = data["clock"]
        in_private = chat is not None and chat.type == "private"
        known = await store.person(user.id)
        name = display_name(user)
        if (
            known is not None
            and known.display_name == name
            and known.username == user.username
            and known.telegram_language == user.language_code
            and (known.can_receive_private or not in_private)
        ):
            return known
        return await store.see_person(
            user.id, name, user.username, user.language_code, in_private, clock.now()
        )


class UpdateReads(BaseMiddleware):
    """Outer middleware: the update is one unit of reading (:func:`bot.services.orders.one_update`),
    so what a handler reads of a person's seat in a campaign is read in one snapshot and used
    to the end of the update, instead of by each service it calls."""

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        with one_update():
            return await handler(event, data)


class LocaleMiddleware(I18nMiddleware):
    """Answers people in their own language: their ``/lang`` choice, else their Telegram app's.
    In a group with a campaign, the campaign's language (what its group posts use); in one whose
    campaigns are over, the latest one's, so its pinned rules and its history do not turn into
    the language of whoever taps them."""

    def __init__(self, i18n: I18n) -> None:
        super().__init__(i18n=i18n)

    async def get_locale(self, event: TelegramObject, data: dict[str, Any]) -> str:
        """The language for this update."""
        chat: Chat | None = data.get("event_chat")
        if chat is not None and chat.type in GROUP_CHATS:
            store: Store = data["store"]
            thread = data.get("event_thread_id") or 0
            if "chat_campaign" in data:
                campaign: Campaign | None = data["chat_campaign"]
            else:
                campaign = await store.active_campaign(chat.id, thread)
            if campaign is None:
                earlier = [
                    c for c in await store.campaigns_in_chat(chat.id) if c.thread_id == thread
                ]
                campaign = earlier[-1] if earlier else None
            if campaign is not None:
                return campaign.language
        person: Person | None = data.get("person")
        if person is not None and person.language is not None:
            return person.language
        user: User | None = data.get("event_from_user")
        return language_of(user.language_code if user else None)


NOT_TEXT = frozenset(
    {
        "animation",
        "audio",
        "contact",
        "dice",
        "document",
        "location",
        "photo",
        "poll",
        "sticker",
        "venue",
        "video",
        "video_note",
        "voice",
    }
)
"""Messages that carry something other than text: orders and placements are typed."""


class CommandEndsQuestion(BaseMiddleware):
    """Outer middleware on messages: a command other than ``/cancel`` ends the sender's wait
    for a typed answer in that chat (a GM's rename, reason or deadline, a wizard step, a
    vacation's dates). A question left open is not answered later by text meant for something
    else: orders typed after ``/advance`` do not become a side's name, announced to the group.
    One read per command; a write only when an answer was awaited."""

    def setup(self, router: Router) -> None:
        """Wrap ``router``'s message observer."""
        router.message.outer_middleware(self)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if (
            isinstance(event, Message)
            and event.from_user is not None
            and await _ENDS_WAITS(event, data["bot"])
        ):
            store: Store = data["store"]
            if await store.prompt(event.chat.id, event.from_user.id) is not None:
                await store.clear_prompt(event.chat.id, event.from_user.id)
        return await handler(event, data)


_ENDS_WAITS = Command(re.compile(r"(?!cancel$).+", re.IGNORECASE))
"""A command for this bot (aiogram's own reading: ``/word``, ``/word@thisbot``, not one for
another bot), other than ``/cancel``, which answers the wait."""


class UnhandledAnswer(BaseMiddleware):
    """Answers what no handler took, where an answer makes sense: a press of a button no screen
    recognises (forged, malformed, or from an older version of the bot), and in a private chat
    a command the bot does not know or a file, photo or sticker. In a group anything else is
    left alone: it may be meant for people or for another bot.

    Set on the dispatcher's message and callback observers after the locale middleware
    (:meth:`setup`), so it answers in the person's language and only once every router,
    including any added later, has passed."""

    def setup(self, router: Router) -> None:
        """Wrap ``router``'s message and callback query observers."""
        router.message.outer_middleware(self)
        router.callback_query.outer_middleware(self)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        result = await handler(event, data)
        if result is not UNHANDLED:
            return result
        if isinstance(event, CallbackQuery):
            await event.answer(_("That button is not valid any more."), show_alert=True)
            return True
        if not isinstance(event, Message) or event.chat.type != "private":
            return result
        if (event.text or "").startswith("/"):
            await event.answer(_("I do not know that command. /help lists what I do."))
            return True
        if event.content_type in NOT_TEXT:
            await event.answer(
                _(
                    "I read only text here: type your orders or placement, or use the buttons "
                    "(/help)."
                )
            )
            return True
        return result
