"""A pause and an undo together, through the real dispatcher: the GM's tools leave the campaign
in a status its phase has, where a screen offers the way on (found by the random campaigns,
seed 19)."""

from aiogram.methods import AnswerCallbackQuery
from aiogram.types import Chat, User

from bot.runtime.clock import ManualClock
from storage import CampaignStatus, Phase, Store
from tests.bot.group_helpers import asked_in_private, say, set_up_campaign, tap, to_orders
from tests.bot.telegram import FakeTelegram, Sent


def _alert(sent: list[Sent]) -> str:
    answers = [s.method for s in sent if isinstance(s.method, AnswerCallbackQuery)]
    assert len(answers) == 1
    return answers[0].text or ""


async def _pause(telegram: FakeTelegram, gm: User, group: Chat) -> None:
    asked = await asked_in_private(telegram, gm, group, "/pause")
    telegram.take()
    await telegram.feed(
        telegram.press(gm, asked, next(d for t, d in asked.buttons() if "Yes" in t))
    )
    assert _alert(telegram.take()) == "Paused. The group is told."


async def _undo(telegram: FakeTelegram, gm: User) -> str:
    panel = await say(telegram, gm, gm.id, "/gm")
    confirm = await tap(telegram, gm, panel, "Undo the last step")
    assert confirm is not None
    telegram.take()
    await tap(telegram, gm, confirm, "Yes, undo")
    return _alert(telegram.take())


async def test_an_undo_back_to_the_setup_ends_the_pause_and_the_wizard_opens_it_again(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    anna, group = telegram.user(1, "Anna"), telegram.group(-100, "Wargamers")
    await say(telegram, anna, anna.id, "/start")
    campaign = await set_up_campaign(telegram, store, anna, group)
    await _pause(telegram, anna, group)
    # Before the fix: «Now: Setup (paused)», /resume sent the GM to the wizard, and the
    # wizard's «Open deployment» answered «The campaign has already started»: stuck for good.
    assert await _undo(telegram, anna) == "GM Anna undid the last step: now Setup."
    undone = await store.campaign(campaign.id)
    assert undone is not None
    assert (undone.phase, undone.status) == (Phase.SETUP, CampaignStatus.SETUP)
    board = [s.text for s in await telegram.deliver() if s.chat_id == group.id][-1]
    assert "paused" not in board.lower()
    summary = await say(telegram, anna, group, "/newcampaign")
    assert summary is not None
    telegram.take()
    await tap(telegram, anna, summary, "Open deployment")
    assert _alert(telegram.take()) != "The campaign has already started."
    opened = await store.campaign(campaign.id)
    assert opened is not None
    assert (opened.phase, opened.status) == (Phase.DEPLOYMENT, CampaignStatus.DEPLOYMENT)
    clock_state = await store.clock_state(campaign.id)
    assert clock_state is None or clock_state.paused_at is None  # no pause left over
    await _pause(telegram, anna, group)  # and the GM can pause the new deployment
    paused = await store.campaign(campaign.id)
    assert paused is not None
    assert paused.status is CampaignStatus.PAUSED


async def test_a_resume_after_an_undo_back_to_deployment_resumes_the_deployment(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    anna, group = telegram.user(1, "Anna"), telegram.group(-100, "Wargamers")
    await say(telegram, anna, anna.id, "/start")
    campaign = await to_orders(
        store, await set_up_campaign(telegram, store, anna, group), clock.now()
    )
    await _pause(telegram, anna, group)
    await _undo(telegram, anna)
    undone = await store.campaign(campaign.id)
    assert undone is not None
    assert (undone.phase, undone.status) == (Phase.DEPLOYMENT, CampaignStatus.PAUSED)
    resumed = await say(telegram, anna, group, "/resume")
    assert resumed is not None
    assert resumed.text == "Resumed."
    # Before the fix the status the pause began in came back: a deployment «running».
    after = await store.campaign(campaign.id)
    assert after is not None
    assert (after.phase, after.status) == (Phase.DEPLOYMENT, CampaignStatus.DEPLOYMENT)
