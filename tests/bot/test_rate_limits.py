"""Telegram's limits as sliding windows: never more than 30 requests in any second, 20 in any
minute to one group, 1 in any second to one private chat, counted on the actual request times.

The event loop's time is fast-forwarded (looptime's loop, run by :func:`fast`): a whole Monday
of sends takes seconds of real time, and every request is stamped with the loop time at which
the fake Telegram got it.
"""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import looptime
import pytest
from aiogram import Bot
from aiogram.methods import TelegramMethod
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.screens.rendering import MapDrawer
from bot.services.outbox_sender import Limits, OutboxSender
from bot.services.rate_limits import Precedence, SlidingWindow, acquire
from storage import NewCampaign, NewSide, Role, SqliteCampaignStore, Store
from tests.bot.telegram import FakeSession
from tests.storage.campaign_script import SIDES, at, deploy, play_turn

CAMPAIGNS = 24
T = TypeVar("T")
PLAYERS = (
    (1, "red", Role.STRATEGIST),
    (2, "red", Role.TACTICIAN),
    (3, "blue", Role.STRATEGIST),
    (4, "blue", Role.TACTICIAN),
    (5, "green", Role.STRATEGIST),
    (6, "green", Role.TACTICIAN),
)


def most_in_any_window(times: list[float], period: float) -> int:
    """The most requests in any half-open window [t, t + period)."""
    ordered = sorted(times)
    most = start = 0
    for end, moment in enumerate(ordered):
        while ordered[start] + period <= moment:
            start += 1
        most = max(most, end - start + 1)
    return most


def test_the_window_count_itself() -> None:
    assert most_in_any_window([0.0, 0.5, 0.99, 1.0, 1.5], 1.0) == 3
    assert most_in_any_window([0.0, 1.0, 2.0], 1.0) == 1
    assert most_in_any_window([], 1.0) == 0


