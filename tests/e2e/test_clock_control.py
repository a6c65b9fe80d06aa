"""The real bot process on the test clock: a POST moves it through a deadline, at once."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp

from tests.e2e.harness import Chat, ScriptedTelegram, User
from tests.e2e.scenario import Player, Table, create_campaign, deploy_typed, join, running_bot

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
ORDERS_CLOSE = datetime(2026, 3, 5, 20, 59, tzinfo=UTC)  # Thursday 23:59 in Moscow


async def test_a_post_moves_the_bot_through_the_orders_deadline(
    telegram: ScriptedTelegram, tmp_path: Path
) -> None:
    async with (
        aiohttp.ClientSession() as session,
        running_bot(telegram, session, tmp_path, clock_start=START) as bot,
    ):
        group = Chat(-1001700, "supergroup", "Wargamers")
        table = Table(telegram, bot.clock, group, Player(User(701, "Anna")), settle=True)
        await create_campaign(table, "Clockwork", ["Red", "Blue"])
        await join(table, Player(User(702, "Boris")), "Red")
        await join(table, Player(User(703, "Вера"), "ru"), "Blue")
        await deploy_typed(table, table.player("Boris"), "1:4 2:3 4:3")
        await deploy_typed(table, table.player("Вера"), "1:3 3:5 5:2")
        board = await table.wait_for_text(group.id, "Turn 1: orders")

        assert await bot.clock.now() == START
        reminder = await bot.clock.next_due()
        assert reminder is not None
        assert START < reminder < ORDERS_CLOSE
        early = await bot.clock.set(reminder)
        assert early.phases == []
        assert early.sent == 2  # a reminder to each strategist whose orders are not ready
        late = await bot.clock.set(ORDERS_CLOSE - timedelta(minutes=1))
        assert late.phases == []

        run = await bot.clock.set(ORDERS_CLOSE)
        assert run.now == ORDERS_CLOSE
        assert run.phases == [{"campaign": table.campaign_id, "turn": 1, "phase": "battles"}]
        assert run.sent >= 1
        # The answer came after the posts were sent: the board already shows the battles.
        shown = {m.message_id: m.text for m in await table.bot_messages(group.id)}
        assert "Turn 1: battles" in shown[board.message_id]

        again = await bot.clock.set(ORDERS_CLOSE)
        assert again.phases == []
    log = bot.log_path.read_text()
    assert "TEST CLOCK CONTROL IS ON" in log
    assert "127.0.0.1" in log
