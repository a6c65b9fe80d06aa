"""Bot test fixtures: a real store on a temporary file, a manual clock, the real dispatcher."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiogram.utils.i18n import I18n

from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.texts.i18n import build_i18n
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


ON_POSTGRESQL = frozenset(
    {
        "test_authority_gaps",
        "test_chain_records",
        "test_gm_state",
        "test_group_migration",
        "test_history",
        "test_miniapp_authorisation",
        "test_outbox_retry_after",
        "test_outbox_sender",
        "test_press_reads",
        "test_private_concurrency",
        "test_repeated_presses",
        "test_replicas",
        "test_several_campaigns",
        "test_story_order",
    }
)
"""The bot's test modules that run on PostgreSQL as well as SQLite: those whose point is what
the database does under the bot (writers racing, presses read twice, undo and history, the
outbox and its order, replicas, several campaigns in one database, authority checked at the
write). The other screens and flows run on SQLite: they reach the database through the same
storage code, which ``tests/storage`` runs on both backends, and on PostgreSQL they took a
quarter of the suite's time."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The ``store`` of a test: SQLite, and PostgreSQL too for :data:`ON_POSTGRESQL`."""
    if "store" in metafunc.fixturenames:
        module = metafunc.module.__name__.rsplit(".", 1)[-1]
        backends = ["sqlite", "postgresql"] if module in ON_POSTGRESQL else ["sqlite"]
        metafunc.parametrize("store", backends, indirect=True)


@pytest.fixture
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A store on a fresh database, on the backend the test is run for: a SQLite file, or a
    schema of the session's PostgreSQL server (:data:`ON_POSTGRESQL`)."""
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
