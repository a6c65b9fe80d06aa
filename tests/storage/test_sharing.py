"""Work several processes share (storage/sharing.py, the outbox claim): on both engines one
store; on PostgreSQL several stores, each with its own connection, as several processes have."""

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from storage import NewOutboxMessage, SendWindow, Store, UpdateTake, open_store
from tests.postgres_server import PostgresServer, new_schema_url
from tests.storage.campaign_script import at

BOT = SendWindow("bot", limit=3, period=1.0)
LEASE = timedelta(seconds=30)


async def reserve(store: Store, windows: list[SendWindow], now: float) -> float:
    """``reserve_send`` on a clock that says ``now``."""
    return await store.reserve_send(windows, lambda: now)


async def _lock_waits(conn: Any, at_least: int = 1) -> None:
    """Until PostgreSQL has ``at_least`` lock requests waiting (``pg_locks``, not granted): the
    event a "not yet" assertion needs, where a fixed sleep would pass on a slow machine before
    the waiter had even asked."""
    async with asyncio.timeout(30):
        while await conn.fetchval("SELECT count(*) FROM pg_locks WHERE NOT granted") < at_least:
            await asyncio.sleep(0.01)


def _message(chat: int, key: str) -> NewOutboxMessage:
    return NewOutboxMessage(
        campaign_id=None, chat_id=chat, kind="notice", payload={"text": key}, dedup_key=key
    )


async def test_an_update_is_taken_once(store: Store) -> None:
    assert await store.take_update(1001, at(0), LEASE) is UpdateTake.TAKEN
    assert await store.take_update(1001, at(0, 0.001), LEASE) is UpdateTake.HELD
    await store.finish_update(1001, at(0, 0.001))
    assert await store.take_update(1001, at(0, 0.002), LEASE) is UpdateTake.DONE
    assert await store.take_update(1002, at(0, 0.002), LEASE) is UpdateTake.TAKEN


async def test_an_update_its_process_did_not_finish_is_taken_again_after_the_lease(
    store: Store,
) -> None:
    """The process that took it died: Telegram's retry within the lease is told to wait, one
    after it is handled; once handled, it is dropped even after its lease."""
    assert await store.take_update(7, at(0), LEASE) is UpdateTake.TAKEN
    just_before = at(0) + LEASE - timedelta(microseconds=1)
    assert await store.take_update(7, just_before, LEASE) is UpdateTake.HELD
    assert await store.take_update(7, at(0) + LEASE, LEASE) is UpdateTake.TAKEN
    # The new lease runs from the retry: the next retry within it waits again.
    assert await store.take_update(7, at(0) + LEASE * 1.5, LEASE) is UpdateTake.HELD
    await store.finish_update(7, at(0) + LEASE * 1.5)
    assert await store.take_update(7, at(0) + LEASE * 10, LEASE) is UpdateTake.DONE


async def test_old_updates_and_idle_windows_are_forgotten(store: Store) -> None:
    await store.take_update(1, at(0), LEASE)
    await store.take_update(2, at(2), LEASE)
    await store.finish_update(2, at(2))
    assert await reserve(store, [BOT], at(0).timestamp()) == 0.0
    assert await store.forget_shared_work(at(1)) == 2
    # Forgotten: a day later it is no one's any more.
    assert await store.take_update(1, at(3), LEASE) is UpdateTake.TAKEN
    assert await store.take_update(2, at(3), LEASE) is UpdateTake.DONE


async def test_a_send_window_takes_its_limit_then_says_how_long_to_wait(store: Store) -> None:
    start = 1_000.0
    for step in range(3):
        assert await reserve(store, [BOT], start + step * 0.1) == 0.0
    assert await reserve(store, [BOT], start + 0.3) == pytest.approx(0.7)
    assert await reserve(store, [BOT], start + 1.0) == 0.0
    assert await reserve(store, [BOT], start + 1.05) == pytest.approx(0.05)


