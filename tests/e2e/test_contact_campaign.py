"""A contact campaign through the real bot process, from /newcampaign to a victory on victory
points through a chain of battles; then the turn replays through ``python -m rules`` and every
roll verifies.

The GM switches contact on in the wizard (Red's barricade in North Pole, Blue's in East, 4 VP
win); Red sends a group into East with buttons, Green types a move there too, Blue sets a
retreat preference by text; the battle list shows the movement log, the zombies and the chain
(«Battle 2: Green against the winner of battle 1»). Red wins battle 1 and slays Blue's warlord
(a button); Green is told in private that Red defends battle 2, and Red, the attacker of
battle 1, reports battle 2 (MODULES.md C6: the winner of battle k defends battle k+1). On
Monday Blue and Green retreat, East's defences are ruined, and Red's 3 + 1 VP win the
campaign. A group of 4 armies beats any zombie card (8 >= 7 + 1), and so do the retreating
armies, so the story does not depend on the seeds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp

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
    mark_ready,
    orders_typed,
    report_result,
)
from tests.secrecy import assert_log_keeps, turn_order_forms

GROUP = Chat(id=-1004100, type="supergroup", title="Contact table")
GM = Player(User(id=4100, first_name="Marta"))
ANNA = Player(User(id=4101, first_name="Anna"))  # Red, strategist
CARL = Player(User(id=4102, first_name="Carl"))  # Red, tactician
VERA = Player(User(id=4103, first_name="Vera"))  # Blue, strategist
GLEB = Player(User(id=4104, first_name="Глеб"), "ru")  # Blue, tactician, Russian app
DORA = Player(User(id=4105, first_name="Dora"))  # Green, strategist
RED, BLUE, GREEN = "Red", "Blue", "Green"


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


async def _play(table: Table) -> int:
    async def contact_on() -> None:
        await table.press(GM, "🧟 Contact", chat_id=GROUP.id)
        await table.press(GM, "Switch contact on", chat_id=GROUP.id)
        await table.press(GM, "🧱 North Pole", chat_id=GROUP.id)
        await table.press(GM, "🚩 North Pole", chat_id=GROUP.id)
        await table.press(GM, RED, chat_id=GROUP.id)
        await table.press(GM, "🧱 East", chat_id=GROUP.id)
        await table.press(GM, "🚩 East", chat_id=GROUP.id)
        await table.press(GM, BLUE, chat_id=GROUP.id)
        for _vp in range(4):
            await table.press(GM, "🏆 +1 VP", chat_id=GROUP.id)
        await table.press(GM, "Back", chat_id=GROUP.id)

    await table.command(GM, "/start")
    campaign_id = await create_campaign(
        table,
        "Day of the Dead",
        [RED, BLUE, GREEN],
        rules="start_sectors=1 start_armies=6",
        before_open=contact_on,
    )
    for person, side, role in (
        (ANNA, RED, "strategist"),
        (CARL, RED, "tactician"),
        (VERA, BLUE, "strategist"),
        (GLEB, BLUE, "tactician"),
        (DORA, GREEN, "strategist"),
    ):
        await join(table, person, side, role)
    await deploy_typed(table, ANNA, "4:6")
    await deploy_typed(table, VERA, "3:6")
    await deploy_typed(table, DORA, "5:6")
    await table.wait_for_text(GROUP.id, "the dice are sealed before any order is given")

    await table.move_clock(utc(3, 3, 8))  # Tuesday: the orders window opens
    await table.command(ANNA, "/orders")
    await table.press(ANNA, "4 North Pole")
    await table.press(ANNA, "Move a group")
    await table.press(ANNA, "3 East")
    await table.press(ANNA, "4")
    await mark_ready(table, ANNA)
    await orders_typed(table, VERA, "retreat from 3 to 1")
    await orders_typed(table, DORA, "move 4 from 5 to 3")

    await table.move_clock(utc(3, 5, 21))  # the orders close
    await table.move_clock(utc(3, 6, 9))  # the battle list goes out
    await table.wait_for_text(GROUP.id, "⛓ Chain in 3 East: Blue defends first")
    # The list may take more than one message: read them together.
    listed = "\n".join(message.text for message in await table.bot_messages(GROUP.id))
    assert "🚶 Red: group 1 (4 armies) from 4 North Pole stops in 3 East, arrival 1." in listed
    assert "🧟 Red: 4 armies in 3 East against zombie card" in listed
    assert "Battle 2: Green against the winner of battle 1" in listed
    await table.move_clock(utc(3, 7, 10))
    await report_result(table, CARL, 1, "crushing", RED, warlords="2")
    await confirm_result(table, GLEB, 1)
    # Red won battle 1, so Red defends battle 2: Green is told, and Red reports it.
    told = await table.wait_for_text(DORA.user.id, "Battle 2 now has its sides: Red defends it")
    assert "Battle 2: Green attacks Red in 3 East" in told.text
    await report_result(table, ANNA, 2, "solid", RED, warlords="0")
    await confirm_result(table, DORA, 2)
    await table.move_clock(utc(3, 9, 9))  # Monday
    caption = await table.wait_for_message(
        GROUP.id, lambda m: m.photo is not None and "Turn 1 resolved" in m.text, what="Monday"
    )
    # Three sides' Monday is longer than a caption: the summary goes on in the next message.
    rest = await table.wait_for_text(GROUP.id, "🏆 Red has the victory points that win")
    monday = caption.text + "\n" + rest.text
    assert "Battle 2 in 3 East: Red: solid victory" in monday
    assert "🏆 Red: +3 VP, the warlord of Blue was slain in battle 1." in monday
    assert "🏚 The defences in 3 East are ruined; Red gains 1 VP." in monday
    assert "↩ Blue: 4 armies retreat from 3 East to the neutral sector 1 Equator" in monday
    assert "↩ Green: 3 armies retreat from 3 East to 5 South Pole, exhausted." in monday
    assert "no result" not in monday
    assert "🏆 Red has the victory points that win: the campaign is over." in monday
    return campaign_id


async def test_a_contact_campaign_to_a_vp_victory_replays_and_verifies(
    telegram: ScriptedTelegram, bot_service: BotService, tmp_path: Path
) -> None:
    await bot_service.start()
    async with aiohttp.ClientSession() as session:
        table = Table(telegram, ClockClient(bot_service.clock_url, session), GROUP, GM)
        try:
            campaign_id = await _play(table)
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
    finally:
        await store.close()
    [turn] = exported["turns"]
    replayed = _cli("resolve", json.dumps(turn["document"]))
    assert replayed.returncode == 0, replayed.stderr
    answer = json.loads(replayed.stdout)
    assert answer["state"] == turn["state_after"]
    red = next(side["id"] for side in exported["sides"] if side["name"] == RED)
    assert answer["winner"] == turn["winner"] == red
    assert answer["state"]["modules"]["contact"]["vp"] == {red: 4}
    assert [result["winner"] for result in turn["results"]] == [red, red]
    assert turn["battles"][1]["fought_defender"] == red
    verified = _cli("verify-rolls", json.dumps(exported))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["failed"] == []
    log = bot_service.log_text()
    assert "Traceback" not in log
    assert " ERROR " not in log
    # The bot's own log never holds an order, the contact's included, as typed or as code prints it.
    assert turn["document"]["orders"]
    typed = {"retreat from 3 to 1", "move 4 from 5 to 3"}
    assert_log_keeps(log, turn_order_forms(turn["document"]) | typed)
