"""The outbox: idempotent enqueue, leases, per-chat order, retries, and concurrent workers."""

import asyncio
from datetime import UTC, datetime, timedelta

from storage import (
    CampaignStatus,
    NewOutboxMessage,
    OutboxStage,
    OutboxState,
    Phase,
    Store,
    open_store,
)
from tests.storage.campaign_script import GM, at, new_campaign


def _message(chat: int, key: str) -> NewOutboxMessage:
    return NewOutboxMessage(
        campaign_id=None, chat_id=chat, kind="notice", payload={"text": key}, dedup_key=key
    )


async def test_enqueue_is_idempotent_on_the_dedup_key(store: Store) -> None:
    first = await store.enqueue(_message(1, "k"), at(0))
    again = await store.enqueue(
        NewOutboxMessage(
            campaign_id=None, chat_id=2, kind="other", payload={"x": 1}, dedup_key="k"
        ),
        at(0, 1),
    )
    assert again == first
    claimed = await store.claim_due(at(0, 2), 10, 60)
    assert [m.id for m in claimed] == [first.id]
    assert await store.mark_sent(first.id, 555, at(0, 2))
    # Enqueueing a message that was already sent does not send it again.
    after = await store.enqueue(_message(1, "k"), at(0, 3))
    assert after.state is OutboxState.SENT
    assert after.telegram_message_id == 555
    assert await store.claim_due(at(0, 4), 10, 60) == []
    assert not await store.mark_sent(first.id, 556, at(0, 5))


async def test_a_lease_hides_a_message_until_it_runs_out(store: Store) -> None:
    queued = await store.enqueue(_message(1, "a"), at(0))
    (claimed,) = await store.claim_due(at(0), 10, lease_seconds=60)
    assert claimed.state is OutboxState.SENDING
    assert claimed.attempts == 1
    assert await store.claim_due(at(0, 0.01), 10, 60) == []  # 36 s later: still leased
    (reclaimed,) = await store.claim_due(at(0, 0.02), 10, 60)  # 72 s later: the sender died
    assert reclaimed.id == queued.id
    assert reclaimed.attempts == 2
    assert reclaimed.claim_token != claimed.claim_token


async def test_a_renewed_lease_outlasts_the_first_and_a_lapsed_one_can_be_taken(
    store: Store,
) -> None:
    """A sender renews the leases of the posts it is sending: another claim finds nothing until
    the renewed lease runs out; a renewal never shortens a lease nor touches a post no longer
    being sent; a post another sender claimed after its lease ran out is reported taken."""
    a = await store.enqueue(_message(1, "a"), at(0))
    b = await store.enqueue(_message(2, "b"), at(0))
    claimed = {m.id: m.claim_token or "" for m in await store.claim_due(at(0), 10, 6)}
    assert set(claimed) == {a.id, b.id}
    start = at(0)

    def later(seconds: float) -> datetime:
        return start + timedelta(seconds=seconds)

    assert await store.renew_leases(claimed, later(10)) == set()
    assert await store.claim_due(later(8), 10, 6) == []  # past the first lease, within the renewed
    assert await store.renew_leases(claimed, later(7)) == set()  # earlier: kept as it was
    renewed = await store.outbox_message(a.id)
    assert renewed is not None
    assert renewed.lease_until == later(10)
    assert await store.mark_sent(b.id, 77, later(9))
    (taken,) = await store.claim_due(later(10), 10, 6)  # the renewals stopped: a is free again
    assert taken.id == a.id
    assert taken.claim_token != claimed[a.id]
    assert await store.renew_leases(claimed, later(20)) == {a.id}
    after = {
        m.id: m for m in [await store.outbox_message(a.id), await store.outbox_message(b.id)] if m
    }
    assert after[a.id].lease_until == later(16)  # the new claim's lease, not the old sender's
    assert after[b.id].state is OutboxState.SENT
    assert after[b.id].lease_until is None
    assert await store.renew_leases({}, later(30)) == set()


async def test_messages_of_one_chat_go_out_in_queue_order(store: Store) -> None:
    a1 = await store.enqueue(_message(1, "a1"), at(0))
    a2 = await store.enqueue(_message(1, "a2"), at(0))
    b1 = await store.enqueue(_message(2, "b1"), at(0))
    first = await store.claim_due(at(0), 10, 60)
    assert [m.id for m in first] == [a1.id, b1.id]  # a2 waits behind a1
    await store.mark_sent(a1.id, 1, at(0))
    failed = await store.mark_failed(b1.id, "429 Too Many Requests", at(0, 1), at(0))
    assert failed
    second = await store.claim_due(at(0, 0.5), 10, 60)
    assert [m.id for m in second] == [a2.id]  # b1 is not due before its retry time
    await store.mark_sent(a2.id, 2, at(0, 0.5))
    third = await store.claim_due(at(0, 1), 10, 60)
    assert [m.id for m in third] == [b1.id]
    retried = await store.outbox_message(b1.id)
    assert retried is not None
    assert retried.last_error == "429 Too Many Requests"


