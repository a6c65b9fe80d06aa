"""The world around a bot that may be killed: kill points and a Telegram that keeps a journal.

- :class:`KillSwitch` counts *points* by kind and SIGKILLs its own process at the planned one
  (``KillPlan``: the ``nth`` point of ``kind`` in this process). Kinds: ``commit`` (a store
  transaction's work done, ``COMMIT`` not yet run), ``committed`` (just after ``COMMIT``),
  ``send`` (a request on its way, Telegram has not got it) and ``sent`` (Telegram recorded the
  request, the bot has not had the answer yet).
- :func:`instrument_commits` wraps :meth:`storage.db.Database.transaction` (in the child
  process only) to give the commit points; no bot or storage code is edited.
- :class:`JournaledTelegram` is an aiogram session that answers as Telegram would and appends
  every request it accepts to a JSON-lines journal, fsynced *before* it answers: the journal is
  what Telegram received, and it survives the kill. It refuses what Telegram refuses (an edit
  that changes nothing, an edit of a message that does not exist, a text over 4096
  characters). Message ids continue across restarts (they are the journal's line numbers).
- :data:`ORIGIN` says on whose behalf a request goes out: the update of a script step, or an
  outbox message; every journal line carries it.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import aiosqlite
from aiogram import Bot
from aiogram.client.session.base import BaseSession
from aiogram.exceptions import TelegramBadRequest
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageCaption,
    EditMessageReplyMarkup,
    EditMessageText,
    GetMe,
    PinChatMessage,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType
from aiogram.types import BufferedInputFile, Chat, InlineKeyboardMarkup, Message, User

from bot.texts.limits import TEXT_LIMIT, telegram_length
from storage.db import Database

BOT_USER = User(id=4242, is_bot=True, first_name="Strategium", username="strategium_bot")
FIRST_MESSAGE_ID = 1000
KINDS = ("commit", "committed", "send", "sent")

Origin = dict[str, Any]
ORIGIN: ContextVar[Origin | None] = ContextVar("sigkill_origin", default=None)


def append_line(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON line and fsync it: written before anything that follows."""
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        file.flush()
        os.fsync(file.fileno())


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Every JSON line of ``path`` (none if it does not exist)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def delivery_key(origin: Origin) -> str:
    """One delivery attempt: the update of a step in a process, or an outbox message's claim."""
    if "outbox" in origin:
        return f"o|{origin['outbox']}|{origin['incarnation']}|{origin['attempt']}"
    return f"u|{origin['update']}|{origin['incarnation']}"


def origin_name(origin: Origin | None) -> str:
    """On whose behalf: ``u<step>`` (an update), ``o:<outbox key>`` (a post), ``-`` (neither)."""
    if origin is None:
        return "-"
    if "outbox" in origin:
        return f"o:{origin['outbox']}"
    return f"u{origin['update']}"


@dataclass(frozen=True)
class KillPlan:
    """Kill this process at the ``nth`` point of ``kind`` (counted from its start)."""

    kind: str
    nth: int


class KillSwitch:
    """Counts points; at the planned one, notes where it is (``kills.jsonl``) and SIGKILLs the
    process. With ``trace`` on it also lists every point as ``[step, kind, origin name]``."""

    def __init__(
        self, plan: KillPlan | None, kills: Path, incarnation: int, *, trace: bool = False
    ) -> None:
        self.plan = plan
        self.kills = kills
        self.incarnation = incarnation
        self.counts: Counter[str] = Counter()
        self.step = -1
        self.trace: list[list[Any]] | None = [] if trace else None
        self.marked_sent: set[str] = set()

    def point(self, kind: str, where: Callable[[], dict[str, Any]]) -> None:
        """One point of ``kind``; ``where`` describes it (called only when it is needed)."""
        self.counts[kind] += 1
        origin = ORIGIN.get()
        if (
            kind == "committed"
            and origin is not None
            and "outbox" in origin
            and where().get("transaction") == "mark_sent"
        ):
            self.marked_sent.add(delivery_key(origin))
        if self.trace is not None:
            self.trace.append([self.step, kind, origin_name(origin)])
        plan = self.plan
        if plan is None or plan.kind != kind or self.counts[kind] != plan.nth:
            return
        record = {
            "incarnation": self.incarnation,
            "step": self.step,
            "kind": kind,
            "nth": plan.nth,
            "origin": origin,
            "after_mark_sent": origin is not None and delivery_key(origin) in self.marked_sent,
            **where(),
        }
        append_line(self.kills, record)
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)


