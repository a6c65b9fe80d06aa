"""Siege and auditable dice in storage (MODULES.md G4, A2.14): migration 7 on a version-6 file,
seeds made and committed as the orders open, the roll seed revealed on Monday, undo replaying
the same rolls, and an export that ``python -m rules verify-rolls`` verifies."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.modules.siege.gm import AdjustOutcome, adjust_turn_start
from bot.services.turns import (
    ChoiceOutcome,
    ResolveOutcome,
    correct_result,
    game_for,
    make_choice,
    publish_battle_list,
    resolve_and_store,
    undo_last_step,
)
from rules import Attack, BattleResult, Outcome, SideOrders, commitment, legal_orders
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import Adjustment, VpChange, load
from rules.verify import verify_export
from storage import CorrectionOutcome, Phase, SqliteCampaignStore, Store, WriteOutcome, migrate
from storage.db import connect
from storage.dialect import INTEGRITY_ERRORS
from tests.storage.siege_script import (
    BLUE,
    BLUE_TACTICIAN,
    GM,
    RED,
    RED_TACTICIAN,
    at,
    deploy,
    play_turn_one,
    siege_campaign,
)

ROOT = Path(__file__).parents[2]


async def test_version_7_keeps_order_sets_with_their_ids_and_edits(tmp_path: Path) -> None:
    """order_sets is rebuilt for kind 'late': rows, ids and the edits pointing at them stay,
    and the store reads the old campaign's orders."""
    path = tmp_path / "v6.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=6) == 6
        await conn.execute(
            "INSERT INTO campaigns (id, chat_id, title, time_zone, schedule_json, map_name,"
            " unreported_policy, status, phase, turn, created_by, created_at, updated_at)"
            " VALUES (1, -1, 'Old', 'UTC', '{}', 'planet-5', 'draw', 'running', 'orders', 1,"
            " 100, '2026-03-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')"
        )
        for position, side in enumerate(("red", "blue")):
            await conn.execute(
                "INSERT INTO sides (campaign_id, id, name, colour, position) VALUES (1, ?, ?,"
                " '#cc0000', ?)",
                (side, side.title(), position),
            )
        body = '{"reinforce": "1"}'
        await conn.execute(
            "INSERT INTO order_sets (id, campaign_id, turn, side_id, kind, body_json, ready,"
            " updated_by, updated_at, edits) VALUES (41, 1, 1, 'red', 'orders', ?, 1, 201,"
            " '2026-03-02T00:00:00.000000+00:00', 1)",
            (body,),
        )
        await conn.execute(
            "INSERT INTO order_edits (order_set_id, seq, body_json, ready, edited_by, edited_at)"
            " VALUES (41, 1, ?, 1, 201, '2026-03-02T00:00:00.000000+00:00')",
            (body,),
        )
        await conn.commit()
    finally:
        await conn.close()
    store = await SqliteCampaignStore.open(path)
    try:
        orders = await store.orders(1, 1, "red")
        assert orders is not None
        assert orders.orders == SideOrders(reinforce="1")
        edits = await store.order_edits(1, 1, "red")
        assert [(edit.seq, edit.orders) for edit in edits] == [(1, SideOrders(reinforce="1"))]
        assert await store.turn_seeds(1, 1) is None
        assert await store.table_rolls(1) == []
    finally:
        await store.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT id FROM order_sets").fetchall() == [(41,)]
        assert raw.execute("PRAGMA foreign_key_check").fetchall() == []
        # A late set may now sit beside the orders of the same turn and side.
        raw.execute(
            "INSERT INTO order_sets (campaign_id, turn, side_id, kind, body_json, ready,"
            " updated_by, updated_at, edits) VALUES (1, 1, 'red', 'late', '[]', 1, 201,"
            " '2026-03-03T00:00:00.000000+00:00', 1)"
        )
        with pytest.raises(INTEGRITY_ERRORS):
            raw.execute(
                "INSERT INTO order_sets (campaign_id, turn, side_id, kind, body_json, ready,"
                " updated_by, updated_at, edits) VALUES (1, 1, 'red', 'late', '[]', 1, 201,"
                " '2026-03-03T00:00:00.000000+00:00', 1)"
            )


async def test_seeds_are_committed_in_the_transition_that_opens_the_orders(store: Store) -> None:
    campaign = await siege_campaign(store)
    await deploy(store, campaign.id, weather=None)
    seeds = await store.turn_seeds(campaign.id, 1)
    assert seeds is not None
    assert len(seeds.roll) == len(seeds.deal) == 32
    assert seeds.roll != seeds.deal
    assert seeds.roll_revealed_at is None
    kinds = [m.kind for m in await store.outbox_messages(campaign.id)]
    assert "seeds_committed" in kinds
    # Queued with the orders' opening, before any order could be saved.
    assert kinds.index("seeds_committed") < kinds.index("status_board")
    assert await store.orders(campaign.id, 1, "red") is None
    # The choice of weather begins the turn from the same seeds, and only once.
    assert (
        await make_choice(store, campaign.id, "siege", {"weather": 3}, RED, at(0, 13))
        is ChoiceOutcome.NOT_YOURS
    )
    assert (
        await make_choice(store, campaign.id, "siege", {"weather": 9}, BLUE, at(0, 13))
        is ChoiceOutcome.BAD_CHOICE
    )
    assert (
        await make_choice(store, campaign.id, "siege", {"weather": 3}, BLUE, at(0, 13))
        is ChoiceOutcome.MADE
    )
    assert (
        await make_choice(store, campaign.id, "siege", {"weather": 5}, GM, at(0, 14))
        is ChoiceOutcome.NOT_ASKED
    )
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    assert load(state.modules.get(SIEGE)).weather == 3
    assert await store.turn_seeds(campaign.id, 1) == seeds
    audit = [entry.action for entry in await store.audit_log(campaign.id)]
    assert "deployment_choice" in audit


