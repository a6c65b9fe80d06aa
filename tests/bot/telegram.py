"""An in-process Telegram for dispatcher tests: real ``Update`` objects in, recorded requests out.

``FakeTelegram`` is aiogram's mocked-session pattern (``tests/mocked_bot.py`` in aiogram), made
to answer every method with a plausible result, so a whole conversation can run through the
real ``Dispatcher`` and the test asserts on exactly what the bot sent, to whom.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from aiogram import Bot, Dispatcher
from aiogram.client.session.base import BaseSession
from aiogram.exceptions import TelegramBadRequest
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageReplyMarkup,
    EditMessageText,
    GetFile,
    GetMe,
    SendDocument,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType
from aiogram.types import (
    CallbackQuery,
    Chat,
    Document,
    File,
    InlineKeyboardMarkup,
    Message,
    PhotoSize,
    Update,
    User,
)
from aiogram.utils.i18n import I18n

from bot.services.outbox_sender import OutboxSender
from bot.texts.i18n import build_i18n
from bot.texts.limits import TEXT_LIMIT, telegram_length

BOT_USER = User(id=4242, is_bot=True, first_name="Strategium", username="strategium_bot")
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class Sent:
    """One request the bot made, with the chat it went to (if any)."""

    method: TelegramMethod[Any]
    chat_id: int | None

    @property
    def text(self) -> str:
        """The text or caption of the request ('' if none)."""
        return str(
            getattr(self.method, "text", None) or getattr(self.method, "caption", None) or ""
        )

    @property
    def markup(self) -> InlineKeyboardMarkup | None:
        """The inline keyboard sent with the request, if any."""
        markup = getattr(self.method, "reply_markup", None)
        return markup if isinstance(markup, InlineKeyboardMarkup) else None

    def buttons(self) -> list[tuple[str, str]]:
        """(text, callback data) of every inline button, row by row."""
        if self.markup is None:
            return []
        return [
            (button.text, button.callback_data or button.url or "")
            for row in self.markup.inline_keyboard
            for button in row
        ]


class FakeSession(BaseSession):
    """Records every request and answers it as Telegram would, refusing a text longer than
    Telegram's 4096 characters ("message is too long").

    With ``refuse_repeats`` on, it also refuses what Telegram refuses on a repeat: an edit that
    would leave a message as it is ("message is not modified") and a second answer to one
    callback query."""

    def __init__(self, chats: dict[int, Chat]) -> None:
        super().__init__()
        self.sent: list[Sent] = []
        self.files: dict[str, bytes] = {}
        self.refuse_repeats = False
        self.shown: dict[tuple[int, int], tuple[str, InlineKeyboardMarkup | None]] = {}
        self._answered: set[str] = set()
        self._chats = chats
        self._next_message_id = 1000

    async def close(self) -> None:
        """Nothing to close."""

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        chat_id = getattr(method, "chat_id", None)
        self.sent.append(Sent(method=method, chat_id=chat_id if isinstance(chat_id, int) else None))
        if isinstance(method, SendMessage | EditMessageText):
            self._refuse_too_long(method)
        if self.refuse_repeats:
            self._refuse_repeat(method)
        answer = self._answer(method)
        if isinstance(answer, Message) and isinstance(method, SendMessage | EditMessageText):
            self.shown[(answer.chat.id, answer.message_id)] = (
                method.text or "",
                cast(InlineKeyboardMarkup | None, method.reply_markup),
            )
        return cast(TelegramType, answer)

    def _refuse_too_long(self, method: TelegramMethod[Any]) -> None:
        if telegram_length(getattr(method, "text", None) or "") > TEXT_LIMIT:
            raise TelegramBadRequest(method, "Bad Request: message is too long")

    def _refuse_repeat(self, method: TelegramMethod[Any]) -> None:
        if isinstance(method, AnswerCallbackQuery):
            if method.callback_query_id in self._answered:
                raise TelegramBadRequest(
                    method, "Bad Request: query is too old and response timeout expired"
                )
            self._answered.add(method.callback_query_id)
        if isinstance(method, EditMessageText) and method.message_id is not None:
            key = (int(method.chat_id or 0), method.message_id)
            if self.shown.get(key) == (method.text, method.reply_markup):
                raise TelegramBadRequest(
                    method,
                    "Bad Request: message is not modified: specified new message content and "
                    "reply markup are exactly the same as a current content and reply markup "
                    "of the message",
                )

    def _message(self, chat_id: int, **fields: Any) -> Message:
        self._next_message_id += 1
        chat = self._chats.get(chat_id) or Chat(id=chat_id, type="private")
        return Message(
            message_id=self._next_message_id, date=EPOCH, chat=chat, from_user=BOT_USER, **fields
        )

    def _answer(self, method: TelegramMethod[Any]) -> Any:
        match method:
            case GetMe():
                return BOT_USER
            case GetFile():
                return File(
                    file_id=method.file_id,
                    file_unique_id=method.file_id,
                    file_size=len(self.files.get(method.file_id, b"")),
                    file_path=f"documents/{method.file_id}",
                )
            case SendMessage():
                return self._message(int(method.chat_id), text=method.text)
            case SendPhoto():
                photo = [
                    PhotoSize(file_id="photo", file_unique_id="photo", width=1280, height=1280)
                ]
                return self._message(int(method.chat_id), photo=photo, caption=method.caption)
            case SendDocument():
                return self._message(int(method.chat_id), caption=method.caption)
            case EditMessageText() | EditMessageReplyMarkup():
                return self._edited(method)
            case AnswerCallbackQuery():
                return True
            case _:
                return True

    def _edited(self, method: EditMessageText | EditMessageReplyMarkup) -> Message:
        chat_id = int(method.chat_id or 0)
        if method.message_id is None:
            return self._message(chat_id, text=getattr(method, "text", ""))
        chat = self._chats.get(chat_id) or Chat(id=chat_id, type="private")
        return Message(
            message_id=method.message_id,
            date=EPOCH,
            chat=chat,
            from_user=BOT_USER,
            text=getattr(method, "text", ""),
        )

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        """A file a test put in ``files`` (by file id), as ``bot.download`` streams it."""
        yield self.files[url.rsplit("/", 1)[-1]]


@functools.cache
def _catalogs() -> I18n:
    return build_i18n()


@dataclass
class FakeTelegram:
    """A bot on a fake session, a dispatcher, and factories for updates from people."""

    dispatcher: Dispatcher
    chats: dict[int, Chat] = field(default_factory=dict)
    users: dict[int, User] = field(default_factory=dict)
    _update_id: int = 0
    _message_id: int = 0

    def __post_init__(self) -> None:
        self.session = FakeSession(self.chats)
        self.bot = Bot("42:TEST", session=self.session)

    @property
    def sent(self) -> list[Sent]:
        """Every request so far."""
        return self.session.sent

    def user(self, user_id: int, name: str, language: str = "en") -> User:
        """A person, with a private chat with the bot."""
        user = User(id=user_id, is_bot=False, first_name=name, language_code=language)
        self.users[user_id] = user
        self.chats[user_id] = Chat(id=user_id, type="private", first_name=name)
        return user

    def group(self, chat_id: int, title: str) -> Chat:
        """A supergroup the bot is in."""
        chat = Chat(id=chat_id, type="supergroup", title=title)
        self.chats[chat_id] = chat
        return chat

    def take(self) -> list[Sent]:
        """The requests since the last call, and forget them."""
        taken = list(self.session.sent)
        self.session.sent.clear()
        return taken

    async def feed(self, update: Update) -> Sent | None:
        """Feed one update through the dispatcher; returns the last request it caused."""
        before = len(self.session.sent)
        await self.dispatcher.feed_update(self.bot, update)
        after = self.session.sent[before:]
        return after[-1] if after else None

    async def deliver(self) -> list[Sent]:
        """Send what the outbox holds that is due now (as the bot's sender would, at the
        dispatcher's clock); the requests it made."""
        before = len(self.session.sent)
        data = self.dispatcher
        sender = OutboxSender(self.bot, data["store"], data["clock"], _catalogs())
        while (await sender.send_due()).sent:
            pass
        return self.session.sent[before:]

    def _next_update(self) -> int:
        self._update_id += 1
        return self._update_id

    def message(self, user: User, chat: Chat | int, text: str | None, **fields: Any) -> Update:
        """An update: ``user`` writes ``text`` in ``chat`` (a user id means their private chat)."""
        chat_obj = self.chats[chat] if isinstance(chat, int) else chat
        self._message_id += 1
        message = Message(
            message_id=self._message_id,
            date=EPOCH,
            chat=chat_obj,
            from_user=user,
            text=text,
            **fields,
        )
        return Update(update_id=self._next_update(), message=message)

    def press(self, user: User, sent: Sent, data: str) -> Update:
        """An update: ``user`` presses the button with callback ``data`` under a sent message."""
        if data not in [callback for _, callback in sent.buttons()]:
            raise AssertionError(f"no button {data!r} under that message: {sent.buttons()}")
        chat = self.chats[sent.chat_id] if sent.chat_id is not None else self.chats[user.id]
        self._message_id += 1
        message = Message(
            message_id=self._message_id,
            date=EPOCH,
            chat=chat,
            from_user=BOT_USER,
            text=sent.text,
            reply_markup=sent.markup,
        )
        self.session.shown[(chat.id, message.message_id)] = (sent.text, sent.markup)
        query = CallbackQuery(
            id=str(self._next_update()),
            from_user=user,
            chat_instance=str(chat.id),
            message=message,
            data=data,
        )
        return Update(update_id=self._next_update(), callback_query=query)

    def document(self, user: User, chat: Chat | int, name: str, content: bytes) -> Update:
        """An update: ``user`` uploads a file called ``name`` in ``chat``."""
        file_id = f"file{len(self.session.files) + 1}"
        self.session.files[file_id] = content
        document = Document(
            file_id=file_id, file_unique_id=file_id, file_name=name, file_size=len(content)
        )
        return self.message(user, chat, text=None, document=document)

    def forged_press(
        self, user: User, chat: Chat | int, data: str, message_id: int | None = None
    ) -> Update:
        """A callback with arbitrary data, as a hostile client could send; under the message
        ``message_id`` (default: a new one)."""
        chat_obj = self.chats[chat] if isinstance(chat, int) else chat
        if message_id is None:
            self._message_id += 1
            message_id = self._message_id
        message = Message(
            message_id=message_id, date=EPOCH, chat=chat_obj, from_user=BOT_USER, text="…"
        )
        query = CallbackQuery(
            id=str(self._next_update()),
            from_user=user,
            chat_instance=str(chat_obj.id),
            message=message,
            data=data,
        )
        return Update(update_id=self._next_update(), callback_query=query)
