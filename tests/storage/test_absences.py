"""Storage of no-shows: the no-show policy setting, vacations and reopened orders (issue 23)."""

import sqlite3
from datetime import date
from pathlib import Path

import pytest

from storage import (
    AuditAction,
    CampaignSettings,
    Database,
    NoShowPolicy,
    OrdersReopening,
    Phase,
    Store,
    migrate,
)
from storage.db import connect
from tests.storage.campaign_script import GM, at, deploy, new_campaign, strategist


async def test_the_no_show_policy_is_a_setting_that_holds_by_default(store: Store) -> None:
    campaign = await new_campaign(store)
    assert campaign.no_show_policy is NoShowPolicy.HOLD
    changed = await store.update_settings(
        campaign.id, CampaignSettings(no_show_policy=NoShowPolicy.REPEAT), GM, at(0, 1)
    )
    assert changed.no_show_policy is NoShowPolicy.REPEAT
    assert (await store.campaign(campaign.id)) == changed
    log = await store.audit_log(campaign.id)
    assert log[-1].action is AuditAction.SETTINGS_CHANGED
    after = log[-1].after
    assert isinstance(after, dict)
    assert after["no_show_policy"] == "repeat"


async def test_a_vacation_is_kept_until_its_owner_cancels_it(store: Store) -> None:
    campaign = await new_campaign(store)
    player = strategist("red")
    vacation = await store.add_vacation(
        campaign.id, player, date(2026, 3, 10), date(2026, 3, 20), at(0, 1)
    )
    assert vacation.covers(date(2026, 3, 10))
    assert vacation.covers(date(2026, 3, 20))
    assert not vacation.covers(date(2026, 3, 21))
    assert await store.vacations(campaign.id) == [vacation]
    assert not await store.cancel_vacation(vacation.id, GM, at(0, 2))  # not the GM's own
    assert await store.cancel_vacation(vacation.id, player, at(0, 2))
    assert not await store.cancel_vacation(vacation.id, player, at(0, 3))  # once
    assert await store.vacations(campaign.id) == []
    with pytest.raises(ValueError, match="ends on or after"):
        await store.add_vacation(
            campaign.id, player, date(2026, 3, 20), date(2026, 3, 10), at(0, 1)
        )


async def test_a_reopening_moves_its_entrys_deadline_once_and_is_audited(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    entry = (await store.phase_history(campaign.id))[-1]
    await store.set_clock(
        campaign.id, entry.seq, 1, Phase.ORDERS, at(0, 12), at(0, 84), "basis", at(0, 12)
    )
    reopening = OrdersReopening(
        campaign_id=campaign.id,
        entry_seq=entry.seq,
        turn=1,
        side_id="red",
        hours=3,
        deadline=at(0, 90),
        list_at=at(0, 96),
        reopened_by=GM,
        reopened_at=at(0, 87),
    )
    assert await store.reopen_orders(reopening, at(0, 87))
    assert not await store.reopen_orders(reopening.model_copy(update={"hours": 6}), at(0, 88))
    assert await store.orders_reopening(campaign.id, entry.seq) == reopening
    assert await store.orders_reopening(campaign.id, entry.seq + 1) is None
    clock = await store.clock_state(campaign.id)
    assert clock is not None
    assert clock.deadline == at(0, 90)
    audit = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.ORDERS_REOPENED
    ]
    assert len(audit) == 1
    assert audit[0].actor == GM
    assert audit[0].after == reopening.model_dump(mode="json")


async def test_version_8_gives_older_campaigns_the_hold_policy(tmp_path: Path) -> None:
    path = tmp_path / "v7.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=7) == 7
        await conn.execute(
            "INSERT INTO campaigns (id, chat_id, title, time_zone, schedule_json, map_name,"
            " unreported_policy, status, phase, turn, created_by, created_at, updated_at)"
            " VALUES (1, -1, 'Old', 'UTC', '{}', 'planet-5', 'draw', 'running', 'orders', 2,"
            " 100, '2026-03-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')"
        )
        await conn.commit()
    finally:
        await conn.close()
    db = await Database.open(path)
    await db.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT no_show_policy FROM campaigns").fetchall() == [("hold",)]
        assert raw.execute("SELECT COUNT(*) FROM vacations").fetchone() == (0,)
        assert raw.execute("SELECT COUNT(*) FROM orders_reopenings").fetchone() == (0,)
