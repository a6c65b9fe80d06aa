"""The container healthcheck: fresh heartbeat and an answering database, or the reason why not,
on each backend."""

import asyncio
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.runtime.clock import ManualClock
from bot.runtime.config import Settings
from bot.runtime.health import beat, check, heartbeat_path
from storage import open_store
from tests.postgres_server import PostgresServer, new_schema_url

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

Breaks = Callable[[], Awaitable[None]]


@pytest.fixture(params=["sqlite", "postgresql"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Settings, Breaks]:
    """The bot's settings on each backend (its heartbeat in ``tmp_path``), and how to take its
    database away: the SQLite file deleted, the PostgreSQL schema dropped."""
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

    settings = Settings(
        database_url=url, heartbeat_path=tmp_path / "postgresql.heartbeat", _env_file=None
    )
    return settings, drop_the_schema


def test_the_heartbeat_lives_where_every_deployment_can_write() -> None:
    """Beside the SQLite file (its folder is the bot's); on PostgreSQL, with no
    ``DATABASE_PATH``, in the temporary directory under a name of the database's own (and of
    its webhook address: replicas on one host); ``HEARTBEAT_PATH`` wins."""
    sqlite = Settings(database_path=Path("/srv/club/strategium.sqlite3"), _env_file=None)
    assert heartbeat_path(sqlite) == Path("/srv/club/strategium.sqlite3.heartbeat")
    by_url = Settings(database_url="sqlite:///srv/other/bot.sqlite3", _env_file=None)
    assert heartbeat_path(by_url) == Path("/srv/other/bot.sqlite3.heartbeat")

    url = "postgresql://strategium:secret@db:5432/strategium"
    postgresql = heartbeat_path(Settings(database_url=url, _env_file=None))
    assert postgresql.parent == Path(tempfile.gettempdir())
    assert postgresql.name.startswith("strategium-")
    assert "secret" not in str(postgresql)
    other = heartbeat_path(Settings(database_url=url + "2", _env_file=None))
    assert other != postgresql
    replicas = {
        heartbeat_path(
            Settings(
                database_url=url,
                webhook_url="https://bot.example.org",
                webhook_host=host,
                _env_file=None,
            )
        )
        for host in ("127.0.0.11", "127.0.0.12")
    }
    assert len(replicas) == 2
    assert postgresql not in replicas
    chosen = Settings(database_url=url, heartbeat_path=Path("/run/bot.beat"), _env_file=None)
    assert heartbeat_path(chosen) == Path("/run/bot.beat")


async def test_health_follows_the_heartbeat_and_the_database(
    database: tuple[Settings, Breaks],
) -> None:
    settings, take_the_database_away = database

    async def checked(now: datetime) -> str:
        # check() runs its own event loop for PostgreSQL, as `python -m bot.runtime.health` does.
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
