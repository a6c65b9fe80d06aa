"""Issue 22: three webhook replicas on one PostgreSQL; one is SIGKILLed at a random moment of
the Monday (:mod:`tests.faults.failover_monday`); the other two finish it with no post lost or
doubled and no order lost. How much longer it took is a figure, not a check:
``python -m bench.failover_bench`` kills 50 times and prints it (docs/performance.md)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.faults.failover_monday import judge, kill_points, play
from tests.postgres_server import PostgresServer

KILLS = 3
SEED = 22


async def test_killed_at_random_moments_of_monday_the_others_finish_it(
    postgres_server: PostgresServer,
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        calm = await play(postgres_server, root / "calm", None)
        assert calm.failed == []
        assert calm.requests(), "the undisturbed Monday sent nothing"
        assert set(calm.sent.values()) == {"sent"}
        for number, moment in enumerate(kill_points(KILLS, SEED, calm)):
            monday = await play(postgres_server, root / f"kill-{number}", moment)
            verdict = judge(calm, monday)
            assert monday.killed == 0
            assert verdict.ok, verdict.line()
