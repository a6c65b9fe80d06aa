"""A seat's snapshot (issue 22): everything a person's orders screen needs, read in one read
transaction and agreeing with the single reads it replaces."""

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from rules import SideOrders
from storage import NewOutboxMessage, Phase, Store, WriteOutcome, open_store
from tests.storage.campaign_script import GM, at, deploy, new_campaign, strategist, tactician
from tests.transactions import count_transactions


async def test_a_seat_snapshot_is_one_read_and_agrees_with_the_single_reads(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    red = strategist("red")
    await store.see_person(red, "Player 201", None, "en", True, at(0, 3))
    await store.see_person(tactician("red"), "Player 202", None, "ru", True, at(0, 3))
    await store.see_person(strategist("blue"), "Player 301", None, "en", True, at(0, 3))
    saved = await store.save_orders(
        campaign.id, 1, "red", SideOrders(reinforce="1"), False, red, at(0, 4), expected_edits=0
    )
    assert saved.orders is not None
    await store.remember_ui_message(campaign.id, red, "orders", red, 77, at(0, 4))

    counted = count_transactions(store)
    snapshot = await store.seat_snapshot(campaign.id, red)
    assert (counted.reads, counted.writes) == (1, 0)

    assert snapshot is not None
    now = await store.campaign(campaign.id)
    assert snapshot.campaign == now
    assert snapshot.member == await store.member(campaign.id, red)
    assert list(snapshot.sides) == await store.sides(campaign.id)
    assert list(snapshot.members) == await store.members(campaign.id)
    history = await store.phase_history(campaign.id)
    assert list(snapshot.history) == history[-1:]
    assert snapshot.clock == await store.clock_state(campaign.id)
    assert snapshot.reopenings == {}
    assert now is not None
    assert snapshot.turn_start == await store.turn_start(campaign.id, now.turn)
    assert snapshot.orders == await store.orders_for_turn(campaign.id, now.turn)
    assert snapshot.orders["red"] == saved.orders
    assert snapshot.ui_messages["orders"] == await store.ui_message(campaign.id, red, "orders")
    assert snapshot.running_campaigns == 1
    # The people are the person and their side's: another side's players are not read.
    assert set(snapshot.people) == {red, tactician("red")}
    assert snapshot.member_named(GM) is not None


async def test_there_is_no_snapshot_of_a_seat_nobody_holds(store: Store) -> None:
    campaign = await new_campaign(store)
    assert await store.seat_snapshot(campaign.id, 999) is None
    assert await store.seat_snapshot(campaign.id + 1, strategist("red")) is None


async def test_a_snapshot_counts_only_the_unfinished_campaigns_a_person_plays(
    store: Store,
) -> None:
    first = await new_campaign(store)
    second = await new_campaign(store, chat_id=-1002)
    red = strategist("red")
    snapshot = await store.seat_snapshot(first.id, red)
    assert snapshot is not None
    assert snapshot.running_campaigns == 2
    await store.remove_member(second.id, red, GM, at(0, 1))
    again = await store.seat_snapshot(first.id, red)
    assert again is not None
    assert again.running_campaigns == 1


async def test_a_snapshot_holds_the_current_phase_entry_and_the_undone_ones_after_it(
    store: Store,
) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    red = strategist("red")
    battles = await store.transition(
        campaign.id, 1, Phase.ORDERS, 1, Phase.BATTLES, GM, "close", at(0, 30)
    )
    assert battles.applied
    undone = await store.undo_last_step(campaign.id, 1, Phase.BATTLES, GM, "too early", at(0, 31))
    assert undone.applied
    history = await store.phase_history(campaign.id)
    snapshot = await store.seat_snapshot(campaign.id, red)
    assert snapshot is not None
    current = max(entry.seq for entry in history if entry.undone_at is None)
    assert list(snapshot.history) == [entry for entry in history if entry.seq >= current]
    assert snapshot.history[0].phase is Phase.ORDERS
    assert snapshot.history[-1].undone_at is not None


async def test_a_strategist_snapshot_holds_their_side_orders_only_and_a_gm_s_every_side(
    store: Store,
) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    red, blue = strategist("red"), strategist("blue")
    for side, user in (("red", red), ("blue", blue)):
        saved = await store.save_orders(
            campaign.id, 1, side, SideOrders(reinforce="1"), False, user, at(0, 4)
        )
        assert saved.orders is not None

    mine = await store.seat_snapshot(campaign.id, red)
    gm = await store.seat_snapshot(campaign.id, GM)
    a_tactician = await store.seat_snapshot(campaign.id, tactician("blue"))

    assert mine is not None
    assert gm is not None
    assert a_tactician is not None
    # Another side's secret orders are not even read for a player's screens.
    assert set(mine.orders) == {"red"}
    assert set(a_tactician.orders) == {"blue"}
    assert gm.orders == await store.orders_for_turn(campaign.id, 1)
    assert set(gm.orders) == {"red", "blue"}


class ThreadCalls:
    """Counts calls to aiosqlite's worker thread (each one a round trip from the event loop)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original: Callable[..., Awaitable[Any]] = aiosqlite.Connection._execute

        async def counted(connection: aiosqlite.Connection, *args: Any, **kw: Any) -> Any:
            self.count += 1
            return await original(connection, *args, **kw)

        monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)


async def test_on_sqlite_a_snapshot_is_one_call_to_the_database_thread_and_a_save_four(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await open_store(f"sqlite://{db_path}")
    try:
        campaign = await new_campaign(store)
        await deploy(store, campaign.id)
        red = strategist("red")
        first = await store.save_orders(
            campaign.id, 1, "red", SideOrders(reinforce="1"), False, red, at(0, 4)
        )
        assert first.orders is not None
        await store.see_person(red, "Player 201", None, "en", True, at(0, 3))
        calls = ThreadCalls(monkeypatch)

        snapshot = await store.seat_snapshot(campaign.id, red)
        assert calls.count == 1
        assert snapshot is not None
        assert snapshot.orders["red"] == first.orders
        assert await store.person(red) is not None
        assert calls.count == 2

        # BEGIN IMMEDIATE, the compare-and-set's reads, the writes with the notices, COMMIT.
        calls.count = 0
        saved = await store.save_orders(
            campaign.id,
            1,
            "red",
            SideOrders(reinforce="2"),
            True,
            red,
            at(0, 5),
            expected_edits=first.orders.edits,
            outbox=[
                NewOutboxMessage(
                    campaign_id=campaign.id,
                    chat_id=red,
                    kind="notice",
                    payload={"text": "red's orders changed"},
                    dedup_key="red-orders-2",
                )
            ],
        )
        assert calls.count == 4
        assert saved.outcome is WriteOutcome.SAVED
        assert saved.orders is not None
        assert (saved.orders.orders.reinforce, saved.orders.ready, saved.orders.edits) == (
            "2",
            True,
            first.orders.edits + 1,
        )
        assert [edit.seq for edit in await store.order_edits(campaign.id, 1, "red")] == [1, 2]
        queued = [m.dedup_key for m in await store.outbox_messages(campaign.id)]
        assert queued[-1] == "red-orders-2"
    finally:
        await store.close()


async def test_a_read_inside_a_write_transaction_sees_its_writes(store: Store) -> None:
    campaign = await new_campaign(store)
    red = strategist("red")
    async with store.atomic():
        await store.see_person(red, "Renamed", None, "en", True, at(0, 3))
        seen = await store.person(red)
    assert seen is not None
    assert seen.display_name == "Renamed"
    assert await store.seat_snapshot(campaign.id, red) is not None
