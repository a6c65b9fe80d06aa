"""A whole week in private chats, through the real dispatcher: three sides deploy (buttons and
text), give orders (buttons, English and Russian text), change their minds, a second strategist
edits, battles are reported, confirmed, disputed and overridden, and nothing a side ordered
reaches the group or another side before the turn resolves."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from aiogram.exceptions import TelegramBadRequest
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageText,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.types import BufferedInputFile
from aiogram.utils.i18n import I18n

from bot.handlers.private.callbacks import DeployButton, OrdersButton, ResultButton
from bot.handlers.private.screens import map_view
from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.services.outbox_sender import Limits, OutboxSender
from bot.texts.core import describe_order
from rules import Attack, Move, Outcome, Reinforce, SideOrders, builtin_map
from rules.render import render_map
from storage import NewCampaign, NewSide, Phase, Role, Store
from tests.bot.private_campaign import (
    GM,
    GROUP,
    SIDE_OF,
    Table,
    alert,
    button,
    open_table,
    photos,
    screen,
)
from tests.bot.telegram import FakeTelegram, Sent
from tests.secrecy import assert_log_keeps, logfmt, printed_forms, read_the_log

PLANET = builtin_map("planet-5")
NAMES = {"red": "Red Legion", "blue": "Синие", "green": "Green Horde"}
NO_LIMITS = Limits.unlimited()


def _plus(table: Table, sector: int) -> str:
    return DeployButton(campaign=table.campaign.id, action="+", sector=sector, side="red").pack()


async def _deploy_everyone(table: Table) -> None:
    """Red by buttons, blue and green by text (with a refusal first), all confirmed."""
    deploy = screen(await table.say(201, "/deploy"))
    assert "Placed 0 of 10" in deploy.text
    for sector, count in ((0, 4), (1, 3), (3, 3)):
        for _ in range(count):
            sent = await table.telegram.feed(
                table.telegram.press(table.user(201), deploy, _plus(table, sector))
            )
            assert sent is not None
            deploy = sent
    assert "Placed 10 of 10; sectors 3 of 3." in deploy.text
    assert not [text for text, _ in deploy.buttons() if text.startswith("+")]  # none to add
    confirmed = await table.tap(201, deploy, "Confirm")
    assert alert(confirmed) == "Deployment confirmed."
    assert "✅ Confirmed" in screen(confirmed).text

    refused = screen(await table.say(301, "1:5 3:5"))
    assert "Займите ровно 3 сектора (сейчас 2)." in refused.text
    typed = screen(await table.say(301, "экватор:3 восток=5, 5:2"))
    assert typed.text.startswith("Расстановка подтверждена.\n\n")  # one step, no Confirm tap
    assert "Размещено 10 из 10" in typed.text
    assert "✅ Подтверждено" in typed.text
    assert not [text for text, _ in typed.buttons() if "Подтвердить" in text]

    typed = screen(await table.say(401, "West=4 East=3 South Pole=3"))
    assert typed.text.startswith("Deployment confirmed.")
    placements = await table.store.placements(table.campaign.id)
    assert {side: (p.placement, p.ready) for side, p in placements.items()} == {
        "red": ({"1": 4, "2": 3, "4": 3}, True),
        "blue": ({"1": 3, "3": 5, "5": 2}, True),
        "green": ({"2": 4, "3": 3, "5": 3}, True),
    }


async def _stored(table: Table, side: str) -> tuple[SideOrders, bool]:
    record = await table.store.orders(table.campaign.id, 1, side)
    assert record is not None
    return record.orders, record.ready


async def _red_orders_by_buttons(table: Table) -> Sent:
    """Anna gives red's orders by tapping, about a dozen taps; returns the review screen."""
    home = screen(await table.say(201, "/orders"))
    assert "📝 Draft" in home.text
    start = len(table.log)
    sector = screen(await table.tap(201, home, "1 Equator"))
    after_one = await table.tap(201, sector, "Attack Синие")
    assert alert(after_one) == "Saved: attack Синие in 1 Equator"
    again = screen(after_one)
    assert "(2 of 2)" in button_text(again, "Attack Синие")
    home = screen(await table.tap(201, again, "Attack Синие"))  # the limit reached: back home
    assert "⚔ Синие ×2" in button_text(home, "1 Equator")
    west = screen(await table.tap(201, home, "2 West"))
    where = screen(await table.tap(201, west, "Move"))
    count = screen(await table.tap(201, where, "1 Equator"))
    assert [text for text, _ in count.buttons()][:2] == ["1", "2"]  # 3 armies: 1 or 2 may go
    home = screen(await table.tap(201, count, "2"))
    landing = screen(await table.tap(201, home, "Reinforcement"))
    home = screen(await table.tap(201, landing, "4 North Pole"))
    review = await table.tap(201, home, "Review")
    assert len(photos(review)) == 1
    words = screen(review).text
    assert "move 2 armies from 2 West to 1 Equator" in words
    assert "attack Синие in 1 Equator ×2" in words
    assert "Reinforcement: 4 North Pole" in words
    ready = await table.tap(201, screen(review), "Ready")
    assert alert(ready) == "Ready: your orders are confirmed."
    tapped = table.log[start:]
    assert not [r for r in tapped if isinstance(r.method, SendMessage)]  # one screen, edited
    assert len([r for r in tapped if isinstance(r.method, EditMessageText)]) == 11  # 11 taps
    orders, is_ready = await _stored(table, "red")
    assert is_ready
    assert orders == SideOrders(
        moves=(Move(source="2", to="1", count=2),),
        attacks=(Attack(sector="1", target="blue"),) * 2,
        reinforce="4",
    )
    return screen(ready)