async def test_a_sender_whose_clock_was_read_earlier_still_counts_the_times_before_it(
    store: Store,
) -> None:
    """Two processes' clocks differ a little: the one ahead takes the window's row first and its
    time leaves the first requests out of its period; the one behind, writing after it, must
    still count them (it once found them pruned and overfilled the window)."""
    start = 1_000.0
    for step in range(3):
        assert await reserve(store, [BOT], start + step * 0.1) == 0.0
    assert await reserve(store, [BOT], start + 1.15) == 0.0  # 0.0 and 0.1 out of its second
    # Read at 0.95, after the three: its second holds 0.0, 0.1, 0.2 (and 1.15 ahead of it).
    assert await reserve(store, [BOT], start + 0.95) == pytest.approx(0.15)
    assert await reserve(store, [BOT], start + 1.1) == 0.0
    assert await reserve(store, [BOT], start + 1.12) == pytest.approx(0.08)  # 0.2 leaves


async def test_a_time_stamped_by_a_clock_running_ahead_prunes_no_one_elses(
    store: Store,
) -> None:
    """One process's clock runs 10 s ahead and stamps 110.0; the others, at the true time, must
    still fill the window (they once pruned every time but 110.0 and took all 100 calls). Its
    time is counted too: the window holds one request less until the true time passes it."""
    window = SendWindow("bot", limit=30, period=1.0)
    assert await reserve(store, [window], 110.0) == 0.0
    taken = [
        now
        for now in (100.0 + step * 0.005 for step in range(100))
        if await reserve(store, [window], now) == 0.0
    ]
    assert len(taken) == window.limit - 1
    assert await reserve(store, [window], 101.0) == 0.0  # the first one left its second


async def test_a_clock_running_behind_counts_the_times_ahead_of_it(store: Store) -> None:
    """A process whose clock runs 10 s behind (90.0) counts the others' times, all ahead of it:
    the window is full for it as for them."""
    start = 100.0
    for step in range(3):
        assert await reserve(store, [BOT], start + step * 0.1) == 0.0
    assert await reserve(store, [BOT], 90.0) > 0
    assert await reserve(store, [BOT], 90.5) > 0
    assert await reserve(store, [BOT], start + 0.3) == pytest.approx(0.7)


async def test_a_request_takes_a_place_in_every_window_or_in_none(store: Store) -> None:
    chat = SendWindow("chat:-100", limit=1, period=60.0)
    assert await reserve(store, [BOT, chat], 0.0) == 0.0
    assert await reserve(store, [BOT, chat], 0.1) == pytest.approx(59.9)
    other = SendWindow("chat:-200", limit=1, period=60.0)
    # The refused request took no place in the bot's window: two more fit.
    assert await reserve(store, [BOT, other], 0.2) == 0.0
    assert await reserve(store, [BOT], 0.3) == 0.0
    assert await reserve(store, [BOT], 0.4) == pytest.approx(0.6)


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
                read: list[float] = []

                def wall(read: list[float] = read) -> float:
                    read.append(time.time())
                    return read[-1]

                wait = await store.reserve_send([window], wall)
                if wait == 0.0:
                    reserved.append(read[-1])
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
        # The waiter polls (pg_try_advisory_lock): its second try shows the first one failed.
        tries, refused = 0, asyncio.Event()
        usable = waiter._db._usable_connection  # type: ignore[attr-defined]

        async def counted() -> None:
            nonlocal tries
            tries += 1
            if tries == 2:
                refused.set()
            await usable()

        waiter._db._usable_connection = counted  # type: ignore[attr-defined]
        waiting = asyncio.create_task(wait_for_the_run())
        await asyncio.wait_for(refused.wait(), 30)
        assert not got.is_set()
        holder._db._conn.raw.terminate()  # type: ignore[attr-defined]  # as a SIGKILL does
        await asyncio.wait_for(waiting, 30)
        assert got.is_set()
    finally:
        held.cancel()
        await asyncio.gather(held, return_exceptions=True)
        await waiter.close()


async def test_three_processes_taking_one_update_at_once_one_gets_it(
    stores: list[Store],
) -> None:
    for update_id in range(1, 21):
        taken = await asyncio.gather(
            *(store.take_update(update_id, at(0), LEASE) for store in stores)
        )
        assert Counter(taken) == Counter({UpdateTake.TAKEN: 1, UpdateTake.HELD: 2})
    # A killed replica's update: after its lease, one of the others takes it, once.
    late = at(0) + LEASE
    again = await asyncio.gather(*(store.take_update(5, late, LEASE) for store in stores))
    assert Counter(again) == Counter({UpdateTake.TAKEN: 1, UpdateTake.HELD: 2})


