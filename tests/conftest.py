"""Test-wide settings: hypothesis without deadlines (no timing in tests), reproducible in CI;
the session's PostgreSQL server (started by the first test that needs it); the long tests
collected first."""

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.postgres_server import PostgresServer

settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=150)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


LONG_FIRST = (
    "tests/e2e/",
    "tests/faults/",
    "tests/campaigns/",
    "tests/rules/test_properties.py",
    "tests/rules/test_siege_properties.py",
    "tests/rules/test_watch_properties.py",
    "tests/rules/test_contact_properties.py",
)
"""Where the tests of a minute or more are (bot processes, kills, whole campaigns, properties),
the longest groups first. Run first, they share out among pytest-xdist's workers; collected in file
order, a demo started last ran alone for ten minutes while three workers had nothing to do."""


def _rank(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return next(
        (rank for rank, prefix in enumerate(LONG_FIRST) if path.startswith(prefix)),
        len(LONG_FIRST),
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first (:data:`LONG_FIRST`), each group in file order."""
    items.sort(key=_rank)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for the whole session, with an empty ``strategium`` database; each
    test takes a schema of its own (:func:`tests.postgres_server.new_schema_url`)."""
    server = PostgresServer.start()
    try:
        server.create_database("strategium")
        yield server
    finally:
        server.stop()
