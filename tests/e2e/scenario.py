"""A campaign played the way people play it, through the real bot process and the emulator.

The pieces, from the bottom up:

- :func:`running_bot` starts ``python -m bot`` against the emulator with the test clock on
  (``TEST_CLOCK_CONTROL``, :mod:`bot.testing.clock_control`) and always stops it;
  :class:`ClockClient` reads and moves that clock (``POST /clock`` runs the due steps and sends
  the due posts before it answers).
- :class:`Table` is the people at the table: a group, a GM and players (:class:`Player`). Its
  primitives act as one person (``command``, ``say``, ``reply``, ``press``), wait, bounded, for
  the bot's answer by polling the emulator's history, then let the bot settle (``POST /clock``
  at the same moment: what a running bot's minute sweep would do), and return what each chat
  received (:class:`Received`). Everything seen is kept in order in ``table.transcript``.
- The campaign steps below them (:func:`create_campaign`, :func:`join`, :func:`deploy_by_buttons`,
  :func:`deploy_typed`, :func:`orders_by_buttons`, :func:`orders_typed`, :func:`mark_ready`,
  :func:`report_result`, :func:`confirm_result`, :func:`dispute_result`, :func:`gm_decide`,
  :func:`ask_to_join`, :func:`gm_answers_join`, :func:`gm_override`, :func:`gm_undo`,
  :func:`gm_advance`, :func:`gm_end`) press the same buttons and type the same
  lines a person would; none reaches into the database. The week moves with :func:`move_to`
  (``ORDERS_CLOSE``, ``BATTLE_LIST``, ``RESOLUTION`` in the campaign's zone) or
  :func:`move_to_next_due` (the next deadline or reminder the bot planned).

Every wait has a deadline and raises :class:`~tests.e2e.harness.EmulatorError` with what was
last seen; nothing sleeps for pacing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp

from bot.handlers.group.clock import ClockPress
from bot.handlers.group.setup import ZONES
from bot.handlers.joining import JoinChoice
from bot.handlers.private.callbacks import (
    DeployButton,
    OrdersButton,
    ResultButton,
    VerdictButton,
)
from bot.screens.callbacks import GmPress, JoinPress, JoinVerdict
from rules import builtin_map
from tests.e2e.harness import Chat, EmulatorError, JsonObject, ScriptedTelegram, User

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0
ANSWER_TIMEOUT = 15.0
STOP_TIMEOUT = 10.0
POLL_SECONDS = 0.05


# ---- the bot process and its clock -------------------------------------------------------------


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the bot binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class ClockRun:
    """What one ``POST /clock`` ran: the moment, the phase steps, the posts sent."""

    now: datetime
    phases: list[JsonObject]
    sent: int


class ClockClient:
    """The bot's test clock over HTTP (``GET``/``POST /clock`` on 127.0.0.1)."""

    def __init__(self, url: str, session: aiohttp.ClientSession) -> None:
        self.url = url
        self._session = session

    async def now(self) -> datetime:
        """The bot's current moment."""
        async with self._session.get(
            self.url, timeout=aiohttp.ClientTimeout(total=ANSWER_TIMEOUT)
        ) as response:
            body = await response.json()
        return datetime.fromisoformat(body["now"])

    async def next_due(self) -> datetime | None:
        """The next moment a campaign's deadline or reminder is due (None: nothing ahead)."""
        async with self._session.get(
            self.url, timeout=aiohttp.ClientTimeout(total=ANSWER_TIMEOUT)
        ) as response:
            body = await response.json()
        return datetime.fromisoformat(body["next"]) if body.get("next") else None

    async def set(self, moment: datetime) -> ClockRun:
        """Move the clock to ``moment`` (not back); the due work ran when this returns."""
        async with self._session.post(
            self.url,
            json={"now": moment.isoformat()},
            timeout=aiohttp.ClientTimeout(total=ANSWER_TIMEOUT * 4),
        ) as response:
            body = await response.json()
            if response.status != 200:
                raise EmulatorError(f"POST {self.url}: {response.status} {body}")
        return ClockRun(
            now=datetime.fromisoformat(body["now"]), phases=body["phases"], sent=body["sent"]
        )

    async def advance(self, delta: timedelta) -> ClockRun:
        """Move the clock forward by ``delta``."""
        return await self.set(await self.now() + delta)

    async def settle(self) -> ClockRun:
        """Run what is due now without moving the clock (the minute sweep of a running bot)."""
        return await self.set(await self.now())


@dataclass(frozen=True)
class BotProcess:
    """A running ``python -m bot`` with its test clock."""

    clock: ClockClient
    database: Path
    log_path: Path
    pid: int

    def log_tail(self, size: int = 4000) -> str:
        """The end of the bot's log (for failure messages)."""
        return self.log_path.read_text(errors="replace")[-size:]


