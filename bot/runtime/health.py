"""Liveness for containers: the running bot touches a heartbeat file; ``python -m
bot.runtime.health`` exits 0 while that file is fresh and the database answers and can take a write,
1 otherwise (with the reason: e.g. the file is read-only or the disk is full)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.runtime.clock import Clock
from bot.runtime.config import Settings
from storage.db import database_problem
from storage.postgres import database_problem as postgresql_problem

HEARTBEAT_EVERY = timedelta(seconds=30)
STALE_AFTER = timedelta(seconds=120)

log = logging.getLogger(__name__)


def heartbeat_path(settings: Settings) -> Path:
    """Where the heartbeat lives: ``HEARTBEAT_PATH``; by default beside the SQLite file (whose
    folder the bot creates), or on PostgreSQL in the temporary directory, which every system
    and image has, under a name of its database's own (and of its webhook address: replicas on
    one host each keep theirs), so two bots on one host never read each other's."""
    if settings.heartbeat_path is not None:
        return settings.heartbeat_path
    url = settings.postgresql_url()
    if url is None:
        database = settings.sqlite_file()
        return database.with_name(database.name + ".heartbeat")
    listening = f"{settings.webhook_host}:{settings.webhook_port}" if settings.webhook_url else ""
    digest = hashlib.sha256(f"{url}\n{listening}".encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"strategium-{digest}.heartbeat"


async def beat(path: Path, clock: Clock, every: timedelta = HEARTBEAT_EVERY) -> None:
    """Write the current time to ``path`` now and every ``every`` until cancelled. A write that
    fails (a full or read-only disk) is logged, and the beat goes on: the stale file then tells
    the health check."""
    failing = False
    while True:
        temporary = path.with_suffix(".tmp")
        try:
            temporary.write_text(clock.now().isoformat(), encoding="utf-8")
            temporary.replace(path)
        except OSError as error:
            if not failing:
                log.error("cannot write the heartbeat %s: %s", path, error)
            failing = True
        else:
            if failing:
                log.info("heartbeat %s written again", path)
            failing = False
        await asyncio.sleep(every.total_seconds())


def check(settings: Settings, now: datetime) -> str | None:
    """Why the bot is unhealthy, or ``None`` when it is healthy."""
    path = heartbeat_path(settings)
    try:
        last = datetime.fromisoformat(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError) as error:  # a bad UTF-8 byte is a ValueError too
        return f"no heartbeat at {path}: {error}"
    if last.tzinfo is None:  # beat() writes an aware moment; this file is not its writing
        return f"no heartbeat at {path}: {last.isoformat()} has no time zone"
    if now - last > STALE_AFTER:
        return f"heartbeat is {int((now - last).total_seconds())} s old"
    url = settings.postgresql_url()
    if url is not None:
        return asyncio.run(postgresql_problem(url))
    return database_problem(settings.sqlite_file())


def main() -> int:
    """Exit 0 if healthy; else print why and exit 1."""
    problem = check(Settings(), datetime.now(UTC))
    if problem is not None:
        print(problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
