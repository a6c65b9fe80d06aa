"""Joining cannot buy a look at secrets: after deployment a GM approves each new player (or the
campaign is closed to them, or every join needs approval), a person never holds two seats, a
removed member's buttons refuse at once, and people's names cannot break a post."""

from __future__ import annotations

import unicodedata

from aiogram.methods import AnswerCallbackQuery
from aiogram.types import Chat, User

from bot.handlers.private.callbacks import OrdersButton
from bot.runtime.clock import ManualClock
from storage import AuditAction, Campaign, CampaignSettings, JoiningPolicy, Role, Store
from storage.names import JOINERS
from tests.bot.group_helpers import button, join_post, say, set_up_campaign, tap, to_orders
from tests.bot.telegram import FakeTelegram, Sent

GROUP = -100


def _alerts(sent: list[Sent]) -> list[str]:
    return [
        s.method.text or ""
        for s in sent
        if isinstance(s.method, AnswerCallbackQuery) and s.method.show_alert
    ]


async def _running(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> tuple[Campaign, User, User, Chat]:
    """A campaign past deployment: GM Anna; Boris plays Red as strategist."""
    anna = telegram.user(1, "Anna")
    boris = telegram.user(2, "Boris")
    group = telegram.group(GROUP, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    await say(telegram, anna, anna.id, "/start")  # the GM opens the private chat
    announcement = await join_post(telegram)
    await telegram.feed(telegram.press(boris, announcement, button(announcement, "Join")))
    sides = await say(telegram, boris, boris.id, f"/start join-{campaign.id}")
    roles = await tap(telegram, boris, sides, "Red")
    await tap(telegram, boris, roles, "Strategist")
    campaign = await to_orders(store, campaign, clock.now())
    await telegram.deliver()
    telegram.take()
    return campaign, anna, boris, group


async def _asks(
    telegram: FakeTelegram, campaign: Campaign, group: Chat, person: User, side: str, role: str
) -> Sent | None:
    """``person`` taps /join in the group, then chooses a side and role in private."""
    await say(telegram, person, group, "/join")
    sides = await say(telegram, person, person.id, f"/start join-{campaign.id}")
    roles = await tap(telegram, person, sides, side)
    return await tap(telegram, person, roles, role)


async def test_after_deployment_a_gm_approves_a_new_player(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign, anna, _boris, group = await _running(telegram, store, clock)
    vera = telegram.user(3, "Вера", language="ru")
    await say(telegram, vera, group, "/join")
    sides = await say(telegram, vera, vera.id, f"/start join-{campaign.id}")
    assert sides is not None
    assert "Новых игроков сейчас принимает мастер" in sides.text
    roles = await tap(telegram, vera, sides, "Red")
    asked = await tap(telegram, vera, roles, "Тактик")
    assert asked is not None
    assert "отправлена мастеру" in asked.text
    assert await store.member(campaign.id, 3) is None  # nothing of Red's is hers yet
    sent = await telegram.deliver()
    [to_anna] = [s for s in sent if s.chat_id == 1]
    assert "Вера asks to play side «Red» as tactician" in to_anna.text
    assert [label for label, _ in to_anna.buttons()] == ["✅ Approve", "✖ Refuse"]
    [to_boris] = [s for s in sent if s.chat_id == 2]
    assert "Вера asks to join your side as tactician; a GM decides." in to_boris.text
    board = [s for s in sent if s.chat_id == GROUP][-1]
    assert "Waiting for the GM's approval to join: Вера (→ Red)" in board.text
    # Vera's orders screen refuses: she is not in the campaign yet.
    refused = await say(telegram, vera, vera.id, "/orders")
    assert refused is not None
    assert refused.text.startswith("Вы пока не участвуете в кампании.")
    # Boris (a player, not a GM) cannot approve.
    telegram.take()
    await telegram.feed(telegram.press(_boris, to_anna, button(to_anna, "Approve")))
    assert _alerts(telegram.take()) == ["Only the campaign's GMs decide who joins."]
    approved = await tap(telegram, anna, to_anna, "Approve")
    assert approved is not None
    assert "Approved: Вера now plays in «Siege of Vraks». The group is told." in approved.text
    member = await store.member(campaign.id, 3)
    assert member is not None
    assert (member.side_id, member.roles) == ("s1", frozenset({Role.TACTICIAN}))
    actions = [e.action for e in await store.audit_log(campaign.id)]
    assert AuditAction.JOIN_APPROVED in actions
    told = await telegram.deliver()
    assert "Вера joined Red as tactician (approved by the GM)." in "\n".join(
        s.text for s in told if s.chat_id == GROUP
    )
    [to_vera] = [s for s in told if s.chat_id == 3]
    assert to_vera.text.startswith("Мастер одобрил заявку")
    # The same button again changes nothing.
    again = await tap(telegram, anna, to_anna, "Approve")
    assert again is not None
    assert "no longer waiting" in again.text


async def test_a_refused_request_leaves_no_seat_and_is_audited(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign, anna, _boris, group = await _running(telegram, store, clock)
    gleb = telegram.user(4, "Gleb")
    await _asks(telegram, campaign, group, gleb, "Blue", "Strategist")
    [to_anna] = [s for s in await telegram.deliver() if s.chat_id == 1]
    refused = await tap(telegram, anna, to_anna, "Refuse")
    assert refused is not None
    assert refused.text == "Refused: Gleb does not join «Siege of Vraks». They are told."
    assert await store.member(campaign.id, 4) is None
    assert await store.join_request(campaign.id, 4) is None
    [entry] = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.JOIN_REFUSED
    ]
    assert entry.actor == 1
    [to_gleb] = [s for s in await telegram.deliver() if s.chat_id == 4]
    assert to_gleb.text.startswith("A GM did not approve your request to play Blue")


async def test_the_gm_panel_lists_requests_and_approves_in_the_group(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign, anna, _boris, group = await _running(telegram, store, clock)
    gleb = telegram.user(4, "Gleb")
    await _asks(telegram, campaign, group, gleb, "Blue", "Strategist")
    panel = await say(telegram, anna, anna.id, "/gm")
    requests = await tap(telegram, anna, panel, "Join requests")
    assert requests is not None
    assert "Join requests waiting for a GM" in requests.text
    await tap(telegram, anna, requests, "Gleb → Blue")
    member = await store.member(campaign.id, 4)
    assert member is not None
    assert member.side_id == "s2"


async def test_a_russian_gm_approving_in_the_panel_tells_the_group_in_its_language(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    # Found by the random campaigns (tests/campaigns): the panel's approval worded the group's
    # notice in the GM's private language, so an English group read Russian.
    campaign, anna, _boris, group = await _running(telegram, store, clock)
    await store.set_language(anna.id, "ru", clock.now())
    gleb = telegram.user(4, "Gleb")
    await _asks(telegram, campaign, group, gleb, "Blue", "Strategist")
    panel = await say(telegram, anna, anna.id, "/gm")
    requests = await tap(telegram, anna, panel, "Заявки")
    await tap(telegram, anna, requests, "Gleb → Blue")
    told = "\n".join(s.text for s in await telegram.deliver() if s.chat_id == GROUP)
    assert "Gleb joined Blue as strategist (approved by the GM)." in told
    assert "одобрения" not in told


async def test_a_person_never_holds_two_seats(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign, _anna, boris, group = await _running(telegram, store, clock)
    again = await say(telegram, boris, group, "/join")
    assert again is not None
    assert "You already play in this campaign" in again.text
    other = await say(telegram, boris, boris.id, f"/start join-{campaign.id}")
    assert other is not None
    assert "Only the GM can move you to another side" in other.text
    telegram.take()
    await telegram.feed(telegram.forged_press(boris, boris.id, f"jc:{campaign.id}:s2:tactician"))
    assert _alerts(telegram.take()) == [
        "You already play in «Siege of Vraks». Only the GM can move you to another side: ask them."
    ]
    member = await store.member(campaign.id, 2)
    assert member is not None
    assert member.side_id == "s1"


async def test_a_closed_campaign_takes_nobody_and_approval_can_start_at_once(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign, anna, _boris, group = await _running(telegram, store, clock)
    await store.update_settings(
        campaign.id, CampaignSettings(joining=JoiningPolicy.OPEN_THEN_CLOSED), 1, clock.now()
    )
    dora = telegram.user(5, "Dora")
    closed = await say(telegram, dora, group, "/join")
    assert closed is not None
    assert "takes no new players now" in closed.text
    assert await store.join_request(campaign.id, 5) is None
    # "Always by approval" holds during deployment too.
    other_group = telegram.group(-200, "Second club")
    second = await set_up_campaign(telegram, store, anna, other_group, open_deployment=False)
    await store.update_settings(
        second.id, CampaignSettings(joining=JoiningPolicy.APPROVAL), 1, clock.now()
    )
    screen = await say(telegram, anna, other_group, "/newcampaign")
    assert screen is not None
    assert "Joining: every new player needs a GM's approval" in screen.text
    await tap(telegram, anna, screen, "Open deployment")
    second = await store.active_campaign(-200) or second
    asked = await _asks(telegram, second, other_group, dora, "Red", "Strategist")
    assert asked is not None
    assert "is with the GM" in asked.text
    assert await store.member(second.id, 5) is None


async def test_the_wizard_sets_the_joining_policy(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(GROUP, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    summary = await say(telegram, anna, group, "/newcampaign")
    assert summary is not None
    assert "Joining: open until deployment ends, then with a GM's approval" in summary.text
    joining = await tap(telegram, anna, summary, "Joining")
    assert joining is not None
    assert "A new player sees their side's secret orders at once" in joining.text
    chosen = await tap(telegram, anna, joining, "open until deployment ends, then closed")
    assert chosen is not None
    assert "Joining: open until deployment ends, then closed" in chosen.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.joining is JoiningPolicy.OPEN_THEN_CLOSED


async def test_a_removed_members_old_buttons_refuse_at_once(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign, anna, boris, _group = await _running(telegram, store, clock)
    panel = await say(telegram, anna, anna.id, "/gm")
    members = await tap(telegram, anna, panel, "Members")
    boris_screen = await tap(telegram, anna, members, "Boris")
    confirm = await tap(telegram, anna, boris_screen, "Remove")
    await tap(telegram, anna, confirm, "Yes, remove Boris")
    assert await store.member(campaign.id, 2) is None
    telegram.take()
    for action in ("home", "rev", "ok"):
        data = OrdersButton(campaign=campaign.id, turn=1, action=action, side="s1").pack()
        await telegram.feed(telegram.forged_press(boris, boris.id, data))
    assert (
        _alerts(telegram.take())
        == [
            "You are not in that campaign, so you cannot see or give its orders. Join it from its "
            "group with /join."
        ]
        * 3
    )
    orders = await say(telegram, boris, boris.id, "/orders")
    assert orders is not None
    assert "You are not in a campaign yet" in orders.text


INVISIBLE = "Evil\u202eKing\u200b\u2066"


async def test_a_name_with_bidi_and_invisible_characters_breaks_no_post(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign, anna, _boris, group = await _running(telegram, store, clock)
    evil = telegram.user(6, INVISIBLE)
    await _asks(telegram, campaign, group, evil, "Blue", "Strategist")
    sent = await telegram.deliver()
    [to_anna] = [s for s in sent if s.chat_id == 1]
    approved = await tap(telegram, anna, to_anna, "Approve")
    panel = await say(telegram, anna, anna.id, "/gm")
    members = await tap(telegram, anna, panel, "Members")
    status = await say(telegram, anna, group, "/status")
    sent += [s for s in (approved, members, status) if s is not None]
    sent += await telegram.deliver()
    shown = [s for s in sent if "EvilKing" in s.text or "EvilKing" in str(s.buttons())]
    assert len(shown) >= 5  # the GM's request, the board, the approval, the notice, members
    for message in sent:
        words = message.text + " ".join(label for label, _ in message.buttons())
        hidden = [c for c in words if unicodedata.category(c) == "Cf" and c not in JOINERS]
        assert hidden == [], (message.text, hidden)
    member = await store.member(campaign.id, 6)
    assert member is not None
    assert member.display_name == "EvilKing"
