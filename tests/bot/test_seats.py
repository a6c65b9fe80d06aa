"""Replacing a player who vanished (issue 23): a GM marks a seat vacant with a reason, the group
is told with a «Join» button, the old player is refused at once, and the GM gives the seat to a
newcomer (from the requests, or by approving one); the newcomer sees their side's own screens
and nothing of another side's secret orders. Every step is audited and refused to non-GMs."""

from __future__ import annotations

import pytest
from aiogram.methods import AnswerCallbackQuery
from aiogram.types import Chat, User

from bot.handlers.private.callbacks import OrdersButton
from bot.runtime.clock import ManualClock
from bot.screens.callbacks import SeatPress
from bot.services.campaigns import JoinOutcome, join_side
from rules import Attack, Move, SideOrders
from storage import AuditAction, Campaign, CampaignSettings, JoiningPolicy, Phase, Role, Store
from tests.bot.group_helpers import button, join_post, say, set_up_campaign, tap, to_orders
from tests.bot.telegram import FakeTelegram, Sent
from tests.secrecy import assert_log_keeps, logfmt, printed_forms, read_the_log

GROUP = -100
BLUE_ORDERS = SideOrders(
    moves=(Move(source="3", to="2", count=4),),
    attacks=(Attack(sector="1", target="s1"),),
    reinforce="5",
)


def _alerts(sent: list[Sent]) -> list[str]:
    return [
        s.method.text or ""
        for s in sent
        if isinstance(s.method, AnswerCallbackQuery) and s.method.show_alert
    ]


class Table:
    """GM Anna; Boris plays Red (strategist), Dora plays Blue (strategist); Vera and Gleb
    are in the group."""

    def __init__(self, telegram: FakeTelegram) -> None:
        self.telegram = telegram
        self.anna = telegram.user(1, "Anna")
        self.boris = telegram.user(2, "Boris")
        self.vera = telegram.user(3, "Вера", language="ru")
        self.gleb = telegram.user(4, "Gleb")
        self.dora = telegram.user(5, "Dora")
        self.group = telegram.group(GROUP, "Wargamers")

    async def start(self, store: Store, clock: ManualClock) -> Campaign:
        """The campaign in turn 1's orders; Blue's orders saved (secret)."""
        telegram = self.telegram
        campaign = await set_up_campaign(telegram, store, self.anna, self.group)
        await say(telegram, self.anna, self.anna.id, "/start")
        announcement = await join_post(telegram)
        for user, side in ((self.boris, "Red"), (self.dora, "Blue")):
            await telegram.feed(telegram.press(user, announcement, button(announcement, "Join")))
            sides = await say(telegram, user, user.id, f"/start join-{campaign.id}")
            roles = await tap(telegram, user, sides, side)
            await tap(telegram, user, roles, "Strategist")
        campaign = await to_orders(store, campaign, clock.now())
        await store.save_orders(campaign.id, 1, "s2", BLUE_ORDERS, False, self.dora.id, clock.now())
        await telegram.deliver()
        telegram.take()
        return campaign

    async def vacate_boris(self, reason: str = "silent for two weeks") -> Sent | None:
        """Anna: /gm, «Replace a player», Boris, the reason."""
        telegram = self.telegram
        panel = await say(telegram, self.anna, self.anna.id, "/gm")
        seats = await tap(telegram, self.anna, panel, "Replace a player")
        asked = await tap(telegram, self.anna, seats, "Boris")
        assert asked is not None
        assert "why does Boris leave side «Red»?" in asked.text
        return await say(telegram, self.anna, self.anna.id, reason)


