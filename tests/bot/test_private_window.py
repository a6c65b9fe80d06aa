"""A turn that begins on Monday takes orders from Tuesday 00:00 (RULES.md 3.2), through the real
dispatcher: a strategist typing or pressing early is told when the window opens and nothing is
saved; /orders shows the side's armies meanwhile; the group's /status names the opening."""

from __future__ import annotations

from datetime import UTC, datetime

from aiogram.utils.i18n import I18n

from bot.clock import ManualClock
from bot.handlers.private.callbacks import OrdersButton
from bot.services.clockwork import advance
from storage import Phase, Role, Store
from tests.bot.private_campaign import GM, GROUP, PEOPLE, Table, alert, open_table, screen
from tests.bot.telegram import FakeTelegram
from tests.storage.campaign_script import PLACEMENTS

MONDAY_NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
TUESDAY = datetime(2026, 3, 3, 0, 0, tzinfo=UTC)
STRATEGIST = Role.STRATEGIST


async def _turn_one_on_monday(table: Table, clock: ManualClock) -> None:
    """Every side places its armies and the schedule starts turn 1 on Monday at noon."""
    for side, placement in PLACEMENTS.items():
        strategist = next(u for u, _, _, s, roles in PEOPLE if s == side and STRATEGIST in roles)
        await table.store.save_placement(
            table.campaign.id, side, placement, True, strategist, clock.now()
        )
    clock.set(MONDAY_NOON)
    started = await advance(table.store, table.campaign.id, 0, Phase.DEPLOYMENT, None, clock.now())
    assert started.advanced
    table.take()


async def test_orders_before_tuesday_are_refused_with_the_opening_time(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    await _turn_one_on_monday(table, clock)
    clock.set(datetime(2026, 3, 2, 19, 30, tzinfo=UTC))  # Monday evening, on the tram

    typed = screen(await table.say(201, "reinforce 1"))
    assert typed.text == (
        "Orders for turn 1 open Tue 3 Mar, 00:00 (UTC); nothing was saved. Until then /orders "
        "shows your armies and /map the map."
    )
    russian = screen(await table.say(301, "усилить 1"))
    assert russian.text.startswith("Приказы на ход 1 принимаются с вт, 3 марта, 00:00 (UTC)")

    orders = screen(await table.say(201, "/orders"))
    assert "«Siege», turn 1: orders of Red Legion" in orders.text
    assert "Orders for turn 1 open Tue 3 Mar, 00:00 (UTC)" in orders.text
    assert orders.buttons() == []

    forged = OrdersButton(campaign=table.campaign.id, turn=1, action="rs", sector=0).pack()
    pressed = await table.forged(201, forged)
    assert alert(pressed).startswith("Orders for turn 1 open Tue 3 Mar, 00:00 (UTC)")
    ready = OrdersButton(campaign=table.campaign.id, turn=1, action="ok", sector=-1).pack()
    assert alert(await table.forged(201, ready)).startswith("Orders for turn 1 open")
    for side in ("red", "blue"):
        assert await store.orders(table.campaign.id, 1, side) is None

    await telegram.feed(telegram.message(table.user(GM), GROUP, "/status"))
    status = telegram.take()[-1].text
    assert "Orders open Tue 3 Mar, 00:00 (UTC). Deadline: Thu 5 Mar, 23:59 (UTC)." in status

    clock.set(TUESDAY)
    opened = screen(await table.say(201, "reinforce 1"))
    assert "Saved as a draft." in opened.text
    saved = await store.orders(table.campaign.id, 1, "red")
    assert saved is not None
    assert saved.orders.reinforce is not None
