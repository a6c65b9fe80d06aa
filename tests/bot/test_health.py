"""The container healthcheck: fresh heartbeat and an answering database, or the reason why not,
on each backend."""

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.clock import ManualClock
from bot.config import Settings
from bot.health import beat, check, heartbeat_path
from storage import open_store
from tests.postgres_server import PostgresServer, new_schema_url

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

Breaks = Callable[[], Awaitable[None]]


@pytest.fixture(params=["sqlite", "postgresql"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Settings, Breaks]:
    """The bot's settings on each backend (the heartbeat beside ``DATABASE_PATH`` either way),
    and how to take its database away: the SQLite file deleted, the PostgreSQL schema dropped."""
    sqlite = tmp_path / "bot.sqlite3"
    if request.param == "sqlite":

        async def delete_the_file() -> None:
            sqlite.unlink()

        return Settings(database_path=sqlite, _env_file=None), delete_the_file
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = await new_schema_url(server)

    async def drop_the_schema() -> None:
        conn = await asyncpg.connect(server.database_url("strategium"))
        try:
            await conn.execute(f"DROP SCHEMA {url.rsplit('=', 1)[1]} CASCADE")
        finally:
            await conn.close()

    return Settings(database_path=sqlite, database_url=url, _env_file=None), drop_the_schema


async def test_health_follows_the_heartbeat_and_the_database(
    database: tuple[Settings, Breaks],
) -> None:
    settings, take_the_database_away = database

    async def checked(now: datetime) -> str:
        # check() runs its own event loop for PostgreSQL, as `python -m bot.health` does.
        return await asyncio.to_thread(check, settings, now) or ""

    assert "no heartbeat" in await checked(NOW)
    url = settings.postgresql_url() or f"sqlite://{settings.database_path}"
    store = await open_store(url)
    await store.close()
    task = asyncio.create_task(beat(heartbeat_path(settings), ManualClock(NOW)))
    for _ in range(100):
        if heartbeat_path(settings).exists():
            break
        await asyncio.sleep(0)
    task.cancel()
    assert await checked(NOW + timedelta(seconds=60)) == ""
    assert "old" in await checked(NOW + timedelta(minutes=5))
    await take_the_database_away()
    problem = await checked(NOW)
    assert "does not answer" in problem or "cannot save" in problem


@pytest.mark.parametrize(
    "written",
    [
        b"2026-03-02T09:00:00",  # no time zone: comparing it with the clock raised TypeError
        b"\xff\xfe2026",
        b"",
        b"\x00" * 64,
        b"9999-12-31T23:59:59+00:00 and more",
    ],
)
def test_a_heartbeat_file_the_bot_did_not_write_is_a_reason_not_a_crash(
    tmp_path: Path, written: bytes
) -> None:
    settings = Settings(database_path=tmp_path / "bot.sqlite3", _env_file=None)
    heartbeat_path(settings).write_bytes(written)
    problem = check(settings, NOW)
    assert problem is not None
    assert problem.startswith("no heartbeat at")
