"""Per-update middlewares: who is writing (stored), and in which language to answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import Chat, TelegramObject, User
from aiogram.utils.i18n import I18n, I18nMiddleware

from bot.clock import Clock
from bot.i18n import language_of
from bot.logs import log_context
from storage import Campaign, Person, Store

GROUP_CHATS = frozenset({"group", "supergroup"})


def display_name(user: User) -> str:
    """How a person is named in posts: first and last name, else the username."""
    name = " ".join(part for part in (user.first_name, user.last_name) if part).strip()
    return (name or user.username or str(user.id))[:128]


class PersonMiddleware(BaseMiddleware):
    """Outer middleware: records the sender as a :class:`~storage.Person` and puts it in
    ``data["person"]``. It writes only when something changed (name, username, Telegram
    language, or the first private message), so most updates cost one read. Log lines of the
    update name its campaign (the group's, or the person's current one)."""

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


class LocaleMiddleware(I18nMiddleware):
    """Answers people in their own language: their ``/lang`` choice, else their Telegram app's.
    In a group with a campaign, the campaign's language (what its group posts use)."""

    def __init__(self, i18n: I18n) -> None:
        super().__init__(i18n=i18n)

    async def get_locale(self, event: TelegramObject, data: dict[str, Any]) -> str:
        """The language for this update."""
        chat: Chat | None = data.get("event_chat")
        if chat is not None and chat.type in GROUP_CHATS:
            if "chat_campaign" in data:
                campaign: Campaign | None = data["chat_campaign"]
            else:
                store: Store = data["store"]
                campaign = await store.active_campaign(chat.id, data.get("event_thread_id") or 0)
            if campaign is not None:
                return campaign.language
        person: Person | None = data.get("person")
        if person is not None and person.language is not None:
            return person.language
        user: User | None = data.get("event_from_user")
        return language_of(user.language_code if user else None)
