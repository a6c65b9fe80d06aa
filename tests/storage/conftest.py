"""Storage test fixtures: a store per test on each backend, a real SQLite file in ``tmp_path``
and a fresh schema of the session's PostgreSQL server (``tests/postgres_server.py``)."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Store, open_store
from tests.postgres_server import PostgresServer, new_schema_url


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where the test's SQLite database file lives."""
    return tmp_path / "strategium.sqlite3"


@pytest.fixture(params=["sqlite", "postgresql"])
async def database_url(request: pytest.FixtureRequest, db_path: Path) -> str:
    """The test's database, on each backend in turn: ``sqlite:///...`` or ``postgresql://...``."""
    if request.param == "sqlite":
        return f"sqlite://{db_path}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return await new_schema_url(server)


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[Store]:
    """A store on a fresh database, closed after the test."""
    opened = await open_store(database_url)
    yield opened
    await opened.close()
