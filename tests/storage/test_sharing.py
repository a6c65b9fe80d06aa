"""Work several processes share (storage/sharing.py, the outbox claim): on both engines one
store; on PostgreSQL several stores, each with its own connection, as several processes have."""

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from storage import NewOutboxMessage, SendWindow, Store, open_store
from tests.postgres_server import PostgresServer, new_schema_url
from tests.storage.campaign_script import at

BOT = SendWindow("bot", limit=3, period=1.0)


def _message(chat: int, key: str) -> NewOutboxMessage:
    return NewOutboxMessage(
        campaign_id=None, chat_id=chat, kind="notice", payload={"text": key}, dedup_key=key
    )


async def test_an_update_is_taken_once(store: Store) -> None:
    assert await store.take_update(1001, at(0))
    assert not await store.take_update(1001, at(0, 1))
    assert await store.take_update(1002, at(0, 1))


async def test_old_updates_and_idle_windows_are_forgotten(store: Store) -> None:
    await store.take_update(1, at(0))
    await store.take_update(2, at(2))
    assert await store.reserve_send([BOT], at(0).timestamp()) == 0.0
    assert await store.forget_shared_work(at(1)) == 2
    assert await store.take_update(1, at(3))  # forgotten: a day later it is no one's any more
    assert not await store.take_update(2, at(3))


async def test_a_send_window_takes_its_limit_then_says_how_long_to_wait(store: Store) -> None:
    start = 1_000.0
    for step in range(3):
        assert await store.reserve_send([BOT], start + step * 0.1) == 0.0
    assert await store.reserve_send([BOT], start + 0.3) == pytest.approx(0.7)
    assert await store.reserve_send([BOT], start + 1.0) == 0.0
    assert await store.reserve_send([BOT], start + 1.05) == pytest.approx(0.05)


async def test_a_request_takes_a_place_in_every_window_or_in_none(store: Store) -> None:
    chat = SendWindow("chat:-100", limit=1, period=60.0)
    assert await store.reserve_send([BOT, chat], 0.0) == 0.0
    assert await store.reserve_send([BOT, chat], 0.1) == pytest.approx(59.9)
    other = SendWindow("chat:-200", limit=1, period=60.0)
    # The refused request took no place in the bot's window: two more fit.
    assert await store.reserve_send([BOT, other], 0.2) == 0.0
    assert await store.reserve_send([BOT], 0.3) == 0.0
    assert await store.reserve_send([BOT], 0.4) == pytest.approx(0.6)


# ---- several processes on one PostgreSQL -----------------------------------------------------


@pytest.fixture
async def stores(postgres_server: PostgresServer) -> AsyncIterator[list[Store]]:
    """Three stores on one PostgreSQL database, each with its own connection."""
    url = await new_schema_url(postgres_server)
    opened = [await open_store(url) for _ in range(3)]
    yield list(opened)
    for store in opened:
        await store.close()


async def test_three_claimers_never_take_one_post_twice(stores: list[Store]) -> None:
    first = stores[0]
    queued = [
        await first.enqueue(_message(-chat, f"m{chat}:{n}"), at(0))
        for chat in range(1, 31)
        for n in range(3)
    ]
    taken: Counter[int] = Counter()

    async def claimer(store: Store) -> None:
        while True:
            claimed = await store.claim_due(at(0), 4, 600)
            for message in claimed:
                taken[message.id] += 1
                assert await store.mark_sent(message.id, message.id, at(0))
            if not claimed and sum(taken.values()) >= len(queued):
                return
            await asyncio.sleep(0)

    await asyncio.wait_for(asyncio.gather(*(claimer(store) for store in stores)), 60)
    assert taken == Counter({message.id: 1 for message in queued})


async def test_three_processes_keep_one_send_window_together(stores: list[Store]) -> None:
    window = SendWindow("bot", limit=10, period=0.5)
    reserved: list[float] = []  # the times the window took, as the senders gave them

    async def sender(store: Store) -> None:
        for _ in range(10):
            while True:
                now = time.time()
                wait = await store.reserve_send([window], now)
                if wait == 0.0:
                    reserved.append(now)
                    break
                await asyncio.sleep(wait)

    await asyncio.wait_for(asyncio.gather(*(sender(store) for store in stores)), 60)
    assert len(reserved) == 30
    most = max(
        sum(1 for other in reserved if start <= other < start + window.period) for start in reserved
    )
    assert most <= window.limit


async def test_a_campaigns_run_is_one_processes_at_a_time(stores: list[Store]) -> None:
    events: list[str] = []
    inside = asyncio.Event()
    leave = asyncio.Event()

    async def first() -> None:
        async with stores[0].scheduled_run(7):
            events.append("first in")
            inside.set()
            await leave.wait()
            events.append("first out")

    async def second() -> None:
        await inside.wait()
        async with stores[1].scheduled_run(7):
            events.append("second in")

    async def other_campaign() -> None:
        await inside.wait()
        async with stores[2].scheduled_run(8):
            events.append("campaign 8 in")
        leave.set()

    await asyncio.wait_for(asyncio.gather(first(), second(), other_campaign()), 30)
    assert events == ["first in", "campaign 8 in", "first out", "second in"]


async def test_a_killed_holder_leaves_the_run_to_the_others(
    postgres_server: PostgresServer,
) -> None:
    url = await new_schema_url(postgres_server)
    holder, waiter = await open_store(url), await open_store(url)
    holding, got = asyncio.Event(), asyncio.Event()

    async def hold_forever() -> None:
        async with holder.scheduled_run(9):
            holding.set()
            await asyncio.Event().wait()

    async def wait_for_the_run() -> None:
        async with waiter.scheduled_run(9):
            got.set()

    held = asyncio.create_task(hold_forever())
    try:
        await holding.wait()
        waiting = asyncio.create_task(wait_for_the_run())
        await asyncio.sleep(0.1)
        assert not got.is_set()
        holder._db._conn.raw.terminate()  # type: ignore[attr-defined]  # as a SIGKILL does
        await asyncio.wait_for(waiting, 30)
        assert got.is_set()
    finally:
        held.cancel()
        await asyncio.gather(held, return_exceptions=True)
        await waiter.close()
