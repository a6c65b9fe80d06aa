"""The private posts and the services behind them: notices reach only the side concerned, are
debounced, and an unconfirmed deployment draft never starts the campaign."""

from datetime import timedelta

from aiogram.utils.i18n import I18n

from bot.posts import PostContext, render
from bot.runtime.clock import ManualClock
from bot.services.clockwork import AdvanceOutcome, BlockReason, advance
from bot.services.orders import (
    Seat,
    change_placement,
    confirm_placement,
    enter_orders,
    seat_in,
)
from rules import Fortify, Reinforce
from storage import Phase, Role, Store
from tests.bot.private_campaign import GM, open_table
from tests.bot.telegram import FakeTelegram

PLACEMENTS = {
    201: {"1": 4, "2": 3, "4": 3},
    301: {"1": 3, "3": 5, "5": 2},
    401: {"2": 4, "3": 3, "5": 3},
}


async def _seat(store: Store, user_id: int, campaign_id: int) -> Seat:
    seat = await seat_in(store, user_id, campaign_id)
    assert seat is not None
    return seat


async def test_an_unconfirmed_draft_does_not_start_the_first_turn(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    campaign = table.campaign
    for user_id, placement in PLACEMENTS.items():
        seat = await _seat(store, user_id, campaign.id)
        for sector, count in placement.items():
            for _ in range(count):
                await change_placement(store, seat, sector, 1, clock.now())
        if user_id != 401:
            confirmed = await confirm_placement(store, seat, clock.now())
            assert confirmed.deployment is not None
            assert confirmed.deployment.ready
    blocked = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, clock.now())
    assert (blocked.outcome, blocked.reason, blocked.sides) == (
        AdvanceOutcome.BLOCKED,
        BlockReason.SIDES_NOT_DEPLOYED,
        ("green",),
    )
    await confirm_placement(store, await _seat(store, 401, campaign.id), clock.now())
    started = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, clock.now())
    assert started.advanced


async def test_orders_notices_are_debounced_and_only_for_the_side(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    campaign = table.campaign
    for user_id, placement in PLACEMENTS.items():
        seat = await _seat(store, user_id, campaign.id)
        for sector, count in placement.items():
            for _ in range(count):
                await change_placement(store, seat, sector, 1, clock.now())
        await confirm_placement(store, seat, clock.now())
    assert (await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, clock.now())).advanced
    anna = await _seat(store, 201, campaign.id)
    first = await enter_orders(
        store, anna, [[Fortify(sector="2")], [Reinforce(sector="4")]], clock.now()
    )
    assert first.changed
    clock.advance(timedelta(seconds=30))
    second = await enter_orders(store, anna, [[Reinforce(sector="1")]], clock.now())
    assert second.changed
    notices = [m for m in await store.outbox_messages(campaign.id) if m.kind == "orders_changed"]
    assert [m.chat_id for m in notices] == [203]  # Boris, red's other strategist, once
    context = PostContext(store=store, i18n=i18n, bot_username="strategium_bot")
    post = await render(context, notices[0])
    assert post is not None
    assert "Подкрепление: 1 «Экватор»" in post.text  # worded when sent: the latest set

    # Boris moves to blue before the notice goes out: it is not sent to him any more.
    await store.put_member(
        campaign.id, 203, "Борис", frozenset({Role.STRATEGIST}), "blue", GM, clock.now()
    )
    assert await render(context, notices[0]) is None
