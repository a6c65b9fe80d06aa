"""Cheaper order presses (issue 22): the orders screen reads a person's seat, the campaign and
the side's orders once per update, in one snapshot; its saves stay compare-and-set, so a press
racing another write is merged with it or refused as before."""

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from aiogram.methods import EditMessageText
from aiogram.types import CallbackQuery, Chat, Message, User

from bot.handlers.filters import GROUPS, PRIVATE
from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.services.orders import Refusal, Seat, enter_orders, one_update, open_desk, seat_in
from rules import Move
from storage import CampaignStatus, Member, OrdersWrite, Phase, Store, WriteOutcome
from tests.bot.private_campaign import GM, Table, alert, button, open_table, screen
from tests.bot.telegram import FakeTelegram, Sent
from tests.transactions import count_transactions

PLACEMENT = {"1": 4, "2": 3, "3": 3}


async def _orders_open(telegram: FakeTelegram, store: Store, clock: ManualClock) -> Table:
    """Turn 1's orders, open at once (the GM began the turn)."""
    table = await open_table(telegram, store, clock)
    for side in ("red", "blue", "green"):
        await campaigns.place_side(store, table.campaign, side, PLACEMENT, GM, clock.now())
    started = await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, clock.now())
    assert started.advanced
    return table


async def _tap(table: Table, under: Sent, label: str) -> list[Sent]:
    """Anna taps the button ``label`` under ``under``, in the message it is in (as in the app,
    where a screen is edited in place: ``table.tap`` sends each press from a new message)."""
    shown = under.method.message_id if isinstance(under.method, EditMessageText) else None
    assert shown is not None
    table.take()
    user = table.user(201)
    await table.telegram.feed(table.telegram.forged_press(user, 201, button(under, label), shown))
    return table.take()


async def _reinforcement_screen(table: Table) -> Sent:
    """Anna (red) opens /orders and taps the reinforcement: its sector buttons."""
    home = screen(await table.say(201, "/orders"))
    return screen(await table.tap(201, home, "Reinforcement"))


