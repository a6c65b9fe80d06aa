"""The database file is read-only or the disk is full: the bot says so to the person and the
GMs and in the log, refuses the write, loses nothing already stored, and works again once the
file takes writes (issue 10).

Every fault is a real SQLite error on the bot's own connection (:class:`Disk`):

* read-only: ``PRAGMA query_only`` on the open connection (SQLite refuses every write with
  ``SQLITE_READONLY``, as for a read-only file), and any connection opened meanwhile is opened
  read-only (``mode=ro``), as SQLite opens a file it cannot write;
* disk full: the file may not grow (``PRAGMA max_page_count`` = its size) and a commit needs
  a megabyte more, so SQLite fails the commit with ``SQLITE_FULL`` and rolls it back. A cap
  alone is not enough: a small write fits into the free space of the pages the file has.

No test sleeps: the clock is a :class:`~bot.runtime.clock.ManualClock`, the sender's waits are
recorded.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import closing
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import aiosqlite
import pytest
from aiogram import Bot
from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage, TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.utils.i18n import I18n

import storage.db
from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.runtime.health import beat
from bot.runtime.storage_faults import StorageAlarm, StorageAwareScheduler
from bot.screens.callbacks import GmPress
from bot.services.clockwork import advance
from bot.services.outbox_sender import Limits, OutboxSender
from bot.services.window import position_mark
from bot.texts.i18n import build_i18n
from storage import NewOutboxMessage, OutboxState, Phase, SqliteCampaignStore, Store
from storage.db import StorageFault, StorageUnavailableError, database_problem
from tests.bot.conftest import START
from tests.bot.group_helpers import say, set_up_campaign, to_orders
from tests.bot.private_campaign import GM, Table, alert, open_table, screen
from tests.bot.telegram import FakeSession, FakeTelegram, Sent
from tests.services.week import start_week

FAULTS = ("read_only", "disk_full")
CODES = {"read_only": "SQLITE_READONLY", "disk_full": "SQLITE_FULL"}
PLACEMENTS = {
    "red": {"1": 4, "2": 3, "4": 3},
    "blue": {"1": 3, "3": 5, "5": 2},
    "green": {"2": 4, "3": 3, "5": 3},
}
FAST = Limits.unlimited()
OVERFLOW_BYTES = 1 << 20
_real_connect = storage.db.connect


class _Connection:
    """The bot's connection as the disk lets it be: a commit on a full disk first needs more
    room than the file may take, so SQLite fails it with ``SQLITE_FULL`` (and rolls back)."""

    def __init__(self, conn: aiosqlite.Connection, disk: Disk) -> None:
        self.real = conn
        self._disk = disk

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def execute(self, sql: str, parameters: Any = None) -> Any:
        if self._disk.full and sql.strip().upper() == "COMMIT":
            return self._overflowing_commit()
        return self.real.execute(sql, parameters)

    async def _overflowing_commit(self) -> aiosqlite.Cursor:
        await self.real.execute("INSERT INTO disk_filler VALUES (zeroblob(?))", (OVERFLOW_BYTES,))
        return await self.real.execute("COMMIT")


class Disk:
    """The file as the bot's connections see it: writable, read-only or full."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.read_only = False
        self.full = False
        self.connections: list[_Connection] = []

    async def connect(self, path: Path, *, read_only: bool = False) -> aiosqlite.Connection:
        """:func:`storage.db.connect` through this disk."""
        conn = await _real_connect(path, read_only=read_only or self.read_only)
        if self.full:
            await _cap(conn)
        wrapped = _Connection(conn, self)
        self.connections.append(wrapped)
        return cast(aiosqlite.Connection, wrapped)

    async def make_read_only(self) -> None:
        """Every write fails with ``SQLITE_READONLY`` from now on."""
        self.read_only = True
        await self._on_open(lambda conn: conn.execute("PRAGMA query_only = ON"))

    async def fill(self) -> None:
        """The disk is full: no commit gets through (``SQLITE_FULL``)."""
        self.full = True
        await self._on_open(_cap)

    async def fix(self) -> None:
        """Writable again, with room."""
        self.read_only = self.full = False
        await self._on_open(lambda conn: conn.execute("PRAGMA query_only = OFF"))
        await self._on_open(lambda conn: conn.execute("PRAGMA max_page_count = 1073741823"))

    async def break_it(self, fault: str) -> None:
        """Start ``fault`` (one of :data:`FAULTS`)."""
        await (self.make_read_only() if fault == "read_only" else self.fill())

    async def _on_open(self, action: Any) -> None:
        for wrapped in self.connections:
            try:
                await action(wrapped.real)
            except ValueError:  # closed (replaced after an error)
                continue

    def content(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table, read by a separate connection."""
        with closing(sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)) as conn:
            tables = [
                row[0]
                for row in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'disk_filler'"
                    " ORDER BY name"
                )
            ]
            return {
                table: list(conn.execute(f'SELECT * FROM "{table}" ORDER BY rowid'))
                for table in tables
            }


async def _cap(conn: aiosqlite.Connection) -> None:
    async with conn.execute("PRAGMA page_count") as cursor:
        row = await cursor.fetchone()
    assert row is not None
    await conn.execute(f"PRAGMA max_page_count = {int(row[0]):d}")


@pytest.fixture(scope="module")
def i18n() -> I18n:
    """The real catalogs."""
    return build_i18n()


@pytest.fixture
def clock() -> ManualClock:
    """Time that moves only when a test says so."""
    return ManualClock(START)


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Disk:
    """The database file, with a scratch table a full disk's commit overflows into."""
    path = tmp_path / "bot.sqlite3"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE disk_filler (b BLOB)")
    found = Disk(path)
    monkeypatch.setattr(storage.db, "connect", found.connect)
    return found


@pytest.fixture
async def store(disk: Disk) -> AsyncIterator[Store]:
    """The bot's store, on the disk."""
    opened = await SqliteCampaignStore.open(disk.path)
    yield opened
    await opened.close()


@pytest.fixture
def telegram(store: Store, clock: ManualClock, i18n: I18n) -> FakeTelegram:
    """The whole bot on an in-process Telegram."""
    return FakeTelegram(build_dispatcher(store, clock, i18n))


@pytest.fixture
def errors(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """The log, from INFO up."""
    with caplog.at_level(logging.INFO):
        yield caplog


def error_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The ERROR lines logged so far, and forget them."""
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    caplog.clear()
    return lines


def sent_to(sent: list[Sent], chat_id: int) -> list[str]:
    """The texts of the messages sent to ``chat_id``."""
    return [s.text for s in sent if isinstance(s.method, SendMessage) and s.chat_id == chat_id]


async def _orders_table(telegram: FakeTelegram, store: Store, clock: ManualClock) -> Table:
    """Three sides deployed, turn 1's orders open, on Tuesday (the orders window is open)."""
    table = await open_table(telegram, store, clock)
    for side, placement in PLACEMENTS.items():
        await store.save_placement(table.campaign.id, side, placement, True, GM, clock.now())
    opened = await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, clock.now())
    assert opened.advanced
    clock.set(START + timedelta(days=1, hours=1))
    return table


# ---- storage ------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", FAULTS)
async def test_a_write_the_file_cannot_take_stores_nothing_and_says_why(
    disk: Disk, store: Store, clock: ManualClock, fault: str
) -> None:
    message = NewOutboxMessage(
        campaign_id=None, chat_id=5, kind="text", payload={"text": "hi"}, dedup_key="k"
    )
    await store.see_person(5, "Eve", None, "en", True, clock.now())
    before = disk.content()
    await disk.break_it(fault)
    for _ in range(2):  # a second try meets the same fault (read-only: on a new connection)
        with pytest.raises(StorageUnavailableError) as raised:
            await store.enqueue(message, clock.now())
        assert raised.value.code == CODES[fault]
        assert raised.value.fault is (
            StorageFault.READ_ONLY if fault == "read_only" else StorageFault.DISK_FULL
        )
    assert (await store.person(5)) is not None  # reads still work
    assert disk.content() == before
    await disk.fix()
    queued = await store.enqueue(message, clock.now())
    assert [m.id for m in await store.claim_due(clock.now(), 10, 60)] == [queued.id]


# ---- a player's orders --------------------------------------------------------------------


@pytest.mark.parametrize("fault", FAULTS)
async def test_orders_not_saved_are_refused_in_the_players_language_and_the_gm_told_once(
    disk: Disk,
    store: Store,
    clock: ManualClock,
    telegram: FakeTelegram,
    errors: pytest.LogCaptureFixture,
    fault: str,
) -> None:
    table = await _orders_table(telegram, store, clock)
    await store.set_language(GM, "ru", clock.now())
    home = screen(await table.say(201, "/orders"))
    sector = screen(await table.tap(201, home, "1 Equator"))
    before = disk.content()
    error_lines(errors)
    await disk.break_it(fault)

    pressed = await table.tap(201, sector, "Attack Синие")  # Anna, English, by button
    assert alert(pressed) == (
        "I cannot save anything right now (the bot's database is not taking changes), so "
        "nothing was changed. The GM has been told. Please try again later."
    )
    to_gm = sent_to(pressed, GM)
    assert len(to_gm) == 1
    assert "«Siege»: сейчас я не могу ничего сохранить" in to_gm[0]
    lines = error_lines(errors)
    assert len(lines) == 1
    assert "not saved, the database cannot save" in lines[0]
    assert CODES[fault] in lines[0]

    typed = await table.say(203, "переместить 2 из 2 в 1")  # Борис, Russian, typed
    assert sent_to(typed, 203) == [
        "Сейчас я не могу ничего сохранить (база данных бота не принимает изменения), поэтому "
        "ничего не изменилось. Мастеру сообщено. Попробуйте позже."
    ]
    assert sent_to(typed, GM) == []  # told once
    assert len(error_lines(errors)) == 1
    assert disk.content() == before

    clock.advance(timedelta(minutes=5))
    await disk.fix()
    again = await table.tap(201, sector, "Attack Синие")
    assert alert(again) == "Saved: attack Синие in 1 Equator"
    assert "✓" in sent_to(await table.say(203, "переместить 2 из 2 в 1"), 203)[0]
    orders = await store.orders(table.campaign.id, 1, "red")
    assert orders is not None
    assert (len(orders.orders.attacks), len(orders.orders.moves)) == (1, 1)
    assert error_lines(errors) == []


# ---- a GM action in the group -------------------------------------------------------------


@pytest.mark.parametrize(("fault", "gm_in_private"), [("read_only", True), ("disk_full", False)])
async def test_a_gm_action_not_saved_changes_nothing_and_can_be_redone(
    disk: Disk,
    store: Store,
    clock: ManualClock,
    telegram: FakeTelegram,
    errors: pytest.LogCaptureFixture,
    fault: str,
    gm_in_private: bool,
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    if gm_in_private:
        await say(telegram, anna, anna.id, "/start")
    campaign = await set_up_campaign(telegram, store, anna, group)
    await to_orders(store, campaign, clock.now())
    # The panel lives in the GM's private chat; a GM without one still has an old panel's
    # buttons in the group.
    mark = position_mark(await store.phase_history(campaign.id))
    undo = GmPress(c=campaign.id, t=1, p=Phase.ORDERS.value, a="undo!", v=str(mark)).pack()
    where = anna.id if gm_in_private else group.id
    before = disk.content()
    telegram.take()
    error_lines(errors)
    await disk.break_it(fault)

    await telegram.feed(telegram.forged_press(anna, where, undo))
    sent = telegram.take()
    answers = [s.method for s in sent if isinstance(s.method, AnswerCallbackQuery)]
    assert [a.text for a in answers] == [
        "I cannot save anything right now (the bot's database is not taking changes), so "
        "nothing was changed. The GM has been told. Please try again later."
    ]
    assert answers[0].show_alert
    # Anna is the GM: told in private, or in the group when she has no private chat with the bot
    told = sent_to(sent, anna.id if gm_in_private else group.id)
    assert [text.split(":")[0] for text in told] == ["⚠️ «Siege of Vraks»"]
    assert len(sent_to(sent, anna.id)) + len(sent_to(sent, group.id)) == 1
    lines = error_lines(errors)
    assert len(lines) == 1
    assert CODES[fault] in lines[0]
    # Someone new writes in the group: recording them fails before any handler runs.
    await say(telegram, telegram.user(5, "Vera", "ru"), group, "/status")
    sent = telegram.take()
    assert [s.text.split(" (")[0] for s in sent] == ["I cannot save anything right now"]
    assert "The GM has been told." in sent[0].text  # an hour has not passed: not told again
    assert len(error_lines(errors)) == 1
    assert disk.content() == before
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert (stored.turn, stored.phase) == (1, Phase.ORDERS)

    await disk.fix()
    await telegram.feed(telegram.forged_press(anna, where, undo))
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert (stored.turn, stored.phase) == (0, Phase.DEPLOYMENT)
    assert error_lines(errors) == []


# ---- the scheduler ------------------------------------------------------------------------


@pytest.mark.parametrize("fault", FAULTS)
async def test_a_scheduled_step_not_saved_does_not_half_happen_and_runs_once_later(
    disk: Disk, store: Store, i18n: I18n, errors: pytest.LogCaptureFixture, fault: str
) -> None:
    clock = ManualClock(datetime(2026, 3, 1, tzinfo=UTC))
    week = await start_week(store, clock, "Europe/Berlin", date(2026, 3, 2))
    session = FakeSession({})
    bot = Bot("42:TEST", session=session)
    scheduler = StorageAwareScheduler(store, clock, bot=bot, alarm=StorageAlarm(store, clock, i18n))
    await week.deploy(sweep=False)  # every side ready: deployment ends at the next sweep
    before = disk.content()
    error_lines(errors)
    await disk.break_it(fault)

    for minute in range(3):  # three sweeps, a minute apart
        clock.advance(timedelta(minutes=1))
        await scheduler.run_due(clock.now())
        assert disk.content() == before, f"sweep {minute} changed the database"
    told = [s for s in session.sent if isinstance(s.method, SendMessage)]
    assert sorted(s.chat_id or 0 for s in told) == [100, 101]  # GM and co-GM, once
    cause = {
        "read_only": "the database file is read-only",
        "disk_full": "the server's disk is full",
    }
    assert all(cause[fault] in s.text for s in told)
    lines = error_lines(errors)
    assert len(lines) == 1  # then warnings
    assert CODES[fault] in lines[0]

    clock.advance(timedelta(hours=1))  # an hour later the GMs are told again
    await scheduler.run_due(clock.now())
    assert len([s for s in session.sent if isinstance(s.method, SendMessage)]) == 4
    assert len(error_lines(errors)) == 1
    assert disk.content() == before

    await disk.fix()
    await scheduler.run_due(clock.now())
    await scheduler.run_due(clock.now())
    campaign = await week.current()
    assert (campaign.turn, campaign.phase) == (1, Phase.ORDERS)
    entries = [(e.turn, e.phase) for e in await store.phase_history(campaign.id)]
    assert entries.count((1, Phase.ORDERS)) == 1
    assert error_lines(errors) == []


# ---- the outbox sender --------------------------------------------------------------------


class BreakingSession(FakeSession):
    """Telegram, which accepts every message; the disk breaks right after the first one."""

    def __init__(self, disk: Disk) -> None:
        super().__init__({})
        self.disk = disk
        self.delivered: list[str] = []

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        answer = await super().make_request(bot, method, timeout)
        if isinstance(method, SendMessage):
            self.delivered.append(method.text)
            if len(self.delivered) == 1:
                await self.disk.make_read_only()
        return answer


class RecordedSender(OutboxSender):
    """The sender whose waits are recorded instead of waited; the disk is fixed after three,
    the loop stopped after five."""

    def __init__(self, *args: Any, disk: Disk, stop: asyncio.Event, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.disk = disk
        self.stop = stop
        self.waits: list[float] = []

    async def _pause(self, stop: asyncio.Event, seconds: float) -> None:
        self.waits.append(seconds)
        if len(self.waits) == 3:
            await self.disk.fix()
        if len(self.waits) == 5:
            self.stop.set()


async def _queue(store: Store, clock: ManualClock, *texts: str) -> list[int]:
    ids = []
    for text in texts:
        queued = await store.enqueue(
            NewOutboxMessage(
                campaign_id=None, chat_id=7, kind="text", payload={"text": text}, dedup_key=text
            ),
            clock.now(),
        )
        ids.append(queued.id)
    return ids


async def test_a_post_sent_while_the_database_cannot_record_it_is_not_sent_again(
    disk: Disk, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    session = BreakingSession(disk)
    sender = OutboxSender(Bot("42:TEST", session=session), store, clock, i18n, limits=FAST)
    first, second = await _queue(store, clock, "one", "two")

    with pytest.raises(StorageUnavailableError):
        await sender.send_due()
    assert session.delivered == ["one"]
    clock.advance(timedelta(minutes=10))  # the lease ran out; the disk is still read-only
    with pytest.raises(StorageUnavailableError):
        await sender.send_due()
    assert session.delivered == ["one"]

    await disk.fix()
    report = await sender.send_due()
    assert report.sent == [second]
    assert session.delivered == ["one", "two"]
    for message_id in (first, second):
        found = await store.outbox_message(message_id)
        assert found is not None
        assert found.state is OutboxState.SENT
        assert found.attempts == 1


async def test_the_sender_loop_backs_off_while_the_database_cannot_save_and_goes_on(
    disk: Disk, store: Store, clock: ManualClock, i18n: I18n, errors: pytest.LogCaptureFixture
) -> None:
    stop = asyncio.Event()
    session = BreakingSession(disk)
    sender = RecordedSender(
        Bot("42:TEST", session=session), store, clock, i18n, limits=FAST, disk=disk, stop=stop
    )
    await _queue(store, clock, "one", "two", "three")
    error_lines(errors)

    await sender.run(stop)

    assert sender.waits == [5.0, 10.0, 20.0, 1.0, 1.0]
    assert session.delivered == ["one", "two", "three"]
    lines = error_lines(errors)
    assert len(lines) == 1
    assert "outbox paused, the database cannot save" in lines[0]


# ---- the generic error answer -------------------------------------------------------------


class FailingEdits(FakeSession):
    """Telegram that refuses a second answer to a press and fails (not with a Telegram error)
    the next edit of a message."""

    def __init__(self, chats: dict[int, Any]) -> None:
        super().__init__(chats)
        self.refuse_repeats = True
        self.fail_next_edit = False

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        if self.fail_next_edit and isinstance(method, EditMessageText):
            self.fail_next_edit = False
            raise RuntimeError("connection reset in the middle of a reply")
        return await super().make_request(bot, method, timeout)


async def test_the_error_answer_says_nothing_changed_only_when_nothing_was_saved(
    store: Store, clock: ManualClock, i18n: I18n, errors: pytest.LogCaptureFixture
) -> None:
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n))
    telegram.session = session = FailingEdits(telegram.chats)
    telegram.bot = Bot("42:TEST", session=session)
    table = await _orders_table(telegram, store, clock)
    home = screen(await table.say(201, "/orders"))

    session.fail_next_edit = True  # the sector screen is only shown: nothing to save
    failed = await table.tap(201, home, "1 Equator")
    # The press was answered before the failure, so the words come as a message.
    assert sent_to(failed, 201) == [
        "Something went wrong on my side; nothing was changed. Please try again in a minute."
    ]
    sector = screen(await table.tap(201, home, "1 Equator"))

    session.fail_next_edit = True  # the attack is saved, then showing it fails
    failed = await table.tap(201, sector, "Attack Синие")
    assert sent_to(failed, 201) == [
        "Something went wrong on my side, and part of this may have been saved. Check what is "
        "saved now (/orders, /battles, /status) before you try again."
    ]
    saved = await store.orders(table.campaign.id, 1, "red")
    assert saved is not None
    assert len(saved.orders.attacks) == 1
    assert len(error_lines(errors)) == 2


# ---- health -------------------------------------------------------------------------------


async def test_only_errors_of_a_file_that_cannot_take_a_write_are_storage_faults(
    disk: Disk, store: Store
) -> None:
    with (
        closing(sqlite3.connect(f"file:{disk.path}?mode=ro", uri=True)) as conn,
        pytest.raises(sqlite3.OperationalError) as read_only,
    ):
        conn.execute("UPDATE campaigns SET id = id WHERE 0")
    with closing(sqlite3.connect(disk.path)) as conn:
        with pytest.raises(sqlite3.IntegrityError) as constraint:
            conn.execute("INSERT INTO people (user_id) VALUES (NULL)")
        with pytest.raises(sqlite3.OperationalError) as no_table:
            conn.execute("SELECT * FROM nowhere")
    fault = storage.db.storage_fault(read_only.value, disk.path)
    assert fault is not None
    assert fault.fault is StorageFault.READ_ONLY
    assert "cannot save: read_only (SQLITE_READONLY" in str(fault)
    for other in (constraint.value, no_table.value, ValueError("no")):
        assert storage.db.storage_fault(other, disk.path) is None


async def test_health_reports_a_disk_without_room(disk: Disk, store: Store) -> None:
    assert database_problem(disk.path) is None
    low = database_problem(disk.path, min_free_bytes=1 << 62)
    assert low is not None
    assert "bytes free on its disk" in low


async def test_the_heartbeat_goes_on_when_it_cannot_be_written(
    tmp_path: Path, clock: ManualClock, errors: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "missing-folder" / "heartbeat"
    task = asyncio.create_task(beat(path, clock, timedelta(0)))
    for _ in range(10):
        await asyncio.sleep(0)
    path.parent.mkdir()
    for _ in range(10):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert path.read_text(encoding="utf-8") == clock.now().isoformat()
    assert len(error_lines(errors)) == 1