async def test_the_gm_vacates_a_seat_and_the_old_player_is_refused_at_once(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    old_screen = await say(telegram, table.boris, table.boris.id, "/orders")
    assert old_screen is not None
    assert "Red" in old_screen.text
    done = await table.vacate_boris()
    assert done is not None
    assert done.text.startswith("Done: Boris no longer plays side «Red».")
    boris = await store.member(campaign.id, 2)
    assert boris is not None
    assert (boris.side_id, boris.roles) == (None, frozenset())
    [vacancy] = await store.vacancies(campaign.id)
    assert (vacancy.side_id, vacancy.roles, vacancy.reason) == (
        "s1",
        frozenset({Role.STRATEGIST}),
        "silent for two weeks",
    )
    [entry] = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.SEAT_VACATED
    ]
    assert (entry.actor, entry.reason) == (1, "silent for two weeks")
    told = await telegram.deliver()
    [post] = [s for s in told if s.chat_id == GROUP and "open seat" in s.text]
    assert post.text == (
        "GM Anna: side «Red» has an open seat (strategist); Boris no longer plays it. "
        "Reason: silent for two weeks. To take the seat, tap «Join»: the GM chooses the new "
        "player."
    )
    assert [label for label, _data in post.buttons()] == ["🙋 Join"]
    [to_boris] = [s for s in told if s.chat_id == 2]
    assert "the GM marked your seat on side «Red» vacant" in to_boris.text
    # His private screens of Red refuse him at once: a command and his old screen's buttons.
    refused = await say(telegram, table.boris, table.boris.id, "/orders")
    assert refused is not None
    assert "Red" not in refused.text
    telegram.take()
    await telegram.feed(
        telegram.press(table.boris, old_screen, button(old_screen, "Fortify everything"))
        if any("Fortify everything" in t for t, _ in old_screen.buttons())
        else telegram.forged_press(
            table.boris,
            table.boris.id,
            OrdersButton(campaign=campaign.id, turn=1, action="rev", side="s1").pack(),
        )
    )
    assert _alerts(telegram.take())
    orders = await store.orders_for_turn(campaign.id, 1)
    assert "s1" not in orders  # nothing saved for Red by him


async def test_a_typed_reason_is_checked_and_cancel_changes_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    long = await table.vacate_boris("x" * 201)
    assert long is not None
    assert long.text == "A reason has 1 to 200 characters. Type it again, or /cancel."
    stopped = await say(telegram, table.anna, table.anna.id, "/cancel")
    assert stopped is not None
    assert stopped.text.startswith("Stopped; nothing was changed.")
    assert await store.vacancies(campaign.id) == []
    boris = await store.member(campaign.id, 2)
    assert boris is not None
    assert boris.side_id == "s1"


