"""The campaign clock: compare-and-set transitions, concurrent duplicates, pause, undo, redo."""

import asyncio

from bot.services.turns import (
    ResolveOutcome,
    publish_battle_list,
    resolve_and_store,
    undo_last_step,
)
from rules import SideOrders
from storage import (
    CampaignStatus,
    OutboxState,
    Phase,
    RetiredReason,
    Store,
    TransitionOutcome,
    WriteOutcome,
    open_store,
)
from tests.storage.campaign_script import GM, at, deploy, new_campaign, play_turn, strategist


async def test_second_identical_transition_does_nothing_and_says_so(store: Store) -> None:
    campaign = await new_campaign(store)
    first = await store.transition(campaign.id, 0, Phase.SETUP, 0, Phase.DEPLOYMENT, GM, "", at(0))
    second = await store.transition(campaign.id, 0, Phase.SETUP, 0, Phase.DEPLOYMENT, GM, "", at(0))
    assert first.outcome is TransitionOutcome.APPLIED
    assert second.outcome is TransitionOutcome.ALREADY_DONE
    assert "already" in second.message
    assert second.campaign is not None
    assert second.campaign.phase is Phase.DEPLOYMENT
    assert len(await store.phase_history(campaign.id)) == 2


async def test_transition_from_the_wrong_position_is_a_conflict(store: Store) -> None:
    campaign = await new_campaign(store)
    result = await store.transition(campaign.id, 3, Phase.ORDERS, 3, Phase.BATTLES, None, "", at(0))
    assert result.outcome is TransitionOutcome.CONFLICT
    assert "turn 0 setup" in result.message
    missing = await store.transition(999, 0, Phase.SETUP, 0, Phase.DEPLOYMENT, None, "", at(0))
    assert missing.outcome is TransitionOutcome.NOT_FOUND


async def test_concurrent_double_transition_on_two_connections_applies_once(
    store: Store, database_url: str
) -> None:
    campaign = await new_campaign(store)
    other = await open_store(database_url)
    try:
        results = await asyncio.gather(
            *(
                s.transition(campaign.id, 0, Phase.SETUP, 0, Phase.DEPLOYMENT, None, "job", at(0))
                for s in (store, other, store, other)
            )
        )
    finally:
        await other.close()
    outcomes = sorted(r.outcome.value for r in results)
    assert outcomes == ["already_done"] * 3 + ["applied"]
    history = await store.phase_history(campaign.id)
    assert [(e.turn, e.phase) for e in history] == [(0, Phase.SETUP), (0, Phase.DEPLOYMENT)]
    phase_rows = [a for a in await store.audit_log(campaign.id) if a.action == "phase_changed"]
    assert len(phase_rows) == 1


async def test_concurrent_double_resolution_resolves_once(store: Store, database_url: str) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    await store.save_orders(campaign.id, 1, "red", SideOrders(reinforce="4"), True, 201, at(0, 30))
    await publish_battle_list(store, campaign.id, 1, None, at(0, 96))
    other = await open_store(database_url)
    try:
        results = await asyncio.gather(
            resolve_and_store(store, campaign.id, 1, None, at(1)),
            resolve_and_store(other, campaign.id, 1, None, at(1)),
        )
    finally:
        await other.close()
    assert sorted(r.outcome.value for r in results) == ["already_done", "resolved"]
    assert len(await store.resolutions(campaign.id, 1, include_retired=True)) == 1
    current = await store.campaign(campaign.id)
    assert current is not None
    assert (current.turn, current.phase) == (2, Phase.ORDERS)
    maps = [m for m in await store.claim_due(at(1), 50, 60) if m.kind == "map"]
    assert [m.payload["turn"] for m in maps] == [1]  # turn 1's map; turn 2's is held behind it