def fast(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``main`` on an event loop whose clock jumps to the next timer instead of waiting."""
    with asyncio.Runner(loop_factory=looptime.new_event_loop) as runner:
        return runner.run(main())


def test_concurrent_requests_never_overfill_a_window() -> None:
    fast(_concurrent_requests)


async def _concurrent_requests() -> None:
    loop = asyncio.get_running_loop()
    bot = SlidingWindow(30, 1)
    chats = {chat: SlidingWindow(20, 60) for chat in range(5)}
    stamps: dict[int, list[float]] = defaultdict(list)
    rng = random.Random(5)
    start = loop.time()

    async def request(chat: int, delay: float) -> None:
        await asyncio.sleep(delay)
        await acquire(bot, chats[chat])
        stamps[chat].append(loop.time())

    await asyncio.gather(*(request(i % 5, rng.uniform(0, 3)) for i in range(400)))
    everything = [t for times in stamps.values() for t in times]
    assert len(everything) == 400
    assert most_in_any_window(everything, 1.0) == 30
    assert all(most_in_any_window(times, 60.0) == 20 for times in stamps.values())
    # 80 requests a group at 20 a minute, the first within 3 s: the last after 3 minutes.
    assert 180 <= loop.time() - start < 184


def test_a_full_bucket_is_not_a_burst() -> None:
    """The token bucket's fault: after an idle second it let 30 out at once and 30 more within
    the same second. The window lets the second 30 out only a second after the first."""
    fast(_ninety_at_once)


async def _ninety_at_once() -> None:
    loop = asyncio.get_running_loop()
    window = SlidingWindow(30, 1)
    stamps: list[float] = []

    async def request() -> None:
        await acquire(window)
        stamps.append(loop.time())

    await asyncio.gather(*(request() for _ in range(90)))
    assert most_in_any_window(stamps, 1.0) == 30
    assert stamps[-1] - stamps[0] >= 2.0


def test_requests_that_go_first_take_the_window_before_the_others() -> None:
    fast(_first_before_others)


async def _first_before_others() -> None:
    loop = asyncio.get_running_loop()
    bot = SlidingWindow(30, 1)
    precedence = Precedence()
    order: list[str] = []

    async def request(name: str, first: bool, chat: SlidingWindow) -> None:
        await acquire(bot, chat, precedence=precedence, first=first)
        order.append(name)

    # 60 ordinary requests fill the first second and wait for the next; 20 first ones come
    # after them and still go first in the second second.
    ordinary = [request(f"o{i}", False, SlidingWindow(1, 1)) for i in range(60)]
    tasks = [asyncio.create_task(r) for r in ordinary]
    await asyncio.sleep(0.1)
    firsts = [asyncio.create_task(request(f"f{i}", True, SlidingWindow(20, 60))) for i in range(20)]
    await asyncio.gather(*tasks, *firsts)
    assert order[:30] == [f"o{i}" for i in range(30)]
    assert sorted(order[30:50]) == sorted(f"f{i}" for i in range(20))
    assert precedence.waiting == 0
    assert loop.time() >= 2.0


def test_a_first_request_held_by_its_own_chat_does_not_hold_the_others() -> None:
    fast(_held_by_its_chat)


async def _held_by_its_chat() -> None:
    loop = asyncio.get_running_loop()
    bot = SlidingWindow(30, 1)
    group = SlidingWindow(1, 60)
    group.record(loop.time())  # the group had its request this minute
    precedence = Precedence()
    stamps: dict[str, float] = {}

    async def request(name: str, first: bool, chat: SlidingWindow) -> None:
        await acquire(bot, chat, precedence=precedence, first=first)
        stamps[name] = loop.time()

    await asyncio.gather(
        request("map", True, group),
        *(request(f"o{i}", False, SlidingWindow(1, 1)) for i in range(5)),
    )
    assert max(stamps[f"o{i}"] for i in range(5)) < 0.01
    assert stamps["map"] >= 60.0


async def _send_a_monday(path: Path, session: TimedSession, i18n: I18n) -> float:
    """Everything the campaigns queued, sent under Telegram's limits; the loop time it took."""
    store = await monday_store(path)
    try:
        bot = Bot("42:TEST", session=session)
        sender = OutboxSender(
            bot, store, ManualClock(at(1, 1)), i18n, limits=Limits(), maps=MapDrawer(0)
        )
        loop = asyncio.get_running_loop()
        start = loop.time()
        while (await sender.send_due()).sent:
            pass
        return loop.time() - start
    finally:
        await store.close()


class TimedSession(FakeSession):
    """The fake Telegram, stamping each request with the loop time it arrived at; with
    ``jitter``, each request takes a seeded random 0 to ``jitter`` seconds to get there (the
    network), so requests let go a second apart may arrive closer."""

    def __init__(self, jitter: float = 0.0) -> None:
        super().__init__({})
        self.times: list[tuple[float, int | None]] = []
        self.jitter = jitter
        self._random = random.Random(20)

    async def make_request(
        self, bot: Bot, method: TelegramMethod[Any], timeout: int | None = None
    ) -> Any:
        if self.jitter:
            await asyncio.sleep(self._random.uniform(0, self.jitter))
        chat = getattr(method, "chat_id", None)
        self.times.append(
            (asyncio.get_running_loop().time(), chat if isinstance(chat, int) else None)
        )
        return await super().make_request(bot, method, timeout)


async def monday_store(path: Path) -> Store:
    """``CAMPAIGNS`` campaigns in their own groups, each with its own six players, resolved
    on the same Monday: their maps, boards, summaries and notices wait in the outbox."""
    store = await SqliteCampaignStore.open(path)
    for index in range(CAMPAIGNS):
        campaign = await store.create_campaign(
            NewCampaign(
                chat_id=-1_000_000 - index,
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
    return store


@pytest.mark.parametrize("jitter", [0.0, 0.02])
def test_a_whole_monday_keeps_every_limit_on_the_actual_request_times(
    tmp_path: Path, i18n: I18n, jitter: float
) -> None:
    session = TimedSession(jitter)
    elapsed = fast(lambda: _send_a_monday(tmp_path / "monday.sqlite3", session, i18n))
    requests = [t for t, chat in session.times if chat is not None]
    groups: dict[int, list[float]] = defaultdict(list)
    privates: dict[int, list[float]] = defaultdict(list)
    for moment, chat in session.times:
        if chat is not None:
            (groups if chat < 0 else privates)[chat].append(moment)
    assert len(groups) == CAMPAIGNS
    assert len(requests) > 300
    assert most_in_any_window(requests, 1.0) <= 30
    assert max(most_in_any_window(times, 60.0) for times in groups.values()) <= 20
    assert max(most_in_any_window(times, 1.0) for times in privates.values()) <= 1
    # The windows hold the rate, not less: the sends take about as long as the rate allows.
    assert elapsed < len(requests) / 30 * 1.2 + 60
