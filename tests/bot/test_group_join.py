"""Joining from the group (one tap, finished in the private chat) and the status board, which
shows readiness and unfinished joins but never what anyone ordered."""

from aiogram.methods import AnswerCallbackQuery, EditMessageText, PinChatMessage, SendMessage
from aiogram.utils.i18n import I18n

from bot.posts import PostContext, render
from bot.runtime.clock import ManualClock
from bot.services.campaigns import board_refresh
from bot.services.outbox_sender import OutboxSender
from rules import Attack, Move, SideOrders
from storage import Campaign, OutboxMessage, Role, Store
from tests.bot.group_helpers import button, join_post, say, set_up_campaign, tap, to_orders
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
    announcement = await join_post(telegram)
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
    notices = [
        m for m in await store.outbox_messages(campaign.id) if m.kind == "text" and m.chat_id < 0
    ]
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
    assert "Вы играете за сторону «Blue»" in done.text
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
    assert len(sent) == 2, "each forged press is answered"
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
        "Deadline: Thu 5 Mar, 23:59 (Moscow, UTC+3).",
        "",
        "🟥 Red (no players yet): ✏️ saved, not marked ready; holds 0 of 3 sectors",
        "🟦 Blue (no players yet): 💤 nothing yet; holds 0 of 3 sectors",
    ]
    mine = await say(telegram, anna, group, "/status Asia/Omsk")
    assert mine is not None
    assert "That is Fri 6 Mar, 02:59 (Omsk, UTC+6)." in mine.text
    by_city = await say(telegram, anna, group, "/status Омск")
    assert by_city is not None
    assert "That is Fri 6 Mar, 02:59 (Omsk, UTC+6)." in by_city.text
    unknown = await say(telegram, anna, group, "/status Mars")
    assert unknown is not None
    assert "I do not know the time zone «Mars»" in unknown.text
    await store.save_orders(campaign.id, 1, red, secret, True, 1, clock.now())
    board = await render(
        PostContext(store=store, i18n=i18n, bot_username="strategium_bot"),
        await store.enqueue(board_refresh(campaign, "test", clock.now()), clock.now()),
    )
    assert board is not None
    assert "🟥 Red (no players yet): ✅ ready; holds 0 of 3 sectors" in board.text
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
    later = telegram.take()
    edits = [s.method for s in later if isinstance(s.method, EditMessageText)]
    assert len(edits) == 1, "two changes, one edit"
    assert edits[0].message_id == pinned
    assert not [s for s in later if isinstance(s.method, PinChatMessage)], "an edit keeps its pin"
    assert "Still to open a private chat with me (tap Join, then Start): Anna, Boris" in (
        edits[0].text or ""
    )


class Joined:
    """A campaign in deployment whose GM Anna opened the private chat, the group's announcement
    with the «Join» button, and Boris, who joined Red through the group and the private chat."""

    def __init__(self, telegram: FakeTelegram) -> None:
        self.telegram = telegram
        self.anna = telegram.user(1, "Anna")
        self.boris = telegram.user(2, "Boris")
        self.eve = telegram.user(5, "Eve")
        self.group = telegram.group(-100, "Wargamers")

    async def start(self, store: Store, boris_joins: bool = True) -> Campaign:
        telegram, boris = self.telegram, self.boris
        campaign = await set_up_campaign(telegram, store, self.anna, self.group)
        self.announcement = await join_post(telegram)
        await say(telegram, self.anna, self.anna.id, "/start")
        await say(telegram, self.eve, self.eve.id, "/start")
        self.red, self.blue = (side.id for side in await store.sides(campaign.id))
        if boris_joins:
            await say(telegram, boris, self.group, "/join")
            sides = await say(telegram, boris, boris.id, f"/start join-{campaign.id}")
            await tap(telegram, boris, await tap(telegram, boris, sides, "Red"), "Strategist")
        telegram.take()
        return campaign


async def test_a_stranger_cannot_join_with_the_link_alone(
    telegram: FakeTelegram, store: Store
) -> None:
    table = Joined(telegram)
    campaign = await table.start(store, boris_joins=False)
    link = await say(telegram, table.eve, table.eve.id, f"/start join-{campaign.id}")
    assert link is not None
    assert "tap «Join» under the campaign's post in its group" in link.text
    assert link.buttons() == []
    assert await store.member(campaign.id, 5) is None


async def test_a_stranger_cannot_join_with_a_forged_button(
    telegram: FakeTelegram, store: Store
) -> None:
    table = Joined(telegram)
    campaign = await table.start(store, boris_joins=False)
    outbox_before = await store.outbox_messages(campaign.id)
    for data in (f"jc:{campaign.id}:{table.blue}:", f"jc:{campaign.id}:{table.blue}:strategist"):
        telegram.take()
        await telegram.feed(telegram.forged_press(table.eve, table.eve.id, data))
        sent = telegram.take()
        assert [type(s.method) for s in sent] == [AnswerCallbackQuery]
        assert "tap «Join» under the campaign's post" in sent[0].text
    assert await store.member(campaign.id, 5) is None
    assert await store.outbox_messages(campaign.id) == outbox_before


