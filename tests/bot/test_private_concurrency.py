"""Two strategists of one side at the same moment: aiogram handles updates concurrently, so
their changes race; each is re-applied to the other's instead of overwriting it."""

import asyncio

from aiogram.utils.i18n import I18n

from bot.handlers.private import screens
from bot.handlers.private.callbacks import OrdersButton
from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.services.orders import (
    Refusal,
    change_placement,
    confirm_placement,
    enter_orders,
    seat_in,
    set_ready,
)
from rules import Move, Reinforce, SideOrders
from storage import Phase, Store
from tests.bot.private_campaign import GM, open_table
from tests.bot.telegram import FakeTelegram

PLACEMENT = {"1": 4, "2": 3, "3": 3}


async def _turn_one(telegram: FakeTelegram, store: Store, clock: ManualClock) -> int:
    table = await open_table(telegram, store, clock)
    for side in ("red", "blue", "green"):
        await campaigns.place_side(store, table.campaign, side, PLACEMENT, GM, clock.now())
    started = await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, clock.now())
    assert started.advanced
    return table.campaign.id


async def test_two_strategists_entering_at_once_both_keep_their_orders(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign_id = await _turn_one(telegram, store, clock)
    anna = await seat_in(store, 201, campaign_id)
    boris = await seat_in(store, 203, campaign_id)
    assert anna is not None
    assert boris is not None
    now = clock.now()
    by_anna, by_boris = await asyncio.gather(
        enter_orders(store, anna, [[Reinforce(sector="1")]], now),
        enter_orders(store, boris, [[Move(source="2", to="1", count=1)]], now),
    )
    assert by_anna.changed
    assert by_boris.changed
    stored = await store.orders(campaign_id, 1, "red")
    assert stored is not None
    assert stored.orders.reinforce == "1"
    assert stored.orders.moves == (Move(source="2", to="1", count=1),)
    assert stored.edits == 2
    # Each was told the set as it stands after their own save.
    last = by_boris if by_boris.desk and by_boris.desk.edits == 2 else by_anna
    assert last.desk is not None
    assert last.desk.orders == stored.orders


async def test_many_strategist_edits_at_once_lose_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign_id = await _turn_one(telegram, store, clock)
    anna = await seat_in(store, 201, campaign_id)
    boris = await seat_in(store, 203, campaign_id)
    assert anna is not None
    assert boris is not None
    now = clock.now()
    results = await asyncio.gather(
        enter_orders(store, anna, [[Reinforce(sector="1")]], now),
        enter_orders(store, boris, [[Move(source="2", to="1", count=1)]], now),
        enter_orders(store, anna, [[Move(source="3", to="4", count=2)]], now),
    )
    assert all(r.changed for r in results), [r.refusal for r in results]
    stored = await store.orders(campaign_id, 1, "red")
    assert stored is not None
    assert stored.orders.reinforce == "1"
    assert set(stored.orders.moves) == {
        Move(source="2", to="1", count=1),
        Move(source="3", to="4", count=2),
    }


async def test_confirming_orders_another_strategist_just_changed_is_refused(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign_id = await _turn_one(telegram, store, clock)
    anna = await seat_in(store, 201, campaign_id)
    boris = await seat_in(store, 203, campaign_id)
    assert anna is not None
    assert boris is not None
    now = clock.now()
    await enter_orders(store, anna, [[Reinforce(sector="1")]], now)
    changed, confirmed = await asyncio.gather(
        enter_orders(store, boris, [[Move(source="2", to="1", count=1)]], now),
        set_ready(store, anna, 1, True, now),
    )
    stored = await store.orders(campaign_id, 1, "red")
    assert stored is not None
    assert changed.changed
    if confirmed.refusal is None:
        # Anna's confirmation came first; Boris's change made it a draft again.
        assert stored.orders.moves
        assert not stored.ready
    else:
        assert confirmed.refusal is Refusal.CHANGED_MEANWHILE
        assert confirmed.desk is not None
        assert confirmed.desk.orders == stored.orders
        assert not stored.ready
    assert stored.orders == SideOrders(moves=(Move(source="2", to="1", count=1),), reinforce="1")


async def test_two_strategists_placing_at_once_both_keep_their_armies(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    anna = await seat_in(store, 201, table.campaign.id)
    boris = await seat_in(store, 203, table.campaign.id)
    assert anna is not None
    assert boris is not None
    now = clock.now()
    await asyncio.gather(
        change_placement(store, anna, "1", 1, now),
        change_placement(store, boris, "2", 1, now),
        change_placement(store, anna, "1", 1, now),
    )
    stored = (await store.placements(table.campaign.id))["red"]
    assert stored.placement == {"1": 2, "2": 1}
    assert not stored.ready


async def test_the_gm_places_only_a_side_that_has_not_confirmed_its_own(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    anna = await seat_in(store, 201, table.campaign.id)
    vera = await seat_in(store, 301, table.campaign.id)
    assert anna is not None
    assert vera is not None
    now = clock.now()
    for seat in (anna, vera):
        for sector, armies in PLACEMENT.items():
            for _ in range(armies):
                await change_placement(store, seat, sector, 1, now)
    assert (await confirm_placement(store, anna, now)).refusal is None
    default = {"1": 2, "4": 4, "5": 4}
    # Red confirmed its own placement: the GM's is refused and Red's kept.
    red, _ = await campaigns.place_side(store, table.campaign, "red", default, GM, now)
    assert red is campaigns.PlaceOutcome.DEPLOYED
    # Blue has only a draft: the GM places it.
    blue, _ = await campaigns.place_side(store, table.campaign, "blue", default, GM, now)
    assert blue is campaigns.PlaceOutcome.PLACED
    stored = await store.placements(table.campaign.id)
    assert (stored["red"].placement, stored["red"].updated_by) == (PLACEMENT, 201)
    assert (stored["blue"].placement, stored["blue"].updated_by) == (default, GM)


async def test_ready_confirms_only_the_version_its_button_was_shown_with(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    campaign_id = await _turn_one(telegram, store, clock)
    anna = await seat_in(store, 201, campaign_id)
    boris = await seat_in(store, 203, campaign_id)
    assert anna is not None
    assert boris is not None
    now = clock.now()
    shown = await enter_orders(store, anna, [[Reinforce(sector="1")]], now)
    assert shown.desk is not None
    with i18n.context(), i18n.use_locale("en"):
        _text, keyboard = screens.review_screen(shown.desk, {}, "Red", None)
    ready = OrdersButton.unpack(
        next(b.callback_data for row in keyboard.inline_keyboard for b in row if "Ready" in b.text)
        or ""
    )
    assert (ready.action, ready.arg) == ("ok", shown.desk.edits)
    # Boris changes the set after Anna's review was drawn (his notice to her waits 5 minutes).
    await enter_orders(store, boris, [[Move(source="2", to="1", count=1)]], now)
    stale = await set_ready(store, anna, 1, True, now, seen_edits=ready.arg)
    assert stale.refusal is Refusal.CHANGED_MEANWHILE
    stored = await store.orders(campaign_id, 1, "red")
    assert stored is not None
    assert not stored.ready
    fresh = await set_ready(store, anna, 1, True, now, seen_edits=stored.edits)
    assert fresh.refusal is None
    assert fresh.desk is not None
    assert fresh.desk.ready
