"""Joining from the group (one tap, finished in the private chat) and the status board, which
shows readiness and unfinished joins but never what anyone ordered."""

from aiogram.methods import AnswerCallbackQuery, EditMessageText, PinChatMessage, SendMessage
from aiogram.utils.i18n import I18n

from bot.clock import ManualClock
from bot.posts import PostContext, render
from bot.services.campaigns import board_refresh
from bot.services.outbox_sender import OutboxSender
from rules import Attack, Move, SideOrders
from storage import OutboxMessage, Role, Store
from tests.bot.group_helpers import button, say, set_up_campaign, tap, to_orders
from tests.bot.telegram import FakeTelegram


async def _latest_board(store: Store, campaign_id: int) -> OutboxMessage:
    boards = [m for m in await store.outbox_messages(campaign_id) if m.kind == "status_board"]
    assert boards
    return boards[-1]


async def test_a_player_joins_with_one_tap_and_a_side_choice(
    telegram: FakeTelegram, store: Store, i18n: I18n
) -> None:
    anna = telegram.user(1, "Anna")
    boris = telegram.user(2, "Boris")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    announcement = telegram.sent[-1]
    telegram.take()
    await telegram.feed(telegram.press(boris, announcement, button(announcement, "Join")))
    answers = [s.method for s in telegram.take() if isinstance(s.method, AnswerCallbackQuery)]
    assert [a.url for a in answers] == [f"https://t.me/strategium_bot?start=join-{campaign.id}"]
    assert [r.user_id for r in await store.join_requests(campaign.id)] == [2]
    status = await say(telegram, anna, group, "/status")
    assert status is not None
    assert "Still to open a private chat with me (tap Join, then Start): Boris" in status.text
    context = PostContext(store=store, i18n=i18n, bot_username="strategium_bot")
    post = await render(context, await _latest_board(store, campaign.id))
    assert post is not None
    assert "Boris" in post.text
    assert post.pin
    sides = await say(telegram, boris, boris.id, f"/start join-{campaign.id}")
    assert sides is not None
    assert sides.chat_id == 2
    assert "which side do you play?" in sides.text
    roles = await tap(telegram, boris, sides, "Red")
    assert roles is not None
    assert "Red: which role?" in roles.text
    done = await tap(telegram, boris, roles, "Strategist")
    assert done is not None
    assert isinstance(done.method, EditMessageText)
    assert "You play Red as strategist" in done.text
    member = await store.member(campaign.id, 2)
    assert member is not None
    assert member.roles == frozenset({Role.STRATEGIST})
    assert await store.join_requests(campaign.id) == []
    notices = [m for m in await store.outbox_messages(campaign.id) if m.kind == "text"]
    assert [n.payload["text"] for n in notices] == ["Boris joined Red as strategist."]
    assert all(n.chat_id == -100 for n in notices)
    again = await say(telegram, boris, group, "/join")
    assert again is not None
    assert "You already play in this campaign" in again.text