async def test_an_order_press_reads_once_and_writes_only_its_orders(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _orders_open(telegram, store, clock)
    landing = await _reinforcement_screen(table)
    counted = count_transactions(store)
    answered = await _tap(table, landing, "1 Equator")
    assert alert(answered).startswith("Saved")
    # One read for the sender (every update), one snapshot for the seat, campaign and orders;
    # one write: the orders (the screen is edited in place, in the message already known).
    assert (counted.reads, counted.writes) == (2, 1)
    stored = await store.orders(table.campaign.id, 1, "red")
    assert stored is not None
    assert stored.orders.reinforce == "1"


async def test_a_sector_press_and_the_orders_command_read_once(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _orders_open(telegram, store, clock)
    landing = await _reinforcement_screen(table)
    home = screen(await _tap(table, landing, "1 Equator"))
    counted = count_transactions(store)
    sector = screen(await _tap(table, home, "1 Equator: "))
    assert "Move" in " ".join(text for text, _data in sector.buttons())
    assert (counted.reads, counted.writes) == (2, 0)
    counted.reads = counted.writes = 0
    # /orders: the sender, whether a question waits for them (a command ends it), their
    # campaigns (which one is current), the snapshot; the new screen message is remembered.
    shown = screen(await table.say(201, "/orders"))
    assert "orders of Red Legion" in shown.text
    assert (counted.reads, counted.writes) == (4, 1)


async def test_a_press_racing_another_strategists_save_keeps_both_changes(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await _orders_open(telegram, store, clock)
    landing = await _reinforcement_screen(table)
    save = store.save_orders
    saves: list[OrdersWrite] = []

    async def boris_saves_first(*args: Any, **kwargs: Any) -> OrdersWrite:
        # Anna's press read its snapshot; Boris (red too) saves before her save reaches the
        # database, so her compare-and-set finds the set changed.
        monkeypatch.setattr(store, "save_orders", save)
        boris = await seat_in(store, 203, table.campaign.id)
        assert boris is not None
        result = await enter_orders(
            store, boris, [[Move(source="2", to="1", count=1)]], clock.now()
        )
        assert result.changed
        saves.append(await save(*args, **kwargs))
        return saves[0]

    monkeypatch.setattr(store, "save_orders", boris_saves_first)
    answered = await _tap(table, landing, "1 Equator")
    assert [saved.outcome for saved in saves] == [WriteOutcome.CONFLICT]
    assert alert(answered).startswith("Saved")
    stored = await store.orders(table.campaign.id, 1, "red")
    assert stored is not None
    assert stored.orders.reinforce == "1"
    assert stored.orders.moves == (Move(source="2", to="1", count=1),)
    assert stored.edits == 2
    # The screen Anna sees is the merged set, with her as its last editor.
    words = screen(answered).text
    assert "Last change by Anna." in words
    assert "move 1 army from 2 West to 1 Equator" in words
    assert "Reinforcement: 1 Equator" in words


async def test_a_press_racing_the_end_of_the_orders_phase_saves_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await _orders_open(telegram, store, clock)
    landing = await _reinforcement_screen(table)
    save = store.save_orders

    async def phase_ends_first(*args: Any, **kwargs: Any) -> OrdersWrite:
        # The press read the orders phase in its snapshot; the phase ends before its save.
        moved = await store.transition(
            table.campaign.id, 1, Phase.ORDERS, 1, Phase.BATTLES, None, "deadline", clock.now()
        )
        assert moved.applied
        return await save(*args, **kwargs)

    monkeypatch.setattr(store, "save_orders", phase_ends_first)
    answered = await _tap(table, landing, "1 Equator")
    words = alert(answered)
    assert words
    assert not words.startswith("Saved")
    assert await store.orders(table.campaign.id, 1, "red") is None


async def test_a_press_racing_the_gm_ending_the_campaign_saves_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await _orders_open(telegram, store, clock)
    landing = await _reinforcement_screen(table)
    save = store.save_orders

    async def gm_ends_it_first(*args: Any, **kwargs: Any) -> OrdersWrite:
        # The press read a running campaign in its snapshot; the GM ends it before the save
        # (only the status changes: the turn and phase the save compares stay as they were).
        ended = await store.set_status(
            table.campaign.id,
            CampaignStatus.RUNNING,
            CampaignStatus.FINISHED,
            GM,
            "ended",
            clock.now(),
        )
        assert ended.applied
        return await save(*args, **kwargs)

    monkeypatch.setattr(store, "save_orders", gm_ends_it_first)
    answered = await _tap(table, landing, "1 Equator")
    assert alert(answered).endswith("is over: nothing can be changed now.")
    assert await store.orders(table.campaign.id, 1, "red") is None


async def test_a_press_racing_the_gm_vacating_the_seat_saves_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await _orders_open(telegram, store, clock)
    landing = await _reinforcement_screen(table)
    save = store.save_orders

    async def gm_vacates_first(*args: Any, **kwargs: Any) -> OrdersWrite:
        # The press read Anna as red's strategist; the GM takes her seat before the save.
        vacancy = await store.vacate_seat(table.campaign.id, 201, "away", GM, clock.now())
        assert vacancy is not None
        return await save(*args, **kwargs)

    monkeypatch.setattr(store, "save_orders", gm_vacates_first)
    answered = await _tap(table, landing, "1 Equator")
    assert alert(answered).startswith("Only your side's strategists give its orders")
    assert await store.orders(table.campaign.id, 1, "red") is None


async def _anna_as_read_before_the_gm_moved_her(store: Store, table: Table) -> Seat:
    """Anna's seat as an update picked it (red's strategist), read apart from its snapshot."""
    seat = await seat_in(store, 201, table.campaign.id)
    assert seat is not None
    assert seat.side == "red"
    return seat.anew()


async def test_a_player_moved_to_another_side_sees_the_new_sides_set_not_the_old(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _orders_open(telegram, store, clock)
    boris = await seat_in(store, 203, table.campaign.id)
    assert boris is not None
    red = await enter_orders(store, boris, [[Move(source="2", to="1", count=1)]], clock.now())
    assert red.changed
    stale = await _anna_as_read_before_the_gm_moved_her(store, table)
    # The GM moves Anna from red to blue, in Вера's seat.
    vera = await store.vacate_seat(table.campaign.id, 301, "away", GM, clock.now())
    assert vera is not None
    assert await store.vacate_seat(table.campaign.id, 201, "moved", GM, clock.now()) is not None
    moved = await store.fill_seat(vera.id, 201, "Anna", GM, clock.now())
    assert isinstance(moved, Member)
    assert moved.side_id == "blue"
    with one_update():
        opened = await open_desk(store, stale)
    assert opened.refusal is None
    assert opened.desk is not None
    assert opened.desk.side == "blue"
    assert opened.desk.orders.moves == ()


async def test_a_player_the_gm_took_off_their_side_is_refused_as_having_none(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _orders_open(telegram, store, clock)
    stale = await _anna_as_read_before_the_gm_moved_her(store, table)
    assert await store.vacate_seat(table.campaign.id, 201, "away", GM, clock.now()) is not None
    with one_update():
        result = await enter_orders(
            store, stale, [[Move(source="2", to="1", count=1)]], clock.now()
        )
        opened = await open_desk(store, stale)
    assert result.refusal is Refusal.NO_SIDE
    assert opened.refusal is Refusal.NO_SIDE
    assert await store.orders(table.campaign.id, 1, "red") is None


async def test_an_order_press_and_a_typed_message_need_no_worker_thread_for_their_filters(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # aiogram runs a synchronous filter (an ``F`` expression) in a worker thread: the chat-kind
    # filters of the parent routers are awaited instead (bot.handlers.InChats).
    table = await _orders_open(telegram, store, clock)
    landing = await _reinforcement_screen(table)
    threaded: list[object] = []
    original = asyncio.to_thread

    async def to_thread(function: Any, /, *args: Any, **kwargs: Any) -> Any:
        threaded.append(function)
        return await original(function, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", to_thread)
    home = screen(await _tap(table, landing, "1 Equator"))
    assert any("1 Equator: " in text for text, _data in home.buttons())
    assert threaded == []
    # Nor a command, or typed text, that passes the message handlers' filters on its way.
    assert "orders of Red Legion" in screen(await table.say(201, "/orders")).text
    assert await table.say(201, "hello there")
    assert threaded == []


async def test_the_chat_filters_tell_private_chats_from_groups() -> None:
    def message(kind: str) -> Message:
        return Message(
            message_id=1, date=datetime(2026, 1, 1, tzinfo=UTC), chat=Chat(id=-5, type=kind)
        )

    def press(on: Message | None) -> CallbackQuery:
        sender = User(id=7, is_bot=False, first_name="Anna")
        return CallbackQuery(id="1", from_user=sender, chat_instance="c", message=on)

    for kind, private, group in (
        ("private", True, False),
        ("group", False, True),
        ("supergroup", False, True),
        ("channel", False, False),
    ):
        assert await PRIVATE(message(kind)) is private
        assert await GROUPS(message(kind)) is group
        assert await PRIVATE(press(message(kind))) is private
        assert await GROUPS(press(message(kind))) is group
    # A press of a button on an inline message has no chat: neither.
    assert await PRIVATE(press(None)) is False
    assert await GROUPS(press(None)) is False
