"""The same button pressed twice, against a Telegram that refuses what it refuses on a repeat
(an edit that changes nothing, a second answer to one press): the person gets one calm answer,
and the error handler itself never fails."""

import logging

import pytest
from aiogram import Router
from aiogram.exceptions import TelegramForbiddenError
from aiogram.filters import Command
from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage, TelegramMethod
from aiogram.types import CallbackQuery, Message

from bot.runtime.clock import ManualClock
from bot.screens.callbacks import LanguageChoice
from storage import Store
from tests.bot.private_campaign import open_table, screen
from tests.bot.telegram import FakeTelegram, Sent


def answers(sent: list[Sent]) -> list[AnswerCallbackQuery]:
    """The callback answers among requests."""
    return [s.method for s in sent if isinstance(s.method, AnswerCallbackQuery)]


def errors_seen(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What reached the error handlers."""
    return [r.getMessage() for r in caplog.records if r.name == "bot.handlers.errors"]


async def test_the_same_language_twice_changes_nothing_and_fails_nothing(
    telegram: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    telegram.session.refuse_repeats = True
    anna = telegram.user(7, "Anna")
    menu = await telegram.feed(telegram.message(anna, anna.id, "/lang"))
    assert menu is not None
    english = LanguageChoice(language="en").pack()
    with caplog.at_level(logging.DEBUG, logger="bot.handlers.errors"):
        await telegram.feed(telegram.press(anna, menu, english))
        first = telegram.take()
        edited = [s for s in first if isinstance(s.method, EditMessageText)]
        assert [s.text for s in edited] == ["Language: English."]
        await telegram.feed(telegram.press(anna, edited[0], english))
        second = telegram.take()
    assert len(answers(second)) == 1
    assert not [s for s in second if "Something went wrong" in s.text]
    assert errors_seen(caplog) == []


async def test_the_same_campaign_twice_changes_nothing_and_fails_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    table = await open_table(telegram, store, clock)
    telegram.session.refuse_repeats = True
    listing = screen(await table.say(201, "/campaigns"))
    with caplog.at_level(logging.DEBUG, logger="bot.handlers.errors"):
        chosen = screen(await table.tap(201, listing, "Siege"))
        assert chosen.text.startswith("Current campaign: Siege")
        again = await table.tap(201, chosen, "Siege")
    assert len(answers(again)) == 1
    assert not [s for s in again if "Something went wrong" in s.text]
    assert errors_seen(caplog) == []


async def test_the_error_handler_survives_a_refused_answer(telegram: FakeTelegram) -> None:
    telegram.session.refuse_repeats = True
    broken = Router(name="broken")

    @broken.callback_query()
    async def answered_then_broke(query: CallbackQuery) -> None:
        await query.answer("working on it")
        raise RuntimeError("a bug after the answer")

    @broken.message(Command("boom"))
    async def boom(message: Message) -> None:
        raise RuntimeError("a bug")

    telegram.dispatcher.include_router(broken)
    anna = telegram.user(7, "Anna")
    await telegram.feed(telegram.forged_press(anna, anna.id, "anything"))
    sent = telegram.take()
    assert [a.text for a in answers(sent)] == [
        "working on it",
        "Something went wrong on my side; nothing was changed. Please try again in a minute.",
    ]

    def blocked(method: TelegramMethod[object]) -> object:
        if isinstance(method, SendMessage):
            raise TelegramForbiddenError(method, "Forbidden: bot was blocked by the user")
        return True

    telegram.session._answer = blocked  # type: ignore[method-assign]
    await telegram.feed(telegram.message(anna, anna.id, "/boom"))
    assert [type(s.method) for s in telegram.take()] == [SendMessage]
