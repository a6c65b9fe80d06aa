"""End-to-end fixtures: one Bot API emulator per test session, a bot of its own per test;
and the real bot process, ``python -m bot``, behind a proxy that records every request it makes.
"""

import asyncio
import email.parser
import email.policy
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import aiohttp
import pytest
from aiogram import Bot
from aiohttp import web

from tests.e2e.harness import (
    EmulatorError,
    RunningEmulator,
    ScriptedTelegram,
    emulated_bot,
    install_emulator,
    run_emulator,
)

ROOT = Path(__file__).resolve().parents[2]
CLOCK_START = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)  # a Sunday: the campaign is set up
PROCESS_START_TIMEOUT = 60.0
PROCESS_STOP_TIMEOUT = 10.0
CLOCK_REQUEST_TIMEOUT = 15.0


@pytest.fixture(scope="session")
def bot_api_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningEmulator]:
    """The emulator on a free loopback port, installed first if needed; stopped at the end."""
    install_emulator()
    with run_emulator(tmp_path_factory.mktemp("bot-api-emulator") / "emulator.log") as emulator:
        yield emulator


@pytest.fixture
async def telegram(bot_api_emulator: RunningEmulator) -> AsyncIterator[ScriptedTelegram]:
    """Scripted users of a new bot token, so tests never see each other's chats."""
    async with aiohttp.ClientSession() as session:
        yield bot_api_emulator.scripted(session)


@pytest.fixture
async def bot(telegram: ScriptedTelegram) -> AsyncIterator[Bot]:
    """A real aiogram Bot for that token, talking HTTP to the emulator."""
    bot = emulated_bot(telegram.base_url, telegram.token)
    yield bot
    await bot.session.close()


@dataclass
class RecordedRequest:
    """One Bot API request of the bot, as the recorder saw it, in arrival order (``seq``); the
    emulator's answer is filled in when it comes (``status`` 0 until then)."""

    seq: int
    method: str
    params: dict[str, str]
    files: dict[str, bytes]
    status: int = 0
    answer: Any = None

    @property
    def ok(self) -> bool:
        """The emulator accepted it."""
        answer = self.answer
        return self.status == 200 and isinstance(answer, dict) and answer.get("ok") is True

    @property
    def result(self) -> Any:
        """The answer's ``result`` (None unless ``ok``)."""
        return self.answer["result"] if self.ok else None

    @property
    def chat_id(self) -> int | None:
        """The chat the request is addressed to, if it names one."""
        value = self.params.get("chat_id", "")
        return int(value) if value.lstrip("-").isdigit() else None

    def words(self) -> str:
        """Every string the request carries, one per line; JSON fields (buttons, media) unpacked,
        so a button label or a caption counts as much as a message text."""
        return "\n".join(
            text for value in self.params.values() for text in _strings(_maybe_json(value))
        )


def _maybe_json(value: str) -> Any:
    if value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def parse_form(content_type: str, body: bytes) -> tuple[dict[str, str], dict[str, bytes]]:
    """A request body's fields and uploads (multipart, url-encoded or JSON)."""
    params: dict[str, str] = {}
    files: dict[str, bytes] = {}
    if content_type.startswith("multipart/"):
        header = f"Content-Type: {content_type}\r\n\r\n".encode()
        parsed = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(header + body)
        for part in parsed.iter_parts():
            name = str(part.get_param("name", header="content-disposition") or "")
            payload = part.get_payload(decode=True)
            data = payload if isinstance(payload, bytes) else b""
            if part.get_filename() is None:
                params[name] = data.decode("utf-8", errors="replace")
            else:
                files[name] = data
    elif content_type.startswith("application/x-www-form-urlencoded"):
        params.update(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))
    elif content_type.startswith("application/json") and body:
        loaded = json.loads(body)
        if isinstance(loaded, dict):
            params.update(
                {k: v if isinstance(v, str) else json.dumps(v) for k, v in loaded.items()}
            )
    return params, files


