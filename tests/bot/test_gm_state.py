"""The GM edits the state from the private panel (issue 23): side, sector and number by buttons,
the reason typed; audited, announced in the group with the map, undone the same way; a side
retired and a side added mid-campaign; refused to everyone but this campaign's GM."""

from __future__ import annotations

import pytest
from aiogram.methods import AnswerCallbackQuery, SendPhoto
from aiogram.utils.i18n import I18n

from bot.posts import PostContext, render
from bot.runtime.clock import ManualClock
from bot.screens.callbacks import GmEdit
from bot.services.campaigns import join_side
from bot.services.state_edits import EditOutcome, edit_state
from rules import Attack, SideOrders
from rules.edits import StateEdit
from storage import AuditAction, AuditEntry, Campaign, CampaignSettings, Phase, Role, Store
from tests.bot.group_helpers import say, set_up_campaign, tap, to_orders
from tests.bot.private_campaign import GM, open_table
from tests.bot.telegram import FakeTelegram, Sent
from tests.storage.campaign_script import PLACEMENTS


class Table:
    """A campaign with its GM Anna, Red's strategist Boris and Blue's strategist Vera."""

    def __init__(self, telegram: FakeTelegram) -> None:
        self.telegram = telegram
        self.anna = telegram.user(1, "Anna")
        self.boris = telegram.user(2, "Boris")
        self.vera = telegram.user(3, "Vera", language="ru")
        self.group = telegram.group(-100, "Wargamers")

    async def start(self, store: Store, clock: ManualClock) -> Campaign:
        campaign = await set_up_campaign(self.telegram, store, self.anna, self.group)
        for user, side in ((self.boris, "s1"), (self.vera, "s2")):
            await say(self.telegram, user, user.id, "/start")
            await store.request_join(campaign.id, user.id, user.first_name, clock.now())
            await join_side(
                store, campaign, user.id, user.first_name, side, Role.STRATEGIST, clock.now()
            )
        return await to_orders(store, campaign, clock.now())

    async def editor(self) -> Sent:
        panel = await say(self.telegram, self.anna, self.anna.id, "/gm")
        editor = await tap(self.telegram, self.anna, panel, "Correct the state")
        assert editor is not None
        return editor


async def _edits(store: Store, campaign: Campaign) -> list[AuditEntry]:
    return [e for e in await store.audit_log(campaign.id) if e.action is AuditAction.STATE_EDITED]


def _group_posts(sent: list[Sent], group: int) -> list[Sent]:
    return [s for s in sent if s.chat_id == group]


async def test_the_gm_sets_armies_with_a_reason_and_undoes_it(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    before = await store.turn_start(campaign.id, 1)
    assert before is not None
    editor = await table.editor()
    assert "Red: 1 Equator: 4, 2 West: 3, 4 North Pole: 3" in editor.text
    sectors = await tap(telegram, table.anna, editor, "Red")
    numbers = await tap(telegram, table.anna, sectors, "2 West: 3")
    assert numbers is not None
    assert "now 3 armies" in numbers.text
    asked = await tap(telegram, table.anna, numbers, "6")
    assert asked is not None
    assert "type the reason" in asked.text.lower()
    done = await say(telegram, table.anna, table.anna.id, "Boris's reinforcements were lost")
    assert done is not None
    assert done.text.startswith("Done:")
    after = await store.turn_start(campaign.id, 1)
    assert after is not None
    assert after.armies["s1"]["2"] == 6
    (entry,) = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.STATE_EDITED
    ]
    assert (entry.actor, entry.reason) == (table.anna.id, "Boris's reinforcements were lost")
    posts = _group_posts(await telegram.deliver(), table.group.id)
    (edited,) = [s for s in posts if "edited the state" in s.text]
    assert isinstance(edited.method, SendPhoto)
    assert "Reason: Boris's reinforcements were lost" in edited.text
    assert "Side «Red», 2 West: 3 → 6" in edited.text

    editor = await table.editor()
    confirm = await tap(telegram, table.anna, editor, "Undo the last edit")
    assert confirm is not None
    assert "Boris's reinforcements were lost" in confirm.text
    await tap(telegram, table.anna, confirm, "Yes, undo it")
    assert await store.turn_start(campaign.id, 1) == before
    actions = [e.action for e in await store.audit_log(campaign.id)]
    assert AuditAction.STATE_EDIT_UNDONE in actions
    posts = _group_posts(await telegram.deliver(), table.group.id)
    (undone,) = [s for s in posts if "undid the edit" in s.text]
    assert isinstance(undone.method, SendPhoto)
    assert "Side «Red», 2 West: 6 → 3" in undone.text


