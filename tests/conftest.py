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
the longest groups first."""


def _rank(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return next(
        (rank for rank, prefix in enumerate(LONG_FIRST) if path.startswith(prefix)),
        len(LONG_FIRST),
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests (:data:`LONG_FIRST`) shared out among pytest-xdist's workers.

    ``./test`` runs ``--dist worksteal``: each worker is first given a consecutive block of the
    collection, and a worker that runs out takes the last half of the longest queue. So each
    block starts with its share of the long tests, dealt in turn from the longest groups down,
    and ends with short ones that are easy to take. (Collected all first, xdist's default
    scheduler gave them all to one worker, which ran alone for the last ten minutes.) Without
    xdist the long tests simply come first."""
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    long = sorted((item for item in items if _rank(item) < len(LONG_FIRST)), key=_rank)
    others = [item for item in items if _rank(item) == len(LONG_FIRST)]
    arranged: list[pytest.Item] = []
    taken = 0
    for block in range(workers):
        dealt = long[block::workers]
        size = (block + 1) * len(items) // workers - block * len(items) // workers
        share = len(others) - taken if block == workers - 1 else max(0, size - len(dealt))
        arranged += dealt + others[taken : taken + share]
        taken += share
    assert len(arranged) == len(items), "every test collected is run once"
    items[:] = arranged


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