def _store_caller() -> str:
    """The storage method running the current transaction (for the kill record)."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename.replace("\\", "/")
        if "/storage/" in name and not name.endswith("/storage/db.py"):
            return frame.f_code.co_name
        frame = frame.f_back  # type: ignore[assignment]
    return "?"


_PARTS: ContextVar[list[str] | None] = ContextVar("sigkill_parts", default=None)


def instrument_commits(switch: KillSwitch) -> None:
    """Give every store transaction a point before and after its ``COMMIT`` (this process).
    A transaction inside another (``Store.atomic``) commits nothing of its own: no points; the
    enclosing one is named by the first store method run inside it."""
    original = Database.transaction

    @asynccontextmanager
    async def transaction(
        self: Database, *, row_locks: bool = False
    ) -> AsyncIterator[aiosqlite.Connection]:
        parts = _PARTS.get()
        if parts is not None and self._held_here():
            parts.append(_store_caller())
            async with original(self, row_locks=row_locks) as conn:
                yield conn
            return
        names: list[str] = []
        token = _PARTS.set(names)
        try:
            async with original(self, row_locks=row_locks) as conn:
                yield conn
                name = _unit_name(names)
                switch.point("commit", lambda: {"transaction": name})
            switch.point("committed", lambda: {"transaction": name})
        finally:
            _PARTS.reset(token)

    def _unit_name(names: list[str]) -> str:
        caller = _store_caller()
        return names[0] if caller == "atomic" and names else caller

    Database.transaction = transaction  # type: ignore[method-assign]


def buttons_of(markup: object) -> list[list[str]]:
    """(label, callback data or url) of every inline button, row by row flattened."""
    if not isinstance(markup, InlineKeyboardMarkup):
        return []
    return [
        [button.text, button.callback_data or button.url or ""]
        for row in markup.inline_keyboard
        for button in row
    ]


@dataclass
class Shown:
    """A message of the bot as Telegram shows it now."""

    chat_id: int
    message_id: int
    text: str
    buttons: list[list[str]]


class JournaledTelegram(BaseSession):
    """Telegram for one bot, in process: every accepted request is a journal line, fsynced
    before the answer. On start it reads the journal back (what earlier processes sent)."""

    def __init__(self, journal: Path, switch: KillSwitch, chats: dict[int, Chat]) -> None:
        super().__init__()
        self.journal = journal
        self.switch = switch
        self.chats = chats
        self.lines = read_lines(journal)
        self.shown: dict[tuple[int, int], Shown] = {}
        for line in self.lines:
            self._show(line)

    async def close(self) -> None:
        """Nothing to close."""

    def messages(self, chat_id: int) -> list[Shown]:
        """The bot's messages in ``chat_id`` as they are now, oldest first."""
        return sorted(
            (shown for shown in self.shown.values() if shown.chat_id == chat_id),
            key=lambda shown: shown.message_id,
        )

    def _show(self, line: dict[str, Any]) -> None:
        message_id = line.get("message_id")
        if message_id is None or line["method"] in ("AnswerCallbackQuery", "PinChatMessage"):
            return
        key = (int(line["chat_id"]), int(message_id))
        if line["method"] == "EditMessageReplyMarkup" and key in self.shown:
            self.shown[key].buttons = line["buttons"]
            return
        self.shown[key] = Shown(key[0], key[1], line["text"], line["buttons"])

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        if isinstance(method, GetMe):
            return cast(TelegramType, BOT_USER)
        name = type(method).__name__
        chat = getattr(method, "chat_id", None)
        self.switch.point("send", lambda: {"method": name, "chat_id": chat})
        line, answer = self._accept(method)
        line |= {
            "n": len(self.lines),
            "incarnation": self.switch.incarnation,
            "step": self.switch.step,
            "origin": ORIGIN.get(),
        }
        append_line(self.journal, line)
        self.lines.append(line)
        self._show(line)
        self.switch.point("sent", lambda: {"method": name, "chat_id": chat, "line": line["n"]})
        return cast(TelegramType, answer)

    def _new_message(self, chat_id: int, **fields: Any) -> Message:
        chat = self.chats.get(chat_id) or Chat(id=chat_id, type="private")
        return Message(
            message_id=FIRST_MESSAGE_ID + len(self.lines),
            date=datetime(2026, 1, 1, tzinfo=UTC),
            chat=chat,
            from_user=BOT_USER,
            **fields,
        )

    def _accept(self, method: TelegramMethod[Any]) -> tuple[dict[str, Any], Any]:
        """The journal line of an accepted request and Telegram's answer; raises Telegram's
        refusal instead."""
        name = type(method).__name__
        text = str(getattr(method, "text", None) or getattr(method, "caption", None) or "")
        buttons = buttons_of(getattr(method, "reply_markup", None))
        line: dict[str, Any] = {"method": name, "text": text, "buttons": buttons}
        match method:
            case SendMessage() | SendPhoto():
                chat_id = int(method.chat_id)
                if isinstance(method, SendMessage) and telegram_length(text) > TEXT_LIMIT:
                    raise TelegramBadRequest(method, "Bad Request: message is too long")
                fields: dict[str, Any] = {"text": text} if isinstance(method, SendMessage) else {}
                if isinstance(method, SendPhoto):
                    photo = method.photo
                    data = photo.data if isinstance(photo, BufferedInputFile) else b""
                    line["photo"] = hashlib.sha256(data).hexdigest()[:16]
                    fields = {"caption": text or None}
                answer = self._new_message(chat_id, **fields)
                line |= {"chat_id": chat_id, "message_id": answer.message_id}
                return line, answer
            case EditMessageText() | EditMessageCaption() | EditMessageReplyMarkup():
                chat_id = int(method.chat_id or 0)
                message_id = int(method.message_id or 0)
                shown = self.shown.get((chat_id, message_id))
                if shown is None:
                    raise TelegramBadRequest(method, "Bad Request: message to edit not found")
                if isinstance(method, EditMessageReplyMarkup):
                    text = shown.text
                    line["text"] = text
                if (shown.text, shown.buttons) == (text, buttons):
                    raise TelegramBadRequest(
                        method,
                        "Bad Request: message is not modified: specified new message content "
                        "and reply markup are exactly the same as a current content and reply "
                        "markup of the message",
                    )
                line |= {"chat_id": chat_id, "message_id": message_id}
                chat = self.chats.get(chat_id) or Chat(id=chat_id, type="private")
                answer = Message(
                    message_id=message_id,
                    date=datetime(2026, 1, 1, tzinfo=UTC),
                    chat=chat,
                    from_user=BOT_USER,
                    text=text,
                )
                return line, answer
            case AnswerCallbackQuery():
                line["query"] = method.callback_query_id
                line["chat_id"] = None
                return line, True
            case PinChatMessage():
                line |= {"chat_id": int(method.chat_id), "message_id": method.message_id}
                return line, True
            case _:
                line["chat_id"] = getattr(method, "chat_id", None)
                return line, True

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        """No files in this world."""
        raise FileNotFoundError(url)
        yield b""  # pragma: no cover
