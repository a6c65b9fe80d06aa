"""A seat's snapshot (issue 22): everything a person's orders screen needs, read in one read
transaction and agreeing with the single reads it replaces."""

from rules import SideOrders
from storage import Phase, Store
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