async def test_a_lease_is_renewed_while_this_processs_writes_wait_for_another_process(
    stores: list[Store],
) -> None:
    """Another process holds the write lock (a long step); this process has a write waiting
    for it on its connection. Its lease renewals go through beside that wait: queued behind
    it they would come after the lease ran out, and another process would take the post."""
    first, other = stores[0], stores[1]
    queued = await first.enqueue(_message(1, "slow"), at(0))
    (claimed,) = await first.claim_due(at(0), 10, 6)
    holding, release = asyncio.Event(), asyncio.Event()

    async def long_step() -> None:
        async with other.atomic():
            await other.enqueue(_message(2, "step"), at(0))  # takes the write lock
            holding.set()
            await release.wait()

    step = asyncio.create_task(long_step())
    await holding.wait()
    waiting_write = asyncio.create_task(first.enqueue(_message(3, "waits"), at(0)))
    try:
        until = at(0) + timedelta(seconds=60)
        renewed = asyncio.create_task(
            first.renew_leases({claimed.id: claimed.claim_token or ""}, until)
        )
        done, _ = await asyncio.wait(
            [renewed, waiting_write], timeout=30, return_when=asyncio.FIRST_COMPLETED
        )
        assert done == {renewed}
        assert renewed.result() == set()
        lease = await stores[2].outbox_message(queued.id)
        assert lease is not None
        assert lease.lease_until == until
    finally:
        release.set()
        await asyncio.gather(step, waiting_write)


async def test_a_send_counts_from_when_it_got_the_windows_not_from_before(
    stores: list[Store],
) -> None:
    """20 sends wait for the window's row (another process holds it) while the clock moves from
    100.0 to 103.0: they count at 103.0, when they took their places, so of 30 more at 103.01
    only 10 fit the second (counted at 100.0, all 50 went out in one real second)."""
    window = SendWindow("bot", limit=30, period=1.0)
    clock = [100.0]
    first, other = stores[0], stores[2]
    assert await first.reserve_send([window], lambda: 99.0) == 0.0  # the row exists
    holder = stores[1]._db._conn.raw  # type: ignore[attr-defined]  # another process's
    await holder.execute("BEGIN")
    await holder.execute("SELECT times_json FROM send_windows WHERE scope = 'bot' FOR UPDATE")
    waiting = [
        asyncio.create_task(first.reserve_send([window], lambda: clock[0])) for _ in range(20)
    ]
    await _lock_waits(other._db._conn.raw)  # type: ignore[attr-defined]
    assert not any(task.done() for task in waiting)
    clock[0] = 103.0
    await holder.execute("COMMIT")
    assert await asyncio.wait_for(asyncio.gather(*waiting), 30) == [0.0] * 20
    fresh = [await other.reserve_send([window], lambda: 103.01) for _ in range(30)]
    assert fresh.count(0.0) == 10


async def test_a_send_goes_by_while_this_processs_write_waits_for_another_process(
    stores: list[Store],
) -> None:
    """Another process holds the write lock; this process has a write waiting for it. Its sends
    take their windows beside that wait, not seconds later behind it."""
    first, other = stores[0], stores[1]
    holding, release = asyncio.Event(), asyncio.Event()

    async def long_step() -> None:
        async with other.atomic():
            await other.enqueue(_message(2, "step"), at(0))  # takes the write lock
            holding.set()
            await release.wait()

    step = asyncio.create_task(long_step())
    await holding.wait()
    waiting_write = asyncio.create_task(first.enqueue(_message(3, "waits"), at(0)))
    try:
        reserved = asyncio.create_task(first.reserve_send([BOT], lambda: 100.0))
        done, _ = await asyncio.wait(
            [reserved, waiting_write], timeout=30, return_when=asyncio.FIRST_COMPLETED
        )
        assert done == {reserved}
        assert reserved.result() == 0.0
    finally:
        release.set()
        await asyncio.gather(step, waiting_write)
