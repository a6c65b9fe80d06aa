"""The GM's time tools in the group, through the real dispatcher: only this campaign's GM may
use them; each is answered, audited and announced; a stale button changes nothing."""

from datetime import timedelta

from aiogram.methods import AnswerCallbackQuery
from aiogram.utils.i18n import I18n

from bot.clock import ManualClock
from bot.handlers.group.clock import clock_buttons
from bot.services.clockwork import advance
from rules import Attack, SideOrders
from storage import CampaignStatus, Phase, Store, UnreportedPolicy
from tests.bot.group_helpers import button
from tests.bot.telegram import FakeTelegram, Sent
from tests.storage.campaign_script import GM, PLACEMENTS, new_campaign, strategist

CHAT = -1001


async def _campaign_in_deployment(store: Store, clock: ManualClock) -> int:
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
    asked = await telegram.feed(telegram.message(gm, group, "/pause"))
    assert asked is not None
    assert asked.text.startswith("Pause «Siege of Planet Five»? Until you resume")
    unchanged = await store.campaign(campaign_id)
    assert unchanged is not None
    assert unchanged.status is CampaignStatus.DEPLOYMENT, "nothing happens before «Yes»"
    telegram.take()
    await telegram.feed(telegram.press(player, asked, button(asked, "Yes, pause")))
    assert "Only this campaign's GM" in _alert(telegram.take())
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
    asked = await telegram.feed(request)
    assert asked is not None
    assert asked.text.startswith("Extend the deadline by 24 hours? These dates move")
    # The same message delivered again (the bot stopped before answering) asks the same.
    again = await telegram.feed(request)
    assert again is not None
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
    question = await telegram.feed(telegram.message(gm, group, "/advance"))
    assert question is not None
    [(_, data), (no_label, no)] = question.buttons()
    assert no_label == "✖ No"
    telegram.take()
    await telegram.feed(telegram.press(player, question, no))
    assert "Only this campaign's GM" in _alert(telegram.take())
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
    assert "Only this campaign's GM" in _alert(telegram.take())
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
    assert labels == ["⏭ Advance now", "⏸ Pause", "+12 h", "+24 h"]
    await store.pause_clock(campaign_id, GM, "", clock.now())
    paused = await store.campaign(campaign_id)
    assert paused is not None
    with i18n.context(), i18n.use_locale("ru"):
        assert len([b for row in clock_buttons(paused) for b in row]) == 1


async def test_the_gm_resolves_a_turn_waiting_for_results_after_confirming(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
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

    question = await telegram.feed(telegram.message(gm, group, "/advance"))
    assert question is not None
    [(_, data), _not_now] = question.buttons()
    telegram.take()
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
    assert "Only this campaign's GM" in _alert(telegram.take())
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
