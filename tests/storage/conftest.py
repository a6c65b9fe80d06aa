"""Storage test fixtures: a real SQLite file per test, in ``tmp_path``."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import SqliteCampaignStore, Store


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where the test's database file lives."""
    return tmp_path / "strategium.sqlite3"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[Store]:
    """A store on a fresh file, closed after the test."""
    opened = await SqliteCampaignStore.open(db_path)
    yield opened
    await opened.close()
