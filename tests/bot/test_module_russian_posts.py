"""The modules' weeks in Russian, every word as sent: a siege, a contact and a Night Watch week
(the week tests' own scripts, with the group's posts in Russian), each compared with
``tests/bot/expected/module_ru_<module>.txt``, read and written by a Russian speaker: the group's
posts, the pop-ups and messages of the Russian-speaking players (Борис, Вера, Глеб) and of the GM
when the GM reads Russian, in the order they were sent.

A changed text is written to the file by ``UPDATE_EXPECTED=1`` (the run then fails on purpose);
read the difference (``git diff tests/bot/expected``) before committing it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage, SendPhoto
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.services import dice
from storage import SqliteCampaignStore, Store
from tests.bot.private_campaign import GM, GROUP
from tests.bot.telegram import FakeTelegram, Sent
from tests.bot.test_contact_week import test_a_contact_week_through_the_dispatcher as contact_week
from tests.bot.test_russian_posts import compare_expected
from tests.bot.test_siege_week import test_a_siege_week_through_the_dispatcher as siege_week
from tests.bot.test_watch_russian_posts import (
    test_the_night_watch_week_reads_as_written_in_russian as watch_week,
)

SEED = "c0ffee00c0ffee00c0ffee00c0ffee00"
READERS = {GROUP: "группа", 203: "Борис", 301: "Вера", 302: "Глеб"}


class _Recorded(list[Sent]):
    """The session's list of requests, also kept in ``log`` (the tests take and clear it)."""

    def __init__(self, log: list[Sent]) -> None:
        super().__init__()
        self.log = log

    def append(self, sent: Sent) -> None:
        self.log.append(sent)
        super().append(sent)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """SQLite only: the words do not depend on the database, and the weeks' own tests run on
    both (this keeps the comparison cheap)."""
    opened = await SqliteCampaignStore.open(tmp_path / "bot.sqlite3")
    yield opened
    await opened.close()


def _transcript(log: list[Sent], gm_reads_russian: bool) -> str:
    readers = READERS | ({GM: "мастер"} if gm_reads_russian else {})
    order = list(readers)
    blocks: list[tuple[int, str]] = []
    for sent in log:
        method, chat = sent.method, sent.chat_id
        if chat is None or chat not in readers:
            continue
        if isinstance(method, AnswerCallbackQuery):  # the chat is the presser's (Table.tap)
            if method.text:
                blocks.append((chat, f"== {readers[chat]}: всплывает\n{method.text}"))
            continue
        if not isinstance(method, SendMessage | SendPhoto | EditMessageText) or not sent.text:
            continue
        kind = {SendPhoto: "картинка", EditMessageText: "правка"}.get(type(method), "сообщение")
        buttons = " | ".join(text for text, _data in sent.buttons())
        head = f"== {readers[chat]}: {kind}" + (f"; кнопки: {buttons}" if buttons else "")
        blocks.append((chat, f"{head}\n{sent.text}"))
    # The sender interleaves chats as their limits allow: each chat's posts in the order sent,
    # chat by chat (the group, the players, the GM).
    blocks.sort(key=lambda block: order.index(block[0]))
    return "\n\n".join(text for _chat, text in blocks) + "\n"


def _compare(name: str, text: str) -> None:
    compare_expected(f"module_ru_{name}.txt", text)


async def _recorded(
    telegram: FakeTelegram, week: Callable[[], Awaitable[None]], monkeypatch: pytest.MonkeyPatch
) -> list[Sent]:
    """The requests ``week`` made, with the dice drawn from a fixed seed."""
    monkeypatch.setattr(dice, "new_seed", lambda: SEED)
    log: list[Sent] = []
    telegram.session.sent = _Recorded(log)
    await week()
    return log


async def test_a_siege_week_reads_as_written_in_russian(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = await _recorded(telegram, lambda: siege_week(telegram, store, clock, "ru"), monkeypatch)
    _compare("siege", _transcript(log, gm_reads_russian=True))


async def test_a_contact_week_reads_as_written_in_russian(
    telegram: FakeTelegram,
    store: Store,
    clock: ManualClock,
    i18n: I18n,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def week() -> Awaitable[None]:
        return contact_week(telegram, store, clock, i18n, "ru")

    log = await _recorded(telegram, week, monkeypatch)
    _compare("contact", _transcript(log, gm_reads_russian=False))


async def test_a_night_watch_week_reads_as_written_in_russian(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    def week() -> Awaitable[None]:
        return watch_week(telegram, store, clock, monkeypatch)

    log = await _recorded(telegram, week, monkeypatch)
    _compare("watch", _transcript(log, gm_reads_russian=True))
