"""Several campaigns (issue 23): a GM archives an abandoned campaign and the group starts the next
one, every command then acting on the running one; a person in two campaigns at once switches
with ``/campaigns``, typed orders go to the chosen one, and a button of the other campaign acts
on its own campaign and makes it current, with a note."""

from __future__ import annotations

from datetime import datetime

from aiogram.methods import SendMessage

from bot.runtime.clock import ManualClock
from bot.screens.callbacks import GmPress
from bot.services.campaigns import join_side
from bot.services.clockwork import advance
from storage import (
    AuditAction,
    Campaign,
    CampaignStatus,
    NewCampaign,
    NewSide,
    Phase,
    Role,
    Store,
)
from tests.bot.group_helpers import notices, say, set_up_campaign, tap, to_orders
from tests.bot.private_campaign import GM, Table, alert, open_table, screen
from tests.bot.telegram import FakeTelegram

RAID_GROUP = -2002
PLACEMENTS = {
    "red": {"1": 4, "2": 3, "4": 3},
    "blue": {"1": 3, "3": 5, "5": 2},
    "green": {"2": 4, "3": 3, "5": 3},
    "x": {"1": 4, "2": 3, "4": 3},
    "y": {"1": 3, "3": 5, "5": 2},
}


async def test_a_gm_archives_an_abandoned_campaign_and_the_group_starts_the_next(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    anna, boris, vera = (
        telegram.user(1, "Anna"),
        telegram.user(2, "Boris"),
        telegram.user(3, "Vera"),
    )
    group = telegram.group(-100, "Wargamers")
    first = await set_up_campaign(telegram, store, anna, group)
    await say(telegram, boris, boris.id, "/start")
    await store.request_join(first.id, 2, "Boris", clock.now())
    await join_side(store, first, 2, "Boris", "s1", Role.STRATEGIST, clock.now())
    first = await to_orders(store, first, clock.now())
    audit_before = await store.audit_log(first.id)
    # Nobody but its GM archives it: a player, in the group or in private, is refused.
    end = GmPress(c=first.id, t=first.turn, p=first.phase.value, a="end!").pack()
    for presser in (boris, vera):
        for chat in (group, presser.id):
            await telegram.feed(telegram.forged_press(presser, chat, end))
    assert await store.audit_log(first.id) == audit_before
    assert (await store.active_campaign(group.id)) is not None
    # The GM ends it from the panel in private, after confirming, with a typed reason.
    panel = await say(telegram, anna, anna.id, "/gm")
    sure = await tap(telegram, anna, panel, "End the campaign")
    assert sure is not None
    assert "it goes to the group's archive (/history)" in sure.text
    asked = await tap(telegram, anna, sure, "Yes, end it: type the reason")
    assert asked is not None
    assert asked.text.startswith("«Siege of Vraks»: why does the campaign end? Type the reason")
    assert await store.prompt(anna.id, anna.id) is not None  # stored: a restart keeps the wait
    kept = await say(telegram, anna, anna.id, "/cancel")
    assert kept is not None
    assert kept.text.startswith("Stopped; nothing was changed.")
    assert await store.audit_log(first.id) == audit_before
    sure = await tap(telegram, anna, await say(telegram, anna, anna.id, "/gm"), "End the campaign")
    await tap(telegram, anna, sure, "Yes, end it: type the reason")
    too_long = await say(telegram, anna, anna.id, "x" * 201)
    assert too_long is not None
    assert too_long.text == "A reason has 1 to 200 characters. Type it again, or /cancel."
    assert (await store.active_campaign(group.id)) is not None
    done = await say(telegram, anna, anna.id, "half the players   left\nfor good")
    assert done is not None
    assert done.text == (
        "«Siege of Vraks» is over and archived (/history). The group and the players are told why."
    )
    [entry] = [e for e in await store.audit_log(first.id) if e not in audit_before]
    assert entry.action is AuditAction.STATUS_CHANGED
    assert (entry.actor, entry.after, entry.reason) == (
        1,
        {"status": "finished"},
        "half the players left for good",
    )
    assert (await notices(store, first.id))[-1] == (
        "GM Anna ended «Siege of Vraks». Reason: half the players left for good. It is in the "
        "archive now (/history). Thank you for playing! A GM starts the next campaign with "
        "/newcampaign."
    )
    told = await telegram.deliver()
    assert (
        "«Siege of Vraks» is over: the GM ended it. Reason: half the players left for good. "
        "Thank you for playing!"
    ) in [s.text for s in told if s.chat_id == boris.id]
    assert await store.prompt(anna.id, anna.id) is None
    # The group hears that its campaign is archived, not that it never had one.
    status = await say(telegram, vera, group, "/status")
    assert status is not None
    assert "«Siege of Vraks» is over and archived" in status.text
    orders = await say(telegram, boris, boris.id, "/orders")
    assert orders is not None
    assert "You are in no running campaign now; your finished ones are in /history." in (
        orders.text
    )
    # The next campaign starts in the same group; every command acts on it.
    second = await set_up_campaign(telegram, store, anna, group, title="Second war")
    assert second.id != first.id
    assert second.phase is Phase.DEPLOYMENT
    old = await store.campaign(first.id)
    assert old is not None
    assert old.status is CampaignStatus.FINISHED
    status = await say(telegram, vera, group, "/status")
    assert status is not None
    assert "Second war" in status.text
    assert "Siege of Vraks" not in status.text
    await store.request_join(second.id, 2, "Boris", clock.now())
    await join_side(store, second, 2, "Boris", "s1", Role.STRATEGIST, clock.now())
    deploy = await say(telegram, boris, boris.id, "/deploy")
    assert deploy is not None
    assert deploy.text.startswith("«Second war»: deployment of Red")
    panel = await say(telegram, anna, anna.id, "/gm")
    assert panel is not None
    assert "«Second war»" in panel.text
    # The archive keeps the first: /history in the group opens it (the second has no turn yet).
    history = await say(telegram, vera, group, "/history")
    assert history is not None
    assert history.text.startswith("«Siege of Vraks»: the history.")
    assert any("Summary" in text for text, _data in history.buttons())


async def _place_all(
    store: Store, campaign: Campaign, sides: tuple[str, ...], now: datetime
) -> None:
    for side in sides:
        await store.save_placement(campaign.id, side, PLACEMENTS[side], True, GM, now)


async def _both_in_orders(table: Table) -> Campaign:
    """Siege (the table's) and Raid (another group's), both in turn 1's orders; Anna (201)
    gives Red Legion's orders in Siege and Xenos' in Raid."""
    store, now = table.store, table.clock.now()
    await _place_all(store, table.campaign, ("red", "blue", "green"), now)
    await table.step()
    raid = await store.create_campaign(
        NewCampaign(chat_id=RAID_GROUP, title="Raid", created_by=GM, creator_name="Game Master"),
        now,
    )
    table.telegram.group(RAID_GROUP, "Raiders")
    for side in (
        NewSide(id="x", name="Xenos", colour="#aa00aa"),
        NewSide(id="y", name="Yarrick", colour="#aaaa00"),
    ):
        await store.add_side(raid.id, side, GM, now)
    await store.put_member(raid.id, 201, "Anna", frozenset({Role.STRATEGIST}), "x", GM, now)
    await store.put_member(raid.id, 202, "Carl", frozenset({Role.STRATEGIST}), "y", GM, now)
    opened = await advance(store, raid.id, 0, Phase.SETUP, GM, now)
    assert opened.campaign is not None
    await _place_all(store, opened.campaign, ("x", "y"), now)
    started = await advance(store, raid.id, 0, Phase.DEPLOYMENT, GM, table.clock.now())
    assert started.campaign is not None
    assert started.campaign.phase is Phase.ORDERS
    siege = await table.now_campaign()
    assert siege.phase is Phase.ORDERS
    return started.campaign


async def test_the_switcher_sends_orders_to_the_chosen_campaign_and_a_button_to_its_own(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    raid = await _both_in_orders(table)
    siege = table.campaign
    asked = screen(await table.say(201, "/orders"))
    assert "You play in several campaigns: choose one with /campaigns." in asked.text
    # The list: each campaign with the person's side and role, its phase, what awaits them.
    menu = screen(await table.say(201, "/campaigns"))
    assert "«Siege», turn 1: the orders window is open (/orders)." in menu.text
    assert "You: side «Red Legion», strategist." in menu.text
    assert "You: side «Xenos», strategist." in menu.text
    assert menu.text.count("Awaits you: your side's orders (/orders).") == 2
    assert [text for text, _data in menu.buttons()] == ["Siege", "Raid"]
    # Siege first: its orders screen, kept for later.
    await table.tap(201, menu, "Siege")
    siege_screen = screen(await table.say(201, "/orders"))
    assert siege_screen.text.startswith("«Siege», turn 1: orders of Red Legion")
    # Then Raid: typed orders go to Raid, not to Siege.
    menu = screen(await table.say(201, "/campaigns"))
    chosen = await table.tap(201, menu, "Raid")
    assert alert(chosen) == "Current campaign: Raid"
    assert "▶ «Raid», turn 1" in screen(chosen).text
    person = await store.person(201)
    assert person is not None
    assert person.current_campaign_id == raid.id
    typed = screen(await table.say(201, "reinforce 1"))
    assert "«Raid», turn 1: orders of Xenos" in typed.text
    raid_orders = await store.orders(raid.id, 1, "x")
    assert raid_orders is not None
    assert raid_orders.orders.reinforce == "1"
    assert await store.orders(siege.id, 1, "red") is None
    # A button of Siege's screen acts on Siege, and makes it current with a note.
    pressed = await table.tap(201, siege_screen, "Review and confirm")
    notes = [s for s in pressed if isinstance(s.method, SendMessage)]
    assert [s.text for s in notes] == [
        "That button is from «Siege», so it acted there, and «Siege» is your current campaign "
        "now: /orders, /battles and typed orders go to it. /campaigns switches back."
    ]
    assert "«Siege», turn 1" in screen(pressed).text
    person = await store.person(201)
    assert person is not None
    assert person.current_campaign_id == siege.id
    typed = screen(await table.say(201, "reinforce 2"))
    assert "«Siege», turn 1: orders of Red Legion" in typed.text
    siege_orders = await store.orders(siege.id, 1, "red")
    assert siege_orders is not None
    assert siege_orders.orders.reinforce == "2"
    raid_orders = await store.orders(raid.id, 1, "x")
    assert raid_orders is not None
    assert raid_orders.orders.reinforce == "1"
    # A second press of a Siege button says nothing more: Siege is current already.
    again = await table.tap(201, siege_screen, "Review and confirm")
    assert not [s for s in again if isinstance(s.method, SendMessage)]


async def test_the_switcher_words_each_campaign_in_russian_with_battles_to_report(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await _both_in_orders(table)
    menu = screen(await table.say(203, "/campaigns"))  # Борис: Red Legion in Siege only
    assert "Вы: сторона «Red Legion», стратег." in menu.text
    assert "От вас ждут: приказы вашей стороны (/orders)." in menu.text
    gm = screen(await table.say(GM, "/campaigns"))
    assert gm.text.count("You: GM.") == 2
    assert "3 sides have not confirmed yet (/status in the group)" in gm.text
    assert "2 sides have not confirmed yet (/status in the group)" in gm.text


async def test_a_refusal_names_the_campaign_that_refused(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await _both_in_orders(
        table
    )  # Carl plays Red's battles in Siege, gives Yarrick's orders in Raid
    menu = screen(await table.say(202, "/campaigns"))
    await table.tap(202, menu, "Siege")
    refused = screen(await table.say(202, "reinforce 1"))
    assert refused.text.startswith("«Siege»: Only your side's strategists give its orders")
