"""Three bot processes on one PostgreSQL database (webhook replicas), as asyncio tasks each
with its own store (its own connection): an update handled once, each scheduled step run once,
every post sent once, and Telegram's limits kept across all three on the actual request times."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from typing import Any, cast

import pytest
from aiogram import Bot
from aiogram.methods import SendMessage, TelegramMethod
from aiogram.utils.i18n import I18n
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.runtime.middlewares import UPDATE_LEASE, UpdateHeldError
from bot.runtime.runner import WebhookUpdates
from bot.screens.rendering import MapDrawer
from bot.services.clockwork import AdvanceResult
from bot.services.outbox_sender import SHARED_LEASE_SECONDS, Limits, OutboxSender
from bot.services.schedule import CampaignScheduler
from storage import (
    NewCampaign,
    NewOutboxMessage,
    NewSide,
    OutboxState,
    Phase,
    Store,
    UpdateTake,
    open_store,
)
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
    fed = await asyncio.gather(
        *(replica.feed(update) for replica in replicas), return_exceptions=True
    )
    # The replicas that came while one was handling it ask Telegram to send it again later.
    assert sum(isinstance(result, UpdateHeldError) for result in fed) == 2
    answers = [sent for replica in replicas for sent in replica.sent]
    assert len(answers) == 1
    assert answers[0].chat_id == anna.id
    # Telegram's retry, now that it was handled: dropped, whichever replica gets it.
    clock.advance(UPDATE_LEASE * 2)
    assert await replicas[1].feed(update) is None
    assert len([sent for replica in replicas for sent in replica.sent]) == 1
    later = replicas[0].message(anna, anna.id, "/help")
    assert await replicas[2].feed(later) is not None


async def test_an_update_of_a_killed_replica_is_handled_by_another_after_its_lease(
    stores: list[Store], clock: ManualClock, i18n: I18n
) -> None:
    """A replica took the update and died before it finished (no answer went to Telegram, so
    Telegram sends it again): a retry within the lease waits, the first after it is handled."""
    replicas = [
        FakeTelegram(build_dispatcher(store, clock, i18n, updates_once=True)) for store in stores
    ]
    anna = replicas[0].user(7, "Anna")
    for replica in replicas[1:]:
        replica.user(7, "Anna")
    update = replicas[0].message(anna, anna.id, "/help")
    # What the killed replica did before it died.
    assert await stores[0].take_update(update.update_id, clock.now(), UPDATE_LEASE) is (
        UpdateTake.TAKEN
    )
    clock.advance(UPDATE_LEASE / 2)
    with pytest.raises(UpdateHeldError):
        await replicas[1].feed(update)
    clock.advance(UPDATE_LEASE / 2)
    answer = await replicas[1].feed(update)
    assert answer is not None
    assert answer.chat_id == anna.id
    assert await replicas[2].feed(update) is None
    assert [sent.chat_id for replica in replicas for sent in replica.sent] == [anna.id]


async def test_a_replayed_update_is_dropped_on_sqlite_too(
    store: Store, clock: ManualClock, i18n: I18n
) -> None:
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n, updates_once=True))
    anna = telegram.user(7, "Anna")
    update = telegram.message(anna, anna.id, "/help")
    assert await telegram.feed(update) is not None
    assert await telegram.feed(update) is None


async def test_the_webhook_answers_telegram_after_handling_and_503_while_another_handles(
    store: Store, clock: ManualClock, i18n: I18n
) -> None:
    """Telegram has its answer only once the update was handled (a replica that dies before
    gives none, and Telegram sends the update again); an update another replica holds is
    answered 503 (Telegram sends it again later); a handled one 200 with nothing done."""
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n, updates_once=True))
    anna = telegram.user(7, "Anna")
    application = web.Application()
    WebhookUpdates(telegram.dispatcher, telegram.bot, secret_token="s3").register(
        application, path="/telegram/webhook"
    )
    headers = {"X-Telegram-Bot-Api-Secret-Token": "s3"}
    held = telegram.message(anna, anna.id, "/help")
    fresh = telegram.message(anna, anna.id, "/help")
    await store.take_update(held.update_id, clock.now(), UPDATE_LEASE)
    async with TestClient(TestServer(application)) as client:
        waiting = await client.post(
            "/telegram/webhook", data=held.model_dump_json(exclude_none=True), headers=headers
        )
        assert waiting.status == 503
        assert telegram.sent == []
        answered = await client.post(
            "/telegram/webhook", data=fresh.model_dump_json(exclude_none=True), headers=headers
        )
        assert answered.status == 200
        assert [sent.chat_id for sent in telegram.sent] == [anna.id]  # sent before the answer
        again = await client.post(
            "/telegram/webhook", data=fresh.model_dump_json(exclude_none=True), headers=headers
        )
        assert again.status == 200
        assert len(telegram.sent) == 1


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
    await week.deploy(sweep=False)
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


# ---- the outbox lease of replicas: short, renewed while sending --------------------------------

ALICE = 11


class HeldSession(FakeSession):
    """A Telegram that holds every message sent until ``answer`` is set: a slow send (a
    timeout, a ``retry_after`` waited out, a long post in parts)."""

    def __init__(self) -> None:
        super().__init__({})
        self.arrived = asyncio.Event()
        self.answer = asyncio.Event()
        self.answered: list[Any] = []

    async def make_request(
        self, bot: Bot, method: TelegramMethod[Any], timeout: int | None = None
    ) -> Any:
        if isinstance(method, SendMessage):
            self.arrived.set()
            await self.answer.wait()
            self.answered.append(method.text)
        return await super().make_request(bot, method, timeout)


def _texts(session: FakeSession) -> list[str]:
    return [sent.method.text for sent in session.sent if isinstance(sent.method, SendMessage)]


def _replica_sender(
    store: Store, session: FakeSession, clock: ManualClock, i18n: I18n
) -> OutboxSender:
    """A replica's sender with the production lease, renewed often (the test waits less)."""
    return OutboxSender(
        Bot("42:TEST", session=session),
        store,
        clock,
        i18n,
        limits=Limits.unlimited(),
        maps=MapDrawer(0),
        lease_seconds=SHARED_LEASE_SECONDS,
        renew_seconds=0.02,
    )


