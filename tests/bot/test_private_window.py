"""A turn that begins on Monday takes orders from Tuesday 00:00 (RULES.md 3.2), through the real
dispatcher: a strategist typing or pressing early is told when the window opens and nothing is
saved; /orders shows the side's armies meanwhile; the group's /status names the opening."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from aiogram.utils.i18n import I18n

from bot.handlers.private.callbacks import OrdersButton
from bot.runtime.clock import ManualClock
from bot.services import timekeeping
from bot.services.clockwork import advance
from bot.services.schedule import CampaignScheduler
from bot.services.window import orders_opening
from storage import CampaignSettings, Phase, Role, Store
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


async def test_a_pause_before_the_opening_says_the_campaign_is_paused_not_a_wrong_date(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    """Issue 30: 25 hours into a pause, with turn 1's opening still to come, a player was told
    the orders open at a moment that was neither the planned one nor the one after the resume,
    and the group that orders could still be given. Now: paused, the opening follows the
    resume (in English and Russian); after the resume, the real opening."""
    table = await open_table(telegram, store, clock)
    await _turn_one_on_monday(table, clock)
    clock.set(datetime(2026, 3, 2, 13, 0, tzinfo=UTC))  # Monday 13:00, eleven hours before
    paused = await timekeeping.pause(store, table.campaign.id, GM, clock.now())
    assert paused.applied
    told = [s.text for s in await telegram.deliver() if s.chat_id == GROUP]
    assert _paused(told) == (
        "The GM paused the campaign. Deadlines stand still until it is resumed. Turn 1's orders "
        "open after the resume, later by as long as the pause lasts."
    )

    clock.set(datetime(2026, 3, 3, 14, 0, tzinfo=UTC))  # 25 hours into the pause
    await CampaignScheduler(store, clock).run_due(clock.now())  # the clock passes Tuesday 00:00
    assert await orders_opening(store, await table.now_campaign(), clock.now()) is not None
    typed = screen(await table.say(201, "reinforce 1"))
    assert typed.text == (
        "«Siege» is paused: turn 1's orders open after the GM resumes it, later by as long as "
        "the pause lasts; nothing was saved. Until then /orders shows your armies and /map the "
        "map."
    )
    russian = screen(await table.say(301, "усилить 1"))
    assert russian.text.startswith(
        "Кампания «Siege» на паузе: приём приказов хода 1 начнётся после того, как мастер её "
        "продолжит"
    )
    orders = screen(await table.say(201, "/orders"))
    assert "«Siege» is paused: turn 1's orders open after the GM resumes it" in orders.text
    assert "open Wed" not in orders.text
    assert await store.orders(table.campaign.id, 1, "red") is None

    resumed = await timekeeping.resume(store, table.campaign.id, GM, clock.now())
    assert resumed.applied
    after = screen(await table.say(201, "reinforce 1"))
    assert after.text.startswith("Orders for turn 1 open Wed 4 Mar, 01:00 (UTC)")  # 11 h on
    clock.set(datetime(2026, 3, 4, 1, 0, tzinfo=UTC))
    assert "Saved as a draft." in screen(await table.say(201, "reinforce 1")).text


async def test_a_pause_while_the_orders_are_open_says_they_can_still_be_given(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    await _turn_one_on_monday(table, clock)
    clock.set(TUESDAY + timedelta(hours=10))
    await store.update_settings(table.campaign.id, CampaignSettings(language="ru"), GM, clock.now())
    assert (await timekeeping.pause(store, table.campaign.id, GM, clock.now())).applied
    told = [s.text for s in await telegram.deliver() if s.chat_id == GROUP]
    assert _paused(told) == (
        "Мастер поставил кампанию на паузу. Сроки не идут, пока она не продолжится. Приказы "
        "отдавать по-прежнему можно."
    )
    assert "Saved as a draft." in screen(await table.say(201, "reinforce 1")).text


def _paused(told: list[str]) -> str:
    """The group's post about the pause among those delivered."""
    [post] = [text for text in told if "paused the campaign" in text or "на паузу" in text]
    return post
