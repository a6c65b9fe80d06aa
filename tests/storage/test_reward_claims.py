"""Siege reward claims in storage (MODULES.md S8): a claim only once the campaign has finished,
once per side, audited with its posts; the GM's choices one per place, final, and the group's
announcement queued only when the last choice is made; migration 8 on a version-7 file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from storage import (
    AuditAction,
    CampaignStatus,
    NewOutboxMessage,
    SqliteCampaignStore,
    Store,
    WriteOutcome,
    migrate,
)
from storage.db import connect
from tests.storage.siege_script import GM, RED, at, deploy, siege_campaign


def _post(campaign_id: int, key: str) -> NewOutboxMessage:
    return NewOutboxMessage(
        campaign_id=campaign_id,
        chat_id=-1001,
        kind="rewards_claimed",
        payload={"campaign_id": campaign_id, "side": "red"},
        dedup_key=f"campaign:{campaign_id}:{key}",
    )


async def _kinds(store: Store, campaign_id: int) -> list[str]:
    return [message.dedup_key for message in await store.outbox_messages(campaign_id)]


async def test_a_side_claims_once_and_only_when_the_campaign_is_over(store: Store) -> None:
    campaign = await siege_campaign(store)
    await deploy(store, campaign.id)
    items = ["simple_cheque", "knight", "rook"]
    early = await store.claim_rewards(campaign.id, "red", items, 14, 14, RED, at(1))
    assert early is WriteOutcome.PHASE_CLOSED
    ended = await store.set_status(
        campaign.id, CampaignStatus.RUNNING, CampaignStatus.FINISHED, GM, "ended", at(1)
    )
    assert ended.applied, ended.message
    missing = await store.claim_rewards(campaign.id, "green", items, 14, 14, RED, at(1))
    assert missing is WriteOutcome.UNKNOWN_SIDE
    claimed = await store.claim_rewards(
        campaign.id, "red", items, 14, 14, RED, at(1), [_post(campaign.id, "claimed")]
    )
    assert claimed is WriteOutcome.SAVED
    again = await store.claim_rewards(
        campaign.id, "red", ["club"], 1, 14, RED, at(1), [_post(campaign.id, "again")]
    )
    assert again is WriteOutcome.CONFLICT
    claims = await store.reward_claims(campaign.id)
    assert list(claims) == ["red"]
    claim = claims["red"]
    assert (claim.items, claim.total, claim.vp, claim.claimed_by) == (tuple(items), 14, 14, RED)
    assert claim.choices == {}
    assert f"campaign:{campaign.id}:claimed" in await _kinds(store, campaign.id)
    assert f"campaign:{campaign.id}:again" not in await _kinds(store, campaign.id)
    audited = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.REWARDS_CLAIMED
    ]
    assert [e.after for e in audited] == [{"side": "red", "items": items, "total": 14, "vp": 14}]


async def test_the_gms_choices_are_final_and_the_last_one_announces(store: Store) -> None:
    campaign = await siege_campaign(store)
    await deploy(store, campaign.id)
    await store.set_status(
        campaign.id, CampaignStatus.RUNNING, CampaignStatus.FINISHED, GM, "ended", at(1)
    )
    nothing = await store.choose_reward(campaign.id, "red", 0, 1, (0, 1), GM, at(1))
    assert nothing is WriteOutcome.NOT_FOUND
    items = ["simple_cheque", "knight", "rook"]
    await store.claim_rewards(campaign.id, "red", items, 14, 14, RED, at(1))
    announced = f"campaign:{campaign.id}:announced"
    outside = await store.choose_reward(campaign.id, "red", 3, 0, (0, 1), GM, at(1))
    assert outside is WriteOutcome.NOT_FOUND
    first = await store.choose_reward(
        campaign.id, "red", 0, 1, (0, 1), GM, at(1), [_post(campaign.id, "announced")]
    )
    assert first is WriteOutcome.SAVED
    assert announced not in await _kinds(store, campaign.id)
    twice = await store.choose_reward(
        campaign.id, "red", 0, 2, (0, 1), GM, at(1), [_post(campaign.id, "announced")]
    )
    assert twice is WriteOutcome.CONFLICT
    last = await store.choose_reward(
        campaign.id, "red", 1, 0, (0, 1), GM, at(1), [_post(campaign.id, "announced")]
    )
    assert last is WriteOutcome.SAVED
    assert (await _kinds(store, campaign.id)).count(announced) == 1
    assert (await store.reward_claims(campaign.id))["red"].choices == {0: 1, 1: 0}
    chosen = [
        e.after for e in await store.audit_log(campaign.id) if e.action is AuditAction.REWARD_CHOSEN
    ]
    assert chosen == [
        {"side": "red", "place": 0, "item": "simple_cheque", "variant": 1},
        {"side": "red", "place": 1, "item": "knight", "variant": 0},
    ]


async def test_version_11_keeps_claims_with_no_choices_made(tmp_path: Path) -> None:
    path = tmp_path / "v10.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=10) == 10
        await conn.execute(
            "INSERT INTO campaigns (id, chat_id, title, time_zone, schedule_json, map_name,"
            " unreported_policy, status, phase, turn, created_by, created_at, updated_at)"
            " VALUES (1, -1, 'Old', 'UTC', '{}', 'planet-5', 'draw', 'finished', 'finished', 3,"
            " 100, '2026-03-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')"
        )
        await conn.execute(
            "INSERT INTO sides (campaign_id, id, name, colour, position) VALUES (1, 'red', 'Red',"
            " '#cc0000', 0)"
        )
        await conn.execute(
            "INSERT INTO reward_claims (campaign_id, side_id, items_json, total, vp, claimed_by,"
            " claimed_at) VALUES (1, 'red', '[\"rook\",\"knight\"]', 12, 13, 201,"
            " '2026-03-02T00:00:00.000000+00:00')"
        )
        await conn.commit()
    finally:
        await conn.close()
    store = await SqliteCampaignStore.open(path)
    try:
        claim = (await store.reward_claims(1))["red"]
        assert (claim.items, claim.total, claim.vp, claim.choices) == (
            ("rook", "knight"),
            12,
            13,
            {},
        )
        chosen = await store.choose_reward(1, "red", 1, 0, (1,), 100, claim.claimed_at)
        assert chosen is WriteOutcome.SAVED
    finally:
        await store.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT choices_json FROM reward_claims").fetchall() == [('{"1":0}',)]