async def _notice(store: Store, clock: ManualClock) -> int:
    message = await store.enqueue(
        NewOutboxMessage(
            campaign_id=None, chat_id=ALICE, kind="text", payload={"text": "hi"}, dedup_key="hi"
        ),
        clock.now(),
    )
    return message.id


async def _lease_until(store: Store, message_id: int) -> datetime:
    message = await store.outbox_message(message_id)
    assert message is not None
    assert message.lease_until is not None
    return message.lease_until


async def _renewed_past(store: Store, message_id: int, moment: datetime) -> None:
    """Wait until the post's lease runs past ``moment`` (the sender's renewal did it)."""
    while await _lease_until(store, message_id) <= moment:
        await asyncio.sleep(0.01)


async def test_a_slow_send_keeps_its_post_while_its_replica_renews_the_lease(
    stores: list[Store], i18n: I18n
) -> None:
    clock = ManualClock(at(1, 1))
    message_id = await _notice(stores[0], clock)
    slow = HeldSession()
    sending = asyncio.create_task(_replica_sender(stores[0], slow, clock, i18n).send_due())
    await asyncio.wait_for(slow.arrived.wait(), 30)
    first_lease = await _lease_until(stores[0], message_id)
    other = FakeSession({})
    for _ in range(3):  # three times the lease: the other replica never gets the post
        clock.advance(timedelta(seconds=SHARED_LEASE_SECONDS - 1))
        await asyncio.wait_for(_renewed_past(stores[0], message_id, clock.now()), 30)
        report = await _replica_sender(stores[1], other, clock, i18n).send_due()
        assert report.sent == []
    assert clock.now() > first_lease
    assert _texts(other) == []
    slow.answer.set()
    report = await asyncio.wait_for(sending, 30)
    assert report.sent == [message_id]
    assert slow.answered == ["hi"]
    sent = await stores[1].outbox_message(message_id)
    assert sent is not None
    assert sent.state is OutboxState.SENT


async def test_a_killed_replicas_post_goes_out_from_another_once_the_short_lease_runs_out(
    stores: list[Store], i18n: I18n
) -> None:
    clock = ManualClock(at(1, 1))
    message_id = await _notice(stores[0], clock)
    slow = HeldSession()
    sending = asyncio.create_task(_replica_sender(stores[0], slow, clock, i18n).send_due())
    await asyncio.wait_for(slow.arrived.wait(), 30)
    clock.advance(timedelta(seconds=2))
    await asyncio.wait_for(_renewed_past(stores[0], message_id, clock.now()), 30)
    sending.cancel()  # the replica dies: nothing renews its lease any more
    await asyncio.gather(sending, return_exceptions=True)
    died_at = clock.now()
    lease_until = await _lease_until(stores[0], message_id)
    assert lease_until - died_at <= timedelta(seconds=SHARED_LEASE_SECONDS)
    other = FakeSession({})
    clock.set(lease_until - timedelta(milliseconds=1))
    assert (await _replica_sender(stores[1], other, clock, i18n).send_due()).sent == []
    clock.set(lease_until)
    report = await _replica_sender(stores[1], other, clock, i18n).send_due()
    assert report.sent == [message_id]
    assert _texts(other) == ["hi"]
    assert slow.answered == []


def test_a_lease_renewed_less_often_than_it_lasts_is_refused(i18n: I18n) -> None:
    with pytest.raises(ValueError, match="would run out"):
        OutboxSender(
            Bot("42:TEST", session=FakeSession({})),
            cast(Store, None),
            ManualClock(at(1, 1)),
            i18n,
            lease_seconds=6.0,
            renew_seconds=6.0,
        )


