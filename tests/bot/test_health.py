"""The container healthcheck: fresh heartbeat and an answering database, or the reason why not."""

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.clock import ManualClock
from bot.config import Settings
from bot.health import beat, check, heartbeat_path
from storage import SqliteCampaignStore

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def test_health_follows_the_heartbeat_and_the_database(tmp_path: Path) -> None:
    settings = Settings(database_path=tmp_path / "bot.sqlite3", _env_file=None)
    assert check(settings, NOW) is not None
    store = await SqliteCampaignStore.open(settings.database_path)
    await store.close()
    task = asyncio.create_task(beat(heartbeat_path(settings), ManualClock(NOW)))
    for _ in range(100):
        if heartbeat_path(settings).exists():
            break
        await asyncio.sleep(0)
    task.cancel()
    assert check(settings, NOW + timedelta(seconds=60)) is None
    assert "old" in (check(settings, NOW + timedelta(minutes=5)) or "")
    settings.database_path.unlink()
    assert "does not answer" in (check(settings, NOW) or "")