async def test_a_steps_posts_reach_each_chat_news_first_whatever_their_listing(
    store: Store,
) -> None:
    """A step that lists what comes next before what happened (a phase opening, then the
    summary) still has each chat read the summary first; each stage keeps its listing."""
    campaign = await new_campaign(store)

    def post(chat: int, key: str, stage: OutboxStage) -> NewOutboxMessage:
        return _message(chat, key).model_copy(update={"campaign_id": campaign.id, "stage": stage})

    moved = await store.transition(
        campaign.id,
        0,
        Phase.SETUP,
        0,
        Phase.DEPLOYMENT,
        GM,
        "deployment opened",
        at(0, 1),
        new_status=CampaignStatus.DEPLOYMENT,
        outbox=[
            post(1, "opening", OutboxStage.NEXT),
            post(1, "summary", OutboxStage.NEWS),
            post(2, "board", OutboxStage.NEXT),
            post(1, "board too", OutboxStage.NEXT),
            post(2, "map", OutboxStage.NEWS),
        ],
    )
    assert moved.applied
    read: dict[int, list[str]] = {}
    for _ in range(5):
        for message in await store.claim_due(at(0, 2), 10, 60):
            read.setdefault(message.chat_id, []).append(message.dedup_key)
            assert await store.mark_sent(message.id, 1, at(0, 2))
    assert read == {1: ["summary", "opening", "board too"], 2: ["map", "board"]}


async def test_groups_go_before_private_chats_each_in_its_own_order(
    store: Store,
) -> None:
    private = [await store.enqueue(_message(chat, f"p{chat}"), at(0)) for chat in (11, 12)]
    group_a = [await store.enqueue(_message(-100, f"a{n}"), at(0)) for n in (1, 2)]
    group_b = await store.enqueue(_message(-200, "b1"), at(0))
    first = await store.claim_due(at(0), 3, 60)
    assert [m.id for m in first] == [group_a[0].id, group_b.id, private[0].id]
    for message in first:
        await store.mark_sent(message.id, 1, at(0))
    second = await store.claim_due(at(0), 3, 60)
    assert [m.id for m in second] == [group_a[1].id, private[1].id]


async def test_groups_with_a_map_waiting_go_first_each_in_its_own_order(
    store: Store,
) -> None:
    def post(
        chat: int, kind: str, key: str, not_before: datetime | None = None
    ) -> NewOutboxMessage:
        return NewOutboxMessage(
            campaign_id=None,
            chat_id=chat,
            kind=kind,
            payload={},
            dedup_key=key,
            not_before=not_before,
        )

    # Queued in this order, as campaigns resolving one after another queue them.
    board_a = await store.enqueue(post(-100, "status_board", "a-board"), at(0))
    held_b = await store.enqueue(post(-200, "battle_list", "b-list", at(1)), at(0))
    board_b = await store.enqueue(post(-200, "status_board", "b-board"), at(0))
    board_c = await store.enqueue(post(-300, "status_board", "c-board"), at(0))
    map_c = await store.enqueue(post(-300, "map", "c-map"), at(0))
    board_c2 = await store.enqueue(post(-300, "status_board", "c-board2"), at(0))
    map_d = await store.enqueue(post(-400, "map", "d-map"), at(0))
    private = await store.enqueue(post(11, "private_phase_notice", "p"), at(0))

    async def claim(limit: int) -> list[int]:
        claimed = await store.claim_due(at(0), limit, 60)
        for message in claimed:
            await store.mark_sent(message.id, 1, at(0))
        return [message.id for message in claimed]

    # Group C's board goes before its map (a chat keeps its order), but C goes before A and B;
    # B's battle list is not due, so it gives B no priority.
    assert await claim(2) == [board_c.id, map_d.id]
    assert await claim(2) == [map_c.id, board_a.id]
    assert await claim(10) == [board_b.id, board_c2.id, private.id]
    assert [m.id for m in await store.claim_due(at(1), 10, 60)] == [held_b.id]


async def test_a_dead_message_stops_holding_back_its_chat(store: Store) -> None:
    bad = await store.enqueue(_message(1, "bad"), at(0))
    good = await store.enqueue(_message(1, "good"), at(0))
    await store.claim_due(at(0), 10, 60)
    assert await store.mark_failed(bad.id, "400 chat not found", None, at(0))
    dead = await store.outbox_message(bad.id)
    assert dead is not None
    assert dead.state is OutboxState.DEAD
    assert [m.id for m in await store.claim_due(at(0), 10, 60)] == [good.id]


