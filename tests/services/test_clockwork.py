"""The phase machine: each step once, blocks that say why, racing callers, notices queued."""

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.services.clockwork import AdvanceOutcome, BlockReason, advance
from rules import Attack, SideOrders
from storage import (
    CampaignStatus,
    NewCampaign,
    NewSide,
    Phase,
    SqliteCampaignStore,
    Store,
    UnreportedPolicy,
    WriteOutcome,
)
from tests.storage.campaign_script import (
    GM,
    PLACEMENTS,
    PLAYERS,
    at,
    new_campaign,
    strategist,
)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A store on a fresh file."""
    opened = await SqliteCampaignStore.open(tmp_path / "clockwork.sqlite3")
    yield opened
    await opened.close()


async def _players_open_private_chats(store: Store) -> None:
    for user, _, _ in PLAYERS:
        await store.see_person(user, f"Player {user}", None, "en", True, at(0))


async def _place_all(store: Store, campaign_id: int) -> None:
    for side, placement in PLACEMENTS.items():
        saved = await store.save_placement(
            campaign_id, side, placement, True, strategist(side), at(0, 3)
        )
        assert saved.outcome is WriteOutcome.SAVED


async def _kinds(store: Store, campaign_id: int) -> list[tuple[str, int]]:
    return [(m.kind, m.chat_id) for m in await store.outbox_messages(campaign_id)]


async def test_setup_needs_two_sides(store: Store) -> None:
    campaign = await store.create_campaign(
        NewCampaign(chat_id=-5, title="Lonely", created_by=GM, creator_name="GM"), at(0)
    )
    await store.add_side(campaign.id, NewSide(id="red", name="Red", colour="#cc0000"), GM, at(0))
    blocked = await advance(store, campaign.id, 0, Phase.SETUP, GM, at(0, 1))
    assert (blocked.outcome, blocked.reason) == (AdvanceOutcome.BLOCKED, BlockReason.TOO_FEW_SIDES)
    after = await store.campaign(campaign.id)
    assert after is not None
    assert after.phase is Phase.SETUP


async def test_a_campaign_walks_its_phases_once_each_with_notices(store: Store) -> None:
    await _players_open_private_chats(store)
    campaign = await new_campaign(store)
    opened = await advance(store, campaign.id, 0, Phase.SETUP, GM, at(0, 1))
    assert opened.outcome is AdvanceOutcome.ADVANCED
    assert opened.campaign is not None
    assert (opened.campaign.phase, opened.campaign.status) == (
        Phase.DEPLOYMENT,
        CampaignStatus.DEPLOYMENT,
    )
    again = await advance(store, campaign.id, 0, Phase.SETUP, GM, at(0, 1))
    assert again.outcome is AdvanceOutcome.ALREADY_DONE
    strategists = {user for user, _, roles in PLAYERS if "strategist" in roles}
    kinds = await _kinds(store, campaign.id)
    assert ("phase_notice", campaign.chat_id) in kinds
    assert {chat for kind, chat in kinds if kind == "private_phase_notice"} == strategists

    blocked = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, at(0, 2))
    assert (blocked.outcome, blocked.reason) == (
        AdvanceOutcome.BLOCKED,
        BlockReason.SIDES_NOT_DEPLOYED,
    )
    assert set(blocked.sides) == set(PLACEMENTS)
    await _place_all(store, campaign.id)
    started = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, at(0, 4))
    assert started.outcome is AdvanceOutcome.ADVANCED
    assert started.campaign is not None
    assert (started.campaign.turn, started.campaign.phase) == (1, Phase.ORDERS)
    notices = [k for k in await _kinds(store, campaign.id) if k[0] == "private_phase_notice"]
    assert len(notices) == 2 * len(strategists)

    listed = await advance(store, campaign.id, 1, Phase.ORDERS, None, at(0, 80))
    assert listed.outcome is AdvanceOutcome.ADVANCED
    resolved = await advance(store, campaign.id, 1, Phase.BATTLES, None, at(1))
    assert resolved.outcome is AdvanceOutcome.ADVANCED
    assert resolved.campaign is not None
    assert (resolved.campaign.turn, resolved.campaign.phase) == (2, Phase.ORDERS)
    notices = [k for k in await _kinds(store, campaign.id) if k[0] == "private_phase_notice"]
    assert len(notices) == 3 * len(strategists)
    late = await advance(store, campaign.id, 1, Phase.BATTLES, None, at(1, 1))
    assert late.outcome is AdvanceOutcome.ALREADY_DONE
    boards = [k for k in await _kinds(store, campaign.id) if k[0] == "status_board"]
    # One refresh per step (deployment, turn 1, battle list, results due, resolution) and one
    # after the list is posted (queued with it, held like it).
    assert boards == [("status_board", campaign.chat_id)] * 6


async def test_racing_advances_move_the_campaign_once(store: Store) -> None:
    campaign = await new_campaign(store)
    results = await asyncio.gather(
        *(advance(store, campaign.id, 0, Phase.SETUP, GM, at(0, 1)) for _ in range(5))
    )
    assert sorted(r.outcome for r in results) == sorted(
        [AdvanceOutcome.ADVANCED] + [AdvanceOutcome.ALREADY_DONE] * 4
    )
    history = await store.phase_history(campaign.id)
    assert [entry.phase for entry in history] == [Phase.SETUP, Phase.DEPLOYMENT]


async def test_wait_for_gm_policy_blocks_until_forced(store: Store) -> None:
    campaign = await new_campaign(store, policy=UnreportedPolicy.WAIT_FOR_GM)
    await advance(store, campaign.id, 0, Phase.SETUP, GM, at(0, 1))
    await _place_all(store, campaign.id)
    await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, at(0, 4))
    await store.save_orders(
        campaign.id,
        1,
        "red",
        SideOrders(attacks=(Attack(sector="1", target="blue"),)),
        True,
        strategist("red"),
        at(0, 30),
    )
    await advance(store, campaign.id, 1, Phase.ORDERS, None, at(0, 80))
    waiting = await advance(store, campaign.id, 1, Phase.BATTLES, None, at(1))
    assert (waiting.outcome, waiting.reason, waiting.battles) == (
        AdvanceOutcome.BLOCKED,
        BlockReason.RESULTS_MISSING,
        (1,),
    )
    forced = await advance(store, campaign.id, 1, Phase.RESOLUTION, GM, at(1, 1), force=True)
    assert forced.outcome is AdvanceOutcome.ADVANCED


async def test_a_paused_campaign_does_not_move(store: Store) -> None:
    campaign = await new_campaign(store)
    await advance(store, campaign.id, 0, Phase.SETUP, GM, at(0, 1))
    paused = await store.set_status(
        campaign.id, CampaignStatus.DEPLOYMENT, CampaignStatus.PAUSED, GM, "holiday", at(0, 2)
    )
    assert paused.applied
    await _place_all(store, campaign.id)
    result = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, at(0, 4))
    assert result.outcome is AdvanceOutcome.CONFLICT
