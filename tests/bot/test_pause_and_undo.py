"""A pause and an undo, through the real dispatcher: the GM's tools leave the campaign in a
status its phase has, where a screen offers the way on (found by the random campaigns, seed 19),
and a phase the GM went back to waits for the GM (seed 40242)."""

from dataclasses import dataclass
from datetime import timedelta

import pytest
from aiogram.methods import AnswerCallbackQuery
from aiogram.types import Chat, User

from bot.runtime.clock import ManualClock
from bot.services.schedule import CampaignScheduler
from storage import CampaignStatus, Phase, Store
from tests.bot.group_helpers import (
    RUSSIAN_WIZARD,
    asked_in_private,
    say,
    set_up_campaign,
    tap,
    to_orders,
)
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


@dataclass(frozen=True)
class Words:
    """What a GM taps and reads in one language."""

    labels: dict[str, str]
    undo: tuple[str, str]
    advance: tuple[str, str]
    board: str


WORDS = {
    "en": Words(
        {},
        ("Undo the last step", "Yes, undo"),
        ("Advance now", "Yes, end deployment"),
        "No deadline: the GM has gone back to this phase and will end it.",
    ),
    "ru": Words(
        RUSSIAN_WIZARD,
        ("Отменить последний шаг", "Да, отменить"),
        ("Перейти дальше", "Да, закончить расстановку"),
        "Срока нет: мастер вернулся к этой фазе и завершит её сам.",
    ),
}


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_a_deployment_the_gm_went_back_to_waits_for_the_gm(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: str
) -> None:
    """Every side is still placed and confirmed after the undo: before the fix the next sweep
    ended deployment again and began turn 1 anew, every notice sent twice, the undo for
    nothing. Now the board says the GM ends it, the sweep leaves it, and the GM's «Advance
    now» opens turn 1."""
    words = WORDS[language]
    anna = telegram.user(1, "Anna", language=language)
    group = telegram.group(-100, "Wargamers")
    await say(telegram, anna, anna.id, "/start")
    campaign = await set_up_campaign(
        telegram,
        store,
        anna,
        group,
        labels=words.labels,
    )
    campaign = await to_orders(store, campaign, clock.now())
    await telegram.deliver()
    undo, yes_undo = words.undo
    panel = await say(telegram, anna, anna.id, "/gm")
    await tap(telegram, anna, await tap(telegram, anna, panel, undo), yes_undo)
    board = [s.text for s in await telegram.deliver() if s.chat_id == group.id][-1]
    assert words.board in board
    scheduler = CampaignScheduler(store, clock)
    for _ in range(3):
        clock.advance(timedelta(days=1))
        assert await scheduler.run_campaign(campaign.id, clock.now()) == []
    waiting = await store.campaign(campaign.id)
    assert waiting is not None
    assert (waiting.turn, waiting.phase) == (0, Phase.DEPLOYMENT)
    advance_now, yes_advance = words.advance
    panel = await say(telegram, anna, anna.id, "/gm")
    await tap(telegram, anna, await tap(telegram, anna, panel, advance_now), yes_advance)
    advanced = await store.campaign(campaign.id)
    assert advanced is not None
    assert (advanced.turn, advanced.phase) == (1, Phase.ORDERS)
