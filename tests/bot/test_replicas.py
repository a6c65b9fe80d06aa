"""Three bot processes on one PostgreSQL database (webhook replicas), as asyncio tasks each
with its own store (its own connection): an update handled once, each scheduled step run once,
every post sent once, and Telegram's limits kept across all three on the actual request times."""

from __future__ import annotations

import asyncio
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime
from typing import Any

import pytest
from aiogram import Bot
from aiogram.methods import TelegramMethod
from aiogram.utils.i18n import I18n

from bot.app import build_dispatcher
from bot.clock import ManualClock
from bot.rendering import MapDrawer
from bot.services.clockwork import AdvanceResult
from bot.services.outbox_sender import Limits, OutboxSender
from bot.services.schedule import CampaignScheduler
from storage import NewCampaign, NewSide, OutboxState, Phase, Store, open_store
from tests.bot.telegram import FakeSession, FakeTelegram
from tests.bot.test_rate_limits import PLAYERS, most_in_any_window
from tests.postgres_server import PostgresServer, new_schema_url
from tests.services.week import start_week
from tests.storage.campaign_script import SIDES, at, deploy, play_turn

REPLICAS = 3
MONDAY = date(2026, 2, 2)
BERLIN = "Europe/Berlin"


@pytest.fixture
async def stores(postgres_server: PostgresServer) -> AsyncIterator[list[Store]]:
    """One store per replica on one PostgreSQL database."""
    url = await new_schema_url(postgres_server)
    opened = [await open_store(url) for _ in range(REPLICAS)]
    yield list(opened)
    for store in opened:
        await store.close()


async def test_an_update_that_reaches_every_replica_is_answered_once(
    stores: list[Store], clock: ManualClock, i18n: I18n
) -> None:
    replicas = [
        FakeTelegram(build_dispatcher(store, clock, i18n, updates_once=True)) for store in stores
    ]
    anna = replicas[0].user(7, "Anna")
    for replica in replicas[1:]:
        replica.user(7, "Anna")
    update = replicas[0].message(anna, anna.id, "/help")
    await asyncio.gather(*(replica.feed(update) for replica in replicas))
    answers = [sent for replica in replicas for sent in replica.sent]
    assert len(answers) == 1
    assert answers[0].chat_id == anna.id
    later = replicas[0].message(anna, anna.id, "/help")
    assert await replicas[2].feed(later) is not None


async def test_a_replayed_update_is_dropped_on_sqlite_too(
    store: Store, clock: ManualClock, i18n: I18n
) -> None:
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n, updates_once=True))
    anna = telegram.user(7, "Anna")
    update = telegram.message(anna, anna.id, "/help")
    assert await telegram.feed(update) is not None
    assert await telegram.feed(update) is None


async def test_three_schedulers_run_each_step_of_two_weeks_once(stores: list[Store]) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(stores[0], clock, BERLIN, MONDAY)
    schedulers = [CampaignScheduler(store, clock) for store in stores]
    ran: list[AdvanceResult] = []

    async def run_until(moment: datetime) -> None:
        while True:
            due = await schedulers[0].next_due(clock.now())
            if due is None or due > moment:
                break
            clock.set(due)
            await all_at(due)
        clock.set(moment)
        await all_at(moment)

    async def all_at(moment: datetime) -> None:
        runs = await asyncio.gather(*(s.run_campaign(week.campaign.id, moment) for s in schedulers))
        ran.extend(result for run in runs for result in run)

    clock.set(week.at(0, 11))
    await week.deploy()
    await run_until(week.at(0, 11))
    for number in range(2):
        day = 7 * number
        await run_until(week.at(day + 1, 10))
        await week.give_orders()
        await run_until(week.at(day + 5, 10))
        await week.report_results()
        await run_until(week.at(day + 7, 18))
    history = await stores[0].phase_history(week.campaign.id)
    scheduled = [(e.turn, e.phase, e.entered_at) for e in history if e.actor is None]
    expected = [(1, Phase.ORDERS, week.at(0, 11))]
    for turn in (1, 2):
        day = 7 * (turn - 1)
        expected += [
            (turn, Phase.BATTLES, week.at(day + 3, 23, 59)),
            (turn, Phase.RESOLUTION, week.at(day + 7, 12)),
            (turn + 1, Phase.ORDERS, week.at(day + 7, 12)),
        ]
    assert scheduled == expected
    # One step per deadline, whichever replica ran it: turn 1's orders, then each week the
    # orders' close and the resolution (which also opens the next turn's orders).
    assert len(ran) == 1 + 2 * 2
    keys = Counter(m.dedup_key for m in await stores[0].outbox_messages(week.campaign.id))
    assert max(keys.values()) == 1