def bot_environment(
    telegram: ScriptedTelegram, database: Path, clock_port: int, clock_start: datetime
) -> dict[str, str]:
    """The environment of a bot process on the emulator with the test clock."""
    return {
        **os.environ,
        "BOT_TOKEN": telegram.token,
        "BOT_API_BASE": telegram.base_url,
        "DATABASE_PATH": str(database),
        "LOG_LEVEL": "INFO",
        "TEST_CLOCK_CONTROL": "true",
        "TEST_CLOCK_START": clock_start.isoformat(),
        "TEST_CLOCK_HOST": "127.0.0.1",
        "TEST_CLOCK_PORT": str(clock_port),
    }


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after STOP_TIMEOUT."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.asynccontextmanager
async def running_bot(
    telegram: ScriptedTelegram,
    session: aiohttp.ClientSession,
    workdir: Path,
    *,
    clock_start: datetime,
    extra_env: dict[str, str] | None = None,
) -> AsyncIterator[BotProcess]:
    """``python -m bot`` on the emulator with its test clock at ``clock_start``, serving once
    it polls and its clock answers; always stopped when the block ends (also on failure)."""
    workdir.mkdir(parents=True, exist_ok=True)
    database, log_path = workdir / "bot.sqlite3", workdir / "bot.log"
    port = free_port()
    env = bot_environment(telegram, database, port, clock_start) | (extra_env or {})
    with log_path.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            running = BotProcess(
                clock=ClockClient(f"http://127.0.0.1:{port}/clock", session),
                database=database,
                log_path=log_path,
                pid=process.pid,
            )
            await _wait_serving(telegram, running, process)
            yield running
        finally:
            stop_process(process)


async def _wait_serving(
    telegram: ScriptedTelegram, running: BotProcess, process: subprocess.Popen[bytes]
) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            raise EmulatorError(f"the bot exited at start:\n{running.log_tail()}")
        polling = (await telegram.request_counts()).get("getUpdates", 0) > 0
        if polling:
            with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                await running.clock.now()
                return
        if loop.time() >= deadline:
            raise EmulatorError(
                f"the bot did not start in {START_TIMEOUT} s:\n{running.log_tail()}"
            )
        await asyncio.sleep(POLL_SECONDS)


# ---- what the bot sent ------------------------------------------------------------------------


Button = tuple[str, str]  # (label, callback data or url)
Label = str | re.Pattern[str] | Callable[[str, str], bool]  # how a person finds a button


def _matches(label: Label, text: str, data: str) -> bool:
    if isinstance(label, str):
        return label in text
    if isinstance(label, re.Pattern):
        return label.search(text) is not None
    return label(text, data)


@dataclass(frozen=True)
class BotMessage:
    """One message of the bot as it is now in the emulator (edits applied)."""

    chat_id: int
    message_id: int
    text: str
    buttons: tuple[tuple[Button, ...], ...]
    photo: str | None  # the file id of a photo, if it is one
    raw: JsonObject = field(compare=False, repr=False)

    @classmethod
    def from_api(cls, message: JsonObject) -> BotMessage:
        markup = message.get("reply_markup")
        if isinstance(markup, str):
            markup = json.loads(markup)
        rows = markup.get("inline_keyboard", []) if isinstance(markup, dict) else []
        photos = message.get("photo") or []
        return cls(
            chat_id=int(message["chat"]["id"]),
            message_id=int(message["message_id"]),
            text=str(message.get("text") or message.get("caption") or ""),
            buttons=tuple(
                tuple(
                    (str(b.get("text", "")), str(b.get("callback_data") or b.get("url") or ""))
                    for b in row
                )
                for row in rows
            ),
            photo=str(photos[-1]["file_id"]) if photos else None,
            raw=message,
        )

    def labels(self) -> list[str]:
        """Every button's label, row by row."""
        return [label for row in self.buttons for label, _ in row]

    def button(self, label: Label) -> str | None:
        """The data of the first button whose label contains ``label`` (a text), matches it (a
        pattern), or for which ``label(text, data)`` holds."""
        for row in self.buttons:
            for text, data in row:
                if data and _matches(label, text, data):
                    return data
        return None


@dataclass(frozen=True)
class Seen:
    """One thing in a chat, in the order it was seen: a person acting, or the bot answering."""

    chat_id: int
    who: str  # a person's name, or "bot"
    action: str  # "writes", "taps", "says", "edits", "sends a map", "alerts"
    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
    photo: str | None = None
    message_id: int | None = None


@dataclass
class Received:
    """What the bot sent or changed because of one step, chat by chat."""

    by_chat: dict[int, list[BotMessage]] = field(default_factory=dict)
    alert: str | None = None

    def __getitem__(self, chat_id: int) -> list[BotMessage]:
        return self.by_chat.get(chat_id, [])

    def texts(self, chat_id: int) -> list[str]:
        """The texts (or captions) shown in one chat."""
        return [message.text for message in self[chat_id]]

    def merge(self, other: Received) -> Received:
        for chat_id, messages in other.by_chat.items():
            known = self.by_chat.setdefault(chat_id, [])
            for message in messages:
                known[:] = [m for m in known if m.message_id != message.message_id]
                known.append(message)
        self.alert = other.alert or self.alert
        return self