def button_text(sent: Sent, label: str) -> str:
    """The text of the one button containing ``label``."""
    found = [text for text, _ in sent.buttons() if label in text]
    assert len(found) == 1, sent.buttons()
    return found[0]


async def test_a_full_week_in_private_and_no_order_reaches_another_chat(
    telegram: FakeTelegram,
    store: Store,
    clock: ManualClock,
    i18n: I18n,
    caplog: pytest.LogCaptureFixture,
) -> None:
    read_the_log(caplog)
    table = await open_table(telegram, store, clock)
    sender = OutboxSender(telegram.bot, store, clock, i18n, limits=NO_LIMITS)
    await _deploy_everyone(table)
    await table.step()
    await sender.send_due()

    # Red by buttons; then Boris, red's second strategist, changes his mind in Russian.
    red_review = await _red_orders_by_buttons(table)
    changed = screen(await table.say(203, "укрепить 2"))
    assert "✓ укрепиться в секторе 2 «Запад»" in changed.text
    assert "📝 Черновик" in changed.text
    orders, ready = await _stored(table, "red")
    assert not ready  # a change un-readies the side
    assert orders.moves == ()
    assert len(orders.attacks) == 2  # the other orders untouched
    clock.advance(timedelta(minutes=10))
    table.take()
    await sender.send_due()
    notice = [s for s in table.take() if s.chat_id == 201]
    assert len(notice) == 1
    assert "changed by Борис" in notice[0].text
    assert "2 West (3 armies): fortify" in notice[0].text

    # Blue in Russian text: each line on its own, refusals name the rule and what to do.
    reply = screen(
        await table.say(
            301,
            "перевести 3 из 3 в 2\nатака синие 1\nатака green 5\n2 -> 1 x9\n3 -> 1 x9\n"
            "подкрепление восток",
        )
    )
    lines = reply.text.splitlines()
    assert lines[0] == "✓ переместить 3 армии из сектора 3 «Восток» в сектор 2 «Запад»"
    assert lines[1].startswith("✗ «атака синие 1»: Нельзя атаковать свою сторону.")
    assert lines[2] == "✓ атака на сторону «Green Horde» в секторе 5 «Южный полюс»"
    assert lines[3].startswith(
        "✗ «2 -> 1 x9»: На начало хода у вас не было армий в секторе 2 «Запад»"
    )
    assert lines[3].endswith("Ваши секторы: 1 «Экватор», 3 «Восток», 5 «Южный полюс».")
    assert "от 1 до 4" in lines[4]
    assert lines[5] == "✓ подкрепление с орбиты в сектор 3 «Восток»"
    orders, _ = await _stored(table, "blue")
    assert orders == SideOrders(
        moves=(Move(source="3", to="2", count=3),),
        attacks=(Attack(sector="5", target="green"),),
        reinforce="3",
    )

    # Green in English text, then by a button on the same screen.
    reply = screen(await table.say(401, "attack blue in 3\nreinforce 2\nfortify 1"))
    assert "✓ attack Синие in 3 East" in reply.text
    assert "✓ orbital reinforcement to 2 West" in reply.text
    assert "You had no armies in 1 Equator" in reply.text
    review = screen(await table.tap(401, reply, "Review"))
    await table.tap(401, review, "Ready")
    _, green_ready = await _stored(table, "green")
    assert green_ready

    # The tactician and the GM view; the tactician cannot give orders.
    view = await table.say(202, "/orders")
    assert "attack Синие in 1 Equator" in screen(view).text
    assert screen(view).buttons() == []
    refused = await table.say(202, "fortify 1")
    assert "Only your side's strategists give its orders" in screen(refused).text
    overview = screen(await table.say(GM, "/orders"))
    assert "orders of Red Legion" in overview.text
    assert "orders of Синие" in overview.text

    await sender.send_due()
    orders_closed = len(table.log) + len(telegram.sent)
    await table.step()  # Friday: the battle list
    late = await table.tap(201, red_review, "Not ready")
    assert alert(late).startswith("This button is from an earlier phase; now: «Siege», turn 1:")
    assert "orders are closed" in screen(late).text
    closed = screen(await table.say(201, "/orders"))
    assert "2 West (3 armies): fortify" in closed.text
    assert closed.text.endswith("these are the orders as given for turn 1.")
    assert closed.buttons() == []
    red_battles = screen(await table.say(202, "/battles"))
    assert "Battle 1: Red Legion attacks Синие in 1 Equator, 1000 points" in red_battles.text
    assert "counts as a draw without losses" in red_battles.text
    outcome = screen(await table.tap(202, red_battles, "Report battle 1"))
    winner = screen(await table.tap(202, outcome, "Crushing"))
    reported = await table.tap(202, winner, "Red Legion won")
    assert alert(reported).startswith("Reported. The other side may confirm or dispute it")
    table.take()
    await sender.send_due()
    asked = [s for s in table.take() if s.chat_id == 302 and "если его не оспорят до" in s.text]
    assert len(asked) == 1
    assert "сообщила сторона «Red Legion»" in asked[0].text
    confirmed = await table.tap(302, asked[0], "Подтвердить")
    assert alert(confirmed) == "Подтверждено: результат согласован."

    # Battle 2: reported, the other side disputes with its own account, the GM decides.
    listing = screen(await table.say(201, "/battles"))
    outcome = screen(await table.tap(201, listing, "Report battle 2"))
    await table.tap(201, outcome, "Bloody draw")
    blue_view = screen(await table.say(301, "/battles"))
    account = screen(await table.tap(301, blue_view, "Оспорить"))
    assert "по версии вашей стороны" in account.text
    winner = screen(await table.tap(301, account, "Уверенная победа"))
    disputed = await table.tap(301, winner, "Синие")
    assert alert(disputed) == "Оспорено: обе версии у мастера, он решит."
    table.take()
    await sender.send_due()
    [to_gm] = [s for s in table.take() if s.chat_id == GM]
    assert "Result DISPUTED" in to_gm.text
    assert "Account of side «Синие»: Синие: solid victory" in to_gm.text
    decided = await table.tap(GM, to_gm, "Draw without losses")
    assert alert(decided) == "Decided: draw. Both sides and the group are told."
    final = screen(await table.say(201, "/battles"))
    assert "Result (GM's decision, final): draw" in final.text
    effective = await store.effective_results(table.campaign.id, 1)
    assert [(r.battle, r.outcome, r.winner) for r in effective] == [
        (1, Outcome.CRUSHING, "red"),
        (2, Outcome.DRAW, None),
    ]
    await sender.send_due()
    table.take()
    await table.step()  # Monday: resolution
    await sender.send_due()
    resolved = table.take()
    summary = "\n".join(r.text for r in resolved if r.chat_id == GROUP)
    assert "Battle 3 in 3 East: no result reported: counted as a draw without losses" in summary
    assert "Battle 2 in 1 Equator: draw" in summary  # the GM's override

    every_set = await _every_order_set(store, table)
    _assert_secret(table.log[:orders_closed], i18n, every_set, attacks=True)
    _assert_secret(table.log, i18n, every_set, attacks=False)
    await _assert_maps_private(table, i18n)
    # The log is for the operator: no side's orders or placement, ever, in any form.
    edits = [e for side in NAMES for e in await store.order_edits(table.campaign.id, 0, side)]
    secrets = {word for sets in every_set.values() for word in _order_words(sets, i18n, True)}
    given = [o for sets in every_set.values() for orders in sets for o in _given(orders)]
    secrets |= printed_forms(given, [e.placement for e in edits if e.placement])
    assert_log_keeps(logfmt(caplog.records), secrets)


