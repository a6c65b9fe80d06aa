"""The real bot process, ``python -m bot``, serving a local Bot API over HTTP."""

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.e2e.harness import Chat, ScriptedTelegram, User

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def bot_process(telegram: ScriptedTelegram, database: Path, log: Path) -> Iterator[None]:
    """``python -m bot`` pointed at the emulator; always stopped (SIGTERM, then SIGKILL)."""
    env = {
        **os.environ,
        "BOT_TOKEN": telegram.token,
        "BOT_API_BASE": telegram.base_url,
        "DATABASE_PATH": str(database),
        "LOG_LEVEL": "INFO",
    }
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            yield
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def test_the_bot_process_answers_in_private_and_in_a_group(
    telegram: ScriptedTelegram, tmp_path: Path
) -> None:
    anna = User(id=501, first_name="Anna")
    group = Chat(id=-1001500, type="supergroup", title="Wargamers")
    with bot_process(telegram, tmp_path / "bot.sqlite3", tmp_path / "bot.log"):
        await telegram.wait_for(
            telegram.request_counts,
            lambda counts: counts.get("getUpdates", 0) > 0,
            timeout=30,
            what="the bot to start polling",
        )
        await telegram.send_command(anna, "/help")
        private = await telegram.wait_for_bot_messages(anna.id, timeout=10)
        await telegram.send_command(anna, "/help", group)
        public = await telegram.wait_for_bot_messages(group.id, timeout=10)
        counts = await telegram.request_counts()
    assert "/orders" in private[0]["text"]
    assert "/newcampaign" in public[0]["text"]
    assert counts.get("setMyCommands", 0) == 6
    assert (tmp_path / "bot.sqlite3").exists()