def _state(message: BotMessage) -> tuple[str, tuple[tuple[Button, ...], ...], str | None]:
    return (message.text, message.buttons, message.photo)


@dataclass(frozen=True)
class Player:
    """A person at the table (their private chat has their user id); ``language`` is their
    Telegram app's language (the bot answers them in it)."""

    user: User
    language: str = "en"
    side: str | None = None  # the side's name as the GM typed it
    role: str | None = None  # "strategist" or "tactician"

    def as_api(self) -> JsonObject:
        return {**self.user.as_api(), "language_code": self.language}

    @property
    def name(self) -> str:
        return self.user.first_name

    @property
    def chat_id(self) -> int:
        return self.user.id


class Table:
    """A group, its GM and players, the bot process they talk to, and everything seen."""

    def __init__(
        self,
        telegram: ScriptedTelegram,
        clock: ClockClient,
        group: Chat,
        gm: Player,
        players: Iterable[Player] = (),
        *,
        settle: bool = True,
        timeout: float = ANSWER_TIMEOUT,
        zone: str = "Europe/Moscow",
    ) -> None:
        self.telegram = telegram
        self.clock = clock
        self.group = group
        self.gm = gm
        self.players: dict[str, Player] = {p.name: p for p in players}
        self.settle_after_each_step = settle
        self.timeout = timeout
        self.campaign_id: int | None = None
        self.zone = zone  # the campaign's time zone (create_campaign sets it)
        self.transcript: list[Seen] = []
        self._known: dict[tuple[int, int], tuple[str, Any, str | None]] = {}

    # ---- people and chats ----------------------------------------------------------------

    def player(self, name: str) -> Player:
        return self.gm if name == self.gm.name else self.players[name]

    def chat_name(self, chat_id: int) -> str:
        """The group's title, or whose private chat it is."""
        if chat_id == self.group.id:
            return self.group.title or "the group"
        for person in (self.gm, *self.players.values()):
            if person.chat_id == chat_id:
                return person.name
        return str(chat_id)

    def chats(self) -> list[int]:
        """The group's id and every person's private chat id."""
        return [self.group.id, self.gm.chat_id, *(p.chat_id for p in self.players.values())]

    # ---- reading what the bot sent ---------------------------------------------------------

    async def bot_messages(self, chat_id: int) -> list[BotMessage]:
        """Every message of the bot in one chat, oldest first, as it is now."""
        return [
            BotMessage.from_api(message) for message in await self.telegram.bot_messages(chat_id)
        ]

    async def _all_bot_messages(self) -> list[BotMessage]:
        return [
            BotMessage.from_api(entry["message"])
            for entry in await self.telegram.history()
            if "message" in entry and entry["message"].get("from", {}).get("is_bot")
        ]

    async def last_with_button(self, chat_id: int, label: Label) -> BotMessage | None:
        """The newest bot message in ``chat_id`` with a button labelled ``label``."""
        for message in reversed(await self.bot_messages(chat_id)):
            if message.button(label) is not None:
                return message
        return None

    async def collect(self) -> Received:
        """What is new or changed since the last look, into the transcript too."""
        received = Received()
        for message in await self._all_bot_messages():
            key = (message.chat_id, message.message_id)
            before = self._known.get(key)
            if before == _state(message):
                continue
            self._known[key] = _state(message)
            received.by_chat.setdefault(message.chat_id, []).append(message)
            if message.photo is not None and before is None:
                action = "sends a map"
            else:
                action = "says" if before is None else "edits"
            self.transcript.append(
                Seen(
                    chat_id=message.chat_id,
                    who="bot",
                    action=action,
                    text=message.text,
                    buttons=message.buttons,
                    photo=message.photo,
                    message_id=message.message_id,
                )
            )
        return received

    async def wait_for_message(
        self,
        chat_id: int,
        check: Callable[[BotMessage], bool],
        *,
        what: str = "a message",
        timeout: float | None = None,
    ) -> BotMessage:
        """The newest bot message in ``chat_id`` that passes ``check``, once there is one."""

        async def newest() -> BotMessage | None:
            for message in reversed(await self.bot_messages(chat_id)):
                if check(message):
                    return message
            return None

        found = await self.telegram.wait_for(
            newest,
            lambda message: message is not None,
            timeout=timeout or self.timeout,
            what=f"{what} in {self.chat_name(chat_id)}",
        )
        assert found is not None
        await self.collect()
        return found

    async def wait_for_text(
        self, chat_id: int, fragment: str, *, timeout: float | None = None
    ) -> BotMessage:
        """The newest bot message in ``chat_id`` whose text contains ``fragment``."""
        return await self.wait_for_message(
            chat_id, lambda m: fragment in m.text, what=f"«{fragment}»", timeout=timeout
        )

    # ---- acting as a person ----------------------------------------------------------------

    async def _changes_in(self, chat_id: int, before: dict[int, Any]) -> bool:
        for message in await self.bot_messages(chat_id):
            if before.get(message.message_id) != _state(message):
                return True
        return False

    async def _snapshot(self, chat_id: int) -> dict[int, Any]:
        return {m.message_id: _state(m) for m in await self.bot_messages(chat_id)}

    async def _after(self, chat_id: int, before: dict[int, Any], what: str) -> Received:
        """Wait until the bot changed something in ``chat_id``; settle; what it sent."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while not await self._changes_in(chat_id, before):
            if loop.time() >= deadline:
                raise EmulatorError(f"no answer in {self.timeout} s to {what}")
            await asyncio.sleep(POLL_SECONDS)
        return await self.settle()

    async def settle(self) -> Received:
        """Let the bot run what is due now (``POST /clock`` at the same moment, if settling
        after each step is on) and collect what it sent."""
        received = await self.collect()
        if self.settle_after_each_step:
            await self.clock.settle()
            received.merge(await self.collect())
        return received

    def _note(self, person: Player, chat_id: int, action: str, text: str) -> None:
        self.transcript.append(Seen(chat_id=chat_id, who=person.name, action=action, text=text))

    async def command(self, person: Player, text: str, chat: Chat | None = None) -> Received:
        """``person`` sends a command (``/status``, ``/start join-1``) and the bot answers."""
        chat_id = chat.id if chat is not None else person.chat_id
        await self.collect()
        before = await self._snapshot(chat_id)
        self._note(person, chat_id, "writes", text)
        end = text.find(" ")
        await self.telegram.client_route(
            "/sendCommand",
            {
                "botToken": self.telegram.token,
                "from": person.as_api(),
                "chat": (chat or Chat.private(person.user)).as_api(person.user),
                "date": int(time.time()),
                "text": text,
                "entities": [
                    {"offset": 0, "length": len(text) if end < 0 else end, "type": "bot_command"}
                ],
            },
        )
        return await self._after(chat_id, before, f"{person.name}: {text}")

    async def say(
        self,
        person: Player,
        text: str,
        chat: Chat | None = None,
        *,
        reply_to: BotMessage | None = None,
        expect_answer: bool = True,
    ) -> Received:
        """``person`` writes ``text`` (in private by default; in ``chat``, optionally replying
        to a bot message, as a group's forced-reply prompt wants)."""
        chat_id = chat.id if chat is not None else person.chat_id
        await self.collect()
        before = await self._snapshot(chat_id)
        self._note(person, chat_id, "replies" if reply_to is not None else "writes", text)
        payload: JsonObject = {
            "botToken": self.telegram.token,
            "from": person.as_api(),
            "chat": (chat or Chat.private(person.user)).as_api(person.user),
            "date": int(time.time()),
            "text": text,
        }
        if reply_to is not None:
            raw = reply_to.raw
            payload["reply_to_message"] = {
                key: raw[key]
                for key in ("message_id", "date", "chat", "from", "text")
                if key in raw
            }
        await self.telegram.client_route("/sendMessage", payload)
        if not expect_answer:
            return await self.settle()
        return await self._after(chat_id, before, f"{person.name}: {text}")

    async def reply(self, person: Player, prompt: BotMessage, text: str) -> Received:
        """``person`` answers a bot's prompt by replying to it in the prompt's chat."""
        chat = self.group if prompt.chat_id == self.group.id else None
        return await self.say(person, text, chat, reply_to=prompt)

    async def press(
        self,
        person: Player,
        label: Label,
        *,
        chat_id: int | None = None,
        message: BotMessage | None = None,
        expect_change: bool = True,
    ) -> Received:
        """``person`` taps the button labelled ``label`` under ``message`` (default: the
        newest bot message in ``chat_id`` — their private chat unless given — that has it).
        Waits for the callback's answer and, unless it was an alert or a link or
        ``expect_change`` is false (a button that shows what is already shown), a change."""
        chat_id = message.chat_id if message is not None else (chat_id or person.chat_id)
        await self.collect()
        if message is None:
            message = await self.telegram.wait_for(
                lambda: self.last_with_button(chat_id, label),
                lambda found: found is not None,
                timeout=self.timeout,
                what=f"a button {label!r} in {self.chat_name(chat_id)}",
            )
            assert message is not None
        data = message.button(label)
        if data is None:
            raise EmulatorError(f"no button {label!r} under {message.text!r}: {message.labels()}")
        shown = next(text for row in message.buttons for text, d in row if d == data)
        before = await self._snapshot(chat_id)
        self._note(person, chat_id, "taps", f"[{shown}]")
        pressed = await self.telegram.client_route(
            "/sendCallback",
            {
                "botToken": self.telegram.token,
                "from": person.as_api(),
                "message": {"message_id": message.message_id, "chat": {"id": message.chat_id}},
                "data": data,
            },
        )
        query_id = str(pressed["callback_query_id"])
        answer = await self.telegram.wait_for(
            lambda: self.telegram.callback_answer(query_id),
            lambda found: found is not None,
            timeout=self.timeout,
            what=f"an answer to {person.name}'s tap on [{shown}]",
        )
        assert answer is not None
        alert = str(answer.get("text") or "")
        if alert:
            self.transcript.append(Seen(chat_id=chat_id, who="bot", action="alerts", text=alert))
        if alert or answer.get("url") or not expect_change:
            received = await self.settle()
        else:
            received = await self._after(chat_id, before, f"{person.name}'s tap on [{shown}]")
        received.alert = alert or None
        received.by_chat.setdefault(chat_id, [])
        if answer.get("url"):
            received.alert = str(answer["url"])
        return received

    async def move_clock(self, moment: datetime) -> ClockRun:
        """The week moves: the clock goes to ``moment``; what it ran is in the transcript."""
        run = await self.clock.set(moment)
        self.transcript.append(
            Seen(
                chat_id=0,
                who="clock",
                action="moves to",
                text=f"{moment.astimezone(UTC):%a %d %b %Y, %H:%M} UTC"
                f" ({moment.astimezone(ZoneInfo(self.zone)):%a %H:%M} {self.zone})",
            )
        )
        await self.collect()
        return run


# ---- the campaign, step by step ----------------------------------------------------------------


async def create_campaign(
    table: Table,
    title: str,
    sides: Iterable[str],
    *,
    zone: str = "Moscow",
    deployment: str | None = None,
    schedule: str = "Weekly",
    unreported: str = "Draw without losses",
    rules: str | None = None,
    language: str | None = None,
    before_open: Callable[[], Awaitable[object]] | None = None,
) -> int:
    """The GM runs /newcampaign in the group, answers each prompt by replying and presses the
    wizard's buttons; ``rules`` are typed overrides («sectors_to_win=2»), ``language`` the
    summary's language button («Русский»), ``deployment`` its end («3 days», «7 days»;
    default: when the GM advances it); ``before_open`` presses more settings from the summary.
    Opens deployment; returns the campaign id."""
    gm, group = table.gm, table.group
    table.zone = next((z for z in ZONES if z.split("/")[-1] == zone), table.zone)
    await table.command(gm, "/newcampaign", group)
    prompt = await table.wait_for_text(group.id, "Step 1 of 6")
    await table.reply(gm, prompt, title)
    await table.press(gm, zone, chat_id=group.id)
    await table.press(gm, "🪐", chat_id=group.id)
    for name in sides:
        await table.press(gm, "Add a side", chat_id=group.id)
        prompt = await table.wait_for_text(group.id, "reply with the new side's name")
        await table.reply(gm, prompt, name)
    await table.press(gm, "Next", chat_id=group.id)
    if deployment is not None:
        await table.press(gm, deployment, chat_id=group.id)
    await table.press(gm, schedule, chat_id=group.id)
    await table.press(gm, unreported, chat_id=group.id)
    if rules is not None:
        await table.press(gm, re.compile(r"^Rules$"), chat_id=group.id)
        await table.press(gm, "⌨️", chat_id=group.id)
        prompt = await table.wait_for_text(group.id, "reply with rule overrides")
        await table.reply(gm, prompt, rules)
    if language is not None:
        await table.press(gm, language, chat_id=group.id)
    if before_open is not None:
        await before_open()  # more settings from the summary (it must end on the summary)
    opened = await table.press(gm, _setup_data("ok"), chat_id=group.id)  # in either language
    join_button = _prefixed(JoinPress.__prefix__)
    begun = [m for m in opened[group.id] if m.button(join_button)]
    if not begun:
        begun = [
            await table.wait_for_message(
                group.id, lambda m: m.button(join_button) is not None, what="the Join button"
            )
        ]
    data = begun[-1].button(join_button)
    assert data is not None
    table.campaign_id = JoinPress.unpack(data).c
    return table.campaign_id


async def join(
    table: Table, player: Player, side: str, role: str = "strategist", *, approved: bool = True
) -> Received:
    """``player`` taps Join in the group, starts the private chat with the link's payload,
    chooses ``side`` (its name) and ``role`` («strategist» or «tactician»). Returns the last
    screen. ``approved`` false: the join waits for the GM (:func:`gm_answers_join`)."""
    table.players[player.name] = player
    pressed = await table.press(player, _prefixed(JoinPress.__prefix__), chat_id=table.group.id)
    link = pressed.alert or ""
    payload = link.rsplit("start=", 1)[-1] if "start=" in link else f"join-{table.campaign_id}"
    await table.command(player, f"/start {payload}")
    await table.press(player, side)
    wanted = role

    def role_button(_text: str, data: str) -> bool:
        return data.startswith(f"{JoinChoice.__prefix__}:") and JoinChoice.unpack(data).r == wanted

    chosen = await table.press(player, role_button)
    if approved:
        table.players[player.name] = Player(player.user, player.language, side=side, role=role)
    return chosen


def _prefixed(prefix: str) -> Callable[[str, str], bool]:
    """Any button whose callback data has this prefix."""
    return lambda _text, data: data.startswith(f"{prefix}:")


PLANET = builtin_map("planet-5")


def _setup_data(action: str) -> Callable[[str, str], bool]:
    """A button of the setup wizard by what it does (any language)."""

    def check(_text: str, data: str) -> bool:
        return data.startswith("su:") and data.split(":")[2:3] == [action]

    return check


def _sector_index(sector: str) -> int:
    return PLANET.order[sector]


def _orders_data(action: str, label_has: str = "", **fields: int) -> Callable[[str, str], bool]:
    """A button of the orders screen by what it does (any language)."""

    def check(text: str, data: str) -> bool:
        if label_has not in text or not data.startswith(f"{OrdersButton.__prefix__}:"):
            return False
        button = OrdersButton.unpack(data)
        return button.action == action and all(
            getattr(button, key) == value for key, value in fields.items()
        )

    return check


def _result_data(action: str, **fields: object) -> Callable[[str, str], bool]:
    """A button of the battles screen by what it does (any language)."""

    def check(_text: str, data: str) -> bool:
        if not data.startswith(f"{ResultButton.__prefix__}:"):
            return False
        button = ResultButton.unpack(data)
        return button.action == action and all(
            getattr(button, key) == value for key, value in fields.items()
        )

    return check


def _deploy_data(action: str, sector: int = -1) -> Callable[[str, str], bool]:
    def check(_text: str, data: str) -> bool:
        if not data.startswith(f"{DeployButton.__prefix__}:"):
            return False
        button = DeployButton.unpack(data)
        return button.action == action and (sector < 0 or button.sector == sector)

    return check


async def deploy_by_buttons(table: Table, player: Player, placement: dict[str, int]) -> Received:
    """``player`` opens /deploy, taps +3, +1 or «all» for each sector's armies (``{"1": 4,
    "2": 3, "4": 3}``, every army placed) and confirms. Returns what the confirmation showed."""
    await table.command(player, "/deploy")
    room = sum(placement.values())
    for sector, count in placement.items():
        left = count
        while left:
            if left == room and room > 1:
                action, step = "+all", left
            elif left >= 3 and room > 3:
                action, step = "+3", 3
            else:
                action, step = "+", 1
            await table.press(player, _deploy_data(action, _sector_index(sector)))
            left, room = left - step, room - step
    return await table.press(player, _deploy_data("ok"))


async def deploy_typed(table: Table, player: Player, line: str) -> Received:
    """``player`` types the placement in one line («1=4 2=3 4=3», «экватор:3 восток=5»):
    placed and confirmed in that one step. Returns what the reply showed."""
    await table.command(player, "/deploy")
    return await table.say(player, line)


@dataclass(frozen=True)
class AttackOrder:
    """Attack ``side`` (its name) in ``sector``."""

    sector: str
    side: str


@dataclass(frozen=True)
class MoveOrder:
    """Move ``count`` armies from ``sector`` to ``to``."""

    sector: str
    to: str
    count: int


@dataclass(frozen=True)
class ReinforceOrder:
    """The orbital reinforcement lands in ``sector``."""

    sector: str


ButtonOrder = AttackOrder | MoveOrder | ReinforceOrder


async def orders_by_buttons(
    table: Table, player: Player, orders: Iterable[ButtonOrder], *, ready: bool = True
) -> Received:
    """``player`` opens /orders and gives each order by buttons (sector, then attack, move or
    the reinforcement), then reviews and, if ``ready``, marks the orders ready."""
    last = await table.command(player, "/orders")
    for order in orders:
        if isinstance(order, ReinforceOrder):
            await table.press(player, _orders_data("rf"))
            last = await table.press(player, _orders_data("rs", sector=_sector_index(order.sector)))
            continue
        sector = _sector_index(order.sector)
        await table.press(player, _orders_data("sec", sector=sector))
        if isinstance(order, AttackOrder):
            last = await table.press(player, _orders_data("at", order.side, sector=sector))
        else:
            to = _sector_index(order.to)
            await table.press(player, _orders_data("mv", sector=sector))
            await table.press(player, _orders_data("to", sector=sector, to=to))
            last = await table.press(
                player, _orders_data("n", sector=sector, to=to, arg=order.count)
            )
        if await table.last_with_button(player.chat_id, _orders_data("home")) is not None:
            newest = (await table.bot_messages(player.chat_id))[-1]
            if newest.button(_orders_data("home")) is not None:
                await table.press(player, _orders_data("home"), message=newest)
    if ready:
        return await mark_ready(table, player)
    return last


async def orders_typed(table: Table, player: Player, text: str, *, ready: bool = True) -> Received:
    """``player`` types orders, one per line («атака синие 1», «2 -> 1 x2», «reinforce 4»);
    each line is recorded or refused on its own. Then, if ``ready``, marks them ready."""
    said = await table.say(player, text)
    if ready:
        return said.merge(await mark_ready(table, player))
    return said


async def mark_ready(table: Table, player: Player) -> Received:
    """``player`` opens /orders, reviews and taps Ready."""
    await table.command(player, "/orders")
    await table.press(player, _orders_data("rev"))
    return await table.press(player, _orders_data("ok"))


OUTCOME_CODE = {"draw": "d", "bloody draw": "b", "solid": "s", "crushing": "c", "slaughter": "x"}


async def report_result(
    table: Table,
    player: Player,
    battle: int,
    outcome: str,
    winner: str | None = None,
    *,
    warlords: str | None = None,
) -> Received:
    """``player`` opens /battles and reports ``battle``: ``outcome`` is «draw», «bloody draw»,
    «solid», «crushing» or «slaughter»; ``winner`` the winning side's name for a victory. In a
    contact campaign ``warlords`` answers «Was a warlord slain?»: ``"0"`` none, ``"1"`` the
    attacker's, ``"2"`` the defender's, ``"3"`` both."""
    await table.command(player, "/battles")
    await table.press(player, _result_data("pick", battle=battle))
    done = await table.press(
        player, _result_data("out", battle=battle, outcome=OUTCOME_CODE[outcome])
    )
    if winner is not None:
        side = winner
        win = _result_data("win", battle=battle)
        done = await table.press(player, lambda text, data: win(text, data) and side in text)
    if warlords is None:
        return done
    mark = f"{OUTCOME_CODE[outcome]}.{warlords}"
    return await table.press(player, _result_data("wl", battle=battle, outcome=mark))


async def confirm_result(table: Table, player: Player, battle: int) -> Received:
    """``player`` (the other side) opens /battles and confirms the reported result."""
    await table.command(player, "/battles")
    return await table.press(player, _result_data("yes", battle=battle))


async def dispute_result(
    table: Table, player: Player, battle: int, outcome: str, winner: str | None = None
) -> Received:
    """``player`` (the other side) opens /battles and disputes the reported result with its
    own account (``outcome`` and ``winner`` as for :func:`report_result`)."""
    await table.command(player, "/battles")
    await table.press(player, _result_data("dis", battle=battle))
    done = await table.press(
        player, _result_data("out", battle=battle, outcome=OUTCOME_CODE[outcome])
    )
    if winner is None:
        return done
    side = winner
    win = _result_data("win", battle=battle)
    return await table.press(player, lambda text, data: win(text, data) and side in text)


async def gm_decide(table: Table, battle: int, outcome: str, winner: str | None = None) -> Received:
    """The GM decides a disputed battle under the message the bot sent them in private:
    «Draw without losses» at once, any other outcome after «Another outcome…»."""
    code = OUTCOME_CODE[outcome]

    def verdict(action: str, label_starts: str = "") -> Callable[[str, str], bool]:
        def check(text: str, data: str) -> bool:
            if not data.startswith(f"{VerdictButton.__prefix__}:"):
                return False
            button = VerdictButton.unpack(data)
            wanted = button.action == action and button.battle == battle
            if action == "set":
                wanted = wanted and button.outcome == code
            return wanted and text.startswith(label_starts)

        return check

    gm = table.gm
    await table.wait_for_message(
        gm.chat_id,
        lambda m: any(verdict("more")(t, d) for row in m.buttons for t, d in row),
        what=f"the GM's decision on battle {battle}",
    )
    if outcome == "draw":
        return await table.press(gm, verdict("set", "Draw"))
    await table.press(gm, verdict("more"))
    return await table.press(gm, verdict("set", f"{winner}:" if winner else ""))


async def ask_to_join(
    table: Table, player: Player, side: str, role: str = "strategist"
) -> Received:
    """After deployment: ``player`` taps Join, chooses ``side`` and ``role`` in private, and
    the request goes to the GM (nothing of the side is shown). Returns the last screen."""
    return await join(table, player, side, role, approved=False)


async def gm_answers_join(
    table: Table, player: Player, approve: bool, side: str = "", role: str = ""
) -> Received:
    """The GM approves or refuses ``player``'s join request under the bot's private message
    (``side`` and ``role``: what the player asked for, kept when approved)."""
    wanted = "y" if approve else "n"

    def verdict(_text: str, data: str) -> bool:
        if not data.startswith(f"{JoinVerdict.__prefix__}:"):
            return False
        button = JoinVerdict.unpack(data)
        return button.u == player.chat_id and button.a == wanted

    pressed = await table.press(table.gm, verdict)
    if approve:
        table.players[player.name] = Player(player.user, player.language, side=side, role=role)
    return pressed


async def gm_override(
    table: Table, battle: int, outcome: str, winner: str | None = None
) -> Received:
    """The GM sets a battle's result from /gm (in the GM's private chat): «⚔️ Battle results»,
    the battle, then the outcome («draw», «bloody draw»; or the winner, «🏆 <name> won», then
    «solid», «crushing» or «slaughter»)."""
    gm = table.gm
    await table.command(gm, "/gm")
    await table.press(gm, _gm_data("results"), chat_id=gm.chat_id)
    await table.press(gm, _gm_data("battle", suffix=f".{battle}"), chat_id=gm.chat_id)
    code = {"draw": "draw", "bloody draw": "bloody_draw"}.get(outcome, outcome)
    choice = _gm_data("set", contains=f".{battle}.{code}.")
    if winner is None:
        return await table.press(gm, choice, chat_id=gm.chat_id)
    side = winner
    await table.press(
        gm,
        lambda text, data: _gm_data("win", contains=f".{battle}.")(text, data) and side in text,
        chat_id=gm.chat_id,
    )
    return await table.press(gm, choice, chat_id=gm.chat_id)


async def gm_undo(table: Table) -> Received:
    """The GM undoes the last step from /gm: «↩️ Undo the last step», then «Yes, undo»."""
    gm = table.gm
    await table.command(gm, "/gm")
    await table.press(gm, _gm_data("undo"), chat_id=gm.chat_id)
    return await table.press(gm, _gm_data("undo!"), chat_id=gm.chat_id)


async def gm_advance(table: Table) -> Received:
    """The GM moves the campaign to its next phase now: /advance in the group, then the
    confirming button under the question the bot asks in the GM's private chat."""
    gm, group = table.gm, table.group
    await table.command(gm, "/advance", group)
    return await table.press(gm, _clock_data("advance"), chat_id=gm.chat_id)


def _clock_data(action: str) -> Callable[[str, str], bool]:
    def check(_text: str, data: str) -> bool:
        return data.startswith(f"{ClockPress.__prefix__}:") and ClockPress.unpack(data).a == action

    return check


def _gm_data(action: str, *, suffix: str = "", contains: str = "") -> Callable[[str, str], bool]:
    """A /gm panel button by its action (``gm:<campaign>:<action>:<value>``)."""

    def check(_text: str, data: str) -> bool:
        if not data.startswith(f"{GmPress.__prefix__}:"):
            return False
        button = GmPress.unpack(data)
        return button.a == action and button.v.endswith(suffix) and contains in f".{button.v}"

    return check


def next_moment(after: datetime, weekday: int, hour: int, minute: int, zone: str) -> datetime:
    """The first ``weekday`` (0 = Monday) ``hour:minute`` in ``zone`` after ``after``, in UTC."""
    local = after.astimezone(ZoneInfo(zone))
    moment = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    moment += timedelta(days=(weekday - local.weekday()) % 7)
    if moment <= local:
        moment += timedelta(days=7)
    return moment.astimezone(UTC)


# The weekly moments of RULES.md (the default schedule), in the campaign's time zone.
ORDERS_OPEN = (1, 0, 0)  # Tuesday 00:00
ORDERS_CLOSE = (3, 23, 59)  # Thursday 23:59
BATTLE_LIST = (4, 12, 0)  # Friday 12:00
RESOLUTION = (0, 12, 0)  # Monday 12:00


async def move_to(table: Table, moment: tuple[int, int, int]) -> ClockRun:
    """The week moves to its next (weekday, hour, minute) in the campaign's zone, e.g.
    ``await move_to(table, ORDERS_CLOSE)``: the due steps ran and their posts went out."""
    weekday, hour, minute = moment
    now = await table.clock.now()
    return await table.move_clock(next_moment(now, weekday, hour, minute, table.zone))


async def move_to_next_due(table: Table) -> ClockRun | None:
    """The clock jumps to the next deadline or reminder the bot has planned (None if none)."""
    upcoming = await table.clock.next_due()
    if upcoming is None:
        return None
    return await table.move_clock(upcoming)


async def gm_end(table: Table, reason: str = "the club's season is over") -> Received:
    """The GM ends the campaign from /gm: «🏁 End the campaign», «Yes, end it: type the
    reason», then the reason typed in private."""
    gm = table.gm
    await table.command(gm, "/gm")
    await table.press(gm, _gm_data("end"), chat_id=gm.chat_id)
    await table.press(gm, _gm_data("end!"), chat_id=gm.chat_id)
    return await table.say(gm, reason)
