"""The GM's no-show tools through the dispatcher (issue 23): the no-show policy on the settings
screen, and reopening one side's orders from the GM panel."""

from datetime import UTC, datetime, timedelta

from aiogram.methods import AnswerCallbackQuery

from bot.handlers.group.reopen import ReopenPress
from bot.runtime.clock import ManualClock
from bot.screens.callbacks import GmPress
from bot.services.clockwork import advance
from bot.services.orders import Refusal, enter_orders, seat_in
from bot.services.schedule import CampaignScheduler
from rules import Attack, Reinforce, SideOrders
from storage import AuditAction, NoShowPolicy, Phase, Store
from tests.bot.group_helpers import button, notices, tap, to_orders
from tests.bot.telegram import FakeTelegram, Sent
from tests.bot.test_group_gm import Table


def _alert(sent: list[Sent]) -> str:
    answers = [s.method for s in sent if isinstance(s.method, AnswerCallbackQuery)]
    assert len(answers) == 1
    assert answers[0].show_alert
    return answers[0].text or ""


async def test_the_gm_sets_the_no_show_policy_and_the_group_is_told(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    settings = await tap(telegram, table.anna, await table.panel(), "Settings and sides")
    assert settings is not None
    assert "A side without orders at the deadline: it holds: every sector fortifies." in (
        settings.text
    )
    choices = await tap(telegram, table.anna, settings, "A side without orders")
    assert choices is not None
    assert choices.text.startswith("A side without orders at the deadline:\n• it holds")
    assert [label for label, _data in choices.buttons()] == [
        "• Hold",
        "Repeat last turn's orders",
        "Wait for the GM",
        "◀ Settings",
    ]
    await tap(telegram, table.anna, choices, "Repeat last turn's orders")
    changed = await store.campaign(campaign.id)
    assert changed is not None
    assert changed.no_show_policy is NoShowPolicy.REPEAT
    assert (await notices(store, campaign.id))[-1] == (
        "GM Anna changed what happens to a side without orders: it repeats last turn's orders "
        "(those still valid)."
    )
    audit = [e for e in await store.audit_log(campaign.id) if e.action == "settings_changed"]
    assert audit[-1].actor == table.anna.id
    # Boris (a player) forges the button: refused, nothing changes.
    telegram.take()
    data = GmPress(c=campaign.id, t=0, p="deployment", a="nsp", v="wait_for_gm").pack()
    await telegram.feed(telegram.forged_press(table.boris, table.group, data))
    assert "Only this campaign's GM" in _alert(telegram.take())
    still = await store.campaign(campaign.id)
    assert still is not None
    assert still.no_show_policy is NoShowPolicy.REPEAT


async def test_the_gm_reopens_one_sides_orders_before_the_battle_list_is_posted(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    campaign = await to_orders(store, campaign, clock.now())
    red, blue = (side.id for side in await store.sides(campaign.id))
    red_orders = SideOrders(attacks=(Attack(sector="1", target=blue),), reinforce="4")
    await store.save_orders(campaign.id, 1, red, red_orders, True, table.boris.id, clock.now())
    # The orders close; the battle list waits for its posting time, six hours on.
    closed = await advance(
        store,
        campaign.id,
        1,
        Phase.ORDERS,
        None,
        clock.now(),
        post_at=clock.now() + timedelta(hours=6),
    )
    assert closed.advanced
    sides = await tap(telegram, table.anna, await table.panel(), "Reopen a side's orders")
    assert sides is not None
    assert "Whose orders do you reopen?" in sides.text
    hours = await tap(telegram, table.anna, sides, "Blue")
    assert hours is not None
    assert hours.text == "Reopen the orders of side «Blue» for how long?"
    done = await tap(telegram, table.anna, hours, "3 h")
    assert done is not None
    assert done.text.startswith("Reopened: side «Blue» may change its orders until ")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert (stored.turn, stored.phase) == (1, Phase.ORDERS)
    kept = await store.orders(campaign.id, 1, red)
    assert kept is not None
    assert kept.orders == red_orders  # Red's orders are untouched
    audit = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.ORDERS_REOPENED
    ]
    assert [e.actor for e in audit] == [table.anna.id]
    posts = [
        m
        for m in await store.outbox_messages(campaign.id)
        if m.kind == "orders_reopened" and m.chat_id == campaign.chat_id
    ]
    assert len(posts) == 1
    assert set(posts[0].payload) == {"campaign_id", "side", "deadline"}  # no orders in it
    assert "battle_list" not in [
        m.kind for m in await store.outbox_messages(campaign.id) if m.state.value == "pending"
    ]
    # Only Blue may change its orders now: Boris (Red) is refused.
    seat = await seat_in(store, table.boris.id, campaign.id)
    assert seat is not None
    refused = await enter_orders(store, seat, [(Reinforce(sector="2"),)], clock.now())
    assert refused.refusal is Refusal.REOPENED_FOR_OTHER


async def test_reopening_is_refused_to_anyone_but_the_gm_and_while_the_window_is_open(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    campaign = await to_orders(store, campaign, clock.now())
    red = (await store.sides(campaign.id))[0].id
    data = ReopenPress(c=campaign.id, t=1, p="orders", s=red, h=3).pack()
    telegram.take()
    await telegram.feed(telegram.forged_press(table.boris, table.group, data))
    assert "Only this campaign's GM" in _alert(telegram.take())
    await telegram.feed(telegram.forged_press(table.anna, table.anna.id, data))
    assert "still open for every side" in _alert(telegram.take())
    assert AuditAction.ORDERS_REOPENED not in [e.action for e in await store.audit_log(campaign.id)]


async def test_wait_for_the_gm_alarms_then_the_gm_closes_the_orders_and_the_silent_side_holds(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """The whole wait-for-the-GM path: the orders deadline passes with Blue silent, the
    scheduler stops and alarms the GM, who advances and confirms the close; Blue holds."""
    table = Table(telegram)
    campaign = await table.start(store, clock)
    settings = await tap(telegram, table.anna, await table.panel(), "Settings and sides")
    choices = await tap(telegram, table.anna, settings, "A side without orders")
    await tap(telegram, table.anna, choices, "Wait for the GM")
    campaign = await to_orders(store, campaign, clock.now())
    red, blue = (side.id for side in await store.sides(campaign.id))
    red_orders = SideOrders(attacks=(Attack(sector="1", target=blue),), reinforce="4")
    await store.save_orders(campaign.id, 1, red, red_orders, True, table.boris.id, clock.now())
    await telegram.deliver()
    # Thursday 23:59 in Moscow has passed: the scheduler's sweep stops at the orders.
    clock.set(datetime(2026, 3, 5, 21, 0, tzinfo=UTC))
    await CampaignScheduler(store, clock).run_due(clock.now())
    waiting = await store.campaign(campaign.id)
    assert waiting is not None
    assert (waiting.turn, waiting.phase) == (1, Phase.ORDERS)
    alarms = [s for s in await telegram.deliver() if "gave no orders" in s.text]
    assert [s.chat_id for s in alarms] == [table.anna.id]
    assert "these sides gave no orders: Blue. By the campaign's rule it waits for you" in (
        alarms[0].text
    )
    # Anna: /gm, «Advance now», «Yes, close the orders»: refused with the reason and the offer.
    await tap(telegram, table.anna, await table.panel(), "Advance now")
    question = telegram.sent[-1]
    assert question.text.splitlines() == [
        "End turn 1's orders now?",
        "Orders given: 1 of 2 sides.",
        "Sides without orders: the campaign waits for you; you can then close the orders anyway "
        "(they hold).",
        "The battle list goes out at once; results are due Mon 9 Mar, 12:00 (Moscow, UTC+3).",
    ]
    telegram.take()
    await telegram.feed(
        telegram.press(table.anna, question, button(question, "Yes, close the orders"))
    )
    sent = telegram.take()
    assert "some sides gave no orders and the campaign waits for you" in _alert(sent)
    offer = sent[-1]
    assert offer.text == (
        "Close the orders of turn 1 now? Sides that gave no orders hold: every sector of theirs "
        "fortifies."
    )
    still = await store.campaign(campaign.id)
    assert still is not None
    assert still.phase is Phase.ORDERS
    await tap(telegram, table.anna, offer, "Yes, close the orders now")
    closed = await store.campaign(campaign.id)
    assert closed is not None
    assert (closed.turn, closed.phase) == (1, Phase.BATTLES)
    assert blue not in await store.orders_for_turn(campaign.id, 1)  # Blue holds
    kept = await store.orders(campaign.id, 1, red)
    assert kept is not None
    assert kept.orders == red_orders
    battle_list = await store.battle_list(campaign.id, 1)
    assert battle_list is not None
    assert [(b.attacker, b.defender, b.sector, b.fortified) for b in battle_list.battles] == [
        (red, blue, "1", blue)  # Blue's sector 1 fortifies
    ]
