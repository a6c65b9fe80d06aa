"""Storage of watch duel steps (issue 19): added with the battle list, opened, drafted and
closed by compare-and-set, reminded once, forgotten when the list is undone."""

from storage import (
    AuditAction,
    DuelCloser,
    DuelMode,
    DuelPlay,
    DuelStepState,
    NewDuelStep,
    NewOutboxMessage,
    Phase,
    Store,
)
from tests.storage.campaign_script import GM, at, deploy, new_campaign, strategist


async def _listed(store: Store) -> int:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    published = await store.publish_battles(campaign.id, 1, (), (), None, at(0, 96))
    assert published.applied
    return campaign.id


def _steps() -> list[NewDuelStep]:
    return [
        NewDuelStep(sector="1", index=0, hero="larisa", side_id="red", opens_at=at(0, 96)),
        NewDuelStep(sector="1", index=1, hero="andrey", side_id="blue"),
    ]


def _post(campaign_id: int, key: str) -> NewOutboxMessage:
    return NewOutboxMessage(
        campaign_id=campaign_id,
        chat_id=strategist("red"),
        kind="duel_step",
        payload={},
        dedup_key=key,
    )


async def test_steps_are_added_once_in_their_order(store: Store) -> None:
    campaign_id = await _listed(store)
    first = await store.add_duel_steps(campaign_id, 1, DuelMode.INITIATIVE, _steps())
    again = await store.add_duel_steps(campaign_id, 1, DuelMode.INITIATIVE, _steps())
    assert first == again
    assert [(s.hero, s.index, s.state) for s in first] == [
        ("larisa", 0, DuelStepState.PENDING),
        ("andrey", 1, DuelStepState.PENDING),
    ]
    assert first[0].opens_at == at(0, 96)
    assert first[1].opens_at is None
    assert await store.duel_steps(campaign_id, 1) == first
    assert await store.campaigns_with_duel_steps() == [campaign_id]


async def test_a_step_opens_once_and_closes_once(store: Store) -> None:
    campaign_id = await _listed(store)
    larisa, andrey = await store.add_duel_steps(campaign_id, 1, DuelMode.INITIATIVE, _steps())
    assert await store.open_duel_step(larisa.id, at(0, 102), at(0, 96), [_post(campaign_id, "o")])
    assert not await store.open_duel_step(larisa.id, at(0, 103), at(0, 97))
    opened = await store.duel_step(larisa.id)
    assert opened is not None
    assert (opened.state, opened.opens_at, opened.deadline) == (
        DuelStepState.OPEN,
        at(0, 96),
        at(0, 102),
    )
    play = DuelPlay(card="A3", target="andrey")
    drafted = await store.draft_duel_step(larisa.id, [play], opened.edits)
    assert drafted is not None
    assert drafted.plays == (play,)
    assert await store.draft_duel_step(larisa.id, [], opened.edits) is None  # stale
    assert (
        await store.close_duel_step(
            larisa.id, DuelCloser.SUBMIT, [play], strategist("red"), at(0, 97), expected_edits=0
        )
        is None
    )  # the draft changed since edits 0
    closed = await store.close_duel_step(
        larisa.id, DuelCloser.SUBMIT, [play], strategist("red"), at(0, 97)
    )
    assert closed is not None
    assert (closed.state, closed.closed_by, closed.plays) == (
        DuelStepState.CLOSED,
        DuelCloser.SUBMIT,
        (play,),
    )
    assert await store.close_duel_step(larisa.id, DuelCloser.TIMEOUT, [], None, at(0, 98)) is None
    # A pending step closes only at the results deadline or by a GM, and opens no more.
    assert await store.close_duel_step(andrey.id, DuelCloser.TIMEOUT, [], None, at(0, 98)) is None
    gm_closed = await store.close_duel_step(andrey.id, DuelCloser.GM, [], GM, at(0, 98))
    assert gm_closed is not None
    assert gm_closed.closed_actor == GM
    assert not await store.open_duel_step(andrey.id, None, at(0, 99))
    assert await store.campaigns_with_duel_steps() == []
    log = await store.audit_log(campaign_id)
    assert [entry.action for entry in log].count(AuditAction.DUEL_STEP_CLOSED) == 1
    outbox = await store.claim_due(at(0, 99), 10, 60)
    assert [message.dedup_key for message in outbox if message.kind == "duel_step"] == ["o"]


async def test_a_pending_step_gets_its_moment_once_and_a_reminder_once(store: Store) -> None:
    campaign_id = await _listed(store)
    _larisa, andrey = await store.add_duel_steps(campaign_id, 1, DuelMode.SEALED, _steps())
    assert await store.schedule_duel_step(andrey.id, at(0, 100))
    assert not await store.schedule_duel_step(andrey.id, at(0, 101))
    assert not await store.remind_duel_step(andrey.id, at(0, 100))  # not open
    assert await store.open_duel_step(andrey.id, at(0, 106), at(0, 100))
    assert await store.remind_duel_step(andrey.id, at(0, 105), [_post(campaign_id, "r")])
    assert not await store.remind_duel_step(andrey.id, at(0, 105))
    reminded = await store.duel_step(andrey.id)
    assert reminded is not None
    assert (reminded.opens_at, reminded.reminded_at, reminded.mode) == (
        at(0, 100),
        at(0, 105),
        DuelMode.SEALED,
    )


async def test_the_steps_of_an_undone_list_are_no_longer_current(store: Store) -> None:
    campaign_id = await _listed(store)
    larisa, _andrey = await store.add_duel_steps(campaign_id, 1, DuelMode.INITIATIVE, _steps())
    undone = await store.undo_last_step(campaign_id, 1, Phase.BATTLES, GM, "list undone", at(0, 97))
    assert undone.applied
    campaign = await store.campaign(campaign_id)
    assert campaign is not None
    assert campaign.phase is Phase.ORDERS
    assert await store.duel_steps(campaign_id, 1) == []
    assert await store.campaigns_with_duel_steps() == []
    assert not await store.open_duel_step(larisa.id, at(0, 100), at(0, 98))
    assert await store.close_duel_step(larisa.id, DuelCloser.GM, [], GM, at(0, 98)) is None
    stale = await store.duel_step(larisa.id)
    assert stale is not None
    assert stale.state is DuelStepState.PENDING
