"""The GM's time tools in the group, through the real dispatcher: only this campaign's GM may
use them; each is answered, audited and announced; a stale button changes nothing."""

from datetime import datetime, timedelta

from aiogram.methods import AnswerCallbackQuery
from aiogram.types import Chat, User
from aiogram.utils.i18n import I18n

from bot.handlers.group.clock import clock_buttons
from bot.runtime.clock import ManualClock
from bot.services import turns
from bot.services.clockwork import advance
from bot.services.schedule import CampaignScheduler
from rules import Attack, SideOrders
from storage import (
    CampaignSettings,
    CampaignStatus,
    NoShowPolicy,
    Phase,
    Store,
    UnreportedPolicy,
)
from tests.bot.group_helpers import (
    BLUE_PLACEMENT,
    RED_PLACEMENT,
    asked_in_private,
    button,
    set_up_campaign,
)
from tests.bot.telegram import FakeTelegram, Sent
from tests.storage.campaign_script import GM, PLACEMENTS, new_campaign, strategist

CHAT = -1001


async def _campaign_in_deployment(store: Store, clock: ManualClock) -> int:
    """Every side placed, deployment open; the GM has a private chat with the bot."""
    await store.see_person(GM, "Game Master", None, "en", True, clock.now())
    campaign = await new_campaign(store, chat_id=CHAT)
    opened = await advance(store, campaign.id, 0, Phase.SETUP, GM, clock.now())
    assert opened.advanced
    for side, placement in PLACEMENTS.items():
        await store.save_placement(
            campaign.id, side, placement, True, strategist(side), clock.now()
        )
    return campaign.id


def _alert(sent: list[Sent]) -> str:
    answers = [s.method for s in sent if isinstance(s.method, AnswerCallbackQuery)]
    assert len(answers) == 1, "every press is answered once"
    return answers[0].text or ""