async def test_paused_campaign_does_not_move_until_resumed(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    paused = await store.set_status(
        campaign.id, CampaignStatus.RUNNING, CampaignStatus.PAUSED, GM, "holidays", at(0, 20)
    )
    assert paused.applied
    again = await store.set_status(
        campaign.id, CampaignStatus.RUNNING, CampaignStatus.PAUSED, GM, "holidays", at(0, 20)
    )
    assert again.outcome is TransitionOutcome.ALREADY_DONE
    blocked = await publish_battle_list(store, campaign.id, 1, None, at(0, 96))
    assert blocked.outcome is TransitionOutcome.CONFLICT
    assert "paused" in blocked.message
    twice = await publish_battle_list(store, campaign.id, 1, None, at(0, 96))
    assert twice.outcome is TransitionOutcome.CONFLICT
    resumed = await store.set_status(
        campaign.id, CampaignStatus.PAUSED, CampaignStatus.RUNNING, GM, "back", at(1, 20)
    )
    assert resumed.applied
    assert (await publish_battle_list(store, campaign.id, 1, None, at(1, 96))).applied
    repeated = await publish_battle_list(store, campaign.id, 1, None, at(1, 96))
    assert repeated.outcome is TransitionOutcome.ALREADY_DONE
    lists = await store.battle_list(campaign.id, 1)
    assert lists is not None
    assert lists.revision == 1


async def test_undo_then_redo_gives_the_same_state(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    await play_turn(store, campaign.id, 1, seed=11)
    played = await play_turn(store, campaign.id, 2, seed=11)
    state_3 = await store.turn_start(campaign.id, 3)
    record_2 = await store.turn_record(campaign.id, 2)
    assert state_3 is not None
    assert record_2 is not None
    assert record_2.resolution is not None
    # Turn 3's orders are already coming in when the GM notices a mistake.
    red_orders = SideOrders(reinforce=next(iter(state_3.armies["red"])))
    saved = await store.save_orders(campaign.id, 3, "red", red_orders, False, 201, at(2, 2))
    assert saved.outcome is WriteOutcome.SAVED

    undone = await undo_last_step(store, campaign.id, 3, Phase.ORDERS, GM, "wrong result", at(2, 3))
    assert undone.applied
    assert undone.campaign is not None
    assert (undone.campaign.turn, undone.campaign.phase) == (2, Phase.RESOLUTION)
    assert await store.turn_start(campaign.id, 3) is None
    assert await store.resolutions(campaign.id, 2) == []
    assert await store.orders(campaign.id, 3, "red") is None
    kept = await store.order_edits(campaign.id, 3, "red")
    assert [(e.orders, e.retired) for e in kept] == [(red_orders, True)]
    # Turn 2's own orders and results are untouched: the GM can resolve again.
    assert {s: o.orders for s, o in (await store.orders_for_turn(campaign.id, 2)).items()} == (
        played.orders
    )
    repeat = await undo_last_step(store, campaign.id, 3, Phase.ORDERS, GM, "again", at(2, 3))
    assert repeat.outcome is TransitionOutcome.ALREADY_DONE

    redone = await resolve_and_store(store, campaign.id, 2, GM, at(2, 4))
    assert redone.outcome is ResolveOutcome.RESOLVED
    assert await store.turn_start(campaign.id, 3) == state_3
    revisions = await store.resolutions(campaign.id, 2, include_retired=True)
    assert [(r.revision, r.retired_reason) for r in revisions] == [
        (1, RetiredReason.UNDONE),
        (2, None),
    ]
    assert revisions[1].report == record_2.resolution.report
    assert revisions[1].state_after == state_3
    history = await store.phase_history(campaign.id)
    assert [(e.turn, e.phase, e.undone_by is not None) for e in history[-2:]] == [
        (3, Phase.ORDERS, True),
        (3, Phase.ORDERS, False),
    ]
    undo_rows = [a for a in await store.audit_log(campaign.id) if a.action == "undone"]
    assert len(undo_rows) == 1
    assert (undo_rows[0].actor, undo_rows[0].at, undo_rows[0].reason) == (
        GM,
        at(2, 3),
        "wrong result",
    )
    assert undo_rows[0].before == {"turn": 3, "phase": "orders", "status": "running"}
    assert undo_rows[0].after == {"turn": 2, "phase": "resolution", "status": "running"}


async def test_undoing_the_battle_list_reopens_orders_and_republishing_matches(
    store: Store,
) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    orders = SideOrders(moves=(), attacks=(), reinforce="1")
    await store.save_orders(campaign.id, 1, "blue", orders, True, strategist("blue"), at(0, 30))
    await publish_battle_list(store, campaign.id, 1, None, at(0, 96))
    first = await store.battle_list(campaign.id, 1)
    assert first is not None

    undone = await undo_last_step(store, campaign.id, 1, Phase.BATTLES, GM, "late order", at(0, 97))
    assert undone.applied
    assert await store.battle_list(campaign.id, 1) is None
    late = await store.save_orders(
        campaign.id, 1, "blue", orders, False, strategist("blue"), at(0, 98)
    )
    assert late.outcome is WriteOutcome.SAVED
    assert late.orders is not None
    assert (late.orders.edits, late.orders.ready) == (2, False)
    # The notice queued with the undone list is cancelled, not sent.
    cancelled = [
        m
        for m in await store.outbox_messages(campaign.id)
        if m.kind == "battle_list" and m.state is OutboxState.CANCELLED
    ]
    assert len(cancelled) == 1

    await publish_battle_list(store, campaign.id, 1, None, at(0, 99))
    second = await store.battle_list(campaign.id, 1)
    assert second is not None
    assert (second.revision, second.battles) == (2, first.battles)


async def test_nothing_to_undo_at_setup(store: Store) -> None:
    campaign = await new_campaign(store)
    result = await store.undo_last_step(campaign.id, 0, Phase.SETUP, GM, "", at(0))
    assert result.outcome is TransitionOutcome.NOTHING_TO_UNDO


async def test_orders_outside_the_orders_window_are_refused(store: Store) -> None:
    campaign = await new_campaign(store)
    early = await store.save_orders(campaign.id, 1, "red", SideOrders(), True, 201, at(0))
    assert early.outcome is WriteOutcome.PHASE_CLOSED
    await deploy(store, campaign.id)
    unknown = await store.save_orders(campaign.id, 1, "pink", SideOrders(), True, 201, at(0, 20))
    assert unknown.outcome is WriteOutcome.UNKNOWN_SIDE
    await publish_battle_list(store, campaign.id, 1, None, at(0, 96))
    late = await store.save_orders(campaign.id, 1, "red", SideOrders(), True, 201, at(0, 97))
    assert late.outcome is WriteOutcome.PHASE_CLOSED
    assert await store.orders(campaign.id, 1, "red") is None


async def test_undo_back_to_the_orders_and_redo_keeps_reported_results(
    store: Store,
) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    played = await play_turn(store, campaign.id, 1, seed=11)
    state_2 = await store.turn_start(campaign.id, 2)
    assert played.results
    steps = [(2, Phase.ORDERS), (1, Phase.RESOLUTION), (1, Phase.BATTLES)]
    for hour, (turn, phase) in enumerate(steps):
        undone = await undo_last_step(store, campaign.id, turn, phase, GM, "back", at(1, hour))
        assert undone.applied, undone.message
    current = await store.campaign(campaign.id)
    assert current is not None
    assert (current.turn, current.phase) == (1, Phase.ORDERS)
    assert await store.battle_list(campaign.id, 1) is None

    republished = await publish_battle_list(store, campaign.id, 1, GM, at(1, 5))
    assert republished.applied
    # The list is the same, so the results already reported and confirmed still count.
    assert await store.effective_results(campaign.id, 1) == list(played.results)
    redone = await resolve_and_store(store, campaign.id, 1, GM, at(1, 6))
    assert redone.outcome is ResolveOutcome.RESOLVED
    assert await store.turn_start(campaign.id, 2) == state_2
    published = [a for a in await store.audit_log(campaign.id) if a.action == "battles_published"]
    assert isinstance(published[-1].after, dict)
    assert published[-1].after["reports_carried_over"] == [r.battle for r in played.results]
