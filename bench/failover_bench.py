"""Failover figures (issue 22): three webhook replicas on one PostgreSQL finish a Monday
(:mod:`tests.faults.failover_monday`) while one is SIGKILLed at a random point of it (after
a random number of its requests), KILLS times over (default 50). Prints the undisturbed Monday,
each killed one, and the totals: posts lost, posts doubled, posts the killed replica was
sending and another sent again, posts it had claimed and another edited once more in place,
orders lost, the survivors' extra time (median, 95th percentile, max), and how soon after the
kill the posts the killed replica had claimed went out from another (their lease ran out).
Exits 1 when any kill lost or doubled a post, lost orders, or took more than issue 22's 10 s of
extra time (``EXTRA_BOUND_SECONDS``).

    .venv/bin/python -m bench.failover_bench [KILLS [SEED]]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

from bot.services.outbox_sender import SHARED_LEASE_SECONDS, SHARED_RENEW_SECONDS
from tests.faults.failover_monday import EXTRA_BOUND_SECONDS, Verdict, judge, kill_points, play
from tests.postgres_server import PostgresServer


async def run(kills: int = 50, seed: int = 22) -> int:
    server = PostgresServer.start()
    try:
        server.create_database("strategium")
        with tempfile.TemporaryDirectory() as directory:
            root = Path(directory)
            calm = await play(server, root / "calm", None)
            print(
                f"undisturbed Monday: {calm.seconds:.2f} s, {len(calm.requests())} posts,"
                f" {len(calm.journal)} requests; outbox lease {SHARED_LEASE_SECONDS:.0f} s,"
                f" renewed every {SHARED_RENEW_SECONDS:.1f} s",
                flush=True,
            )
            verdicts: list[Verdict] = []
            for number, point in enumerate(kill_points(kills, seed, calm)):
                monday = await play(server, root / f"kill-{number}", point)
                verdict = judge(calm, monday, EXTRA_BOUND_SECONDS)
                verdicts.append(verdict)
                print(f"{number + 1:3}: {verdict.line()}", flush=True)
    finally:
        server.stop()
    extra = sorted(verdict.extra_seconds for verdict in verdicts)
    takeovers = sorted(v.taken_over for v in verdicts if v.taken_over is not None)
    print(
        f"{len(verdicts)} kills: {sum(len(v.lost) for v in verdicts)} posts lost,"
        f" {sum(len(v.doubled) for v in verdicts)} doubled,"
        f" {sum(len(v.sent_again) for v in verdicts)} sent again after the kill,"
        f" {sum(len(v.edited_again) for v in verdicts)} edited again in place after the kill,"
        f" {sum(v.orders_lost for v in verdicts)} with orders lost,"
        f" {sum(bool(v.monday.failed) for v in verdicts)} failed;"
        f" extra time median {statistics.median(extra):.2f} s,"
        f" p95 {extra[int(0.95 * (len(extra) - 1))]:.2f} s, max {extra[-1]:.2f} s,"
        f" {sum(not v.in_time for v in verdicts)} over the {EXTRA_BOUND_SECONDS:.0f} s bound;"
        + (
            f" {len(takeovers)} kills left claimed posts, taken over after median"
            f" {statistics.median(takeovers):.2f} s, max {takeovers[-1]:.2f} s"
            if takeovers
            else " no kill left a claimed post"
        )
    )
    return 0 if all(verdict.ok for verdict in verdicts) else 1


if __name__ == "__main__":
    arguments = [int(arg) for arg in sys.argv[1:]]
    sys.exit(asyncio.run(run(*arguments)))
