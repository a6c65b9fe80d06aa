"""A player vanishes mid-campaign and is replaced, through the real bot process (issue 23).

Red's strategist Anna gives no orders in turn 1. On Tuesday the GM, in the private chat, opens
/gm, «Replace a player», taps Anna and types the reason: Anna is told and her /orders refuses
her at once, and the group hears that Red has an open seat, with «Join». Igor taps it, asks for
Red, and the GM approves him. Turn 1 resolves; in turn 2 Igor gives Red's orders (stored as his)
while Anna is still refused. Both steps are in the audit log.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import aiohttp

from bot.screens.callbacks import SeatPress
from storage import AuditAction, SqliteCampaignStore
from tests.e2e.conftest import BotService
from tests.e2e.harness import Chat, ScriptedTelegram, User
from tests.e2e.scenario import (
    ClockClient,
    Player,
    Table,
    ask_to_join,
    create_campaign,
    deploy_typed,
    gm_answers_join,
    join,
    orders_typed,
)

GROUP = Chat(id=-1004100, type="supergroup", title="Replacement table")
GM = Player(User(id=4100, first_name="Marta"))
ANNA = Player(User(id=4101, first_name="Anna"))  # Red, strategist: vanishes
VERA = Player(User(id=4102, first_name="Vera"))  # Blue, strategist
IGOR = Player(User(id=4103, first_name="Igor"))  # takes Anna's seat
RED, BLUE = "Red", "Blue"


def utc(month: int, day: int, hour: int) -> datetime:
    return datetime(2026, month, day, hour, tzinfo=UTC)


def _seat_data(action: str, label_has: str = "") -> Callable[[str, str], bool]:
    def check(text: str, data: str) -> bool:
        if not data.startswith(f"{SeatPress.__prefix__}:"):
            return False
        return SeatPress.unpack(data).a == action and label_has in text

    return check


async def _play(table: Table) -> int:
    await table.command(GM, "/start")
    campaign_id = await create_campaign(table, "Long war", [RED, BLUE])
    await join(table, ANNA, RED, "strategist")
    await join(table, VERA, BLUE, "strategist")
    await deploy_typed(table, ANNA, "1:4 2:3 4:3")
    await deploy_typed(table, VERA, "1:3 3:5 5:2")
    await table.move_clock(utc(3, 3, 8))  # Tuesday: turn 1's orders open; Anna stays silent
    await orders_typed(table, VERA, "reinforce 3")

    await table.command(GM, "/gm")
    await table.press(GM, _seat_data("list"), chat_id=GM.chat_id)
    asked = await table.press(GM, _seat_data("vac", "Anna"), chat_id=GM.chat_id)
    assert any("why does Anna leave side «Red»?" in t for t in asked.texts(GM.chat_id))
    done = await table.say(GM, "silent since the deployment")
    assert any(
        t.startswith("Done: Anna no longer plays side «Red».") for t in done.texts(GM.chat_id)
    )
    await table.wait_for_text(GROUP.id, "side «Red» has an open seat (strategist)")
    await table.wait_for_text(ANNA.chat_id, "the GM marked your seat on side «Red» vacant")
    refused = await table.command(ANNA, "/orders")
    assert not any("Red" in t for t in refused.texts(ANNA.chat_id)), refused.texts(ANNA.chat_id)

    await ask_to_join(table, IGOR, RED, "strategist")
    await gm_answers_join(table, IGOR, True, RED, "strategist")
    await table.wait_for_text(GROUP.id, "Igor joined Red as strategist (approved by the GM).")

    await table.move_clock(utc(3, 5, 21))  # the orders close
    await table.move_clock(utc(3, 6, 9))  # the battle list
    await table.move_clock(utc(3, 9, 13))  # Monday: turn 1 resolves
    await table.wait_for_message(
        GROUP.id, lambda m: m.photo is not None and "Turn 1 resolved" in m.text, what="Monday"
    )
    await table.move_clock(utc(3, 10, 8))  # Tuesday: turn 2's orders open
    given = await orders_typed(table, IGOR, "reinforce 1")
    assert given.texts(IGOR.chat_id)
    still = await table.command(ANNA, "/orders")
    assert not any("Red" in t for t in still.texts(ANNA.chat_id)), still.texts(ANNA.chat_id)
    return campaign_id


async def test_a_gm_replaces_a_vanished_player_mid_campaign(
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
        sides = {side.name: side.id for side in await store.sides(campaign_id)}
        orders = await store.orders_for_turn(campaign_id, 2)
        anna = await store.member(campaign_id, ANNA.chat_id)
        igor = await store.member(campaign_id, IGOR.chat_id)
        audit = [entry.action for entry in await store.audit_log(campaign_id)]
        turn_one = await store.order_edits(campaign_id, 1, sides[RED])
    finally:
        await store.close()
    red = orders[sides[RED]]
    assert (red.updated_by, red.ready, red.orders.reinforce) == (IGOR.chat_id, True, "1")
    assert not turn_one  # Anna never ordered, and nobody else did for Red in turn 1
    assert anna is not None
    assert anna.side_id is None
    assert igor is not None
    assert igor.side_id == sides[RED]
    assert AuditAction.SEAT_VACATED in audit
    assert AuditAction.SEAT_FILLED in audit
    log = bot_service.log_text()
    assert "Traceback" not in log
    assert " ERROR " not in log
