"""The bot in process for one random campaign, and everything it showed.

:class:`World` holds the real dispatcher on :class:`tests.bot.telegram.FakeTelegram` (its
session swapped for one that also notes each request's message id and the outbox post it
belongs to), a store, the :class:`~bot.runtime.clock.ManualClock`, the scheduler (``run_due``, never
APScheduler's own clock) and the outbox sender (no send limits, no sleeping). Maps are drawn by
a stand-in that keeps each :class:`~rules.render.MapView` (what the picture shows, checked by
the invariants) and draws a real PNG only when asked to.

Every chat's screens are kept as Telegram shows them (a message edited in place is one
screen), so a person presses what their chat offers, now or long ago. The transcript has a
line per input and per request; the log is captured at DEBUG through the bot's own filter.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from aiogram import Bot
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageCaption,
    EditMessageReplyMarkup,
    EditMessageText,
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
    InlineKeyboardMarkup,
    Message,
    TelegramObject,
    Update,
    User,
)
from aiogram.utils.i18n import I18n

from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.runtime.logs import LogfmtFormatter, NoStatements
from bot.screens.rendering import MapDrawer
from bot.services.outbox_sender import Limits, OutboxSender, SendReport
from bot.services.schedule import CampaignScheduler
from rules.render import MapView, render_map
from storage import OutboxMessage, Store
from tests.bot.telegram import BOT_USER, EPOCH, FakeSession, FakeTelegram, Sent

POSTING: contextvars.ContextVar[OutboxMessage | None] = contextvars.ContextVar(
    "campaign_player_posting", default=None
)
STEP: contextvars.ContextVar[int] = contextvars.ContextVar("campaign_player_step", default=-1)


@dataclass
class Request:
    """One request the bot made: the request, the chat, the message it made or changed, the
    outbox post it belongs to (``None``: a direct answer), the step, and whether Telegram took
    it (``refused``: it answered with an error)."""

    sent: Sent
    chat_id: int | None
    message_id: int | None
    post: OutboxMessage | None
    step: int
    refused: bool = False
    error: str = ""
    pressed_in: int | None = None
    at: datetime | None = None  # the test clock when it was made

    @property
    def text(self) -> str:
        """The text or caption ('' if none)."""
        return self.sent.text

    def words(self) -> str:
        """The text with every button's label: all a reader of it sees."""
        labels = [text for text, _ in self.sent.buttons()]
        return "\n".join([self.text, *labels])


class WatchedSession(FakeSession):
    """:class:`FakeSession` that also keeps a :class:`Request` per request (message id, post,
    step) and Telegram's refusals."""

    def __init__(self, chats: dict[int, Chat]) -> None:
        super().__init__(chats)
        self.requests: list[Request] = []
        self.refuse_repeats = True
        self.answer_to: int | None = None
        self.pressed_in: int | None = None
        self.clock: ManualClock | None = None

    def next_message_id(self) -> int:
        """A new message id in the sequence the bot's messages use (one per chat would do, as
        in Telegram, but one for all keeps ids unique)."""
        self._next_message_id += 1
        return self._next_message_id

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        index = len(self.sent)
        try:
            answer = await super().make_request(bot, method, timeout)
        except Exception as error:
            self._note(index, None, refused=True, error=str(error))
            raise
        self._note(index, answer)
        return answer

    def _note(self, index: int, answer: object, *, refused: bool = False, error: str = "") -> None:
        sent = self.sent[index]
        if isinstance(sent.method, AnswerCallbackQuery):
            sent.chat_id = self.answer_to
        message_id = answer.message_id if isinstance(answer, Message) else None
        if message_id is None:
            message_id = getattr(sent.method, "message_id", None)
        self.requests.append(
            Request(
                sent,
                sent.chat_id,
                message_id,
                POSTING.get(),
                STEP.get(),
                refused,
                error,
                self.pressed_in if isinstance(sent.method, AnswerCallbackQuery) else None,
                None if self.clock is None else self.clock.now(),
            )
        )