async def test_after_setup_the_gms_hear_of_a_new_player_in_private(
    telegram: FakeTelegram, store: Store
) -> None:
    table = Joined(telegram)
    campaign = await table.start(store)
    gm_notes = [
        str(m.payload["text"])
        for m in await store.outbox_messages(campaign.id)
        if m.kind == "text" and m.chat_id == table.anna.id
    ]
    assert gm_notes == [
        "Boris joined Red as strategist in «Siege of Vraks» and now sees that side's plans. "
        "If they should not play, remove them: /gm in the group, then Members."
    ]


async def test_a_player_cannot_switch_sides_by_joining_again(
    telegram: FakeTelegram, store: Store
) -> None:
    table = Joined(telegram)
    campaign = await table.start(store)
    boris, red, blue = table.boris, table.red, table.blue
    # A player cannot switch sides by joining again: only the GM moves players.
    outbox_before = await store.outbox_messages(campaign.id)
    again = await say(telegram, boris, boris.id, f"/start join-{campaign.id}")
    assert again is not None
    assert "Only the GM can move you to another side" in again.text
    telegram.take()
    await telegram.feed(
        telegram.forged_press(boris, boris.id, f"jc:{campaign.id}:{blue}:tactician")
    )
    sent = telegram.take()
    assert [type(s.method) for s in sent] == [AnswerCallbackQuery]
    assert "Only the GM can move you" in sent[0].text
    member = await store.member(campaign.id, 2)
    assert member is not None
    assert (member.side_id, member.roles) == (red, frozenset({Role.STRATEGIST}))
    assert await store.outbox_messages(campaign.id) == outbox_before


async def test_a_removed_player_cannot_rejoin_until_the_gm_lets_them(
    telegram: FakeTelegram, store: Store
) -> None:
    table = Joined(telegram)
    campaign = await table.start(store)
    anna, boris, group, announcement = table.anna, table.boris, table.group, table.announcement
    blue = table.blue
    # The GM removes Boris: he cannot ask again, nor use the link or a button, until let back.
    panel = await say(telegram, anna, anna.id, "/gm")
    who = await tap(telegram, anna, await tap(telegram, anna, panel, "Members"), "Boris")
    confirm = await tap(telegram, anna, who, "Remove")
    assert confirm is not None
    assert "They cannot join again until you let them" in confirm.text
    await tap(telegram, anna, confirm, "Yes, remove Boris")
    assert await store.member(campaign.id, 2) is None
    outbox_before = await store.outbox_messages(campaign.id)
    refused = await say(telegram, boris, group, "/join")
    assert refused is not None
    assert "The GM removed you from «Siege of Vraks»" in refused.text
    assert "ask the GM to let you back in" in refused.text
    telegram.take()
    await telegram.feed(telegram.press(boris, announcement, button(announcement, "Join")))
    answer = telegram.take()[-1].method
    assert isinstance(answer, AnswerCallbackQuery)
    assert answer.url is None
    assert "The GM removed you" in (answer.text or "")
    link = await say(telegram, boris, boris.id, f"/start join-{campaign.id}")
    assert link is not None
    assert "The GM removed you" in link.text
    telegram.take()
    await telegram.feed(
        telegram.forged_press(boris, boris.id, f"jc:{campaign.id}:{blue}:strategist")
    )
    assert "The GM removed you" in telegram.take()[-1].text
    assert await store.member(campaign.id, 2) is None
    assert await store.join_requests(campaign.id) == []
    assert await store.outbox_messages(campaign.id) == outbox_before

    # The GM lets him back: he asks again in the group and joins like anyone.
    panel = await say(telegram, anna, anna.id, "/gm")
    members = await tap(telegram, anna, panel, "Members")
    await tap(telegram, anna, members, "Let Boris join again")
    readmitted = [e for e in await store.audit_log(campaign.id) if e.action == "member_readmitted"]
    assert [e.actor for e in readmitted] == [anna.id]
    assert isinstance(readmitted[0].before, dict)
    assert readmitted[0].before["user_id"] == 2
    await say(telegram, boris, group, "/join")
    sides = await say(telegram, boris, boris.id, f"/start join-{campaign.id}")
    await tap(telegram, boris, await tap(telegram, boris, sides, "Blue"), "Tactician")
    member = await store.member(campaign.id, 2)
    assert member is not None
    assert (member.side_id, member.roles) == (blue, frozenset({Role.TACTICIAN}))