async def test_a_reason_that_reads_as_orders_is_not_posted(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    # Found by the random campaigns' bench (seeds 20342, 20353): a GM who plays left the
    # reason's question open, came back half an hour later and typed the side's orders; they
    # were posted to the group as the reason.
    table = Table(telegram)
    campaign = await table.start(store, clock)
    for typed in ("attack Blue in 1 Equator", "move 2 armies from 1 Equator to 2 West\nfortify 1"):
        refused = await table.vacate_boris(typed)
        assert refused is not None
        assert refused.text.startswith("That reads like orders or a placement"), refused.text
        await telegram.deliver()
        assert not [s for s in telegram.take() if s.chat_id == GROUP]
        assert await store.vacancies(campaign.id) == []
        await say(telegram, table.anna, table.anna.id, "/cancel")
    done = await table.vacate_boris("moved to Omsk")  # a reason that names no order is taken
    assert done is not None
    assert done.text.startswith("Done: Boris no longer plays side «Red».")


async def test_the_gm_gives_the_seat_to_a_newcomer_who_asked_and_sees_only_their_side(
    telegram: FakeTelegram, store: Store, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    read_the_log(caplog)
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await table.vacate_boris()
    post = [s for s in await telegram.deliver() if s.chat_id == GROUP and "open seat" in s.text]
    # Vera taps «Join» under the announcement; the side list marks the open seat.
    await telegram.feed(telegram.press(table.vera, post[0], button(post[0], "Join")))
    sides = await say(telegram, table.vera, table.vera.id, f"/start join-{campaign.id}")
    assert sides is not None
    assert "Red · свободное место" in next(label for label, _data in sides.buttons())
    telegram.take()
    panel = await say(telegram, table.anna, table.anna.id, "/gm")
    seats = await tap(telegram, table.anna, panel, "Replace a player")
    offer = await tap(telegram, table.anna, seats, "Fill the open seat of «Red»")
    assert offer is not None
    assert offer.text.startswith(
        "Side «Red», the seat of Boris (strategist; reason: silent for two weeks)."
    )
    labels = [label for label, _data in offer.buttons()]
    assert labels[0] == "✋ Вера (asked to join)"
    assert "Boris" in labels  # the old player may have the seat back (a mistake undone)
    assert not any("Dora" in label for label in labels)  # she plays Blue
    telegram.take()
    await telegram.feed(telegram.press(table.anna, offer, button(offer, "Вера")))
    answered = telegram.take()
    assert any(
        isinstance(s.method, AnswerCallbackQuery)
        and (s.method.text or "").startswith("Done: Вера plays side «Red» now (strategist).")
        for s in answered
    )
    vera = await store.member(campaign.id, 3)
    assert vera is not None
    assert (vera.side_id, vera.roles) == ("s1", frozenset({Role.STRATEGIST}))
    assert await store.vacancies(campaign.id) == []
    assert await store.join_request(campaign.id, 3) is None
    actions = [e.action for e in await store.audit_log(campaign.id)]
    assert AuditAction.SEAT_FILLED in actions
    told = await telegram.deliver()
    assert "GM Anna gave the open seat of side «Red» to Вера (strategist)." in [
        s.text for s in told if s.chat_id == GROUP
    ]
    [welcome] = [s for s in told if s.chat_id == 3]
    assert welcome.text.startswith("Теперь вы играете за сторону «Red» в кампании «Siege of Vraks»")
    # She gives Red's orders now; nothing she is sent shows Blue's.
    screen = await say(telegram, table.vera, table.vera.id, "/orders")
    assert screen is not None
    assert "Red" in screen.text
    typed = await say(telegram, table.vera, table.vera.id, "fortify 1; reinforce 4")
    assert typed is not None
    orders = await store.orders_for_turn(campaign.id, 1)
    assert orders["s1"].updated_by == 3
    for command in ("/map", "/history", "/battles", "/status"):
        await say(telegram, table.vera, table.vera.id, command)
    to_vera = [s for s in telegram.take() + told if s.chat_id == 3]
    blue_words = ("3 → 2", "4 армии из сектора 3", "атака", "Blue: ")
    for sent in to_vera:
        assert not any(word in sent.text for word in blue_words), sent.text
    assert_log_keeps(
        logfmt(caplog.records), printed_forms([*BLUE_ORDERS.moves, *BLUE_ORDERS.attacks])
    )


async def test_an_approved_request_fills_the_seat_even_when_joining_is_closed(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await store.update_settings(
        campaign.id, CampaignSettings(joining=JoiningPolicy.OPEN_THEN_CLOSED), 1, clock.now()
    )
    refused = await say(telegram, table.gleb, table.group, "/join")
    assert refused is not None
    assert "takes no new players now" in refused.text
    await table.vacate_boris()
    await telegram.deliver()
    await say(telegram, table.gleb, table.group, "/join")
    await say(telegram, table.gleb, table.gleb.id, "/start")
    sides = await say(telegram, table.gleb, table.gleb.id, f"/start join-{campaign.id}")
    assert sides is not None
    assert [label for label, _data in sides.buttons()] == ["🟥 Red · open seat"]
    roles = await tap(telegram, table.gleb, sides, "Red")
    asked = await tap(telegram, table.gleb, roles, "Tactician")
    assert asked is not None
    assert "is with the GM" in asked.text
    [to_anna] = [s for s in await telegram.deliver() if s.chat_id == 1 and s.buttons()]
    await tap(telegram, table.anna, to_anna, "Approve")
    gleb = await store.member(campaign.id, 4)
    assert gleb is not None
    assert (gleb.side_id, gleb.roles) == ("s1", frozenset({Role.STRATEGIST, Role.TACTICIAN}))
    [closed] = await store.vacancies(campaign.id, open_only=False)
    assert (closed.filled_by, closed.closed_by) == (4, 1)
    actions = [e.action for e in await store.audit_log(campaign.id)]
    assert AuditAction.SEAT_FILLED in actions
    assert AuditAction.JOIN_APPROVED in actions
    told = [s.text for s in await telegram.deliver() if s.chat_id == GROUP]
    assert "Gleb joined Red as tactician (approved by the GM)." in told
    # With the seat filled, the campaign is closed to newcomers again.
    again = await say(telegram, table.vera, table.group, "/join")
    assert again is not None
    assert "не принимает новых игроков" in again.text or "takes no new players" in again.text


@pytest.mark.parametrize("who", ["player", "stranger", "other_gm"])
async def test_seat_buttons_are_refused_to_anyone_but_this_campaigns_gm(
    telegram: FakeTelegram, store: Store, clock: ManualClock, who: str
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await table.vacate_boris()
    [vacancy] = await store.vacancies(campaign.id)
    other_group: Chat = telegram.group(-200, "Elsewhere")
    await set_up_campaign(telegram, store, table.gleb, other_group, title="Other war")
    presser: User = {"player": table.dora, "stranger": table.vera, "other_gm": table.gleb}[who]
    audit = await store.audit_log(campaign.id)
    outbox = await store.outbox_messages(campaign.id)
    for action, value in (
        ("list", ""),
        ("vac", "5"),
        ("fill", str(vacancy.id)),
        ("give", f"{vacancy.id}.{presser.id}"),
        ("wdr", str(vacancy.id)),
        ("wdr!", str(vacancy.id)),
    ):
        data = SeatPress(c=campaign.id, a=action, v=value).pack()
        for chat in (presser.id, table.group):
            telegram.take()
            await telegram.feed(telegram.forged_press(presser, chat, data))
            sent = telegram.take()
            assert _alerts(sent), (action, sent)
            assert all(s.chat_id is None for s in sent), "nothing is posted to any chat"
    assert await store.audit_log(campaign.id) == audit
    assert await store.outbox_messages(campaign.id) == outbox
    assert await store.prompt(presser.id, presser.id) is None
    dora = await store.member(campaign.id, 5)
    assert dora is not None
    assert dora.side_id == "s2"
    assert [v.id for v in await store.vacancies(campaign.id)] == [vacancy.id]  # still open


async def test_the_gm_withdraws_an_open_seat_and_its_join_button_refuses(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Boris leaves Red, where Gleb plays on as tactician; Anna withdraws the open seat: nobody
    takes it, Red plays on with Gleb, the group is told, the audit log has it, and the «Join»
    under the open seat's post refuses from then on."""
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await store.put_member(
        campaign.id, 4, "Gleb", frozenset({Role.TACTICIAN}), "s1", table.anna.id, clock.now()
    )
    await table.vacate_boris()
    [post] = [s for s in await telegram.deliver() if s.chat_id == GROUP and "open seat" in s.text]
    panel = await say(telegram, table.anna, table.anna.id, "/gm")
    seats = await tap(telegram, table.anna, panel, "Replace a player")
    offer = await tap(telegram, table.anna, seats, "Fill the open seat of «Red»")
    asked = await tap(telegram, table.anna, offer, "Withdraw the seat")
    assert asked is not None
    assert asked.text == (
        "Withdraw the open seat of side «Red»? Nobody takes the place of Boris; the group is "
        "told, and its «Join» button for this seat stops working.\n"
        "Side «Red» plays on with Gleb."
    )
    assert [label for label, _data in asked.buttons()] == ["Yes, withdraw the seat", "◀ Back"]
    telegram.take()
    await telegram.feed(telegram.press(table.anna, asked, button(asked, "Yes, withdraw")))
    answered = telegram.take()
    assert any(
        isinstance(s.method, AnswerCallbackQuery)
        and s.method.text == "Done: the open seat of side «Red» is withdrawn. The group is told."
        for s in answered
    )
    assert answered[-1].text.startswith("Replace a player.")  # back on the seats screen
    assert not any("Fill the open seat" in label for label, _data in answered[-1].buttons())
    assert await store.vacancies(campaign.id) == []
    [closed] = await store.vacancies(campaign.id, open_only=False)
    assert (closed.filled_by, closed.closed_by) == (None, table.anna.id)
    [entry] = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.SEAT_WITHDRAWN
    ]
    assert entry.actor == table.anna.id
    gleb = await store.member(campaign.id, 4)
    assert gleb is not None
    assert gleb.side_id == "s1"
    told = [s.text for s in await telegram.deliver() if s.chat_id == GROUP]
    assert (
        "GM Anna withdrew the open seat of side «Red»: nobody takes the place of Boris. "
        "Side «Red» plays on with Gleb."
    ) in told
    # Ilya taps the «Join» under the open seat's post: refused, no request recorded.
    ilya = telegram.user(6, "Ilya")
    telegram.take()
    await telegram.feed(telegram.press(ilya, post, button(post, "Join")))
    assert _alerts(telegram.take()) == [
        "Side «Red» has no open seat any more: a GM gave it to someone or withdrew it. /join "
        "here tells you whether «Siege of Vraks» takes new players."
    ]
    assert await store.join_request(campaign.id, 6) is None
    # The old confirmation pressed again changes nothing more.
    telegram.take()
    await telegram.feed(telegram.press(table.anna, asked, button(asked, "Yes, withdraw")))
    assert _alerts(telegram.take()) == [
        "That seat is not open any more: a GM gave it to someone or withdrew it."
    ]
    assert [e.action for e in await store.audit_log(campaign.id)].count(
        AuditAction.SEAT_WITHDRAWN
    ) == 1


async def test_withdrawing_the_only_players_seat_says_the_side_has_no_player(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await table.vacate_boris()
    await telegram.deliver()
    panel = await say(telegram, table.anna, table.anna.id, "/gm")
    seats = await tap(telegram, table.anna, panel, "Replace a player")
    offer = await tap(telegram, table.anna, seats, "Fill the open seat of «Red»")
    asked = await tap(telegram, table.anna, offer, "Withdraw the seat")
    assert asked is not None
    assert asked.text.endswith(
        "Side «Red» has no other player: until a GM gives it one (Members), it meets the "
        "campaign's rule for a side without orders."
    )
    await tap(telegram, table.anna, asked, "Yes, withdraw")
    told = [s.text for s in await telegram.deliver() if s.chat_id == GROUP]
    assert (
        "GM Anna withdrew the open seat of side «Red»: nobody takes the place of Boris. "
        "Side «Red» has no player for now."
    ) in told
    assert await store.vacancies(campaign.id) == []


async def test_a_player_whose_seat_was_vacated_joins_another_side_only_through_a_gm(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """He has seen his old side's placement: even while joining is open (deployment), his
    choice of a side waits for a GM."""
    anna = telegram.user(1, "Anna")
    group = telegram.group(GROUP, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    assert campaign.phase is Phase.DEPLOYMENT
    await store.request_join(campaign.id, 2, "Boris", clock.now())
    joined, _member = await join_side(
        store, campaign, 2, "Boris", "s1", Role.STRATEGIST, clock.now()
    )
    assert joined is JoinOutcome.JOINED
    assert await store.vacate_seat(campaign.id, 2, "left the club", 1, clock.now()) is not None
    await store.request_join(campaign.id, 2, "Boris", clock.now())
    again, _member = await join_side(
        store, campaign, 2, "Boris", "s2", Role.STRATEGIST, clock.now()
    )
    assert again is JoinOutcome.APPROVAL_NEEDED
    boris = await store.member(campaign.id, 2)
    assert boris is not None
    assert boris.side_id is None
    # A newcomer still joins at once while joining is open.
    await store.request_join(campaign.id, 3, "Vera", clock.now())
    vera, _member = await join_side(store, campaign, 3, "Vera", "s2", Role.STRATEGIST, clock.now())
    assert vera is JoinOutcome.JOINED