class WatchedSender(OutboxSender):
    """The outbox sender, with each post it delivers named on its requests, and every post it
    finished sending counted (a post sent twice is a doubled post)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent_posts: dict[int, int] = {}

    async def _deliver_now(
        self, context: Any, message: OutboxMessage, now: datetime, report: SendReport
    ) -> None:
        token = POSTING.set(message)
        try:
            await super()._deliver_now(context, message, now, report)
        finally:
            POSTING.reset(token)
        if message.id in report.sent:
            self.sent_posts[message.id] = self.sent_posts.get(message.id, 0) + 1


@dataclass
class DrawnMap:
    """A map the bot drew: what it shows, and the step it was drawn at."""

    view: MapView
    step: int
    post: OutboxMessage | None


# The most planned moments one move of the clock stops at (a week holds a dozen or so).
_PLANNED_ON_THE_WAY = 64

PNG_STAND_IN = b"\x89PNG\r\n\x1a\n campaign player: a map not drawn"


class MapRecorder(MapDrawer):
    """Keeps every :class:`MapView` the bot draws; draws a real picture only for the views
    ``real`` says (the invariants that look at pixels ask for them)."""

    def __init__(self) -> None:
        super().__init__(workers=0)
        self.drawn: list[DrawnMap] = []
        self.real_every = 0
        self.real_pictures: list[tuple[MapView, bytes]] = []

    async def draw(self, view: MapView) -> bytes:
        self.drawn.append(DrawnMap(view, STEP.get(), POSTING.get()))
        if self.real_every and len(self.drawn) % self.real_every == 1:
            picture = render_map(view)
            self.real_pictures.append((view, picture))
            return picture
        return PNG_STAND_IN


class LogLines(logging.Handler):
    """Every log line at DEBUG, through the bot's filter (``bot.runtime.logs.NoStatements``), with
    the step it was written at."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.addFilter(NoStatements())
        self.records: list[tuple[int, logging.LogRecord, str]] = []
        self._formatter = LogfmtFormatter()

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((STEP.get(), record, self._formatter.format(record)))


@contextmanager
def reading_the_log() -> Iterator[LogLines]:
    """Capture every line the bot writes with ``LOG_LEVEL=DEBUG`` while inside.

    aiosqlite's DEBUG lines (each SQL statement) are what :class:`NoStatements` drops: they
    are not even made (its logger at INFO), which changes nothing the scan reads."""
    lines = LogLines()
    root = logging.getLogger()
    quiet = logging.getLogger("aiosqlite")
    levels = (root.level, quiet.level)
    root.addHandler(lines)
    root.setLevel(logging.DEBUG)
    quiet.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        root.removeHandler(lines)
        root.setLevel(levels[0])
        quiet.setLevel(levels[1])


@dataclass
class Screen:
    """A message of the bot as its chat shows it now (edits applied)."""

    chat_id: int
    message_id: int
    text: str
    markup: InlineKeyboardMarkup | None
    step: int
    force_reply: bool = False

    def buttons(self) -> list[tuple[str, str]]:
        """(label, callback data) of each callback button."""
        if self.markup is None:
            return []
        return [
            (button.text, button.callback_data)
            for row in self.markup.inline_keyboard
            for button in row
            if button.callback_data
        ]


@dataclass
class Press:
    """A press someone made: who, the screen as they saw it, the button."""

    step: int
    user_id: int
    text: str
    label: str
    data: str
    forged: bool = False


@dataclass
class Line:
    """A transcript line."""

    step: int
    at: datetime
    text: str


