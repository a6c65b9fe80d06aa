"""A lost PostgreSQL connection (the server restarted, the network dropped, the backend was
terminated): the call that meets it raises :class:`StorageUnavailableError` (as SQLite's
"cannot write" errors do, so the bot's handling of those serves here too), and the next call
opens a new connection and works."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from storage import NewOutboxMessage, OutboxState, PostgresCampaignStore
from storage.db import StorageFault, StorageUnavailableError
from storage.postgres import AnotherProcessError, PostgresDatabase, connection_lost
from tests.postgres_server import PostgresServer, new_schema_url
from tests.storage.campaign_script import at


@pytest.fixture
async def url(postgres_server: PostgresServer) -> str:
    return await new_schema_url(postgres_server)


@pytest.fixture
async def db(url: str) -> AsyncIterator[PostgresDatabase]:
    database = await PostgresDatabase.open(url, shared=True)
    try:
        yield database
    finally:
        await database.close()


async def _terminate(db: PostgresDatabase, url: str) -> None:
    """End the store's main connection on the server (``pg_terminate_backend``)."""
    async with db.snapshot() as conn:
        pid = (await conn.execute_fetchall("SELECT pg_backend_pid()"))[0][0]
    admin = await asyncpg.connect(url)
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await admin.close()


async def test_a_read_on_a_lost_connection_is_storage_unavailable_and_the_next_works(
    db: PostgresDatabase, url: str
) -> None:
    store = PostgresCampaignStore(db)
    assert await store.unfinished_campaigns() == []
    await _terminate(db, url)
    with pytest.raises(StorageUnavailableError) as raised:
        await store.unfinished_campaigns()
    assert raised.value.fault is StorageFault.CONNECTION_LOST
    assert await store.unfinished_campaigns() == []


async def test_marking_a_post_sent_on_a_lost_connection_is_storage_unavailable_then_works(
    db: PostgresDatabase, url: str
) -> None:
    store = PostgresCampaignStore(db)
    queued = await store.enqueue(
        NewOutboxMessage(
            campaign_id=None, chat_id=1, kind="notice", payload={"text": "k"}, dedup_key="k"
        ),
        at(0),
    )
    assert [message.id for message in await store.claim_due(at(0, 1), 10, 60)] == [queued.id]
    await _terminate(db, url)
    with pytest.raises(StorageUnavailableError) as raised:
        await store.mark_sent(queued.id, 555, at(0, 2))
    assert raised.value.fault is StorageFault.CONNECTION_LOST
    assert await store.mark_sent(queued.id, 555, at(0, 3))
    async with db.snapshot() as conn:
        rows = await conn.execute_fetchall("SELECT state FROM outbox WHERE id = ?", (queued.id,))
    assert rows[0][0] == OutboxState.SENT.value


async def test_the_new_connection_holds_the_process_lock_again(
    db: PostgresDatabase, url: str
) -> None:
    await _terminate(db, url)
    with pytest.raises(StorageUnavailableError):
        await PostgresCampaignStore(db).unfinished_campaigns()
    assert await PostgresCampaignStore(db).unfinished_campaigns() == []
    with pytest.raises(AnotherProcessError):
        await PostgresDatabase.open(url, only_process=True)


async def test_a_transaction_whose_connection_is_lost_midway_stores_nothing(
    db: PostgresDatabase, url: str
) -> None:
    admin = await asyncpg.connect(url)

    async def write_and_lose_the_connection() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO schema_version (version) VALUES (999)")
            pid = (await conn.execute_fetchall("SELECT pg_backend_pid()"))[0][0]
            assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
            await conn.execute("INSERT INTO schema_version (version) VALUES (998)")

    try:
        with pytest.raises(StorageUnavailableError):
            await write_and_lose_the_connection()
        stored = await admin.fetchval("SELECT count(*) FROM schema_version WHERE version > 900")
    finally:
        await admin.close()
    assert stored == 0
    async with db.snapshot() as conn:
        rows = await conn.execute_fetchall("SELECT count(*) FROM schema_version")
    assert rows[0][0] == 1


def test_the_error_names_the_server_without_the_password() -> None:
    error = connection_lost(
        ConnectionRefusedError("refused"), "postgresql://bot:s3cret@db.example:5432/strategium"
    )
    assert error.fault is StorageFault.CONNECTION_LOST
    assert "s3cret" not in str(error)
    assert "postgresql://bot@db.example:5432/strategium" in str(error)