async def test_a_russian_player_joins_in_russian(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    vera = telegram.user(3, "Вера", language="ru")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    link = await say(telegram, vera, group, "/join")
    assert link is not None
    assert "Open the private chat" in " ".join(t for t, _ in link.buttons())  # group: English
    sides = await say(telegram, vera, vera.id, f"/start join-{campaign.id}")
    assert sides is not None
    assert "за какую сторону" in sides.text
    roles = await tap(telegram, vera, sides, "Blue")
    done = await tap(telegram, vera, roles, "Тактик")
    assert done is not None
    assert "Вы играете за Blue" in done.text
    member = await store.member(campaign.id, 3)
    assert member is not None
    assert member.roles == frozenset({Role.TACTICIAN})


async def test_join_refusals_say_what_to_do(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    boris = telegram.user(2, "Boris")
    empty = telegram.group(-300, "Empty")
    no_campaign = await say(telegram, boris, empty, "/join")
    assert no_campaign is not None
    assert "A GM starts one with /newcampaign" in no_campaign.text
    gone = await say(telegram, boris, boris.id, "/start join-999")
    assert gone is not None
    assert "over or does not exist" in gone.text
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    telegram.take()
    await telegram.feed(telegram.forged_press(boris, boris.id, f"jc:{campaign.id}:s9:strategist"))
    await telegram.feed(telegram.forged_press(boris, boris.id, f"jc:{campaign.id}:s1:gm"))
    sent = telegram.take()
    assert all(isinstance(s.method, AnswerCallbackQuery) and s.method.show_alert for s in sent)
    assert await store.member(campaign.id, 2) is None
    private = await say(telegram, boris, boris.id, "/join")
    assert private is not None
    assert "works in the campaign's group chat" in private.text


async def test_the_status_board_never_shows_orders(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    campaign = await to_orders(store, campaign, clock.now())
    red, blue = (side.id for side in await store.sides(campaign.id))
    secret = SideOrders(
        moves=(Move(source="2", to="1", count=2),),
        attacks=(Attack(sector="1", target=blue),),
        reinforce="4",
    )
    await store.save_orders(campaign.id, 1, red, secret, False, 1, clock.now())
    status = await say(telegram, anna, group, "/status")
    assert status is not None
    assert status.text.splitlines() == [
        "Siege of Vraks",
        "Turn 1: orders",
        "Deadline: Thu 5 Mar, 23:59 (Europe/Moscow).",
        "",
        "🟧 Red (no players yet): ✏️ saved, not marked ready",
        "🩵 Blue (no players yet): 💤 nothing yet",
    ]
    mine = await say(telegram, anna, group, "/status Asia/Omsk")
    assert mine is not None
    assert "In Asia/Omsk: Fri 6 Mar, 02:59 (Asia/Omsk)." in mine.text
    unknown = await say(telegram, anna, group, "/status Mars")
    assert unknown is not None
    assert "I do not know the time zone «Mars»" in unknown.text
    await store.save_orders(campaign.id, 1, red, secret, True, 1, clock.now())
    board = await render(
        PostContext(store=store, i18n=i18n, bot_username="strategium_bot"),
        await store.enqueue(board_refresh(campaign, "test", clock.now()), clock.now()),
    )
    assert board is not None
    assert "🟧 Red (no players yet): ✅ ready" in board.text
    for word in ("attack", "move", "reinforce", "West", "North", "2 ->", "x2"):
        assert word not in board.text


async def test_a_burst_of_board_changes_gives_one_edit(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    await store.set_status_message(campaign.id, 555)
    context = PostContext(store=store, i18n=i18n, bot_username="strategium_bot")
    boards = [m for m in await store.outbox_messages(campaign.id) if m.kind == "status_board"]
    newest = await store.enqueue(board_refresh(campaign, "later", clock.now()), clock.now())
    assert await render(context, boards[-1]) is None
    post = await render(context, newest)
    assert post is not None
    assert post.edit_message_id == 555
    assert post.on_sent is not None
    await post.on_sent(777)
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.status_message_id == 777


async def test_the_board_is_pinned_once_then_edited_in_place(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    anna = telegram.user(1, "Anna")
    boris = telegram.user(2, "Boris")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    sender = OutboxSender(telegram.bot, store, clock, i18n)
    await sender.send_due()
    await sender.send_due()
    first = [s for s in telegram.take() if s.chat_id == -100]
    boards = [s for s in first if "Siege of Vraks\nDeployment" in s.text]
    assert len(boards) == 1
    assert isinstance(boards[0].method, SendMessage)
    assert any(isinstance(s.method, PinChatMessage) for s in first)
    stored = await store.campaign(campaign.id)
    assert stored is not None
    pinned = stored.status_message_id
    assert pinned is not None
    await say(telegram, boris, group, "/join")
    await say(telegram, anna, group, "/join")
    telegram.take()
    for _ in range(3):
        await sender.send_due()
    edits = [s.method for s in telegram.take() if isinstance(s.method, EditMessageText)]
    assert len(edits) == 1, "two changes, one edit"
    assert edits[0].message_id == pinned
    assert "Still to open a private chat with me (tap Join, then Start): Anna, Boris" in (
        edits[0].text or ""
    )