@dataclass
class World:
    """The bot, its store and clock, what every chat shows, and the transcript."""

    store: Store
    clock: ManualClock
    i18n: I18n
    telegram: FakeTelegram = field(init=False)
    session: WatchedSession = field(init=False)
    sender: WatchedSender = field(init=False)
    scheduler: CampaignScheduler = field(init=False)
    maps: MapRecorder = field(init=False)
    screens: dict[tuple[int, int], Screen] = field(default_factory=dict)
    chat_screens: dict[int, dict[int, Screen]] = field(default_factory=dict)  # by chat, message
    transcript: list[Line] = field(default_factory=list)
    step: int = 0
    seen_requests: int = 0
    swept_at: datetime | None = None
    presses: list[Press] = field(default_factory=list)
    inputs: list[tuple[int, int, int, str]] = field(default_factory=list)  # step, user, chat, text
    stalls: list[tuple[datetime, datetime]] = field(default_factory=list)  # the bot was down

    def __post_init__(self) -> None:
        self.maps = MapRecorder()
        self.telegram = FakeTelegram(
            build_dispatcher(self.store, self.clock, self.i18n, maps=self.maps)
        )
        self.session = WatchedSession(self.telegram.chats)
        self.session.clock = self.clock
        self.telegram.session = self.session
        self.telegram.bot = Bot("42:TEST", session=self.session)
        self.sender = WatchedSender(
            self.telegram.bot,
            self.store,
            self.clock,
            self.i18n,
            limits=Limits.unlimited(),
            maps=self.maps,
        )
        self.scheduler = CampaignScheduler(self.store, self.clock)

    # ---- people and chats ---------------------------------------------------------------------

    def person(self, user_id: int, name: str, language: str) -> User:
        """Someone with a private chat with the bot."""
        return self.telegram.user(user_id, name, language)

    def group(self, chat_id: int, title: str) -> Chat:
        """The campaign's group."""
        return self.telegram.group(chat_id, title)

    # ---- input --------------------------------------------------------------------------------

    def say_line(self, text: str) -> None:
        """A line of the transcript."""
        self.transcript.append(Line(self.step, self.clock.now(), text))

    def _chat_name(self, chat_id: int | None) -> str:
        if chat_id is None:
            return "?"
        if chat_id < 0:
            return "group"
        user = self.telegram.users.get(chat_id)
        return f"{user.first_name if user else '?'} {chat_id} (private)"

    async def feed(self, update: Update) -> None:
        """One update through the real dispatcher, bound to its bot first: aiogram re-makes an
        update that is not (a JSON round trip of the whole update, a tenth of a press)."""
        await self.telegram.dispatcher.feed_update(
            self.telegram.bot, _bound(update, self.telegram.bot)
        )

    async def write(self, user: User, chat_id: int, text: str) -> None:
        """``user`` writes ``text`` in ``chat_id``."""
        self.say_line(f"{user.first_name} writes in {self._chat_name(chat_id)}: {text!r}")
        self.inputs.append((self.step, user.id, chat_id, text))
        message = Message(
            message_id=self.session.next_message_id(),
            date=EPOCH,
            chat=self.telegram.chats[chat_id],
            from_user=user,
            text=text,
        )
        await self.feed(Update(update_id=self.session.next_message_id(), message=message))

    async def upload(self, user: User, chat_id: int, name: str, content: bytes) -> None:
        """``user`` sends a file in ``chat_id``."""
        self.say_line(f"{user.first_name} sends {name} in {self._chat_name(chat_id)}")
        file_id = f"file{len(self.session.files) + 1}"
        self.session.files[file_id] = content
        document = Document(
            file_id=file_id, file_unique_id=file_id, file_name=name, file_size=len(content)
        )
        message = Message(
            message_id=self.session.next_message_id(),
            date=EPOCH,
            chat=self.telegram.chats[chat_id],
            from_user=user,
            document=document,
        )
        await self.feed(Update(update_id=self.session.next_message_id(), message=message))

    async def press(self, user: User, screen: Screen, data: str, label: str = "") -> None:
        """``user`` presses the button ``data`` under ``screen`` (as shown now)."""
        self.say_line(
            f"{user.first_name} presses «{label or data}» [{data}] in"
            f" {self._chat_name(screen.chat_id)} (message {screen.message_id},"
            f" {'stale, ' if screen.step < self.step - 1 else ''}shown at step {screen.step})"
        )
        message = Message(
            message_id=screen.message_id,
            date=EPOCH,
            chat=self.telegram.chats[screen.chat_id],
            from_user=BOT_USER,
            text=screen.text,
            reply_markup=screen.markup,
        )
        self.session.shown[(screen.chat_id, screen.message_id)] = (screen.text, screen.markup)
        self.presses.append(Press(self.step, user.id, screen.text, label, data))
        self.session.answer_to = user.id
        self.session.pressed_in = screen.chat_id
        query = CallbackQuery(
            id=str(self.session.next_message_id()),
            from_user=user,
            chat_instance=str(screen.chat_id),
            message=message,
            data=data,
        )
        await self.feed(Update(update_id=self.session.next_message_id(), callback_query=query))

    async def forge(self, user: User, chat_id: int, data: str) -> None:
        """``user`` sends a callback with ``data`` under a message the bot never made."""
        self.say_line(f"{user.first_name} forges a press [{data}] in {self._chat_name(chat_id)}")
        self.presses.append(Press(self.step, user.id, "…", "", data, forged=True))
        self.session.answer_to = user.id
        self.session.pressed_in = chat_id
        message = Message(
            message_id=self.session.next_message_id(),
            date=EPOCH,
            chat=self.telegram.chats[chat_id],
            from_user=BOT_USER,
            text="…",
        )
        query = CallbackQuery(
            id=str(self.session.next_message_id()),
            from_user=user,
            chat_instance=str(chat_id),
            message=message,
            data=data,
        )
        await self.feed(Update(update_id=self.session.next_message_id(), callback_query=query))

    # ---- time and posts -----------------------------------------------------------------------

    async def deliver(self) -> None:
        """Send every post due now."""
        while (await self.sender.send_due()).sent:
            pass

    async def sweep(self) -> None:
        """What the minute's sweep does: every due step and reminder, then the posts."""
        self.swept_at = self.clock.now()
        await self.scheduler.run_due(self.swept_at)
        await self.deliver()

    async def sweep_if_due(self) -> None:
        """The sweep if the clock moved since the last one (it runs once a minute), else the
        posts the last inputs queued (the sender wakes up for them at once)."""
        if self.swept_at is None or self.clock.now() - self.swept_at >= timedelta(minutes=1):
            await self.sweep()
        else:
            await self.deliver()

    async def move_clock(self, moment: datetime, *, bot_down: bool = False) -> None:
        """The clock moves to ``moment`` (never back). The sweep runs a minute after the last
        one and at every moment the bot planned on the way, as it does when the bot is up; with
        ``bot_down`` nothing runs until the bot is back at ``moment``, and then it catches up
        (an overdue step)."""
        now = self.clock.now()
        if moment <= now:
            return
        if bot_down:
            self.stalls.append((now, moment))
            self.say_line(
                f"the bot is down from {now.astimezone(UTC):%a %d %b %Y %H:%M} to"
                f" {moment.astimezone(UTC):%a %d %b %Y %H:%M} UTC"
            )
            self.clock.set(moment)
            return
        minute = None if self.swept_at is None else self.swept_at + timedelta(minutes=1)
        if minute is not None and now < minute <= moment:
            # The minute's sweep after the last inputs (a placement that ends a wait, a GM's
            # decision) runs before the clock goes further.
            self.say_line(f"the clock moves to {minute.astimezone(UTC):%a %d %b %Y %H:%M} UTC")
            self.clock.set(minute)
            await self.sweep()
            now = minute
        for _ in range(_PLANNED_ON_THE_WAY):
            planned = await self.scheduler.next_due(now)
            if planned is None or not now < planned < moment:
                break
            self.say_line(f"the clock moves to {planned.astimezone(UTC):%a %d %b %Y %H:%M} UTC")
            self.clock.set(planned)
            await self.sweep()
            now = planned
        self.say_line(f"the clock moves to {moment.astimezone(UTC):%a %d %b %Y %H:%M} UTC")
        self.clock.set(moment)

    # ---- what the chats show ------------------------------------------------------------------

    def take_requests(self) -> list[Request]:
        """The requests since the last call; every chat's screens follow them and each is a
        transcript line."""
        fresh = self.session.requests[self.seen_requests :]
        self.seen_requests = len(self.session.requests)
        for request in fresh:
            self._show(request)
        return fresh

    def _show(self, request: Request) -> None:
        method = request.sent.method
        chat_id = request.chat_id
        prefix = "✗ refused: " if request.refused else ""
        post = f" [{request.post.kind}]" if request.post is not None else ""
        if isinstance(method, AnswerCallbackQuery):
            if method.text:
                self.say_line(f"  → {prefix}alert{post}: {method.text}")
            return
        text = request.text.replace("\n", " ⏎ ")
        if len(text) > 400:
            text = text[:400] + "…"
        kind = type(method).__name__
        buttons = [label for label, _ in request.sent.buttons()]
        shown = f" {buttons}" if buttons else ""
        self.say_line(f"  → {prefix}{kind} to {self._chat_name(chat_id)}{post}: {text}{shown}")
        if request.refused or chat_id is None or request.message_id is None:
            return
        key = (chat_id, request.message_id)
        markup = request.sent.markup
        force = type(getattr(method, "reply_markup", None)).__name__ == "ForceReply"
        if isinstance(method, SendMessage | SendPhoto | SendDocument):
            self._keep(Screen(chat_id, request.message_id, request.text, markup, self.step, force))
        elif isinstance(method, EditMessageText | EditMessageCaption):
            old = self.screens.get(key)
            self._keep(
                Screen(
                    chat_id,
                    request.message_id,
                    request.text,
                    markup,
                    self.step,
                    old.force_reply if old else False,
                )
            )
        elif isinstance(method, EditMessageReplyMarkup):
            old = self.screens.get(key)
            if old is not None:
                self._keep(
                    Screen(
                        chat_id, request.message_id, old.text, markup, self.step, old.force_reply
                    )
                )

    def _keep(self, screen: Screen) -> None:
        self.screens[(screen.chat_id, screen.message_id)] = screen
        self.chat_screens.setdefault(screen.chat_id, {})[screen.message_id] = screen

    def screens_in(self, chat_id: int) -> list[Screen]:
        """The chat's messages, oldest first."""
        return sorted(self.chat_screens.get(chat_id, {}).values(), key=lambda s: s.message_id)


def _bound(value: Any, bot: Bot) -> Any:
    """``value`` with every Telegram object in it bound to ``bot`` (what aiogram's
    ``Update.model_validate(update.model_dump(), context={"bot": bot})`` does, in place)."""
    if isinstance(value, TelegramObject):
        value.as_(bot)
        for name in value.model_fields_set:  # a field left unset holds no object (None)
            item = getattr(value, name)
            if isinstance(item, TelegramObject | list | tuple):
                _bound(item, bot)
    elif isinstance(value, list | tuple):
        for item in value:
            if isinstance(item, TelegramObject | list | tuple):
                _bound(item, bot)
    return value
