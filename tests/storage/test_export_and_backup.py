"""Export replays through ``python -m rules resolve``; online backup while writing."""

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import JsonValue

import rules.modules
from rules import ModuleOrder, SideOrders
from rules.game import RulesModule
from storage import Phase, SqliteCampaignStore, Store, latest_version, open_store, repository
from tests.storage.campaign_script import at, deploy, new_campaign, play_turn, strategist

ROOT = Path(__file__).parents[2]


def _resolve_with_cli(document: dict[str, object]) -> dict[str, object]:
    answer = subprocess.run(
        [sys.executable, "-m", "rules", "resolve"],
        input=json.dumps(document),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    parsed: dict[str, object] = json.loads(answer.stdout)
    return parsed


async def test_export_replays_turn_by_turn_to_the_stored_states(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    turns = 0
    for turn in range(1, 5):
        current = await store.campaign(campaign.id)
        assert current is not None
        if current.phase is Phase.FINISHED:
            break
        await play_turn(store, campaign.id, turn, seed=7, unreported=turn % 2)
        turns = turn
    # Orders of the turn being played are secret: not exported.
    now = await store.campaign(campaign.id)
    assert now is not None
    secret = SideOrders(reinforce=None)
    await store.save_orders(campaign.id, now.turn, "red", secret, False, 201, at(turns, 1))

    exported = json.loads(json.dumps(await store.export_campaign(campaign.id)))
    revealed = await store.revealed_orders(campaign.id)
    assert sorted(revealed) == list(range(1, turns + 1))
    assert now.turn not in revealed

    assert exported["map"] == "planet-5"
    assert exported["ruleset"] == {"sectors_to_win": 4}
    assert [s["id"] for s in exported["sides"]] == ["red", "blue", "green"]
    assert exported["deployment"]["red"] == {"1": 4, "2": 3, "4": 3}
    assert [t["turn"] for t in exported["turns"]] == list(range(1, turns + 1))
    assert now.turn not in [t["turn"] for t in exported["turns"]]
    expected_first = await store.turn_start(campaign.id, 1)
    assert expected_first is not None
    assert exported["first_state"] == {"turn": 1, "armies": expected_first.armies}
    for index, turn in enumerate(exported["turns"]):
        answer = _resolve_with_cli(turn["document"])
        stored_next = await store.turn_start(campaign.id, turn["turn"] + 1)
        assert stored_next is not None
        assert answer["state"] == {"turn": stored_next.turn, "armies": stored_next.armies}
        assert answer["state"] == turn["state_after"]
        assert answer["battles"] == turn["battles"]
        assert turn["document"]["state"] == turn["state"]
        if index + 1 < len(exported["turns"]):
            assert exported["turns"][index + 1]["state"] == turn["state_after"]
    assert any(turn["unreported"] for turn in exported["turns"])


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_online_backup_under_concurrent_writes_is_consistent(
    store: Store, db_path: Path, tmp_path: Path
) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    writer = await SqliteCampaignStore.open(db_path)

    async def write_orders() -> None:
        for n in range(60):
            orders = SideOrders(extra=(ModuleOrder(module="backup-test", data={"n": n}),))
            for side in ("red", "blue"):
                await writer.save_orders(
                    campaign.id, 1, side, orders, False, strategist(side), at(0, 20 + n)
                )

    async def back_up() -> list[Path]:
        copies = []
        for n in range(4):
            target = tmp_path / f"backup-{n}.sqlite3"
            await store.backup(target)
            copies.append(target)
        return copies

    try:
        _, copies = await asyncio.gather(write_orders(), back_up())
    finally:
        await writer.close()

    for copy in copies:
        assert not copy.with_name(copy.name + ".partial").exists()
        with sqlite3.connect(copy) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert raw.execute("PRAGMA user_version").fetchone()[0] == latest_version()
            assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
            # One moment's state: every order set's edit count matches its edit rows.
            mismatched = raw.execute(
                "SELECT o.id FROM order_sets o WHERE o.edits <>"
                " (SELECT COUNT(*) FROM order_edits e WHERE e.order_set_id = o.id)"
            ).fetchall()
            assert mismatched == []
        restored = await SqliteCampaignStore.open(copy)
        try:
            assert await restored.campaign(campaign.id) == await store.campaign(campaign.id)
        finally:
            await restored.close()
    final = await store.orders(campaign.id, 1, "blue")
    assert final is not None
    assert final.edits == 60


async def test_export_lists_members_removed_people_and_join_requests(database_url: str) -> None:
    store = await open_store(database_url)
    try:
        campaign = await new_campaign(store)
        await store.request_join(campaign.id, 901, "Newcomer", at(0, 1))
        await store.record_removal(campaign.id, 902, "Troublemaker", 1, at(0, 2))
        people = json.loads(json.dumps(await store.export_campaign(campaign.id)))["people"]
    finally:
        await store.close()
    members = {m["user_id"]: m for m in people["members"]}
    red = members[strategist("red")]
    assert red["side"] == "red"
    assert red["roles"] == ["strategist"]
    assert [(r["user_id"], r["display_name"]) for r in people["join_requests"]] == [
        (901, "Newcomer")
    ]
    assert [(r["user_id"], r["removed_by"]) for r in people["removed"]] == [(902, 1)]


class _Hidden(RulesModule):
    """A module registered only in a test, whose state keeps a secret until the end."""

    name = "hidden"

    def public_state(self, data: JsonValue, side: str | None) -> JsonValue:
        assert isinstance(data, dict)
        return {key: value for key, value in data.items() if key != "secret"}


def test_an_export_hides_the_secrets_of_a_module_registered_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An export's public state reads the registry when it is written, not at import."""
    registered = (*rules.modules.BUILTIN_MODULES, _Hidden())
    monkeypatch.setattr(rules.modules, "BUILTIN_MODULES", registered)
    state: JsonValue = {"v": 1, "secret": ["3", "5"], "open": 2}
    assert repository._public_state("hidden", state) == {"v": 1, "open": 2}
    assert repository._public_state("unknown", state) == state
