"""Test-wide settings: hypothesis without deadlines (no timing in tests), reproducible in CI;
the session's PostgreSQL server (started by the first test that needs it)."""

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
