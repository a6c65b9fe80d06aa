"""A Midnight Siege campaign through the real bot process, from /newcampaign to a winner, with a
SIGKILL in the middle; then every turn replays through ``python -m rules`` and every roll
verifies.

The GM switches the siege on in the wizard (a fortification placed with a button, the weather
steered from the Equator); the last side in side order picks the starting weather with a button as
the orders open, right after the seeds' SHA-256 is posted; Red assaults the fortification with a
button and attacks by text, Blue guards it by text; the bot is killed after the orders are in
and started again; the battle list shows the guarded assault; a player rolls dice at the table;
the results are reported and confirmed, and on Monday Red wins the campaign; Red's strategist
claims a reward with its VP.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp

from rules import commitment
from storage import CampaignStatus, Phase, SqliteCampaignStore
from tests.e2e.conftest import ROOT, BotService
from tests.e2e.harness import Chat, ScriptedTelegram, User
from tests.e2e.scenario import (
    ClockClient,
    Player,
    Table,
    confirm_result,
    create_campaign,
    deploy_typed,
    join,
    orders_typed,
    report_result,
)
from tests.secrecy import assert_log_keeps, turn_order_forms

GROUP = Chat(id=-1003900, type="supergroup", title="Siege table")
GM = Player(User(id=3900, first_name="Marta"))
ANNA = Player(User(id=3901, first_name="Anna"))  # Red, strategist
CARL = Player(User(id=3902, first_name="Carl"))  # Red, tactician
VERA = Player(User(id=3903, first_name="Vera"))  # Blue, strategist
GLEB = Player(User(id=3904, first_name="Глеб"), "ru")  # Blue, tactician, Russian app
RED, BLUE = "Red", "Blue"


def utc(month: int, day: int, hour: int) -> datetime:
    return datetime(2026, month, day, hour, tzinfo=UTC)


def _cli(command: str, document: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules", command],
        input=document,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=60,
    )


async def _play(table: Table, service: BotService) -> int:
    async def siege_on() -> None:
        await table.press(GM, "Midnight Siege", chat_id=GROUP.id)
        await table.press(GM, "Switch the siege on", chat_id=GROUP.id)
        await table.press(GM, "🏰 West", chat_id=GROUP.id)
        await table.press(GM, "🌬 Equator", chat_id=GROUP.id)
        await table.press(GM, "Back", chat_id=GROUP.id)

    await table.command(GM, "/start")
    campaign_id = await create_campaign(
        table, "Midnight Siege", [RED, BLUE], rules="sectors_to_win=2", before_open=siege_on
    )
    for person, side, role in (
        (ANNA, RED, "strategist"),
        (CARL, RED, "tactician"),
        (VERA, BLUE, "strategist"),
        (GLEB, BLUE, "tactician"),
    ):
        await join(table, person, side, role)
    await deploy_typed(table, ANNA, "1:4 2:3 4:3")
    await deploy_typed(table, VERA, "1:3 3:5 5:2")
    # The orders open: the seeds are sealed, then Blue (the last side in side order) picks the
    # weather.
    await table.wait_for_text(GROUP.id, "the dice are sealed before any order is given")
    await table.press(VERA, re.compile(r"^North$"))
    await table.wait_for_text(GROUP.id, "The starting weather is chosen: North.")

    await table.move_clock(utc(3, 3, 8))  # Tuesday: the orders window opens
    await table.command(ANNA, "/orders")
    await table.press(ANNA, "Siege orders")
    await table.press(ANNA, "assault F1 in 2 West for VP")
    await orders_typed(table, ANNA, "attack blue in 1 x2\nreinforce 1")
    await orders_typed(table, VERA, "guard F1 from 1 Equator\nreinforce 3")

    await service.crash()  # SIGKILL with every order in; nothing is lost
    await service.start()
    await table.move_clock(utc(3, 5, 21))  # the orders close
    await table.move_clock(utc(3, 6, 9))  # the battle list goes out
    await table.wait_for_text(GROUP.id, "Red assaults fortification F1 in 2 West: it is guarded")
    await table.move_clock(utc(3, 7, 10))
    await table.command(CARL, "/roll 2d6", GROUP)
    await table.wait_for_text(GROUP.id, "🎲 2d6:")
    await report_result(table, CARL, 1, "crushing", RED)
    await confirm_result(table, GLEB, 1)
    await report_result(table, CARL, 2, "solid", RED)
    await confirm_result(table, GLEB, 2)
    await report_result(table, CARL, 3, "solid", RED)
    await confirm_result(table, GLEB, 3)
    await table.move_clock(utc(3, 9, 9))  # Monday
    monday = await table.wait_for_message(
        GROUP.id, lambda m: m.photo is not None and "Turn 1 resolved" in m.text, what="Monday"
    )
    assert "Fortification F1 in 2 West fell to Red: +1 VP." in monday.text
    assert "Red wins the campaign!" in monday.text
    assert "Turn 1's roll seed is revealed" in monday.text
    # The campaign is over: Red's strategist spends its VP on a reward (S8); an item without
    # variants needs no GM choice, so the group hears of it at once.
    await table.wait_for_text(ANNA.user.id, "Side «Red»: 1 siege VP to spend on rewards.")
    await table.press(ANNA, "➕ 1.")
    await table.press(ANNA, "✅ Claim")
    await table.wait_for_text(GROUP.id, "🎁 Side «Red»: rewards for 1 of 1 siege VP.")
    return campaign_id


async def test_a_siege_campaign_to_a_winner_replays_and_verifies(
    telegram: ScriptedTelegram, bot_service: BotService, tmp_path: Path
) -> None:
    await bot_service.start()
    async with aiohttp.ClientSession() as session:
        table = Table(telegram, ClockClient(bot_service.clock_url, session), GROUP, GM)
        try:
            campaign_id = await _play(table, bot_service)
        finally:
            (tmp_path / "transcript.txt").write_text(
                "\n".join(
                    f"[{table.chat_name(s.chat_id)}] {s.who} {s.action}: {s.text}"
                    for s in table.transcript
                )
            )
    bot_service.stop()
    store = await SqliteCampaignStore.open(bot_service.database)
    try:
        campaign = await store.campaign(campaign_id)
        assert campaign is not None
        assert (campaign.status, campaign.phase) == (CampaignStatus.FINISHED, Phase.FINISHED)
        exported: dict[str, Any] = json.loads(json.dumps(await store.export_campaign(campaign_id)))
        seeds = await store.turn_seeds(campaign_id, 1)
    finally:
        await store.close()
    assert seeds is not None
    [turn] = exported["turns"]
    # Every seed is public now and matches the SHA-256 posted before the orders.
    assert turn["seeds"] == {"roll": seeds.roll, "deal": seeds.deal}
    assert turn["commitments"]["roll"] == commitment(seeds.roll)
    assert [roll["label"] for roll in turn["rolls"]] == ["t1/roll/group/1/1", "t1/roll/group/1/2"]
    replayed = _cli("resolve", json.dumps(turn["document"]))
    assert replayed.returncode == 0, replayed.stderr
    answer = json.loads(replayed.stdout)
    assert answer["state"] == turn["state_after"]
    assert (
        answer["winner"]
        == turn["winner"]
        == next(side["id"] for side in exported["sides"] if side["name"] == RED)
    )
    assert answer["modules"]["siege"]["assaults"][0]["verdict"] == "fell"
    verified = _cli("verify-rolls", json.dumps(exported))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["failed"] == []
    log = bot_service.log_text()
    assert "Traceback" not in log
    assert " ERROR " not in log
    # The bot's own log never holds an order, the siege's included, as typed or as code prints it.
    assert turn["document"]["orders"]
    typed = {"attack blue in 1 x2", "guard F1 from 1 Equator"}
    assert_log_keeps(log, turn_order_forms(turn["document"]) | typed)