async def test_two_workers_never_claim_the_same_message(store: Store, database_url: str) -> None:
    for chat in range(20):
        for n in range(3):
            await store.enqueue(_message(chat, f"{chat}-{n}"), at(0))
    other = await open_store(database_url)
    try:
        sent: list[int] = []
        for _ in range(3):
            batches = await asyncio.gather(
                store.claim_due(at(0), 7, 60),
                other.claim_due(at(0), 7, 60),
                store.claim_due(at(0), 7, 60),
            )
            claimed = [m.id for batch in batches for m in batch]
            assert len(claimed) == len(set(claimed))
            for message_id in claimed:
                assert await store.mark_sent(message_id, message_id, at(0))
            sent.extend(claimed)
    finally:
        await other.close()
    assert len(sent) == len(set(sent))
    # Whatever is left goes out too, each message exactly once, in order per chat.
    while batch := await store.claim_due(at(0), 100, 60):
        for message in batch:
            await store.mark_sent(message.id, message.id, at(0))
        sent.extend(m.id for m in batch)
    assert sorted(sent) == list(range(1, 61))
    for chat in range(20):
        ids = [chat * 3 + n + 1 for n in range(3)]
        assert [i for i in sent if i in ids] == ids


async def test_a_post_scheduled_for_later_does_not_hold_back_the_chat(store: Store) -> None:
    now = datetime(2026, 3, 5, 23, 59, tzinfo=UTC)
    friday = now + timedelta(hours=12)
    held = await store.enqueue(
        NewOutboxMessage(
            campaign_id=None,
            chat_id=-9,
            kind="battle_list",
            payload={},
            dedup_key="held",
            not_before=friday,
        ),
        now,
    )
    later = await store.enqueue(
        NewOutboxMessage(campaign_id=None, chat_id=-9, kind="text", payload={}, dedup_key="n"),
        now,
    )
    assert [m.id for m in await store.claim_due(now, 10, 60)] == [later.id]
    assert await store.mark_sent(later.id, 1, now)
    assert await store.claim_due(now + timedelta(hours=1), 10, 60) == []
    assert [m.id for m in await store.claim_due(friday, 10, 60)] == [held.id]


async def test_a_post_waiting_for_a_retry_still_holds_back_the_chat(store: Store) -> None:
    now = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)
    first = await store.enqueue(
        NewOutboxMessage(campaign_id=None, chat_id=-9, kind="text", payload={}, dedup_key="a"),
        now,
    )
    second = await store.enqueue(
        NewOutboxMessage(campaign_id=None, chat_id=-9, kind="text", payload={}, dedup_key="b"),
        now,
    )
    assert [m.id for m in await store.claim_due(now, 10, 60)] == [first.id]
    assert await store.mark_failed(first.id, "500", now + timedelta(minutes=5), now)
    assert await store.claim_due(now + timedelta(minutes=1), 10, 60) == []
    retried = await store.claim_due(now + timedelta(minutes=5), 10, 60)
    assert [m.id for m in retried] == [first.id]
    assert second.id not in [m.id for m in retried]


async def test_a_kinds_unsent_posts_and_its_chats_are_what_the_whole_outbox_says(
    store: Store,
) -> None:
    """``unsent_outbox_messages`` and ``outbox_chats`` (the board, the battle list and the
    calendars ask them instead of reading the whole outbox) answer what filtering
    ``outbox_messages`` answers: one kind, this campaign, pending or being sent; every chat."""
    campaign = await new_campaign(store)
    other = await new_campaign(store, chat_id=-1002)

    def post(campaign_id: int, chat: int, kind: str, key: str) -> NewOutboxMessage:
        return NewOutboxMessage(
            campaign_id=campaign_id, chat_id=chat, kind=kind, payload={}, dedup_key=key
        )

    sent = await store.enqueue(post(campaign.id, -1001, "status_board", "b1"), at(0))
    failed = await store.enqueue(post(campaign.id, 7, "status_board", "b2"), at(0))
    sending = await store.enqueue(post(campaign.id, 8, "status_board", "b3"), at(0))
    pending = await store.enqueue(post(campaign.id, -1001, "status_board", "b4"), at(0, 1))
    await store.enqueue(post(campaign.id, 9, "calendar", "c1"), at(0))
    await store.enqueue(post(other.id, 10, "status_board", "o1"), at(0))
    claimed = {m.id for m in await store.claim_due(at(0), 10, 60)}
    assert {sent.id, failed.id, sending.id} <= claimed
    assert await store.mark_sent(sent.id, 1, at(0))
    assert await store.mark_failed(failed.id, "400 chat not found", None, at(0))
    waiting = (OutboxState.PENDING, OutboxState.SENDING)
    every = await store.outbox_messages(campaign.id)
    expected = [m for m in every if m.kind == "status_board" and m.state in waiting]
    assert await store.unsent_outbox_messages(campaign.id, "status_board") == expected
    assert [m.id for m in expected] == [sending.id, pending.id]
    assert await store.outbox_chats(campaign.id, "status_board") == {-1001, 7, 8}
    assert await store.outbox_chats(campaign.id, "calendar") == {9}
    assert await store.outbox_chats(campaign.id, "map") == set()