async def test_only_the_gm_pauses_and_resumes(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign_id = await _campaign_in_deployment(store, clock)
    group = telegram.group(CHAT, "Siege")
    player = telegram.user(strategist("red"), "Red")
    gm = telegram.user(GM, "Game Master")
    refused = await telegram.feed(telegram.message(player, group, "/pause"))
    assert refused is not None
    assert "Only this campaign's GM" in refused.text
    campaign = await store.campaign(campaign_id)
    assert campaign is not None
    assert campaign.status is CampaignStatus.DEPLOYMENT
    asked = await asked_in_private(telegram, gm, group, "/pause", "in our private chat")
    assert asked.text.startswith("Pause «Siege of Planet Five»? Until you resume")
    unchanged = await store.campaign(campaign_id)
    assert unchanged is not None
    assert unchanged.status is CampaignStatus.DEPLOYMENT, "nothing happens before «Yes»"
    await telegram.feed(telegram.press(player, asked, button(asked, "Yes, pause")))
    assert _alert(telegram.take()) == "That button is not valid any more."
    await telegram.feed(telegram.press(gm, asked, button(asked, "Yes, pause")))
    assert _alert(telegram.take()) == "Paused. The group is told."
    clock.advance(timedelta(hours=3))
    resumed = await telegram.feed(telegram.message(gm, group, "/resume"))
    assert resumed is not None
    assert resumed.text == "Resumed."
    kinds = [m.kind for m in await store.outbox_messages(campaign_id)]
    assert [k for k in kinds if k.startswith("clock_")] == ["clock_paused", "clock_resumed"]
    audit = [e.action.value for e in await store.audit_log(campaign_id)]
    assert audit.count("status_changed") == 2


async def test_extend_takes_hours_and_respects_the_cap(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign_id = await _campaign_in_deployment(store, clock)
    await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, clock.now())
    group = telegram.group(CHAT, "Siege")
    gm = telegram.user(GM, "Game Master")
    usage = await telegram.feed(telegram.message(gm, group, "/extend soon"))
    assert usage is not None
    assert "/extend 24" in usage.text
    request = telegram.message(gm, group, "/extend 24")
    telegram.take()
    await telegram.feed(request)
    [asked] = [s for s in telegram.take() if s.chat_id == GM]
    assert asked.text.startswith("Extend the deadline by 24 hours? These dates move")
    # The same message delivered again (the bot stopped before answering) asks the same.
    await telegram.feed(request)
    [again] = [s for s in telegram.take() if s.chat_id == GM]
    assert again.buttons() == asked.buttons()
    telegram.take()
    await telegram.feed(telegram.press(gm, asked, button(asked, "Yes, extend by 24 h")))
    assert _alert(telegram.take()) == "Deadline extended. The group is told the new dates."
    await telegram.feed(telegram.press(gm, again, button(again, "Yes, extend by 24 h")))
    assert _alert(telegram.take()) == "That was answered already: nothing more was done."
    state = await store.clock_state(campaign_id)
    assert state is not None
    assert state.extension_hours == 24
    over = await telegram.feed(telegram.message(gm, group, "/extend 60"))
    assert over is not None
    assert "72 hours in all (24 used)" in over.text
    assert over.buttons() == []
    kinds = [m.kind for m in await store.outbox_messages(campaign_id)]
    assert kinds.count("deadline_extended") == 1


async def test_advance_asks_then_moves_once_and_a_stale_button_does_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign_id = await _campaign_in_deployment(store, clock)
    group = telegram.group(CHAT, "Siege")
    gm = telegram.user(GM, "Game Master")
    player = telegram.user(strategist("blue"), "Blue")
    question = await asked_in_private(telegram, gm, group, "/advance")
    assert question.text.splitlines() == [
        "End deployment now?",
        "Placements confirmed: 3 of 3 sides.",
        "Turn 1's orders then open at once and close Thu 5 Mar, 23:59 (Moscow, UTC+3).",
    ]
    [(yes_label, data), (no_label, no)] = question.buttons()
    assert (yes_label, no_label) == ("⏭ Yes, end deployment", "✖ No")
    await telegram.feed(telegram.press(player, question, no))
    assert _alert(telegram.take()) == "That button is not valid any more."
    await telegram.feed(telegram.press(gm, question, no))
    sent = telegram.take()
    assert [s.method.text for s in sent if isinstance(s.method, AnswerCallbackQuery)] == [
        "Cancelled: nothing changed."
    ]
    assert [type(s.method).__name__ for s in sent] == [
        "AnswerCallbackQuery",
        "EditMessageReplyMarkup",
    ]
    unmoved = await store.campaign(campaign_id)
    assert unmoved is not None
    assert unmoved.phase is Phase.DEPLOYMENT
    await telegram.feed(telegram.press(player, question, data))
    assert _alert(telegram.take()) == "That button is not valid any more."
    await telegram.feed(telegram.press(gm, question, data))
    assert _alert(telegram.take()) == "Done: the campaign moved on. The group is told."
    campaign = await store.campaign(campaign_id)
    assert campaign is not None
    assert (campaign.turn, campaign.phase) == (1, Phase.ORDERS)
    await telegram.feed(telegram.press(gm, question, data))
    assert "out of date" in _alert(telegram.take())
    history = await store.phase_history(campaign_id)
    assert [e.phase for e in history].count(Phase.ORDERS) == 1
    assert [m.kind for m in await store.outbox_messages(campaign_id)].count("gm_advanced") == 1


async def test_panel_buttons_follow_the_campaign_state(
    store: Store, clock: ManualClock, i18n: I18n
) -> None:
    campaign_id = await _campaign_in_deployment(store, clock)
    campaign = await store.campaign(campaign_id)
    assert campaign is not None
    with i18n.context(), i18n.use_locale("en"):
        labels = [button.text for row in clock_buttons(campaign) for button in row]
    assert labels == ["⏭ Advance now", "⏸ Pause", "+12 h", "+24 h", "+48 h", "+72 h"]
    short = campaign.schedule.model_copy(update={"max_extension_hours": 24})
    with i18n.context(), i18n.use_locale("en"):
        few = clock_buttons(campaign.model_copy(update={"schedule": short}))
    assert [b.text for row in few for b in row][2:] == ["+12 h", "+24 h"], "within the limit"
    await store.pause_clock(campaign_id, GM, "", clock.now())
    paused = await store.campaign(campaign_id)
    assert paused is not None
    with i18n.context(), i18n.use_locale("ru"):
        assert len([b for row in clock_buttons(paused) for b in row]) == 1


async def test_the_gm_resolves_a_turn_waiting_for_results_after_confirming(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    await store.see_person(GM, "Game Master", None, "en", True, clock.now())
    campaign = await new_campaign(store, chat_id=CHAT, policy=UnreportedPolicy.WAIT_FOR_GM)
    await advance(store, campaign.id, 0, Phase.SETUP, GM, clock.now())
    for side, placement in PLACEMENTS.items():
        await store.save_placement(
            campaign.id, side, placement, True, strategist(side), clock.now()
        )
    await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, clock.now())
    attack = SideOrders(attacks=(Attack(sector="1", target="blue"),))
    await store.save_orders(campaign.id, 1, "red", attack, True, strategist("red"), clock.now())
    await advance(store, campaign.id, 1, Phase.ORDERS, GM, clock.now())
    group = telegram.group(CHAT, "Siege")
    gm = telegram.user(GM, "Game Master")
    player = telegram.user(strategist("blue"), "Blue")

    question = await asked_in_private(telegram, gm, group, "/advance")
    assert question.text.splitlines() == [
        "End turn 1's battles and resolve it now?",
        "Results in: 0 of 1 battle.",
        "Battles without a result: the resolution waits for you.",
        "Turn 2's orders then open at once and close Thu 5 Mar, 23:59 (Moscow, UTC+3).",
    ]
    [(_, data), _not_now] = question.buttons()
    await telegram.feed(telegram.press(gm, question, data))
    sent = telegram.take()
    assert "some battles have no result" in _alert(sent)
    offer = sent[-1]
    assert offer.text.startswith("Resolve turn 1 now? Battles without an agreed or decided result")
    [(label, force), (no_label, _no_data)] = offer.buttons()
    assert no_label == "✖ No"
    assert label == "⚖ Yes, resolve now"
    waiting = await store.campaign(campaign.id)
    assert waiting is not None
    assert (waiting.turn, waiting.phase) == (1, Phase.RESOLUTION)
    with i18n.context(), i18n.use_locale("en"):
        panel = [b.text for row in clock_buttons(waiting) for b in row]
    assert "⚖ Resolve now" in panel

    await telegram.feed(telegram.press(player, offer, force))
    assert _alert(telegram.take()) == "That button is not valid any more."
    await telegram.feed(telegram.press(gm, offer, force))
    assert _alert(telegram.take()) == "Done: the campaign moved on. The group is told."
    resolved = await store.campaign(campaign.id)
    assert resolved is not None
    assert (resolved.turn, resolved.phase) == (2, Phase.ORDERS)
    record = await store.turn_record(campaign.id, 1)
    assert record is not None
    assert record.resolution is not None
    assert record.resolution.report.unreported == (1,)
    await telegram.feed(telegram.press(gm, offer, force))
    assert "out of date" in _alert(telegram.take())


# ---- issue 30: the board says how a phase ends; "advance now" says what it ends ---------------


async def _group_status(telegram: FakeTelegram, user: User, group: Chat) -> str:
    """The group's /status, as ``user`` asks for it."""
    answer = await telegram.feed(telegram.message(user, group, "/status"))
    assert answer is not None
    return answer.text


async def _placed_by_all(store: Store, campaign_id: int, now: datetime) -> None:
    """Both sides of a wizard's campaign confirm their placement."""
    red, blue = (side.id for side in await store.sides(campaign_id))
    await store.save_placement(campaign_id, red, RED_PLACEMENT, True, GM, now)
    await store.save_placement(campaign_id, blue, BLUE_PLACEMENT, True, GM, now)


async def test_the_board_says_whether_confirming_ends_deployment_as_the_gm_chose(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Deployment «until all have placed» (the default) ends when every side confirms, and the
    board says so; «until I end it» waits for the GM however many have confirmed, and the board
    says that; both in the campaign's language."""
    gm = telegram.user(GM, "Game Master")
    scheduler = CampaignScheduler(store, clock)
    group = telegram.group(CHAT, "Wargamers")
    telegram.take()
    ended_by_all = await set_up_campaign(telegram, store, gm, group)
    wizard = "\n".join(sent.text for sent in telegram.take())
    assert (
        "deployment ends once every side has confirmed its placement, or when the GM ends it"
        in wizard
    )
    assert (
        "No deadline: deployment ends once every side has confirmed its placement, or when the "
        "GM ends it." in await _group_status(telegram, gm, group)
    )
    await _placed_by_all(store, ended_by_all.id, clock.now())
    await scheduler.run_due(clock.now())
    started = await store.campaign(ended_by_all.id)
    assert started is not None
    assert (started.turn, started.phase) == (1, Phase.ORDERS), "all confirmed: it ended"

    russian = telegram.group(CHAT - 1, "Варгеймеры")
    waits = await set_up_campaign(
        telegram,
        store,
        gm,
        russian,
        deployment="Until I end it",
        labels={"open": "Open deployment"},
    )
    await store.update_settings(waits.id, CampaignSettings(language="ru"), GM, clock.now())
    status = await _group_status(telegram, gm, russian)
    assert "Срока нет: эту фазу завершает мастер." in status
    await _placed_by_all(store, waits.id, clock.now())
    clock.advance(timedelta(days=3))
    await scheduler.run_due(clock.now())
    still = await store.campaign(waits.id)
    assert still is not None
    assert still.phase is Phase.DEPLOYMENT, "every side confirmed, and it waits for the GM"
    assert "Срока нет: эту фазу завершает мастер." in await _group_status(telegram, gm, russian)


async def test_a_question_asked_for_deployment_never_ends_turn_1s_orders(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """The playtest of issue 30: the GM asks to end deployment (typed and from the panel),
    every side confirms and deployment ends by itself; the old «Yes» and the old panel button
    then do nothing. Asked again, the question names turn 1's orders and how many sides gave
    them (in the GM's language); tapped twice, it acts once; after an undo brought the campaign
    back to turn 1's orders, the «Yes» made before the undo does nothing either."""
    campaign_id = await _campaign_in_deployment(store, clock)
    await store.set_language(GM, "ru", clock.now())
    group = telegram.group(CHAT, "Siege")
    gm = telegram.user(GM, "Game Master", "ru")
    deployment = await asked_in_private(telegram, gm, group, "/advance")
    assert deployment.text.startswith("Закончить расстановку сейчас?\n")
    [(_, end_deployment), _no] = deployment.buttons()
    await telegram.feed(telegram.message(gm, GM, "/gm"))
    [old_panel] = [s for s in telegram.take() if s.chat_id == GM]

    await CampaignScheduler(store, clock).run_due(clock.now())  # every side confirmed
    started = await store.campaign(campaign_id)
    assert started is not None
    assert (started.turn, started.phase) == (1, Phase.ORDERS)
    await telegram.feed(telegram.press(gm, deployment, end_deployment))
    assert _alert(telegram.take()).startswith("Эта кнопка устарела")
    await telegram.feed(telegram.press(gm, old_panel, button(old_panel, "Перейти дальше")))
    assert _alert(telegram.take()).startswith("Эта кнопка устарела")
    unmoved = await store.campaign(campaign_id)
    assert unmoved is not None
    assert (unmoved.turn, unmoved.phase) == (1, Phase.ORDERS), "turn 1's orders stay open"

    orders = await asked_in_private(telegram, gm, group, "/advance")
    assert orders.text.splitlines() == [
        "Закончить приём приказов хода 1 сейчас?",
        "Приказы отдали 0 из 3 сторон.",
        "Приём приказов ещё не начался: ни одна сторона не могла их отдать.",
        "У сторон без приказов все сектора укрепятся.",
        "Список боёв выйдет сразу; срок для результатов: пн, 9 марта, 12:00 (МСК).",
    ]
    [(label, close), _no] = orders.buttons()
    assert label == "⏭ Да, закончить приём приказов"
    await telegram.feed(telegram.press(gm, orders, close))
    assert _alert(telegram.take()).startswith("Готово")
    await telegram.feed(telegram.press(gm, orders, close))  # a second tap
    assert _alert(telegram.take()).startswith("Эта кнопка устарела")
    battles = await store.campaign(campaign_id)
    assert battles is not None
    assert (battles.turn, battles.phase) == (1, Phase.BATTLES)

    await turns.undo_last_step(store, campaign_id, 1, Phase.BATTLES, GM, "", clock.now())
    back = await store.campaign(campaign_id)
    assert back is not None
    assert (back.turn, back.phase) == (1, Phase.ORDERS)
    await telegram.feed(telegram.press(gm, orders, close))  # made before the undo
    assert _alert(telegram.take()).startswith("Эта кнопка устарела")
    still = await store.campaign(campaign_id)
    assert still is not None
    assert (still.turn, still.phase) == (1, Phase.ORDERS)
    assert [e.phase for e in await store.phase_history(campaign_id)].count(Phase.BATTLES) == 1


async def test_the_orders_question_counts_the_orders_given_in_english(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """In English, from the panel in the GM's private chat: sides that gave orders, those not
    confirmed, and what the no-show policy does with the others."""
    campaign_id = await _campaign_in_deployment(store, clock)
    await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, clock.now())
    red = SideOrders(attacks=(Attack(sector="1", target="blue"),))
    await store.save_orders(campaign_id, 1, "red", red, True, strategist("red"), clock.now())
    blue = SideOrders(reinforce="3")
    await store.save_orders(campaign_id, 1, "blue", blue, False, strategist("blue"), clock.now())
    await store.update_settings(
        campaign_id, CampaignSettings(no_show_policy=NoShowPolicy.REPEAT), GM, clock.now()
    )
    gm = telegram.user(GM, "Game Master")
    await telegram.feed(telegram.message(gm, GM, "/gm"))
    [panel] = [s for s in telegram.take() if s.chat_id == GM]
    await telegram.feed(telegram.press(gm, panel, button(panel, "Advance now")))
    [question] = [s for s in telegram.take() if s.chat_id == GM and s.buttons()]
    assert question.text.splitlines() == [
        "End turn 1's orders now?",
        "Orders given: 2 of 3 sides.",
        "1 of them has not confirmed its orders: they count as they are.",
        "Sides without orders repeat last turn's orders, those the rules still allow.",
        "The battle list goes out at once; results are due Mon 9 Mar, 12:00 (Moscow, UTC+3).",
    ]
    assert [label for label, _ in question.buttons()] == ["⏭ Yes, close the orders", "✖ No"]


async def test_no_confirmation_is_asked_in_the_group(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """A GM who never opened a private chat with the bot is told to, in the group, and no
    «Yes» button appears there; once it is open, /extend typed in the group is asked there."""
    campaign_id = (await new_campaign(store, chat_id=CHAT)).id
    await advance(store, campaign_id, 0, Phase.SETUP, GM, clock.now())
    for side, placement in PLACEMENTS.items():
        await store.save_placement(
            campaign_id, side, placement, True, strategist(side), clock.now()
        )
    await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, clock.now())
    await store.update_settings(campaign_id, CampaignSettings(language="ru"), GM, clock.now())
    group = telegram.group(CHAT, "Siege")
    gm = telegram.user(GM, "Game Master", "ru")
    for command in ("/advance", "/pause", "/extend 72"):
        telegram.take()
        await telegram.feed(telegram.message(gm, group, command))
        sent = telegram.take()
        assert [s.chat_id for s in sent] == [CHAT], command
        assert sent[0].buttons() == [], command
        assert sent[0].text.startswith("Game Master, мастер подтверждает это в личном чате")
    await telegram.feed(telegram.message(gm, GM, "/start"))
    asked = await asked_in_private(telegram, gm, group, "/advance", "я спросил вас в личном чате")
    assert asked.text.startswith("Закончить приём приказов хода 1 сейчас?")
