"""The service start: it waits for Telegram instead of exiting when the network is down; one
process per database, SQLite or PostgreSQL (``DATABASE_URL``)."""

import subprocess
import sys
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramNetworkError
from aiogram.methods import GetMe, TelegramMethod

from bot.runtime.config import Settings
from bot.runtime.runner import (
    AnotherProcessError,
    _open_store,
    only_process,
    outbox_lease,
    shares_the_database,
    wait_for_telegram,
)
from bot.services.outbox_sender import (
    SHARED_LEASE_SECONDS,
    SHARED_RENEW_SECONDS,
    SOLE_LEASE_SECONDS,
)
from storage import (
    NewCampaign,
    NewOutboxMessage,
    OutboxState,
    PostgresCampaignStore,
)
from storage.postgres import database_problem as postgresql_problem
from tests.bot.telegram import BOT_USER, FakeSession
from tests.postgres_server import PostgresServer, new_schema_url


class FlakySession(FakeSession):
    """Fails the first ``failures`` requests as if the network were down."""

    def __init__(self, failures: int) -> None:
        super().__init__({})
        self.failures = failures
        self.attempts = 0

    async def make_request(
        self, bot: Bot, method: TelegramMethod[Any], timeout: int | None = None
    ) -> Any:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise TelegramNetworkError(method=method, message="connection refused")
        return await super().make_request(bot, method, timeout)


NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
# A process that holds the database's lock until it is killed.
HOLD = (
    "import sys, time; from pathlib import Path; from bot.runtime.runner import only_process\n"
    "with only_process(Path(sys.argv[1])):\n"
    "    print('holding', flush=True); time.sleep(600)"
)


async def test_start_waits_for_telegram_then_goes_on() -> None:
    session = FlakySession(failures=3)
    bot = Bot("42:TEST", session=session)
    await wait_for_telegram(bot, first_delay=0.0)
    assert session.attempts == 4
    assert [type(s.method) for s in session.sent] == [GetMe]
    assert (await bot.me()).id == BOT_USER.id


def test_a_second_process_on_the_same_database_refuses_to_start(tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    with subprocess.Popen(
        [sys.executable, "-c", HOLD, str(database)], stdout=subprocess.PIPE, text=True
    ) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "holding"
            refused = only_process(database)
            with pytest.raises(AnotherProcessError, match="another Strategium process serves"):
                refused.__enter__()
        finally:
            holder.kill()
    # The lock goes with the process, however it ended (here: SIGKILL).
    with only_process(database):
        pass


@pytest.fixture(params=["sqlite", "postgresql"])
async def alone(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    """The settings of a process alone on its database, on each backend: a SQLite file, or
    PostgreSQL in polling mode."""
    sqlite = tmp_path / "bot.sqlite3"
    if request.param == "sqlite":
        return Settings(database_path=sqlite, _env_file=None)
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return Settings(database_path=sqlite, database_url=await new_schema_url(server), _env_file=None)


async def test_a_start_takes_over_the_posts_a_dead_process_was_sending(alone: Settings) -> None:
    """A process alone on its database died while sending a post (it stays ``sending`` under a
    lease of minutes); the next one to start sends it at once, not when the lease runs out."""
    async with AsyncExitStack() as stack:
        dead = await _open_store(stack, alone)
        campaign = await dead.create_campaign(
            NewCampaign(chat_id=-1, title="Leases", created_by=1, creator_name="Gina"), NOW
        )
        for key in ("one", "two"):
            await dead.enqueue(
                NewOutboxMessage(
                    campaign_id=campaign.id, chat_id=-1, kind="text", payload={}, dedup_key=key
                ),
                NOW,
            )
        claimed = await dead.claim_due(NOW, 1, lease_seconds=300)
        assert [m.dedup_key for m in claimed] == ["one"]
    async with AsyncExitStack() as stack:
        started = await _open_store(stack, alone)
        again = await started.claim_due(NOW, 1, lease_seconds=300)
        assert [(m.dedup_key, m.attempts) for m in again] == [("one", 2)]


async def test_database_url_selects_postgresql_for_one_process_at_a_time(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = await new_schema_url(postgres_server)
    unused = tmp_path / "unused.sqlite3"
    settings = Settings(database_url=url, database_path=unused, _env_file=None)
    assert settings.postgresql_url() == url
    async with AsyncExitStack() as stack:
        store = await _open_store(stack, settings)
        assert isinstance(store, PostgresCampaignStore)
        assert await postgresql_problem(url) is None
        with pytest.raises(AnotherProcessError, match="another Strategium process"):
            async with AsyncExitStack() as second:
                await _open_store(second, settings)
    async with AsyncExitStack() as stack:
        assert isinstance(await _open_store(stack, settings), PostgresCampaignStore)
    assert not unused.exists()
    closed_port = url.replace(f":{postgres_server.port}/", ":1/")
    assert "does not answer" in (await postgresql_problem(closed_port) or "")


def test_a_sqlite_url_names_the_file(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite://{tmp_path}/club.sqlite3", _env_file=None)
    assert settings.postgresql_url() is None
    assert settings.sqlite_file() == tmp_path / "club.sqlite3"
    assert Settings(database_path=tmp_path / "x", _env_file=None).sqlite_file() == tmp_path / "x"


async def test_webhook_processes_share_one_postgresql_and_keep_each_others_leases(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """In webhook mode on PostgreSQL a second and a third process start beside the first, and
    none of them takes back the posts another is sending; polling stays one process."""
    url = await new_schema_url(postgres_server)
    webhook = Settings(database_url=url, webhook_url="https://bot.example.org", _env_file=None)
    polling = Settings(database_url=url, _env_file=None)
    assert shares_the_database(webhook)
    assert not shares_the_database(polling)
    assert not shares_the_database(
        Settings(database_path=tmp_path / "club.sqlite3", webhook_url="https://x", _env_file=None)
    )
    async with AsyncExitStack() as stack:
        first = await _open_store(stack, webhook)
        await first.enqueue(
            NewOutboxMessage(campaign_id=None, chat_id=-1, kind="text", payload={}, dedup_key="k"),
            NOW,
        )
        (claimed,) = await first.claim_due(NOW, 1, lease_seconds=300)
        for _ in range(2):
            other = await _open_store(stack, webhook)
            assert await other.claim_due(NOW, 1, lease_seconds=300) == []
        assert (await first.outbox_message(claimed.id)).state is OutboxState.SENDING  # type: ignore[union-attr]
        with pytest.raises(AnotherProcessError, match="another Strategium process"):
            async with AsyncExitStack() as alone:
                await _open_store(alone, polling)
    async with AsyncExitStack() as stack:
        await _open_store(stack, polling)
        with pytest.raises(AnotherProcessError, match=r"serves this database alone \(polling\)"):
            async with AsyncExitStack() as replica:
                await _open_store(replica, webhook)


def test_replicas_lease_posts_briefly_and_renew_and_a_process_alone_leases_long(
    tmp_path: Path,
) -> None:
    url = "postgresql://bot@db.example.org/strategium"
    replica = Settings(database_url=url, webhook_url="https://bot.example.org", _env_file=None)
    assert outbox_lease(replica) == (SHARED_LEASE_SECONDS, SHARED_RENEW_SECONDS)
    polling = Settings(database_url=url, _env_file=None)
    club = Settings(
        database_path=tmp_path / "club.sqlite3", webhook_url="https://x", _env_file=None
    )
    assert outbox_lease(polling) == outbox_lease(club) == (SOLE_LEASE_SECONDS, None)