async def _every_order_set(store: Store, table: Table) -> dict[str, list[SideOrders]]:
    """Each side's orders as saved at every edit of turn 1, drafts included."""
    return {
        side: [e.orders for e in await store.order_edits(table.campaign.id, 1, side) if e.orders]
        for side in NAMES
    }


def _given(orders: SideOrders, attacks: bool = True) -> list[Move | Attack | Reinforce]:
    """The orders of a set, one by one (the attacks too, unless ``attacks`` is false)."""
    given: list[Move | Attack | Reinforce] = [*orders.moves]
    if attacks:
        given.extend(orders.attacks)
    if orders.reinforce is not None:
        given.append(Reinforce(sector=orders.reinforce))
    return given


def _order_words(sets: list[SideOrders], i18n: I18n, attacks: bool) -> set[str]:
    words = set()
    given = [order for orders in sets for order in _given(orders, attacks)]
    for language in ("en", "ru"):
        with i18n.context(), i18n.use_locale(language):
            for order in given:
                words.add(describe_order(order, PLANET, NAMES, language))
    return words


def _assert_secret(
    requests: list[Sent], i18n: I18n, orders: dict[str, list[SideOrders]], attacks: bool
) -> None:
    """No request to the group or to another side's member carries a side's order words or its
    private map. Attacks are public from the Friday battle list on; the rest until resolution."""
    checked = 0
    for side, side_orders in orders.items():
        secrets = _order_words(side_orders, i18n, attacks)
        assert secrets
        for request in requests:
            chat = request.chat_id
            if chat is not None and chat > 0 and SIDE_OF.get(chat) == side:
                continue
            if chat == GM:
                continue  # the GM may view every side's orders
            dump = request.text + repr(request.method)
            for secret in secrets:
                assert secret not in dump, (side, secret, chat)
            checked += 1
    assert checked > 20
    group_posts = [r for r in requests if r.chat_id == GROUP]
    assert group_posts  # the group did get its posts; none carried an order


