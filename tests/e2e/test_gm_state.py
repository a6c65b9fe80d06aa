"""The GM corrects the state through the real bot process (issue 23): while turn 1's orders are
open, the GM sets Red's armies in a sector from the private panel with a typed reason; the group
sees the change, the reason and the redrawn map; the GM undoes it and the group sees that too,
with the map as it was."""

from __future__ import annotations

import re
from pathlib import Path

import aiohttp

from storage import AuditAction, SqliteCampaignStore
from tests.e2e.conftest import BotService
from tests.e2e.harness import Chat, ScriptedTelegram, User
from tests.e2e.scenario import ClockClient, Player, Table, create_campaign, deploy_typed, join

GROUP = Chat(id=-1003950, type="supergroup", title="Correction table")
GM = Player(User(id=3950, first_name="Marta"))
ANNA = Player(User(id=3951, first_name="Anna"))  # Red, strategist
VERA = Player(User(id=3952, first_name="Vera"))  # Blue, strategist
RED, BLUE = "Red", "Blue"
REASON = "Anna's third army was never placed"


async def _edit_and_undo(table: Table) -> int:
    await table.command(GM, "/start")
    campaign_id = await create_campaign(table, "Correction", [RED, BLUE])
    await join(table, ANNA, RED, "strategist")
    await join(table, VERA, BLUE, "strategist")
    await deploy_typed(table, ANNA, "1:4 2:3 4:3")
    await deploy_typed(table, VERA, "1:3 3:5 5:2")
    await table.wait_for_text(GROUP.id, "Turn 1")

    await table.command(GM, "/gm")
    await table.press(GM, "Correct the state")
    await table.press(GM, RED)
    await table.press(GM, "2 West: 3")
    await table.press(GM, re.compile(r"^2$"))
    done = await table.say(GM, REASON)
    assert any("Done:" in text for text in done.texts(GM.chat_id))
    edited = await table.wait_for_message(
        GROUP.id,
        lambda m: m.photo is not None and "The GM edited the state of turn 1." in m.text,
        what="the edit's announcement with the map",
    )
    assert f"Reason: {REASON}" in edited.text
    assert "Side «Red», 2 West: 3 → 2" in edited.text

    await table.command(GM, "/gm")
    await table.press(GM, "Correct the state")
    await table.press(GM, "Undo the last edit")
    await table.press(GM, "Yes, undo it")
    undone = await table.wait_for_message(
        GROUP.id,
        lambda m: m.photo is not None and "The GM undid the edit of turn 1" in m.text,
        what="the undo's announcement with the map",
    )
    assert REASON in undone.text
    assert "Side «Red», 2 West: 2 → 3" in undone.text
    return campaign_id


async def test_the_gm_edits_the_state_and_undoes_it(
    telegram: ScriptedTelegram, bot_service: BotService, tmp_path: Path
) -> None:
    await bot_service.start()
    async with aiohttp.ClientSession() as session:
        table = Table(telegram, ClockClient(bot_service.clock_url, session), GROUP, GM)
        try:
            campaign_id = await _edit_and_undo(table)
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
        state = await store.turn_start(campaign_id, 1)
        audit = [entry.action for entry in await store.audit_log(campaign_id)]
    finally:
        await store.close()
    assert state is not None
    assert state.armies[next(iter(state.armies))]["2"] == 3
    assert audit.count(AuditAction.STATE_EDITED) == 1
    assert audit.count(AuditAction.STATE_EDIT_UNDONE) == 1
    log = bot_service.log_text()
    assert "Traceback" not in log
    assert " ERROR " not in log