async def test_a_replica_that_stalled_past_its_lease_says_so_when_it_renews(
    stores: list[Store], i18n: I18n, caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing renewed the lease in time (the process was stalled): another replica claimed
    the post, and the renewal that comes late logs it instead of taking the post back."""
    clock = ManualClock(at(1, 1))
    message_id = await _notice(stores[0], clock)
    slow = HeldSession()
    stalled = OutboxSender(
        Bot("42:TEST", session=slow),
        stores[0],
        clock,
        i18n,
        limits=Limits.unlimited(),
        lease_seconds=SHARED_LEASE_SECONDS,
    )
    sending = asyncio.create_task(stalled.send_due())
    await asyncio.wait_for(slow.arrived.wait(), 30)
    clock.advance(timedelta(seconds=SHARED_LEASE_SECONDS))
    other = FakeSession({})
    assert (await _replica_sender(stores[1], other, clock, i18n).send_due()).sent == [message_id]
    with caplog.at_level(logging.WARNING, logger="bot.services.outbox_sender"):
        await stalled.renew_leases()
    assert f"post {message_id}: its lease ran out before it was renewed" in caplog.text
    taken = await stores[1].outbox_message(message_id)
    assert taken is not None
    assert taken.state is OutboxState.SENT
    slow.answer.set()
    await asyncio.wait_for(sending, 30)


async def _long_notice(store: Store, clock: ManualClock) -> int:
    """A post Telegram takes in two messages (its text is longer than one)."""
    text = "\n".join(f"line {n} " + "x" * 90 for n in range(60))
    message = await store.enqueue(
        NewOutboxMessage(
            campaign_id=None, chat_id=ALICE, kind="text", payload={"text": text}, dedup_key="long"
        ),
        clock.now(),
    )
    return message.id


async def test_a_replica_that_learns_another_took_its_post_sends_no_more_of_it(
    stores: list[Store], i18n: I18n
) -> None:
    """A stalled replica's lease ran out while the first part of a post was on its way; another
    replica took the post and sent it. The late renewal says so: the rest of the post does not
    go from the stalled one (it would go twice)."""
    clock = ManualClock(at(1, 1))
    message_id = await _long_notice(stores[0], clock)
    slow = HeldSession()
    stalled = OutboxSender(
        Bot("42:TEST", session=slow),
        stores[0],
        clock,
        i18n,
        limits=Limits.unlimited(),
        lease_seconds=SHARED_LEASE_SECONDS,
    )
    sending = asyncio.create_task(stalled.send_due())
    await asyncio.wait_for(slow.arrived.wait(), 30)
    clock.advance(timedelta(seconds=SHARED_LEASE_SECONDS))
    other = FakeSession({})
    assert (await _replica_sender(stores[1], other, clock, i18n).send_due()).sent == [message_id]
    await stalled.renew_leases()
    slow.answer.set()
    report = await asyncio.wait_for(sending, 30)
    assert report.lost == [message_id]
    assert report.sent == []
    assert len(slow.answered) == 1  # the part already on its way, not the second
    assert len(_texts(other)) == 2


async def test_a_replica_whose_renewals_keep_failing_sends_no_more_once_its_lease_ran_out(
    stores: list[Store], i18n: I18n, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The renewals fail (the database does not answer this replica) for the whole lease: its
    claim counts as lost, and what is left of the post is not sent from it."""
    clock = ManualClock(at(1, 1))
    message_id = await _long_notice(stores[0], clock)

    async def no_answer(*_: object) -> set[int]:
        raise OSError("connection reset")

    monkeypatch.setattr(stores[0], "renew_leases", no_answer)
    slow = HeldSession()
    sender = _replica_sender(stores[0], slow, clock, i18n)
    sending = asyncio.create_task(sender.send_due())
    await asyncio.wait_for(slow.arrived.wait(), 30)
    clock.advance(timedelta(seconds=SHARED_LEASE_SECONDS))
    other = FakeSession({})
    assert (await _replica_sender(stores[1], other, clock, i18n).send_due()).sent == [message_id]
    slow.answer.set()
    report = await asyncio.wait_for(sending, 30)
    assert report.lost == [message_id]
    assert report.sent == []
    assert len(slow.answered) == 1  # the part already on its way, not the second
    assert len(_texts(other)) == 2


async def test_a_renewal_keeps_a_claim_taken_again_under_a_new_token(
    stores: list[Store], i18n: I18n, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a renewal was on its way, the post it renewed finished and this sender claimed it
    again: the renewal's answer about the old claim leaves the new one alone."""
    clock = ManualClock(at(1, 1))
    sender = _replica_sender(stores[0], FakeSession({}), clock, i18n)
    sender._claims[7] = "old"

    async def answered_after_a_new_claim(claims: dict[int, str], until: datetime) -> set[int]:
        assert claims == {7: "old"}
        sender._claims[7] = "new"
        return {7}

    monkeypatch.setattr(stores[0], "renew_leases", answered_after_a_new_claim)
    await sender.renew_leases()
    assert sender._claims == {7: "new"}
    assert sender._lost == set()
