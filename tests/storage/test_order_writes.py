"""Player writes: orders and placements as a compare-and-set on the edit count, and the posts
that announce a write queued in its own transaction (they exist if and only if it committed)."""

import contextlib
import sqlite3
from pathlib import Path

import pytest

from bot.services.turns import publish_battle_list
from rules import BattleResult, Outcome, SideOrders
from storage import CampaignStatus, NewOutboxMessage, Phase, Role, Store, WriteOutcome
from storage.dialect import INTEGRITY_ERRORS
from storage.models import BOT_ACTOR
from tests.storage.campaign_script import (
    GM,
    PLACEMENTS,
    at,
    deploy,
    new_campaign,
    strategist,
    tactician,
)


def notice(campaign_id: int, key: str, chat_id: int = 202) -> NewOutboxMessage:
    """A private post to queue with a write."""
    return NewOutboxMessage(
        campaign_id=campaign_id,
        chat_id=chat_id,
        kind="orders_changed",
        payload={"campaign_id": campaign_id},
        dedup_key=key,
    )


async def test_save_orders_with_a_stale_edit_count_writes_nothing(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    red = strategist("red")
    first = await store.save_orders(
        campaign.id, 1, "red", SideOrders(reinforce="1"), False, red, at(0, 20), expected_edits=0
    )
    assert first.outcome is WriteOutcome.SAVED
    assert first.orders is not None
    assert first.orders.edits == 1
    # A second strategist read the set before the first save: their write is refused.
    late = await store.save_orders(
        campaign.id,
        1,
        "red",
        SideOrders(reinforce="2"),
        False,
        red,
        at(0, 21),
        expected_edits=0,
        outbox=(notice(campaign.id, "late"),),
    )
    assert late.outcome is WriteOutcome.CONFLICT
    assert late.orders is not None
    assert late.orders.orders == SideOrders(reinforce="1")
    stored = await store.orders(campaign.id, 1, "red")
    assert stored is not None
    assert (stored.orders, stored.edits) == (SideOrders(reinforce="1"), 1)
    assert len(await store.order_edits(campaign.id, 1, "red")) == 1
    assert [m.dedup_key for m in await store.outbox_messages(campaign.id)].count("late") == 0
    # With the count it read again, the write goes through; without one, last write wins.
    again = await store.save_orders(
        campaign.id, 1, "red", SideOrders(reinforce="2"), False, red, at(0, 22), expected_edits=1
    )
    assert again.outcome is WriteOutcome.SAVED
    blind = await store.save_orders(
        campaign.id, 1, "red", SideOrders(reinforce="4"), False, red, at(0, 23)
    )
    assert blind.outcome is WriteOutcome.SAVED
    assert blind.orders is not None
    assert blind.orders.edits == 3


async def test_save_placement_with_a_stale_edit_count_writes_nothing(store: Store) -> None:
    campaign = await new_campaign(store)
    await store.transition(campaign.id, 0, Phase.SETUP, 0, Phase.DEPLOYMENT, None, "", at(0, 1))
    red = strategist("red")
    draft = {"1": 1}
    first = await store.save_placement(
        campaign.id, "red", draft, False, red, at(0, 2), expected_edits=0
    )
    assert first.outcome is WriteOutcome.SAVED
    stale = await store.save_placement(
        campaign.id, "red", {"2": 1}, False, red, at(0, 3), expected_edits=0
    )
    assert stale.outcome is WriteOutcome.CONFLICT
    stored = (await store.placements(campaign.id))["red"]
    assert (stored.placement, stored.edits) == (draft, 1)
    fresh = await store.save_placement(
        campaign.id, "red", PLACEMENTS["red"], True, red, at(0, 4), expected_edits=1
    )
    assert fresh.outcome is WriteOutcome.SAVED


async def test_orders_notices_are_queued_with_the_save_and_only_with_it(
    store: Store,
) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    red = strategist("red")
    saved = await store.save_orders(
        campaign.id,
        1,
        "red",
        SideOrders(reinforce="1"),
        False,
        red,
        at(0, 20),
        outbox=(notice(campaign.id, "told"),),
    )
    assert saved.outcome is WriteOutcome.SAVED
    keys = [m.dedup_key for m in await store.outbox_messages(campaign.id)]
    assert "told" in keys
    # A post that cannot be queued takes the save down with it.
    broken = notice(campaign.id + 999, "broken")
    with pytest.raises(INTEGRITY_ERRORS):
        await store.save_orders(
            campaign.id,
            1,
            "red",
            SideOrders(reinforce="2"),
            False,
            red,
            at(0, 21),
            outbox=(broken,),
        )
    stored = await store.orders(campaign.id, 1, "red")
    assert stored is not None
    assert stored.orders == SideOrders(reinforce="1")


async def test_result_notice_exists_if_and_only_if_the_report_committed(
    store: Store,
) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    # Before the list is out, a report is refused, and so is its notice.
    early = BattleResult(battle=1, outcome=Outcome.DRAW)
    refused = await store.report_result(
        campaign.id, 1, early, 201, at(0, 30), outbox=(notice(campaign.id, "early"),)
    )
    assert refused.outcome is WriteOutcome.PHASE_CLOSED
    assert "early" not in [m.dedup_key for m in await store.outbox_messages(campaign.id)]

    await store.save_orders(
        campaign.id,
        1,
        "red",
        SideOrders.model_validate({"attacks": [{"sector": "1", "target": "blue"}]}),
        True,
        201,
        at(0, 31),
    )
    await publish_battle_list(store, campaign.id, 1, None, at(0, 96))
    listed = await store.battle_list(campaign.id, 1)
    assert listed is not None
    assert listed.battles
    battle = listed.battles[0]
    result = BattleResult(battle=battle.id, outcome=Outcome.DRAW)
    written = await store.report_result(
        campaign.id, 1, result, 201, at(0, 97), outbox=(notice(campaign.id, "reported"),)
    )
    assert written.outcome is WriteOutcome.SAVED
    assert "reported" in [m.dedup_key for m in await store.outbox_messages(campaign.id)]

    # A notice that cannot be queued takes the report down with it.
    bloody = BattleResult(battle=battle.id, outcome=Outcome.BLOODY_DRAW)
    with pytest.raises(INTEGRITY_ERRORS):
        await store.report_result(
            campaign.id, 1, bloody, 201, at(0, 98), outbox=(notice(campaign.id + 999, "lost"),)
        )
    reports = {r.battle: r for r in await store.battle_reports(campaign.id, 1)}
    assert reports[battle.id].reported == result


async def test_the_same_set_saved_again_is_no_new_edit(store: Store) -> None:
    """An update that came twice (or a second press of Ready) records one edit and one post."""
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    red = strategist("red")
    orders = SideOrders(reinforce="1")
    for minute, key in ((20, "first"), (21, "twice")):
        saved = await store.save_orders(
            campaign.id,
            1,
            "red",
            orders,
            False,
            red,
            at(0, minute),
            outbox=(notice(campaign.id, key),),
        )
        assert saved.outcome is WriteOutcome.SAVED
        assert saved.orders is not None
        assert saved.orders.edits == 1
    assert len(await store.order_edits(campaign.id, 1, "red")) == 1
    keys = [m.dedup_key for m in await store.outbox_messages(campaign.id)]
    assert ("first" in keys, "twice" in keys) == (True, False)
    # Ready is a change: a new edit.
    ready = await store.save_orders(campaign.id, 1, "red", orders, True, red, at(0, 22))
    assert ready.orders is not None
    assert (ready.orders.edits, ready.orders.ready) == (2, True)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_confirmed_result_confirmed_again_records_nothing(
    store: Store, db_path: Path
) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    attack = SideOrders.model_validate({"attacks": [{"sector": "1", "target": "blue"}]})
    await store.save_orders(campaign.id, 1, "red", attack, True, 201, at(0, 31))
    await publish_battle_list(store, campaign.id, 1, None, at(0, 96))
    listed = await store.battle_list(campaign.id, 1)
    assert listed is not None
    result = BattleResult(battle=listed.battles[0].id, outcome=Outcome.DRAW)
    await store.report_result(campaign.id, 1, result, 201, at(0, 97))
    for minute, key in ((98, "confirmed"), (99, "again")):
        confirmed = await store.confirm_result(
            campaign.id, 1, result, 301, at(0, minute), outbox=(notice(campaign.id, key),)
        )
        assert confirmed.outcome is WriteOutcome.SAVED
        assert confirmed.report is not None
        assert confirmed.report.confirmed_at == at(0, 98)
    keys = [m.dedup_key for m in await store.outbox_messages(campaign.id)]
    assert ("confirmed" in keys, "again" in keys) == (True, False)
    with contextlib.closing(sqlite3.connect(db_path)) as conn:
        kinds = [kind for (kind,) in conn.execute("SELECT kind FROM battle_report_events")]
    assert kinds.count("confirm") == 1


async def test_a_save_after_the_gm_ended_the_campaign_is_refused(store: Store) -> None:
    """The player pressed while the campaign ran; the GM ended it before the save: the save is
    judged on the campaign as it is then (the status alone changed, not the turn or phase)."""
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    red = strategist("red")
    ended = await store.set_status(
        campaign.id, CampaignStatus.RUNNING, CampaignStatus.FINISHED, GM, "ended", at(0, 19)
    )
    assert ended.applied
    for write in (
        store.save_orders(campaign.id, 1, "red", SideOrders(reinforce="1"), True, red, at(0, 20)),
        store.save_late_orders(campaign.id, 1, "red", (), red, at(0, 20)),
    ):
        assert (await write).outcome is WriteOutcome.CAMPAIGN_OVER
    assert await store.orders(campaign.id, 1, "red") is None
    assert await store.order_edits(campaign.id, 1, "red") == []


async def test_a_save_by_someone_no_longer_giving_the_sides_orders_is_refused(
    store: Store,
) -> None:
    """Between the press and the save the GM vacated the strategist's seat, or moved them to
    another side: nothing is written. A GM writes any side's orders, the bot a no-show's."""
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    red, blue = strategist("red"), strategist("blue")
    orders = SideOrders(reinforce="1")
    assert await store.vacate_seat(campaign.id, red, "left", GM, at(0, 19)) is not None
    vacated = await store.save_orders(campaign.id, 1, "red", orders, False, red, at(0, 20))
    assert vacated.outcome is WriteOutcome.NOT_ALLOWED
    await store.put_member(
        campaign.id, blue, "Moved", frozenset({Role.STRATEGIST}), "red", GM, at(0, 20)
    )
    moved = await store.save_orders(campaign.id, 1, "blue", orders, False, blue, at(0, 21))
    assert moved.outcome is WriteOutcome.NOT_ALLOWED
    not_a_strategist = await store.save_orders(
        campaign.id, 1, "red", orders, False, tactician("red"), at(0, 21)
    )
    assert not_a_strategist.outcome is WriteOutcome.NOT_ALLOWED
    assert await store.orders(campaign.id, 1, "blue") is None
    assert await store.orders(campaign.id, 1, "red") is None
    assert (
        await store.save_orders(campaign.id, 1, "red", orders, False, blue, at(0, 22))
    ).outcome is WriteOutcome.SAVED
    for writer in (GM, BOT_ACTOR):
        written = await store.save_orders(
            campaign.id, 1, "blue", SideOrders(reinforce=str(writer)), True, writer, at(0, 23)
        )
        assert written.outcome is WriteOutcome.SAVED