async def test_monday_reveals_the_roll_seed_and_undo_replays_the_same_rolls(
    store: Store,
) -> None:
    campaign = await siege_campaign(store)
    await deploy(store, campaign.id)
    await play_turn_one(store, campaign.id)
    resolved = await resolve_and_store(store, campaign.id, 1, None, at(1))
    assert resolved.outcome is ResolveOutcome.RESOLVED
    seeds = await store.turn_seeds(campaign.id, 1)
    assert seeds is not None
    assert seeds.roll_revealed_at is not None
    first = (await store.resolutions(campaign.id, 1))[-1].report
    assert [roll.label for roll in first.rolls] == ["t1/siege/assault/F1/red"]
    assert (await store.turn_seeds(campaign.id, 2)) is not None  # turn 2's, committed already

    undone = await undo_last_step(store, campaign.id, 2, Phase.ORDERS, GM, "oops", at(1, 1))
    assert undone.applied, undone.message
    again = await resolve_and_store(store, campaign.id, 1, None, at(1, 2))
    assert again.outcome is ResolveOutcome.RESOLVED
    second = (await store.resolutions(campaign.id, 1))[-1].report
    assert second.rolls == first.rolls
    assert second.modules == first.modules
    assert await store.turn_seeds(campaign.id, 1) == seeds


async def test_an_exported_siege_campaign_verifies(store: Store, tmp_path: Path) -> None:
    campaign = await siege_campaign(store)
    await deploy(store, campaign.id)
    await play_turn_one(store, campaign.id)
    assert (await resolve_and_store(store, campaign.id, 1, None, at(1))).outcome is (
        ResolveOutcome.RESOLVED
    )
    exported = await store.export_campaign(campaign.id)
    turns = {entry["turn"]: entry for entry in exported["turns"]}
    seeds_1 = await store.turn_seeds(campaign.id, 1)
    assert seeds_1 is not None
    assert turns[1]["seeds"] == {"roll": seeds_1.roll, "deal": None}  # deal: at the end
    assert turns[1]["commitments"] == {
        "roll": commitment(seeds_1.roll),
        "deal": commitment(seeds_1.deal),
    }
    assert [(roll["label"], roll["sides"]) for roll in turns[1]["rolls"]] == [
        ("t1/siege/assault/F1/red", 6)
    ]
    text = json.dumps(exported)
    answer = verify_export(text)
    assert answer["failed"] == [], answer
    assert answer["verified"] >= 1
    # The command line gives the same answer, exit status 0.
    done = subprocess.run(
        [sys.executable, "-m", "rules", "verify-rolls"],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # A tampered roll fails.
    turns[1]["rolls"][0]["value"] = turns[1]["rolls"][0]["value"] % 6 + 1
    assert verify_export(json.dumps(exported))["failed"]


async def test_a_correction_replays_the_rolls_and_keeps_the_gms_adjustment(store: Store) -> None:
    """The GM corrects turn 1 after adjusting turn 2's start: the turn is resolved again from
    the same seeds (the same assault roll) and the adjustment is applied to the new start."""
    campaign = await siege_campaign(store)
    await deploy(store, campaign.id)
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    game = game_for(campaign)
    assault = next(
        o
        for o in legal_orders(game, state, "red").modules["siege"]
        if o.data == {"order": "assault", "sector": "2", "token": "F1", "reward": "vp"}
    )
    orders = SideOrders(attacks=(Attack(sector="1", target="blue"),), extra=(assault,))
    saved = await store.save_orders(campaign.id, 1, "red", orders, True, RED, at(0, 30))
    assert saved.outcome is WriteOutcome.SAVED
    assert (await publish_battle_list(store, campaign.id, 1, None, at(0, 96))).applied
    draw = BattleResult(battle=1, outcome=Outcome.DRAW)
    await store.report_result(campaign.id, 1, draw, RED_TACTICIAN, at(0, 120))
    await store.confirm_result(campaign.id, 1, draw, BLUE_TACTICIAN, at(0, 121))
    assert (await resolve_and_store(store, campaign.id, 1, None, at(1))).outcome is (
        ResolveOutcome.RESOLVED
    )
    first = (await store.resolutions(campaign.id, 1))[-1].report
    running = await store.campaign(campaign.id)
    assert running is not None
    adjusted = await adjust_turn_start(
        store,
        running,
        Adjustment(vp=(VpChange(side="blue", delta=2),), reason="card"),
        GM,
        at(1, 1),
    )
    assert adjusted.outcome is AdjustOutcome.APPLIED

    won = BattleResult(battle=1, outcome=Outcome.CRUSHING, winner="red")
    corrected = await correct_result(store, campaign.id, 1, [won], GM, "wrong result", at(1, 2))
    assert corrected.outcome is CorrectionOutcome.APPLIED, corrected
    again = (await store.resolutions(campaign.id, 1))[-1].report
    assert again.rolls == first.rolls
    start = await store.turn_start(campaign.id, 2)
    assert start is not None
    assert load(start.modules[SIEGE]).vp.get("blue") == 2
    assert start.armies["blue"].get("1", 0) < 3