async def test_a_side_whose_orders_the_edit_breaks_is_told_in_private(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    attack = SideOrders(attacks=(Attack(sector="1", target="s2"),))
    await store.save_orders(campaign.id, 1, "s1", attack, False, table.boris.id, clock.now())
    editor = await table.editor()
    sectors = await tap(telegram, table.anna, editor, "Blue")
    numbers = await tap(telegram, table.anna, sectors, "1 Equator: 3")
    await tap(telegram, table.anna, numbers, "0")
    await say(telegram, table.anna, table.anna.id, "Blue withdrew before the turn")
    sent = await telegram.deliver()
    told = [s.text for s in sent if s.chat_id == table.boris.id]
    assert any("not allowed any more" in text for text in told), told
    assert not [s for s in sent if s.chat_id == table.vera.id and "not allowed" in s.text]


async def test_the_gm_retires_a_side_and_its_player_loses_it(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    editor = await table.editor()
    sides = await tap(telegram, table.anna, editor, "Retire a side")
    asked = await tap(telegram, table.anna, sides, "Blue")
    assert asked is not None
    await say(telegram, table.anna, table.anna.id, "Vera left the club")
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    assert "s2" not in state.armies
    vera = await store.member(campaign.id, table.vera.id)
    assert vera is not None
    assert vera.side_id is None
    posts = _group_posts(await telegram.deliver(), table.group.id)
    (retired,) = [s for s in posts if "edited the state" in s.text]
    assert "Side «Blue» is retired" in retired.text
    assert "Vera left the club" in retired.text
    orders = await say(telegram, table.vera, table.vera.id, "/orders")
    assert orders is not None
    assert "Blue" not in orders.text


async def test_the_gm_adds_a_side_with_its_armies(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    editor = await table.editor()
    await tap(telegram, table.anna, editor, "Add a side")
    wrong = await say(telegram, table.anna, table.anna.id, "Black Fleet")
    assert wrong is not None
    assert "three lines" in wrong.text
    done = await say(telegram, table.anna, table.anna.id, "Black Fleet\n4:2 5:3\nJoined late")
    assert done is not None
    assert done.text.startswith("Done:")
    added = next(s for s in await store.sides(campaign.id) if s.name == "Black Fleet")
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    assert state.armies[added.id] == {"4": 2, "5": 3}
    posts = _group_posts(await telegram.deliver(), table.group.id)
    (news,) = [s for s in posts if "edited the state" in s.text]
    assert "Side «Black Fleet» joins the campaign" in news.text


async def test_a_refused_edit_says_why_and_the_editor_closes_with_the_orders(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    editor = await table.editor()
    sectors = await tap(telegram, table.anna, editor, "Red")
    numbers = await tap(telegram, table.anna, sectors, "2 West: 3")
    await tap(telegram, table.anna, numbers, "3")
    same = await say(telegram, table.anna, table.anna.id, "no change at all")
    assert same is not None
    assert "nothing would change" in same.text
    await store.transition(campaign.id, 1, Phase.ORDERS, 1, Phase.BATTLES, None, "t", clock.now())
    telegram.take()
    assert sectors is not None
    await telegram.feed(telegram.press(table.anna, sectors, sectors.buttons()[0][1]))
    alert = [s.method for s in telegram.take() if isinstance(s.method, AnswerCallbackQuery)]
    assert len(alert) == 1
    assert alert[0].show_alert
    assert "out of date" in (alert[0].text or "")


@pytest.mark.parametrize("who", ["player", "stranger"])
async def test_the_editor_is_refused_to_anyone_but_the_gm(
    telegram: FakeTelegram, store: Store, clock: ManualClock, who: str
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    before = await store.turn_start(campaign.id, 1)
    user = table.boris if who == "player" else telegram.user(9, "Nina")
    await say(telegram, user, user.id, "/start")
    outbox_before = await store.outbox_messages(campaign.id)
    telegram.take()
    for action, value in (("menu", ""), ("count", "s1.1.9"), ("retire1", "s2"), ("undo!", "")):
        data = GmEdit(c=campaign.id, t=1, p="orders", a=action, v=value).pack()
        await telegram.feed(telegram.forged_press(user, user.id, data))
        sent = telegram.take()
        answers = [s.method for s in sent if isinstance(s.method, AnswerCallbackQuery)]
        assert len(answers) == 1
        assert answers[0].show_alert
        assert all(s.chat_id is None for s in sent), "nothing is posted to any chat"
    assert await store.outbox_messages(campaign.id) == outbox_before
    assert await store.turn_start(campaign.id, 1) == before
    assert [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.STATE_EDITED
    ] == []


async def test_a_russian_group_reads_the_edit_in_russian(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await store.update_settings(campaign.id, CampaignSettings(language="ru"), 1, clock.now())
    editor = await table.editor()
    retire = await tap(telegram, table.anna, editor, "Retire a side")
    await tap(telegram, table.anna, retire, "Blue")
    await say(telegram, table.anna, table.anna.id, "Вера ушла из клуба")
    posts = _group_posts(await telegram.deliver(), table.group.id)
    (edited,) = [s for s in posts if "исправил положение" in s.text]
    assert "Мастер исправил положение на карте в ходу 1." in edited.text
    assert "Причина: Вера ушла из клуба" in edited.text
    assert "Сторона «Blue» выведена из игры" in edited.text


async def test_a_second_tap_on_yes_undo_it_does_not_undo_the_edit_before(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Issue 30's sibling seam: «Yes, undo it» named no edit, so a GM tapping it twice undid
    the last edit and then the one before it. It names its edit now: the second tap changes
    nothing and says so."""
    table = Table(telegram)
    campaign = await table.start(store, clock)
    for count, reason in (("6", "Boris's reinforcements were lost"), ("5", "one more fell")):
        editor = await table.editor()
        sectors = await tap(telegram, table.anna, editor, "Red")
        numbers = await tap(telegram, table.anna, sectors, "2 West:")
        await tap(telegram, table.anna, numbers, count)
        await say(telegram, table.anna, table.anna.id, reason)
    confirm = await tap(telegram, table.anna, await table.editor(), "Undo the last edit")
    assert confirm is not None
    assert "one more fell" in confirm.text
    await tap(telegram, table.anna, confirm, "Yes, undo it")
    telegram.take()
    await tap(telegram, table.anna, confirm, "Yes, undo it")  # the same message, tapped again
    [answer] = [s.method for s in telegram.take() if isinstance(s.method, AnswerCallbackQuery)]
    assert (
        answer.text == "The state changed meanwhile; nothing was changed. Open /gm and try again."
    )
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    assert state.armies["s1"]["2"] == 6, "the first edit stands"
    undone = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.STATE_EDIT_UNDONE
    ]
    assert len(undone) == 1


async def test_a_retired_side_whose_hero_stays_is_announced_with_its_map(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    """Found by the random campaigns' bench (seed 60174): a side of a Watches campaign was
    retired; its hero stayed on the map, the map refused a side it did not list, and the
    group's post of the edit was lost (an error in the log)."""
    heroes = [
        {"id": "h1", "side": "red", "name": "Лариса", "initiative": 2, "start": "1"},
        {"id": "h2", "side": "blue", "name": "Андрей", "initiative": 4, "start": "3"},
    ]
    overrides = {"modules": ["watch"], "module_settings": {"watch": {"heroes": heroes}}}
    table = await open_table(telegram, store, clock, overrides)
    for side, placement in PLACEMENTS.items():
        await store.save_placement(table.campaign.id, side, placement, True, GM, clock.now())
    await table.step()
    campaign = await table.now_campaign()
    edited = await edit_state(
        store, campaign, StateEdit(retire="blue", reason="left the club"), GM, clock.now()
    )
    assert edited.outcome is EditOutcome.APPLIED, edited
    context = PostContext(store=store, i18n=i18n, bot_username="strategium_bot")
    [message] = [m for m in await store.outbox_messages(campaign.id) if m.kind == "state_edited"]
    with i18n.context(), i18n.use_locale("en"):
        post = await render(context, message)
    assert post is not None
    assert "Side «Синие» is retired" in post.text, post.text
    assert post.photo is not None