async def _assert_maps_private(table: Table, i18n: I18n) -> None:
    """Every picture a player got shows no other side's orders: it differs from every private
    map of another side's saved order sets, in both languages."""
    campaign = await table.now_campaign()
    state = await table.store.turn_start(campaign.id, 1)
    assert state is not None
    sides = await table.store.sides(campaign.id)
    drawn: dict[str, set[bytes]] = {}
    for side in NAMES:
        drawn[side] = set()
        for edit in await table.store.order_edits(campaign.id, 1, side):
            assert edit.orders is not None
            for language in ("en", "ru"):
                with i18n.context(), i18n.use_locale(language):
                    view = map_view(campaign, PLANET, state, sides, (side, edit.orders))
                    drawn[side].add(render_map(view))
        assert drawn[side], f"{side} saved orders this turn: its private maps are compared"
    pictures = [r for r in table.log if isinstance(r.method, SendPhoto)]
    assert pictures
    seen_own = 0
    for picture in pictures:
        assert isinstance(picture.method, SendPhoto)
        photo = picture.method.photo
        assert isinstance(photo, BufferedInputFile)
        owner = SIDE_OF.get(picture.chat_id or 0)
        for side, maps in drawn.items():
            if side != owner:
                assert photo.data not in maps, (picture.chat_id, side)
            elif photo.data in maps:
                seen_own += 1
    assert seen_own > 0  # the comparison does recognise a side's private map


async def test_stale_and_forged_buttons_change_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    await _deploy_everyone(table)
    stale_deploy = DeployButton(campaign=table.campaign.id, action="+", sector=2).pack()
    await table.step()
    sent = await table.forged(201, stale_deploy)
    assert alert(sent) == (
        "This button is from turn 0; the campaign is at turn 1 now. Here is the current screen."
    )
    assert (await store.placements(table.campaign.id))["red"].placement == {"1": 4, "2": 3, "4": 3}
    home = screen(await table.say(201, "/orders"))
    sector = screen(await table.tap(201, home, "2 West"))
    where = screen(await table.tap(201, sector, "Move"))
    counts = screen(await table.tap(201, where, "1 Equator"))
    # A forged count beyond the armies: refused with the rule, nothing saved.
    too_many = OrdersButton(
        campaign=table.campaign.id, turn=1, action="n", sector=1, to=0, arg=9
    ).pack()
    sent = await table.forged(201, too_many)
    assert alert(sent) == "You can move 1 to 2 from 2 West: at least one army stays."
    assert await store.orders(table.campaign.id, 1, "red") is None
    # Another side's player sends red's button: it names red's screen, so it is refused.
    sent = await table.forged(301, button(counts, "2"))
    assert alert(sent).startswith("Эта кнопка с экрана другой стороны")
    assert await store.orders(table.campaign.id, 1, "blue") is None
    # Someone not in the campaign.
    table.users[999] = telegram.user(999, "Stranger")
    sent = await table.forged(999, button(counts, "2"))
    assert "You are not in that campaign" in alert(sent)
    # A button from last week: stale, the current screen is shown, nothing changes.
    await table.tap(201, counts, "2")
    await table.step()
    await table.step()
    old = await table.tap(201, counts, "1")
    assert alert(old).startswith("This button is from turn 1; the campaign is at turn 2 now.")
    assert "turn 2: orders of Red Legion" in screen(old).text
    assert await store.orders(table.campaign.id, 2, "red") is None
    record = await store.orders(table.campaign.id, 1, "red")
    assert record is not None
    assert record.orders.moves == (Move(source="2", to="1", count=2),)
    stale_result = ResultButton(campaign=table.campaign.id, turn=1, battle=1, action="pick").pack()
    sent = await table.forged(202, stale_result)
    assert alert(sent).startswith("This button is from turn 1; the campaign is at turn 2 now.")