class BotApiRecorder:
    """A loopback HTTP proxy between the bot and the emulator: forwards every request unchanged
    and records it, so a test can assert on *every* request the bot made (the emulator's history
    keeps only the last version of an edited message)."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.requests: list[RecordedRequest] = []
        self.base_url = ""
        self._session: aiohttp.ClientSession | None = None
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Listen on a free loopback port (``base_url``)."""
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.base_url = f"http://{host}:{port}"

    async def close(self) -> None:
        """Stop listening (requests still open are cut) and close the upstream session."""
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    def since(self, seq: int) -> list[RecordedRequest]:
        """The requests that arrived at or after ``seq``."""
        return self.requests[seq:]

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        body = await request.read()
        content_type = request.headers.get("Content-Type", "")
        record = None
        if request.path.startswith("/bot"):
            params, files = parse_form(content_type, body)
            method = request.path.rpartition("/")[2]
            record = RecordedRequest(len(self.requests), method, params, files)
            self.requests.append(record)
        headers = {"Content-Type": content_type} if content_type else {}
        try:
            async with self._session.request(
                request.method, self.upstream + request.path_qs, data=body, headers=headers
            ) as upstream:
                answer = await upstream.read()
                status = upstream.status
                answer_type = upstream.headers.get("Content-Type", "application/octet-stream")
        except aiohttp.ClientError as error:  # the emulator went away: a gateway error
            answer, status, answer_type = repr(error).encode(), 502, "text/plain"
        if record is not None:
            record.status = status
            try:
                record.answer = json.loads(answer)
            except ValueError:
                record.answer = None
        return web.Response(body=answer, status=status, headers={"Content-Type": answer_type})


