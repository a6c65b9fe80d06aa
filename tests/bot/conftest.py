"""Bot test fixtures: a real store on a temporary file, a manual clock, the real dispatcher."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiogram.utils.i18n import I18n

from bot.app import build_dispatcher
from bot.clock import ManualClock
from bot.i18n import build_i18n
from storage import SqliteCampaignStore, Store, open_store
from tests.bot.telegram import FakeTelegram
from tests.postgres_server import PostgresServer, new_schema_url

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday


@pytest.fixture(scope="session")
def i18n() -> I18n:
    """The real catalogs."""
    return build_i18n()


@pytest.fixture
def clock() -> ManualClock:
    """Time that moves only when a test says so."""
    return ManualClock(START)


@pytest.fixture(params=["sqlite", "postgresql"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A store on a fresh database, on each backend in turn: a SQLite file, then a schema of
    the session's PostgreSQL server (the bot's tests run on both)."""
    if request.param == "sqlite":
        opened: Store = await SqliteCampaignStore.open(tmp_path / "bot.sqlite3")
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        opened = await open_store(await new_schema_url(server))
    yield opened
    await opened.close()


@pytest.fixture
def telegram(store: Store, clock: ManualClock, i18n: I18n) -> FakeTelegram:
    """The whole bot on an in-process Telegram."""
    return FakeTelegram(build_dispatcher(store, clock, i18n))