class StampedSession(FakeSession):
    """The fake Telegram of one replica, stamping each request with the wall-clock time it
    arrived at (the replicas share a clock, not an event loop's)."""

    def __init__(self) -> None:
        super().__init__({})
        self.times: list[tuple[float, int | None]] = []

    async def make_request(
        self, bot: Bot, method: TelegramMethod[Any], timeout: int | None = None
    ) -> Any:
        chat = getattr(method, "chat_id", None)
        self.times.append((time.time(), chat if isinstance(chat, int) else None))
        return await super().make_request(bot, method, timeout)


async def _mondays(store: Store, campaigns: int) -> None:
    """``campaigns`` campaigns in their own groups, each with six players, resolved at once."""
    for index in range(campaigns):
        campaign = await store.create_campaign(
            NewCampaign(
                chat_id=-2_000_000 - index,
                title=f"Monday {index}",
                time_zone="Europe/Moscow",
                created_by=100,
                creator_name="Game Master",
            ),
            at(0),
        )
        for side in SIDES:
            await store.add_side(campaign.id, NewSide.model_validate(side), 100, at(0, 0.1))
        for number, side_id, role in PLAYERS:
            user = 10_000 * (index + 1) + number
            await store.see_person(user, f"Player {user}", None, "en", True, at(0, 0.1))
            await store.put_member(
                campaign.id, user, f"Player {user}", frozenset({role}), side_id, 100, at(0, 0.2)
            )
        await deploy(store, campaign.id)
        await play_turn(store, campaign.id, 1, seed=index)


async def test_three_senders_send_every_post_once_within_the_shared_limits(
    stores: list[Store], i18n: I18n
) -> None:
    await _mondays(stores[0], 3)
    # A lower bot limit than Telegram's, so that it binds with a few campaigns; a wider
    # margin, so that the test's own scheduling on a busy machine does not count.
    limits = Limits(per_second=8, margin=0.2)
    sessions = [StampedSession() for _ in stores]
    senders = [
        OutboxSender(
            Bot("42:TEST", session=session),
            store,
            ManualClock(at(1, 1)),
            i18n,
            limits=limits,
            maps=MapDrawer(0),
            shared_limits=True,
        )
        for session, store in zip(sessions, stores, strict=True)
    ]
    sent: Counter[int] = Counter()

    async def replica(sender: OutboxSender) -> None:
        idle = 0
        while idle < 3:
            report = await sender.send_due()
            sent.update(report.sent)
            idle = 0 if report.sent else idle + 1
            await asyncio.sleep(0.05)

    await asyncio.wait_for(asyncio.gather(*(replica(sender) for sender in senders)), 120)
    campaigns = await stores[0].unfinished_campaigns()
    queued = [m for c in campaigns for m in await stores[0].outbox_messages(c.id)]
    assert queued
    assert {m.state for m in queued} == {OutboxState.SENT}
    assert sent == Counter({m.id: 1 for m in queued})
    assert all(session.times for session in sessions)  # each replica sent its share
    requests = [t for s in sessions for t, chat in s.times if chat is not None]
    by_chat: dict[int, list[float]] = defaultdict(list)
    for session in sessions:
        for moment, chat in session.times:
            if chat is not None:
                by_chat[chat].append(moment)
    assert len(requests) > 2 * limits.per_second
    assert most_in_any_window(requests, 1.0) <= limits.per_second
    groups = [times for chat, times in by_chat.items() if chat < 0]
    privates = [times for chat, times in by_chat.items() if chat > 0]
    assert len(groups) == 3
    assert max(most_in_any_window(times, 60.0) for times in groups) <= limits.group_per_minute
    assert max(most_in_any_window(times, 1.0) for times in privates) <= 1