async def test_wrong_phase_and_no_campaign_get_clear_answers(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    loner = telegram.user(555, "Loner")
    await telegram.feed(telegram.message(loner, loner.id, "attack blue in 1"))
    assert "You are not in a campaign yet" in telegram.take()[-1].text
    table = await open_table(telegram, store, clock)
    assert "in deployment" in screen(await table.say(201, "/orders")).text
    assert "Type the placement" in screen(await table.say(201, "attack blue in 1")).text
    early = screen(await table.say(202, "/battles")).text
    assert early.startswith("No battle list yet. «Siege» is in deployment")
    no_side = screen(await table.say(GM, "/deploy"))
    assert "You play no side" in no_side.text
    tactician = screen(await table.say(202, "1:4 2:3 4:3"))
    assert "Only your side's strategists" in tactician.text
    await _deploy_everyone(table)
    await table.step()
    await table.step()
    closed = screen(await table.say(201, "fortify 1"))
    assert closed.text == (
        "Not now: «Siege», turn 1: the orders are closed and the battles are on (/battles)."
    )
    assert await store.orders(table.campaign.id, 1, "red") is None


async def test_a_restart_mid_flow_loses_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    deploy = screen(await table.say(201, "/deploy"))
    first = await telegram.feed(telegram.press(table.user(201), deploy, _plus(table, 0)))
    assert first is not None
    _restart(table, store, clock, i18n)
    again = await table.telegram.feed(table.telegram.press(table.user(201), first, _plus(table, 0)))
    assert again is not None
    assert "1 Equator: 2 armies" in again.text
    placement = (await store.placements(table.campaign.id))["red"]
    assert (placement.placement, placement.ready) == ({"1": 2}, False)

    for user_id, line in ((201, "1:4 2:3 4:3"), (301, "1:3 3:5 5:2"), (401, "2:4 3:3 5:3")):
        assert "✅" in screen(await table.say(user_id, line)).text
    await table.step()
    home = screen(await table.say(201, "/orders"))
    west = screen(await table.tap(201, home, "2 West"))
    where = screen(await table.tap(201, west, "Move"))
    counts = screen(await table.tap(201, where, "3 East"))
    _restart(table, store, clock, i18n)
    done = await table.tap(201, counts, "1")
    assert alert(done) == "Saved: move 1 army from 2 West to 3 East"
    assert "2 West (3 armies): move 1 army from 2 West to 3 East" in screen(done).text
    assert [type(r.method) for r in done] == [AnswerCallbackQuery, EditMessageText]  # in place


def _restart(table: Table, store: Store, clock: ManualClock, i18n: I18n) -> None:
    """A new dispatcher and bot on the same store, as after a restart."""
    restarted = FakeTelegram(build_dispatcher(store, clock, i18n))
    restarted.group(GROUP, "Wargamers")
    for user_id, user in list(table.users.items()):
        language = user.language_code or "en"
        table.users[user_id] = restarted.user(user_id, user.first_name, language)
    table.telegram = restarted


async def test_several_campaigns_are_chosen_with_campaigns(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    other = await store.create_campaign(
        NewCampaign(chat_id=-2002, title="Raid", created_by=GM, creator_name="GM"), clock.now()
    )
    await store.add_side(other.id, NewSide(id="x", name="X", colour="#111111"), GM, clock.now())
    await store.put_member(
        other.id, 201, "Anna", frozenset({Role.STRATEGIST}), "x", GM, clock.now()
    )
    asked = screen(await table.say(201, "/deploy"))
    assert "choose one with /campaigns" in asked.text
    menu = screen(await table.say(201, "/campaigns"))
    chosen = await table.tap(201, menu, "Siege")
    assert "Current campaign: Siege" in alert(chosen)
    assert "deployment of Red Legion" in screen(await table.say(201, "/deploy")).text
    person = await store.person(201)
    assert person is not None
    assert person.current_campaign_id == table.campaign.id


async def _orders_open(table: Table) -> None:
    for user_id, line in ((201, "1:4 2:3 4:3"), (301, "1:3 3:5 5:2"), (401, "2:4 3:3 5:3")):
        assert "✅" in screen(await table.say(user_id, line)).text
    await table.step()


REFUSED_LINES = [
    (
        "hello there",
        "I could not read «hello». One order per line, e.g. «move 2 armies from 1 Equator to "
        "2 West» or «attack Синие in 1 Equator».",
    ),
    ("attack blue", "The order stops after «blue»: something is missing."),
    ("2 -> 1", "How many armies move? Add the count"),
    ("fortify 9", "There is no sector «9». Sectors: 1 Equator, 2 West"),
    ("attack purple in 1", "There is no side «purple». Sides: Red Legion, Синие, Green Horde."),
    ("move 0 from 2 to 1", "The count 0 is not possible here."),
    ("fortify " + "x" * 130, "The line is too long"),
    ("fortify 3", "You had no armies in 3 East at the start of the turn"),
    ("2 -> 2 x1", "A move must go to another sector."),
    ("4 -> 5 x1", "5 South Pole is not next to 4 North Pole"),
    ("4 -> 1 x3", "You can move 1 to 2 from 4 North Pole: at least one army stays."),
    ("attack red in 1", "You cannot attack your own side."),
    ("attack green in 1", "Green Horde had no armies in 1 Equator at the start of the turn."),
    ("attack blue in 1 x3", "4 armies in 1 Equator allow 2 attacks: one per 3 armies"),
    ("reinforce 3", "Reinforcements land only where you have armies; 3 East is not one."),
]


async def test_every_refused_line_names_its_rule_and_changes_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await _orders_open(table)
    first = screen(await table.say(201, "2 -> 1 x2\nreinforce 4"))
    await table.tap(201, screen(await table.tap(201, first, "Review")), "Ready")
    before = await store.orders(table.campaign.id, 1, "red")
    assert before is not None
    assert before.ready
    for line, reason in REFUSED_LINES:
        reply = screen(await table.say(201, line))
        first_line, *_ = reply.text.splitlines()
        assert first_line.startswith("✗ «"), line
        assert reason in first_line, (line, first_line)
        assert "Nothing changed." in reply.text
    too_many = screen(await table.say(201, "fortify 4\n" * 41))
    assert too_many.text.splitlines()[40] == (
        "1 more line was not read: at most 40 lines in one message; send the rest separately."
    )
    after = await store.orders(table.campaign.id, 1, "red")
    assert after is not None
    assert after.orders == before.orders
    assert after.ready  # nothing refused, nothing no-op, un-readied the side
    assert after.edits == before.edits


async def test_result_refusals_name_the_rule(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await _orders_open(table)
    await table.say(201, "attack blue in 1")
    await table.step()
    turn = table.campaign.id, 1

    def press(battle: int, action: str, outcome: str = "", winner: int = -1) -> str:
        return ResultButton(
            campaign=turn[0], turn=1, battle=battle, action=action, outcome=outcome, winner=winner
        ).pack()

    assert (
        alert(await table.forged(302, press(1, "yes", "d")))
        == "По этому бою пока ничего не сообщили."
    )
    assert "is not in this battle" in alert(await table.forged(401, press(1, "out", "d")))
    assert "is not in this battle" in alert(await table.forged(201, press(9, "out", "d")))
    assert "A victory needs a winner" in alert(await table.forged(201, press(1, "win", "d", 0)))
    assert alert(await table.forged(201, press(1, "out", "d"))).startswith("Reported")
    assert "your side's own" in alert(await table.forged(202, press(1, "yes", "d")))
    await table.forged(201, press(1, "win", "s", 0))  # reported again: a solid red victory
    changed = alert(await table.forged(302, press(1, "yes", "d")))
    assert "Тем временем результат сообщили заново" in changed
    confirmed = alert(await table.forged(302, press(1, "yes", "s", 0)))
    assert confirmed == "Подтверждено: результат согласован."
    again = alert(await table.forged(201, press(1, "win", "c", 0)))
    assert again.startswith("Both sides agreed on this result; only a GM changes it now.")
    reports = await store.battle_reports(*turn)
    assert reports[0].reported is not None
    assert (reports[0].reported.outcome, reports[0].reported.winner) == (Outcome.SOLID, "red")
    assert reports[0].confirmed_by == 302


async def test_a_screen_whose_message_is_gone_is_sent_anew(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await open_table(telegram, store, clock)
    deploy = screen(await table.say(201, "/deploy"))
    shown = await store.ui_message(table.campaign.id, 201, "deploy")
    assert shown is not None
    answer = telegram.session._answer

    def message_gone(method: TelegramMethod[Any]) -> Any:
        if isinstance(method, EditMessageText):
            raise TelegramBadRequest(method, "Bad Request: message to edit not found")
        return answer(method)

    monkeypatch.setattr(telegram.session, "_answer", message_gone)
    sent = await table.telegram.feed(table.telegram.press(table.user(201), deploy, _plus(table, 0)))
    assert sent is not None
    assert isinstance(sent.method, SendMessage)
    assert "1 Equator: 1 army" in sent.text
    remembered = await store.ui_message(table.campaign.id, 201, "deploy")
    assert remembered is not None
    assert remembered.message_id > shown.message_id  # the new message is the screen now


def _order_lines(text: str) -> list[str]:
    """The order lines of an orders screen: the block after the header and status."""
    blocks = text.split("\n\n")
    return blocks[1].splitlines()


async def test_the_orders_screen_typed_back_changes_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await _orders_open(table)
    typed = screen(
        await table.say(
            201, "перемещение 2 армий из Запада в 1\nатака на синих в 1 ×2\nreinforce 4"
        )
    )
    assert typed.text.splitlines()[:3] == [
        "✓ move 2 armies from 2 West to 1 Equator",
        "✓ attack Синие in 1 Equator ×2",
        "✓ orbital reinforcement to 4 North Pole",
    ]
    before = await store.orders(table.campaign.id, 1, "red")
    assert before is not None
    english = _order_lines(screen(await table.say(201, "/orders")).text)
    russian = _order_lines(screen(await table.say(203, "/orders")).text)
    assert russian == [
        "1 «Экватор» (4 армии): атака на сторону «Синие» в секторе 1 «Экватор» ×2",
        "2 «Запад» (3 армии): переместить 2 армии из сектора 2 «Запад» в сектор 1 «Экватор»",
        "4 «Северный полюс» (3 армии): укрепиться",
        "Подкрепление: 4 «Северный полюс»",
    ]
    for user_id, lines, unchanged in ((201, english, "Nothing changed."), (203, russian, "Ничего")):
        reply = screen(await table.say(user_id, "\n".join(lines)))
        echo = reply.text.split("\n\n")[0].splitlines()
        assert len(echo) == 4
        assert all(line.startswith("✓ ") for line in echo), echo
        assert unchanged in reply.text
    assert echo[0] == (
        "✓ укрепиться в секторе 1 «Экватор»; атака на сторону «Синие» в секторе 1 «Экватор» ×2"
    )
    after = await store.orders(table.campaign.id, 1, "red")
    assert after is not None
    assert (after.orders, after.edits) == (before.orders, before.edits)


async def test_an_unreadable_line_is_answered_in_the_writers_language_with_examples(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await _orders_open(table)
    reply = screen(await table.say(301, "привет всем\nатакуй красных"))
    assert reply.text.splitlines()[:2] == [
        "✗ «привет всем»: Не понял слово «привет». Пишите по одному приказу в строке. Примеры: "
        "переместить 2 армии из сектора 1 «Экватор» в сектор 2 «Запад»; атака на сторону "
        "«Red Legion» в секторе 1 «Экватор».",
        "✗ «атакуй красных»: Приказ обрывается на «красных»: чего-то не хватает. Напишите его "
        "целиком. Примеры: переместить 2 армии из сектора 1 «Экватор» в сектор 2 «Запад»; атака "
        "на сторону «Red Legion» в секторе 1 «Экватор».",
    ]


def _deploy_press(table: Table, action: str, sector: int) -> str:
    return DeployButton(campaign=table.campaign.id, action=action, sector=sector, side="red").pack()


async def test_deployment_by_three_and_all_takes_four_taps(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    deploy = screen(await table.say(201, "/deploy"))
    labels = [text for text, _ in deploy.buttons()]
    assert labels[:4] == ["1 Equator: 0", "+1", "+3", "+10 (all)"]
    for action, sector in (("+3", 0), ("+", 0), ("+3", 1)):
        deploy = screen(await table.forged(201, _deploy_press(table, action, sector)))
    assert "Placed 7 of 10; sectors 2 of 3." in deploy.text
    # Three armies are left: any sector may take them (one more may open), «all» at once.
    row = [text for text, _ in deploy.buttons() if text.startswith("+")]
    assert row == ["+1", "+3 (all)"] * 5
    deploy = screen(await table.forged(201, _deploy_press(table, "+all", 3)))
    assert "Placed 10 of 10; sectors 3 of 3." in deploy.text
    confirmed = await table.tap(201, deploy, "Confirm")
    assert alert(confirmed) == "Deployment confirmed."
    placement = (await store.placements(table.campaign.id))["red"]
    assert (placement.placement, placement.ready) == ({"1": 4, "2": 3, "4": 3}, True)


async def test_a_press_past_the_armies_left_changes_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await table.say(201, "/deploy")
    await table.forged(201, _deploy_press(table, "+all", 0))
    await table.forged(201, _deploy_press(table, "+3", 1))  # nothing left to place
    await table.forged(201, _deploy_press(table, "+99", 2))
    placement = (await store.placements(table.campaign.id))["red"]
    assert (placement.placement, placement.ready) == ({"1": 10}, False)


async def test_a_typed_placement_is_placed_in_one_step_and_a_repeat_changes_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    refused = screen(await table.say(201, "1:4 2:3"))  # 7 of 10: refused, nothing saved
    assert refused.text.startswith("Placement refused, nothing changed:")
    assert "red" not in await store.placements(table.campaign.id)

    placed = screen(await table.say(201, "1=4 2=3 4=3"))
    assert placed.text.startswith("Deployment confirmed.\n\n")
    assert "✅ Confirmed" in placed.text
    record = (await store.placements(table.campaign.id))["red"]
    assert (record.placement, record.ready) == ({"1": 4, "2": 3, "4": 3}, True)

    again = screen(await table.say(201, "equator:4 west:3 north pole:3"))
    assert again.text.startswith(
        "Your side's deployment is already confirmed exactly like this; nothing changed. "
        "You can still change it with /deploy until deployment closes.\n\n"
    )
    assert "✅ Confirmed" in again.text
    assert (await store.placements(table.campaign.id))["red"].edits == record.edits

    changed = screen(await table.say(201, "1=2 2=4 4=4"))  # a change is placed at once too
    assert "✅ Confirmed" in changed.text
    record = (await store.placements(table.campaign.id))["red"]
    assert (record.placement, record.ready) == ({"1": 2, "2": 4, "4": 4}, True)


async def test_a_placement_delivered_again_after_deployment_is_not_read_as_orders(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Telegram delivers the last update again after a crash: the line that placed the last
    side arrives once the orders are open, with the same update id. It is answered "already
    placed"; nothing is saved as orders."""
    table = await open_table(telegram, store, clock)
    for user_id, line in ((301, "1:3 3:5 5:2"), (401, "2:4 3:3 5:3")):
        await table.say(user_id, line)
    last = telegram.message(table.user(201), 201, "1:4 2:3 4:3")
    await telegram.feed(last)
    await table.step()
    assert (await table.now_campaign()).phase is Phase.ORDERS
    table.take()

    await telegram.feed(last)  # the same update again
    answer = screen(table.take())
    assert answer.text == (
        "Your side's armies were already placed exactly like this at deployment; nothing "
        "changed. Now: «Siege», turn 1: the orders window is open (/orders).\n\n"
        "«Siege»: deployment of Red Legion\n"
        "Place 10 armies over exactly 3 sectors, at least 1 in each.\n\n"
        "1 Equator: 4 armies\n2 West: 3 armies\n4 North Pole: 3 armies\n"
        "Placed 10 of 10; sectors 3 of 3."
    )
    assert not answer.buttons()
    assert await store.orders(table.campaign.id, 1, "red") is None
    other = screen(await table.say(201, "1:3 2:3 4:4"))  # not the placement: read as orders
    assert other.text.startswith("✗ «1:3 2:3 4:4»: I could not read «1:3».")


async def test_last_turns_orders_are_repeated_with_one_tap_and_checked_again(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await _orders_open(table)
    first = screen(await table.say(201, "/orders"))
    assert "Repeat" not in " ".join(text for text, _ in first.buttons())  # turn 1: nothing yet
    await table.say(201, "2 -> 1 x2\nattack blue in 1\nreinforce 4")
    for _ in range(2):  # the battle list; the resolution, which opens turn 2's orders
        await table.step()
    campaign = await table.now_campaign()
    assert (campaign.turn, campaign.phase) == (2, Phase.ORDERS)
    home = screen(await table.say(201, "/orders"))
    repeated = screen(await table.tap(201, home, "Repeat last turn's orders"))
    assert repeated.text.splitlines()[:5] == [
        "Last turn's orders, checked against this turn:",
        "✗ move 2 armies from 2 West to 1 Equator: Only one army in 2 West: at least one must "
        "stay, so none can move.",
        "✓ attack Синие in 1 Equator",
        "✓ orbital reinforcement to 4 North Pole",
        "",
    ]
    orders, ready = await _stored_turn(table, "red", 2)
    assert (orders.moves, orders.attacks, orders.reinforce, ready) == (
        (),
        (Attack(sector="1", target="blue"),),
        "4",
        False,
    )


async def test_repeat_with_no_orders_last_turn_says_so(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await _orders_open(table)
    for _ in range(2):
        await table.step()
    home = screen(await table.say(201, "/orders"))
    answered = await table.tap(201, home, "Repeat last turn's orders")
    assert alert(answered) == "Your side gave no orders last turn: nothing to repeat."
    assert await store.orders(table.campaign.id, 2, "red") is None


async def _stored_turn(table: Table, side: str, turn: int) -> tuple[SideOrders, bool]:
    record = await table.store.orders(table.campaign.id, turn, side)
    assert record is not None
    return record.orders, record.ready