def free_loopback_port() -> int:
    """A TCP port free on 127.0.0.1 right now (for a process that needs its number up front)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@dataclass
class BotService:
    """``python -m bot`` as a separate process, pointed at the recorder (so at the emulator),
    on one database, with the test clock control on. It can be started (long polling, or a
    webhook with a secret), killed with SIGKILL and started again on the same database; the
    clock starts where the test last set it, so it never goes back."""

    telegram: ScriptedTelegram
    recorder: BotApiRecorder
    database: Path
    log_dir: Path
    clock_start: datetime
    now: datetime = field(init=False)
    runs: int = 0
    clock_port: int = 0
    webhook_port: int | None = None
    process: "subprocess.Popen[bytes] | None" = None
    _session: aiohttp.ClientSession | None = None

    def __post_init__(self) -> None:
        self.now = self.clock_start

    @property
    def log_path(self) -> Path:
        """The log of the current (or last) run."""
        return self.log_dir / f"bot-run-{self.runs}.log"

    def log_text(self) -> str:
        """Every run's log, in order."""
        return "\n".join(
            (self.log_dir / f"bot-run-{run}.log").read_text(errors="replace")
            for run in range(1, self.runs + 1)
        )

    @property
    def map_record(self) -> Path:
        """What each map the bot drew showed, one JSON line a map (``TEST_MAP_RECORD``)."""
        return self.log_dir / "maps.jsonl"

    def _environment(self, webhook_secret: str | None) -> dict[str, str]:
        inherited = (
            "BOT_",
            "WEBHOOK_",
            "MINIAPP_",
            "TEST_CLOCK_",
            "TEST_MAP_",
            "DATABASE_",
            "LOG_LEVEL",
        )
        env = {key: value for key, value in os.environ.items() if not key.startswith(inherited)}
        env.update(
            BOT_TOKEN=self.telegram.token,
            BOT_API_BASE=self.recorder.base_url,
            DATABASE_PATH=str(self.database),
            LOG_LEVEL="INFO",
            TEST_CLOCK_CONTROL="true",
            TEST_CLOCK_START=self.now.isoformat(),
            TEST_CLOCK_HOST="127.0.0.1",
            TEST_CLOCK_PORT=str(self.clock_port),
            TEST_MAP_RECORD=str(self.map_record),
            WEBHOOK_URL="",
        )
        if webhook_secret is not None:
            assert self.webhook_port is not None
            env.update(
                WEBHOOK_URL=f"http://127.0.0.1:{self.webhook_port}",
                WEBHOOK_HOST="127.0.0.1",
                WEBHOOK_PORT=str(self.webhook_port),
                WEBHOOK_SECRET=webhook_secret,
                MINIAPP_URL=f"http://127.0.0.1:{self.webhook_port}/miniapp/",
            )
        return env

    async def start(
        self, *, webhook_secret: str | None = None, clock: datetime | None = None
    ) -> None:
        """Start the process and wait until it serves: polling (its first ``getUpdates``), or
        with ``webhook_secret`` a webhook on a loopback port (its ``setWebhook`` accepted). Its
        clock starts where the last run's was, or at ``clock`` (later: time passed while the
        bot was down, so it catches up at start)."""
        if self.process is not None:
            raise RuntimeError("the bot process is already running")
        if clock is not None:
            if clock < self.now:
                raise ValueError(f"the clock cannot go back from {self.now} to {clock}")
            self.now = clock
        self.runs += 1
        self.clock_port = self.clock_port or free_loopback_port()
        if webhook_secret is not None:
            self.webhook_port = self.webhook_port or free_loopback_port()
        first = len(self.recorder.requests)
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot"],
                cwd=ROOT,
                env=self._environment(webhook_secret),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        serving = "setWebhook" if webhook_secret is not None else "getUpdates"
        await self._wait(
            lambda: any(
                r.method == serving and (serving == "getUpdates" or r.ok)
                for r in self.recorder.since(first)
            ),
            f"the bot to start serving ({serving})",
        )

    async def _wait(
        self, done: Callable[[], bool], what: str, timeout: float = PROCESS_START_TIMEOUT
    ) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not done():
            self.check_alive()
            if loop.time() >= deadline:
                raise EmulatorError(f"waited {timeout} s for {what}:\n{self.log_tail()}")
            await asyncio.sleep(0.05)

    def check_alive(self) -> None:
        """EmulatorError (with the log's tail) if the process has exited."""
        if self.process is not None and self.process.poll() is not None:
            code = self.process.returncode
            self.process = None
            raise EmulatorError(f"the bot process exited ({code}):\n{self.log_tail()}")

    def log_tail(self, size: int = 4000) -> str:
        """The end of the current run's log."""
        if not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-size:]

    @property
    def clock_url(self) -> str:
        """The test clock control (``GET``/``POST``; the same port across restarts)."""
        return f"http://127.0.0.1:{self.clock_port}/clock"

    async def read_clock(self) -> datetime:
        """The process's clock now (kept as the start of the next run)."""
        if self._session is None:
            self._session = aiohttp.ClientSession()
        async with self._session.get(
            self.clock_url, timeout=aiohttp.ClientTimeout(total=CLOCK_REQUEST_TIMEOUT)
        ) as response:
            body = await response.json()
        self.now = datetime.fromisoformat(body["now"])
        return self.now

    async def crash(self) -> None:
        """SIGKILL, as a crash or a power cut: no shutdown code runs. The clock is read first,
        so the next start continues from the same moment."""
        await self.read_clock()
        self.kill()

    def kill(self) -> None:
        """SIGKILL at once (see ``crash``)."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(PROCESS_STOP_TIMEOUT)
        self.process = None

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it does not exit in time; nothing if it is not running."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(PROCESS_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(PROCESS_STOP_TIMEOUT)
        self.process = None

    async def close(self) -> None:
        """Close the clock control's HTTP session."""
        if self._session is not None:
            await self._session.close()


# ---- the real bot process (``python -m bot``) behind a recording proxy ---------------------


@pytest.fixture
async def bot_api_recorder(telegram: ScriptedTelegram) -> AsyncIterator[BotApiRecorder]:
    """A loopback proxy to the emulator that records every Bot API request the bot makes."""
    recorder = BotApiRecorder(telegram.base_url)
    await recorder.start()
    try:
        yield recorder
    finally:
        await recorder.close()


@pytest.fixture
async def bot_service(
    telegram: ScriptedTelegram, bot_api_recorder: BotApiRecorder, tmp_path: Path
) -> AsyncIterator[BotService]:
    """``python -m bot`` for this test's bot token, on ``bot.sqlite3`` in the test's directory,
    talking to the emulator through the recorder, with the test clock control on; not started
    yet (``start``), and always stopped at the end, also on failure."""
    service = BotService(
        telegram,
        bot_api_recorder,
        database=tmp_path / "bot.sqlite3",
        log_dir=tmp_path,
        clock_start=CLOCK_START,
    )
    try:
        yield service
    finally:
        service.stop()
        await service.close()
