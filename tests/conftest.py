"""Test-wide settings: hypothesis without deadlines (no timing in tests), reproducible in CI;
the session's PostgreSQL server (started by the first test that needs it); the long tests
collected first.

Hypothesis profiles (``HYPOTHESIS_PROFILE``; ``CI`` set: ``ci``): ``ci`` checks the same
examples every run (``derandomize``); ``dev`` draws fresh ones; ``fresh`` is
``bench/properties_fresh.py``'s: fresh examples from ``--hypothesis-seed`` and every budget
``HYPOTHESIS_SCALE`` times larger (a test's own ``max_examples`` too, see
:func:`_scale_budgets`)."""

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
SCALE = int(os.environ.get("HYPOTHESIS_SCALE", "7"))
settings.register_profile(
    "fresh",
    deadline=None,
    derandomize=False,
    max_examples=300 * SCALE,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
PROFILE = "ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev")
settings.load_profile(PROFILE)


LONG_FIRST = (
    "tests/e2e/",
    "tests/faults/test_sigkill_week.py",
    "tests/faults/test_failover_monday.py",
    "tests/faults/",
    "tests/campaigns/",
    "tests/rules/test_properties.py",
    "tests/rules/test_siege_properties.py",
    "tests/rules/test_watch_properties.py",
    "tests/rules/test_contact_properties.py",
)
"""Where the tests of a minute or more are (bot processes, kills, whole campaigns, properties),
the longest groups first."""
PROCESSES = 3
"""The first :data:`LONG_FIRST` groups, whose tests start bot processes (and import aiogram
again, seconds of CPU each): at most half the workers start with them. The other fault tests
(hostile input, the security matrix, storage faults) run in process, with the campaigns."""
SHARED = ("tests/faults/test_sigkill_week.py",)
"""Files whose tests share a module fixture of minutes (sigkill_week's plays every killed week
once, for all 24 tests): dealt whole to one worker, so the fixture is made once, not once a
worker."""
SECONDS = {
    "tests/e2e/test_campaign.py::test_a_campaign_from_newcampaign_to_a_winner": 150,
    "tests/faults/test_sigkill_week.py": 115,
    "tests/e2e/test_demo.py": 80,
    "tests/e2e/test_siege_campaign.py": 80,
    "tests/faults/test_failover_monday.py": 50,
    "tests/e2e/test_contact_campaign.py": 50,
    "tests/e2e/test_installed_package.py": 45,
    "tests/e2e/test_miniapp.py": 40,
    "tests/e2e/test_emulator.py": 1,
}
"""About how long the bot lanes' tests take (a test's, each test's of a file, a :data:`SHARED`
file's whole; else 30 s), from ``./test --durations`` on a quiet machine: used only to share
them evenly between the lanes. A stale figure makes the run longer, never wrong."""


def _rank(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return next(
        (rank for rank, prefix in enumerate(LONG_FIRST) if path.startswith(prefix)),
        len(LONG_FIRST),
    )


def _seconds(unit: list[pytest.Item]) -> int:
    """A unit's seconds: a :data:`SHARED` file's whole, else the sum of its tests'."""
    path = unit[0].nodeid.split("::", 1)[0]
    if path in SHARED:
        return SECONDS[path]
    return sum(SECONDS.get(item.nodeid, SECONDS.get(path, 30)) for item in unit)


def _bot_lanes(bots: list[pytest.Item], lanes: int) -> list[list[pytest.Item]]:
    """The bot tests in ``lanes`` lanes of about equal seconds (the longest unit to the least
    loaded lane); a :data:`SHARED` file is one unit, and a lane runs its longest units first."""
    units: dict[str, list[pytest.Item]] = {}
    for item in bots:
        path = item.nodeid.split("::", 1)[0]
        units.setdefault(path if path in SHARED else item.nodeid, []).append(item)
    dealt: list[list[pytest.Item]] = [[] for _ in range(lanes)]
    loads = [0] * lanes
    for unit in sorted(units.values(), key=_seconds, reverse=True):
        lane = loads.index(min(loads))
        dealt[lane] += unit
        loads[lane] += _seconds(unit)
    return dealt


def _scale_budgets(items: list[pytest.Item]) -> None:
    """Under the ``fresh`` profile, a property test's own ``max_examples`` (a decorator's, which
    the profile does not change) times ``HYPOTHESIS_SCALE``, as the profile's default is."""
    if PROFILE != "fresh":
        return
    scaled: set[int] = set()
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if test is None or own is None or id(test) in scaled:
            continue
        scaled.add(id(test))
        if own.max_examples != 300 * SCALE:  # the profile's own budget is scaled already
            test._hypothesis_internal_use_settings = settings(
                own, max_examples=own.max_examples * SCALE
            )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests (:data:`LONG_FIRST`) shared out among pytest-xdist's workers.

    ``./test`` runs ``--dist worksteal``: each worker is first given a consecutive block of the
    collection, and a worker that runs out takes the last half of the longest queue. So each
    block starts with its share of the long tests and ends with short ones that are easy to
    take. The tests that start bot processes go to half the blocks (:func:`_bot_lanes`: by their
    seconds, a shared fixture's file whole), the in-process ones (campaigns, properties) to the
    other half: with all four workers starting bots at once
    beside mypy and the image build, the bots took over a minute to start and failed.
    (Collected all first, xdist's default scheduler gave every long test to one worker, which
    ran alone for the last ten minutes.) Without xdist the long tests simply come first. Under
    the ``fresh`` profile, the larger budgets (:func:`_scale_budgets`)."""
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    ranked = sorted(items, key=_rank)
    bots = [item for item in ranked if _rank(item) < PROCESSES]
    inside = [item for item in ranked if PROCESSES <= _rank(item) < len(LONG_FIRST)]
    others = [item for item in ranked if _rank(item) == len(LONG_FIRST)]
    lanes = max(1, workers // 2)
    dealt: list[list[pytest.Item]] = [
        *_bot_lanes(bots, lanes),
        *([] for _ in range(lanes, workers)),
    ]
    rest = list(range(lanes, workers)) or [0]
    for index, item in enumerate(inside):
        dealt[rest[index % len(rest)]].append(item)
    arranged: list[pytest.Item] = []
    taken = 0
    for block in range(workers):
        size = (block + 1) * len(items) // workers - block * len(items) // workers
        share = len(others) - taken if block == workers - 1 else max(0, size - len(dealt[block]))
        arranged += dealt[block] + others[taken : taken + share]
        taken += share
    assert len(arranged) == len(items), "every test collected is run once"
    items[:] = arranged
    _scale_budgets(items)


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
