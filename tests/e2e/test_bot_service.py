"""The real bot process, ``python -m bot``, serving a local Bot API over HTTP: in private and in
a group, stopped by SIGTERM as a container is, and on PostgreSQL with nothing but
``DATABASE_URL`` (its heartbeat and health check included)."""

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.e2e.harness import Chat, EmulatorError, ScriptedTelegram, User
from tests.postgres_server import PostgresServer, new_schema_url

ROOT = Path(__file__).resolve().parents[2]
STOP_TIMEOUT = 10.0  # docker stop's grace before its SIGKILL
START_TIMEOUT = 60.0  # importing aiogram alone takes half of it on a loaded 2-core machine
ANSWER_TIMEOUT = 15.0


def bot_environment(telegram: ScriptedTelegram, **settings: str) -> dict[str, str]:
    """This machine's environment without any of the bot's settings, then ``settings``."""
    inherited = ("BOT_", "DATABASE_", "HEARTBEAT_", "WEBHOOK_", "MINIAPP_", "TEST_", "LOG_LEVEL")
    env = {key: value for key, value in os.environ.items() if not key.startswith(inherited)}
    return env | {
        "BOT_TOKEN": telegram.token,
        "BOT_API_BASE": telegram.base_url,
        "LOG_LEVEL": "INFO",
        **settings,
    }


@contextmanager
def bot_process(
    env: dict[str, str], log: Path, cwd: Path = ROOT
) -> Iterator["subprocess.Popen[bytes]"]:
    """``python -m bot`` pointed at the emulator; always stopped (SIGTERM, then SIGKILL)."""
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


async def _polling(
    telegram: ScriptedTelegram, process: "subprocess.Popen[bytes]", log: Path
) -> None:
    """Wait for the bot's first ``getUpdates``; EmulatorError at once if it exited."""

    async def counts() -> dict[str, int]:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:]
            raise EmulatorError(f"the bot exited ({process.returncode}):\n{tail}")
        return await telegram.request_counts()

    await telegram.wait_for(
        counts,
        lambda counts: counts.get("getUpdates", 0) > 0,
        timeout=START_TIMEOUT,
        what="the bot to start polling",
    )


async def test_the_bot_process_answers_in_private_and_in_a_group(
    telegram: ScriptedTelegram, tmp_path: Path
) -> None:
    anna = User(id=501, first_name="Anna")
    group = Chat(id=-1001500, type="supergroup", title="Wargamers")
    env = bot_environment(telegram, DATABASE_PATH=str(tmp_path / "bot.sqlite3"))
    log = tmp_path / "bot.log"
    with bot_process(env, log) as process:
        await _polling(telegram, process, log)
        await telegram.send_command(anna, "/help")
        private = await telegram.wait_for_bot_messages(anna.id, timeout=ANSWER_TIMEOUT)
        await telegram.send_command(anna, "/help", group)
        public = await telegram.wait_for_bot_messages(group.id, timeout=ANSWER_TIMEOUT)
        counts = await telegram.request_counts()
    assert "/orders" in private[0]["text"]
    assert "/newcampaign" in public[0]["text"]
    assert counts.get("setMyCommands", 0) == 6
    assert (tmp_path / "bot.sqlite3").exists()


async def test_sigterm_stops_the_bot_cleanly(telegram: ScriptedTelegram, tmp_path: Path) -> None:
    """``docker stop`` sends SIGTERM and waits 10 s: the bot stops taking updates, closes its
    database and exits 0 (a bot that ignored it would be killed, as process 1 of a container
    ignores a signal it has no handler for)."""
    anna = User(id=502, first_name="Anna")
    log = tmp_path / "bot.log"
    env = bot_environment(telegram, DATABASE_PATH=str(tmp_path / "bot.sqlite3"))
    with bot_process(env, log) as process:
        await _polling(telegram, process, log)
        await telegram.send_command(anna, "/start")
        await telegram.wait_for_bot_messages(anna.id, timeout=ANSWER_TIMEOUT)
        process.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(process.wait, STOP_TIMEOUT)
    assert code == 0, log.read_text(errors="replace")[-3000:]
    text = log.read_text(errors="replace")
    assert "SIGTERM received: stopping" in text
    assert text.rstrip().endswith("stopped"), text[-2000:]


async def test_the_bot_on_postgresql_alone_keeps_a_heartbeat_its_health_check_reads(
    telegram: ScriptedTelegram, postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """Only ``DATABASE_URL`` set (no ``DATABASE_PATH``), from a folder with no ``data/`` (an
    image's working directory): the heartbeat goes to the temporary directory and
    ``python -m bot.runtime.health``, run as a container's HEALTHCHECK is, passes."""
    anna = User(id=503, first_name="Anna")
    workdir = tmp_path / "workdir"
    temporary = tmp_path / "tmp"
    workdir.mkdir()
    temporary.mkdir()
    env = bot_environment(
        telegram, DATABASE_URL=await new_schema_url(postgres_server), TMPDIR=str(temporary)
    )
    log = tmp_path / "bot.log"

    async def health() -> "subprocess.CompletedProcess[str]":
        return await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "bot.runtime.health"],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    with bot_process(env, log, cwd=workdir) as process:
        await _polling(telegram, process, log)
        await telegram.send_command(anna, "/start")
        answered = await telegram.wait_for_bot_messages(anna.id, timeout=ANSWER_TIMEOUT)
        checked = await telegram.wait_for(
            health,
            lambda done: done.returncode == 0,
            timeout=START_TIMEOUT,
            what="a passing health check",
        )
    assert answered[0]["text"].startswith("Hello!")
    assert checked.stderr == ""
    assert [path.name for path in temporary.glob("strategium-*.heartbeat")] != []
    assert not (workdir / "data").exists()
    assert "cannot write the heartbeat" not in log.read_text(errors="replace")
