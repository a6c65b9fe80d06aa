"""The worst Monday: N campaigns resolve at the same minute; how soon Telegram has every post.

Run from the repository root: ``.venv/bin/python bench/monday_bench.py [--campaigns N]``
(default 100: about two minutes; ``--campaigns 1000``: about fifteen). ``--database FILE``
keeps the built campaigns and reuses them next time; ``--passes`` picks what to run.

Setup (not measured): N campaigns in a ``SqliteCampaignStore`` file on disk, each in its own
group with three sides, seven people of its own (half the campaigns in Russian) and a weekly
schedule in Europe/Moscow, played through the storage API and the real scheduler up to the
Monday resolution: deployment on Monday 2 March, orders on Tuesday, the orders window closed
by ``CampaignScheduler.run_due`` on Thursday 23:59, results reported and confirmed on Saturday
(one battle in ten left unreported: a draw), and everything queued that week marked as sent,
with each group's pinned status board remembered, as the sender would have left it.

Each pass runs in a fresh process on a copy of that file, so its CPU time and peak memory are
the Monday's own: the real ``CampaignScheduler.run_due`` at the deadline (Monday 9 March, 12:00
in Moscow, every campaign due at once; ``--at-once`` campaigns at a time) while the real
``OutboxSender.run`` sends, woken by the scheduler as in ``bot/runtime/runner.py``, its maps drawn
by a ``MapDrawer`` of ``--map-workers`` processes (0: threads; default as the bot's ``MAP_WORKERS``;
started and warmed before the deadline, as the bot does when it starts; the pass "old" draws with
the renderer before issue 20, ``bench/old_drawing.py``, for the side-by-side figures),
with the production ``Limits`` (30 requests a second per bot, 20 a minute per group, 1 a second
per private chat), or none in the pass that shows the bot's own ceiling. Telegram is a mocked
aiogram session that accepts each request after a random 50-100 ms (an async sleep) and notes
when it arrived; in the pass with 429s it answers some requests "Too Many Requests" with a
``retry_after`` and counts any later request to that chat that came before it had passed. A
pass ends when every message the Monday queued (and that is due on Monday) is sent or given up.

Printed per pass: when the scheduler finished, when the last map with its summary and the last
message of all were handed to Telegram (seconds from the deadline), the requests by Telegram
method and the outbox messages by kind, the floor (requests / 30 per second) and the ratio to
it, the most requests Telegram saw in any 1 s (bot) and 60 s (one group), the time the sender
waited for its maps, the chats handed a post of turn 2's opening before turn 1's news (the
story's order: none), the issue's targets (the last map and summary within 1.2 x N/30 s + 2 s;
everything within 1.05 x the floor), CPU time (``resource.getrusage`` for the process;
``/proc`` for its child processes, the map drawers) and peak RSS. Last, the same maps drawn
alone, 20 at a time, in threads and in process pools, by the old renderer and by today's.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as wall_time
from pathlib import Path
from typing import Any, cast
from zoneinfo import ZoneInfo

# The repository root, so the script also runs where the package is not installed.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from aiogram import Bot  # noqa: E402
from aiogram.client.session.base import BaseSession  # noqa: E402
from aiogram.exceptions import TelegramRetryAfter  # noqa: E402
from aiogram.methods import (  # noqa: E402
    EditMessageCaption,
    EditMessageText,
    GetMe,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType  # noqa: E402
from aiogram.types import Chat, Message, PhotoSize, User  # noqa: E402
from old_drawing import OLD_COMMIT, draw_old  # noqa: E402

from bot.runtime.clock import ManualClock  # noqa: E402
from bot.screens.rendering import MapDrawer, default_workers  # noqa: E402
from bot.services.campaigns import PALETTE  # noqa: E402
from bot.services.clockwork import advance  # noqa: E402
from bot.services.outbox_sender import Limits, OutboxSender  # noqa: E402
from bot.services.schedule import RUNS_AT_ONCE, CampaignScheduler  # noqa: E402
from bot.services.turns import game_for  # noqa: E402
from bot.testing.clock_control import NO_LIMITS  # noqa: E402
from bot.texts.i18n import build_i18n  # noqa: E402
from rules.render import RUSSIAN_LABELS, MapLabels, MapView, SideView  # noqa: E402
from storage import (  # noqa: E402
    NewCampaign,
    NewSide,
    OutboxMessage,
    OutboxState,
    Phase,
    Role,
    SqliteCampaignStore,
    WriteOutcome,
)
from storage.db import Database  # noqa: E402
from tests.storage.campaign_script import pick_orders, pick_result  # noqa: E402

ZONE = "Europe/Moscow"
FIRST_MONDAY = date(2026, 3, 2)
"""Deployment and turn 1 begin on this Monday; turn 1 resolves a week later."""
SIDES = (("imperium", "Imperium", "Империум"), ("chaos", "Chaos", "Хаос"), ("orks", "Orks", "Орки"))
PLACEMENTS = {
    "imperium": {"1": 4, "2": 3, "4": 3},
    "chaos": {"1": 3, "3": 5, "5": 2},
    "orks": {"2": 4, "3": 3, "5": 3},
}
USERS_PER_CAMPAIGN = 100
"""Campaign ``i`` has its own people: ids ``BASE_USER + 100 i + 1 ..``."""
BASE_USER = 1_000_000
BASE_CHAT = -1_001_000_000_000
UNREPORTED_SHARE = 0.1
TELEGRAM_PER_SECOND = 30
TELEGRAM_GROUP_PER_MINUTE = 20
BOT_USER = User(id=4242, is_bot=True, first_name="Strategium", username="strategium_bot")


def local(day: int, hour: int, minute: int = 0) -> datetime:
    """``day`` days after the first Monday at ``hour:minute`` in Moscow, as UTC."""
    wall = datetime.combine(FIRST_MONDAY + timedelta(days=day), wall_time(hour, minute))
    return wall.replace(tzinfo=ZoneInfo(ZONE)).astimezone(UTC)


DEADLINE = local(7, 12)
"""Turn 1's resolution: Monday 9 March 2026, 12:00 in Moscow."""


# ---- setup ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class People:
    """The people of campaign ``index``: a GM, and a strategist and a tactician per side."""

    index: int

    def user(self, number: int) -> int:
        """The ``number``-th person of this campaign (1 is the GM)."""
        return BASE_USER + USERS_PER_CAMPAIGN * self.index + number

    @property
    def gm(self) -> int:
        """The GM."""
        return self.user(1)

    def strategist(self, side: int) -> int:
        """Who gives the orders of side ``side`` (0-based)."""
        return self.user(10 + 2 * side)

    def tactician(self, side: int) -> int:
        """Who plays and reports the battles of side ``side`` (0-based)."""
        return self.user(11 + 2 * side)


async def build_campaign(store: SqliteCampaignStore, index: int) -> int:
    """Campaign ``index`` created, deployed and in turn 1's orders; returns its id."""
    people = People(index)
    russian = index % 2 == 0
    language = "ru" if russian else "en"
    created = local(0, 9)
    everyone = [(people.gm, Role.GM, None)] + [
        (user, role, side)
        for side in range(len(SIDES))
        for user, role in (
            (people.strategist(side), Role.STRATEGIST),
            (people.tactician(side), Role.TACTICIAN),
        )
    ]
    for user, _, _ in everyone:
        await store.see_person(user, f"Player {user}", None, language, True, created)
    campaign = await store.create_campaign(
        NewCampaign(
            chat_id=BASE_CHAT - index,
            title=f"{'Осада Вракса' if russian else 'Siege of Vraks'} {index + 1}",
            time_zone=ZONE,
            language=language,
            created_by=people.gm,
            creator_name=f"Player {people.gm}",
        ),
        created,
    )
    for position, (side_id, english, russian_name) in enumerate(SIDES):
        name = russian_name if russian else english
        new_side = NewSide(id=side_id, name=name, colour=PALETTE[position].hex)
        await store.add_side(campaign.id, new_side, people.gm, created)
    for user, role, side in everyone[1:]:
        plays = None if side is None else SIDES[side][0]
        await store.put_member(
            campaign.id, user, f"Player {user}", frozenset({role}), plays, people.gm, created
        )
    opened = await advance(store, campaign.id, 0, Phase.SETUP, people.gm, local(0, 10))
    if not opened.advanced:
        raise SystemExit(f"campaign {campaign.id}: deployment did not open: {opened.outcome}")
    for side, (side_id, _, _) in enumerate(SIDES):
        placed = await store.save_placement(
            campaign.id, side_id, PLACEMENTS[side_id], True, people.strategist(side), local(0, 11)
        )
        if placed.outcome is not WriteOutcome.SAVED:
            raise SystemExit(f"campaign {campaign.id}: {side_id} not placed: {placed.outcome}")
    started = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, people.gm, local(0, 12))
    if not started.advanced:
        raise SystemExit(f"campaign {campaign.id}: turn 1 did not begin: {started.outcome}")
    return campaign.id


async def give_orders(store: SqliteCampaignStore, campaign_id: int, index: int) -> None:
    """Every side's strategist gives seeded orders on Tuesday, ready."""
    campaign = await store.campaign(campaign_id)
    state = await store.turn_start(campaign_id, 1)
    if campaign is None or state is None:
        raise SystemExit(f"campaign {campaign_id} has no turn 1")
    game = game_for(campaign)
    rng = random.Random(index)
    for side, (side_id, _, _) in enumerate(SIDES):
        orders = pick_orders(game, state, side_id, rng)
        saved = await store.save_orders(
            campaign_id, 1, side_id, orders, True, People(index).strategist(side), local(1, 10)
        )
        if saved.outcome is not WriteOutcome.SAVED:
            raise SystemExit(f"campaign {campaign_id}: orders of {side_id}: {saved.outcome}")


async def report_results(store: SqliteCampaignStore, campaign_id: int, index: int) -> int:
    """On Saturday the tacticians report and confirm most battles; returns how many."""
    battle_list = await store.battle_list(campaign_id, 1)
    if battle_list is None:
        raise SystemExit(f"campaign {campaign_id} has no battle list")
    rng = random.Random(1000 + index)
    side_number = {side_id: number for number, (side_id, _, _) in enumerate(SIDES)}
    people = People(index)
    reported = 0
    for battle in battle_list.battles:
        if rng.random() < UNREPORTED_SHARE:
            continue
        result = pick_result(battle, rng)
        attacker = people.tactician(side_number[battle.attacker])
        defender = people.tactician(side_number[battle.defender])
        await store.report_result(campaign_id, 1, result, attacker, local(5, 15))
        confirmed = await store.confirm_result(campaign_id, 1, result, defender, local(5, 16))
        if confirmed.outcome is not WriteOutcome.SAVED:
            raise SystemExit(f"campaign {campaign_id}: battle {battle.id}: {confirmed.outcome}")
        reported += 1
    return reported


async def mark_week_sent(store: SqliteCampaignStore, campaign_ids: list[int]) -> int:
    """Everything queued before Sunday evening marked sent, boards remembered; returns how many."""
    moment = local(6, 20)
    marked = 0
    telegram_id = 500
    while claimed := await store.claim_due(moment, 5000, 3600):
        for message in claimed:
            telegram_id += 1
            await store.mark_sent(message.id, telegram_id, moment)
            marked += 1
    for campaign_id in campaign_ids:
        await store.set_status_message(campaign_id, 100 + campaign_id)
    return marked


async def build(path: Path, campaigns: int) -> dict[str, float]:
    """The database of N campaigns waiting for the Monday resolution; returns setup figures."""
    started = time.perf_counter()
    store = SqliteCampaignStore(await Database.open(path))
    try:
        ids = [await build_campaign(store, index) for index in range(campaigns)]
        for index, campaign_id in enumerate(ids):
            await give_orders(store, campaign_id, index)
        scheduler = CampaignScheduler(store, ManualClock(local(3, 23, 59)))
        await scheduler.run_due(local(3, 23, 59))
        battles = 0
        reported = 0
        for index, campaign_id in enumerate(ids):
            campaign = await store.campaign(campaign_id)
            if campaign is None or (campaign.turn, campaign.phase) != (1, Phase.BATTLES):
                raise SystemExit(f"campaign {campaign_id} did not reach the battles of turn 1")
            battle_list = await store.battle_list(campaign_id, 1)
            battles += len(battle_list.battles) if battle_list is not None else 0
            reported += await report_results(store, campaign_id, index)
        marked = await mark_week_sent(store, ids)
    finally:
        await store.close()
    return {
        "seconds": time.perf_counter() - started,
        "battles": battles,
        "reported": reported,
        "week_messages": marked,
    }


# ---- the mocked Telegram -------------------------------------------------------------------


@dataclass
class Floods:
    """Which requests the mocked Telegram refuses with 429, and what it saw of them."""

    share: float = 0.0
    retry_after: tuple[int, int] = (1, 5)
    refused: int = 0
    too_early: int = 0
    """Requests to a chat before the ``retry_after`` it was given had passed."""


class MockTelegram(BaseSession):
    """Accepts every request after a random latency (an async sleep), noting when each arrived
    and to which chat; it answers ``floods.share`` of the requests to chats with a 429."""

    def __init__(
        self, latency: tuple[float, float], floods: Floods, rng: random.Random, started: float
    ) -> None:
        super().__init__()
        self.latency = latency
        self.floods = floods
        self.arrivals: list[tuple[float, int, str]] = []
        """(seconds from the start, chat id or 0, method name) of each accepted request."""
        self.map_bytes = 0
        self.started = started
        """The ``time.perf_counter()`` that arrival times count from."""
        self._rng = rng
        self._blocked_until: dict[int, float] = {}
        self._next_id = 100_000

    async def close(self) -> None:
        """Nothing to close."""

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        arrived = time.perf_counter() - self.started
        chat = getattr(method, "chat_id", None)
        chat_id = chat if isinstance(chat, int) else 0
        if arrived < self._blocked_until.get(chat_id, 0.0):
            self.floods.too_early += 1
        await asyncio.sleep(self._rng.uniform(*self.latency))
        if chat_id and self._rng.random() < self.floods.share:
            seconds = self._rng.randint(*self.floods.retry_after)
            self._blocked_until[chat_id] = time.perf_counter() - self.started + seconds
            self.floods.refused += 1
            raise TelegramRetryAfter(
                method, f"Too Many Requests: retry after {seconds}", retry_after=seconds
            )
        self.arrivals.append((arrived, chat_id, type(method).__name__))
        if isinstance(method, SendPhoto):
            photo = getattr(method.photo, "data", b"")
            self.map_bytes += len(photo) if isinstance(photo, bytes) else 0
        return cast(TelegramType, self._answer(method, chat_id))

    def _answer(self, method: TelegramMethod[Any], chat_id: int) -> Any:
        chat = Chat(id=chat_id, type="supergroup" if chat_id < 0 else "private")
        moment = datetime(2026, 3, 9, 9, tzinfo=UTC)
        match method:
            case GetMe():
                return BOT_USER
            case SendPhoto():
                self._next_id += 1
                size = PhotoSize(file_id="map", file_unique_id="map", width=1280, height=1280)
                return Message(
                    message_id=self._next_id,
                    date=moment,
                    chat=chat,
                    photo=[size],
                    caption=method.caption,
                )
            case SendMessage():
                self._next_id += 1
                return Message(message_id=self._next_id, date=moment, chat=chat, text=method.text)
            case EditMessageText() | EditMessageCaption():
                return Message(message_id=method.message_id or 0, date=moment, chat=chat)
            case _:
                return True

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        """Nothing is downloaded on a Monday."""
        raise NotImplementedError(url)
        yield b""


class RecordingStore(SqliteCampaignStore):
    """The real store, noting which messages the sender claims and when each is settled."""

    def __init__(self, db: Database, started: float) -> None:
        super().__init__(db)
        self.started = started
        self.claimed: dict[int, OutboxMessage] = {}
        self.settled: dict[int, float] = {}
        self.given_up: set[int] = set()
        self.nothing_to_send: set[int] = set()
        """Messages whose renderer found nothing to send (e.g. a board a newer one replaces)."""
        self.retries = 0
        self.waiting: set[int] | None = None
        self.done = asyncio.Event()

    async def claim_due(
        self, now: datetime, limit: int, lease_seconds: float
    ) -> list[OutboxMessage]:
        claimed = await super().claim_due(now, limit, lease_seconds)
        for message in claimed:
            self.claimed.setdefault(message.id, message)
        return claimed

    async def mark_sent(
        self, message_id: int, telegram_message_id: int | None, now: datetime
    ) -> bool:
        changed = await super().mark_sent(message_id, telegram_message_id, now)
        if telegram_message_id is None:
            self.nothing_to_send.add(message_id)
        self._settle(message_id)
        return changed

    async def mark_failed(
        self, message_id: int, error: str, retry_at: datetime | None, now: datetime
    ) -> bool:
        changed = await super().mark_failed(message_id, error, retry_at, now)
        if retry_at is None:
            self.given_up.add(message_id)
            self._settle(message_id)
        else:
            self.retries += 1
        return changed

    def expect(self, ids: set[int]) -> None:
        """The pass ends once every message in ``ids`` is settled."""
        self.waiting = ids - set(self.settled)
        if not self.waiting:
            self.done.set()

    def _settle(self, message_id: int) -> None:
        self.settled[message_id] = time.perf_counter() - self.started
        if self.waiting is not None:
            self.waiting.discard(message_id)
            if not self.waiting:
                self.done.set()


class RunningClock:
    """Real time from ``start`` on: the sender's clock, so a ``retry_after`` comes due."""

    def __init__(self, start: datetime) -> None:
        self._start = start
        self._origin = time.perf_counter()

    def now(self) -> datetime:
        """``start`` plus the real time since the clock was made."""
        return self._start + timedelta(seconds=time.perf_counter() - self._origin)


class TimedDrawer(MapDrawer):
    """The bot's map drawer, counting the maps and the time the sender waited for each (wall,
    summed: the drawing and any wait for a free thread or worker)."""

    def __init__(self, workers: int, old: bool = False) -> None:
        super().__init__(workers, draw_function=draw_old if old else None)
        self.maps = 0
        self.seconds = 0.0

    async def draw(self, view: MapView) -> bytes:
        before = time.perf_counter()
        try:
            return await super().draw(view)
        finally:
            self.maps += 1
            self.seconds += time.perf_counter() - before


# ---- one pass ------------------------------------------------------------------------------


@dataclass
class PassResult:
    """What one measured pass saw; times in seconds from the deadline run's start."""

    name: str
    map_workers: int = 0
    at_once: int = 1
    old_drawing: bool = False
    scheduler_done: float = 0.0
    maps_done: float = 0.0
    all_done: float = 0.0
    campaigns_resolved: int = 0
    requests: dict[str, int] = field(default_factory=dict)
    kinds_sent: dict[str, int] = field(default_factory=dict)
    kinds_skipped: dict[str, int] = field(default_factory=dict)
    held: dict[str, int] = field(default_factory=dict)
    given_up: int = 0
    retries: int = 0
    floods_refused: int = 0
    floods_too_early: int = 0
    max_bot_per_second: int = 0
    max_group_per_minute: int = 0
    max_private_per_second: int = 0
    maps_drawn: int = 0
    drawing_seconds: float = 0.0
    map_kilobytes: float = 0.0
    maps_sent_twice: int = 0
    summary_texts: int = 0
    """Text messages to groups: a summary too long for its map's caption goes on in one."""
    out_of_order: int = 0
    """Chats that were handed a post of turn 2's opening (the board, «orders are open») before
    turn 1's news (the map, the player's summary)."""
    cpu_self: float = 0.0
    cpu_children: float = 0.0
    peak_rss_mb: float = 0.0
    rss_before_mb: float = 0.0
    children_peak_rss_mb: float = 0.0


def most_in_window(times: list[float], window: float) -> int:
    """The most of ``times`` (sorted) that fall within any ``window`` seconds."""
    best = 0
    for index, start in enumerate(times):
        best = max(best, bisect.bisect_left(times, start + window, lo=index) - index)
    return best


def descendants() -> list[int]:
    """The process ids of this process's live descendants (from ``/proc``; none elsewhere)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            parents[int(entry.name)] = int(_stat_fields(int(entry.name))[1])
        except (OSError, ValueError, IndexError):
            continue
    found: list[int] = []
    frontier = [os.getpid()]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, its_parent in parents.items() if its_parent == parent]
        found += children
        frontier += children
    return found


def _stat_fields(pid: int) -> list[str]:
    """``/proc/<pid>/stat`` after the command name: state, ppid, ... (``man 5 proc``)."""
    return Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()


def processes_cpu_and_peak(pids: list[int]) -> tuple[float, float]:
    """CPU seconds (theirs and their reaped children's) and summed peak RSS (MB) of ``pids``."""
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = peak = 0.0
    for pid in pids:
        try:
            fields = _stat_fields(pid)
            status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
        except OSError:
            continue
        cpu += sum(int(value) for value in fields[11:15]) / ticks
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peak += int(line.split()[1]) / 1024
    return cpu, peak


def rss_mb() -> float:
    """The process's resident set size now, from ``/proc/self/status`` (0 where absent)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def monday(
    path: Path,
    name: str,
    latency: tuple[float, float],
    floods: Floods,
    limits: Limits,
    map_workers: int,
    at_once: int,
    old_drawing: bool = False,
) -> PassResult:
    """The measured Monday on the database at ``path`` (maps drawn by the old renderer with
    ``old_drawing``)."""
    drawing = TimedDrawer(map_workers, old_drawing)
    await drawing.warm()  # as the bot does when it starts, days before the Monday
    result = PassResult(
        name=name,
        map_workers=map_workers,
        at_once=at_once,
        old_drawing=old_drawing,
        rss_before_mb=rss_mb(),
    )
    started = time.perf_counter()
    store = RecordingStore(await Database.open(path), started)
    session = MockTelegram(latency, floods, random.Random(7), started)
    telegram = Bot("42:BENCH", session=session)
    sender = OutboxSender(
        telegram, store, RunningClock(DEADLINE), build_i18n(), limits=limits, maps=drawing
    )
    scheduler = CampaignScheduler(store, ManualClock(DEADLINE), on_queued=sender.wake)
    campaign_ids = [campaign.id for campaign in await store.unfinished_campaigns()]
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = store.started = time.perf_counter()
    session.started = started
    stop = asyncio.Event()
    sending = asyncio.create_task(sender.run(stop))
    try:
        await scheduler.run_due(DEADLINE, at_once=at_once)
        result.scheduler_done = time.perf_counter() - started
        waiting: set[int] = set()
        for campaign_id in campaign_ids:
            for message in await store.outbox_messages(campaign_id):
                if message.state not in (OutboxState.PENDING, OutboxState.SENDING):
                    continue
                if message.attempts > 0 or message.not_before <= DEADLINE:
                    waiting.add(message.id)
                else:
                    result.held[message.kind] = result.held.get(message.kind, 0) + 1
        store.expect(waiting)
        await store.done.wait()
        result.all_done = time.perf_counter() - started
    finally:
        stop.set()
        await sending
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # The drawing processes started with the first map, so all their CPU is the Monday's.
    drawers_cpu, drawers_peak = processes_cpu_and_peak(descendants())
    drawing.close()
    for campaign_id in campaign_ids:
        campaign = await store.campaign(campaign_id)
        if campaign is not None and campaign.turn > 1:
            result.campaigns_resolved += 1
    await store.close()
    await session.close()
    tally(result, store, session)
    result.maps_drawn = drawing.maps
    result.drawing_seconds = drawing.seconds
    result.cpu_self = (cpu_after.ru_utime + cpu_after.ru_stime) - (
        cpu_before.ru_utime + cpu_before.ru_stime
    )
    result.cpu_children = (
        drawers_cpu
        + (children_after.ru_utime + children_after.ru_stime)
        - (children_before.ru_utime + children_before.ru_stime)
    )
    result.peak_rss_mb = cpu_after.ru_maxrss / 1024
    result.children_peak_rss_mb = drawers_peak
    return result


MONDAY_STAGES = {"private_phase_notice": 1, "status_board": 1, "seeds_committed": 1}
"""The Monday's posts of what comes next (turn 2's opening, the board as it stands); every
other post of it (the map, the players' summaries) tells what happened and comes first."""


def tally(result: PassResult, store: RecordingStore, session: MockTelegram) -> None:
    """Count what the Monday queued and sent, and what Telegram saw of it."""
    monday_ids = {i for i, m in store.claimed.items() if m.created_at >= DEADLINE}
    requested = Counter(kind for _, _, kind in session.arrivals)
    result.requests = dict(requested.most_common())
    settled = [i for i in monday_ids if i in store.settled]
    sent = Counter(store.claimed[i].kind for i in settled if i not in store.nothing_to_send)
    result.kinds_sent = dict(sent.most_common())
    skipped = Counter(store.claimed[i].kind for i in settled if i in store.nothing_to_send)
    result.kinds_skipped = dict(skipped.most_common())
    result.given_up = len(store.given_up)
    result.retries = store.retries
    map_times = [store.settled[i] for i in monday_ids if store.claimed[i].kind == "map"]
    result.maps_done = max(map_times, default=0.0)
    result.floods_refused = session.floods.refused
    result.floods_too_early = session.floods.too_early
    bot_times = sorted(at for at, chat, _ in session.arrivals if chat)
    result.max_bot_per_second = most_in_window(bot_times, 1.0)
    by_chat: dict[int, list[float]] = {}
    for at, chat, _ in session.arrivals:
        by_chat.setdefault(chat, []).append(at)
    result.max_group_per_minute = max(
        (most_in_window(sorted(t), 60.0) for c, t in by_chat.items() if c < 0), default=0
    )
    result.max_private_per_second = max(
        (most_in_window(sorted(t), 1.0) for c, t in by_chat.items() if c > 0), default=0
    )
    result.map_kilobytes = session.map_bytes / 1024
    photos = Counter(chat for _, chat, method in session.arrivals if method == "SendPhoto")
    result.maps_sent_twice = sum(count - 1 for count in photos.values())
    result.summary_texts = sum(
        1 for _, chat, method in session.arrivals if method == "SendMessage" and chat < 0
    )
    stages: dict[int, list[int]] = {}
    for i in sorted(settled, key=lambda i: store.settled[i]):
        if i not in store.nothing_to_send:
            message = store.claimed[i]
            stages.setdefault(message.chat_id, []).append(MONDAY_STAGES.get(message.kind, 0))
    result.out_of_order = sum(1 for seen in stages.values() if seen != sorted(seen))


def run_pass_here(options: argparse.Namespace) -> None:
    """The child process: one pass, its figures as one JSON line on standard output."""
    floods = Floods(share=options.flood_share, retry_after=(1, options.flood_max_retry))
    latency = (options.latency_ms[0] / 1000, options.latency_ms[1] / 1000)
    limits = NO_LIMITS if options.unlimited else Limits()
    result = asyncio.run(
        monday(
            Path(options.run_pass),
            options.name,
            latency,
            floods,
            limits,
            options.map_workers,
            options.at_once,
            options.old_drawing,
        )
    )
    print(json.dumps(asdict(result)))


@dataclass(frozen=True)
class Pass:
    """One measured run: its name, the share of requests answered 429, Telegram's limits."""

    name: str
    flood_share: float = 0.0
    unlimited: bool = False
    old_drawing: bool = False


def run_pass(template: Path, work: Path, plan: Pass, options: argparse.Namespace) -> PassResult:
    """Copy the database and run one pass on it in a fresh process."""
    copy = work / "pass.sqlite3"
    shutil.copyfile(template, copy)
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--run-pass",
        str(copy),
        "--name",
        plan.name,
        "--flood-share",
        str(plan.flood_share),
        "--flood-max-retry",
        str(options.flood_max_retry),
        "--latency-ms",
        *(str(ms) for ms in options.latency_ms),
        "--map-workers",
        str(options.map_workers),
        "--at-once",
        str(options.at_once),
        *(["--unlimited"] if plan.unlimited else []),
        *(["--old-drawing"] if plan.old_drawing else []),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    copy.unlink()
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"pass {plan.name!r} failed (exit status {done.returncode})")
    return PassResult(**json.loads(done.stdout.strip().splitlines()[-1]))


# ---- drawing alone: threads or processes -------------------------------------------------


@dataclass
class DrawingRate:
    """Maps drawn with ``in_flight`` at a time: wall time and the event loop's worst lag."""

    how: str
    maps: int
    seconds: float
    worst_lag: float

    def line(self) -> str:
        """One printed line."""
        return (
            f"  {self.how:<34} {self.maps / self.seconds:6.1f} maps/s"
            f"   ({self.maps} maps in {self.seconds:.1f} s; the event loop's worst lag"
            f" {1000 * self.worst_lag:.0f} ms)"
        )


async def monday_views(path: Path, count: int) -> list[MapView]:
    """The maps of the first ``count`` campaigns as their groups see them (turn 1's state)."""
    store = SqliteCampaignStore(await Database.open(path))
    views: list[MapView] = []
    try:
        for campaign in (await store.unfinished_campaigns())[:count]:
            state = await store.turn_start(campaign.id, 1)
            if state is None:
                continue
            sides = await store.sides(campaign.id)
            views.append(
                MapView(
                    map=game_for(campaign).map,
                    state=state,
                    sides=tuple(SideView(id=s.id, name=s.name, colour=s.colour) for s in sides),
                    title=campaign.title,
                    language=campaign.language,
                    labels=RUSSIAN_LABELS if campaign.language == "ru" else MapLabels(),
                )
            )
    finally:
        await store.close()
    return views


async def draw_all(
    how: str, views: list[MapView], in_flight: int, draw: Callable[[MapView], Awaitable[bytes]]
) -> DrawingRate:
    """Draw every view, ``in_flight`` at a time, while a ticker measures the loop's lag."""
    slots = asyncio.Semaphore(in_flight)
    worst = 0.0
    drawing = True

    async def tick() -> None:
        nonlocal worst
        while drawing:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            worst = max(worst, time.perf_counter() - before - 0.01)

    async def one(view: MapView) -> None:
        async with slots:
            await draw(view)

    ticker = asyncio.create_task(tick())
    started = time.perf_counter()
    await asyncio.gather(*(one(view) for view in views))
    seconds = time.perf_counter() - started
    drawing = False
    await ticker
    return DrawingRate(how=how, maps=len(views), seconds=seconds, worst_lag=worst)


async def drawing_rates(
    path: Path, count: int, in_flight: int, map_workers: int
) -> list[DrawingRate]:
    """The same maps drawn by the bot's ``MapDrawer``: in threads, and in pools of
    ``map_workers`` processes and of one per core, each started and warmed up first."""
    views = await monday_views(path, count)
    rates: list[DrawingRate] = []
    cores = os.cpu_count() or 1
    for workers in sorted({0, map_workers, cores}):
        for old in (True, False):
            drawer = MapDrawer(workers, draw_function=draw_old if old else None)
            try:
                await asyncio.gather(*(drawer.draw(view) for view in views[: max(workers, 1)]))
                how = f"process pool ({workers} workers)" if workers else "threads"
                how = f"{'old' if old else 'new'} drawing, {how}"
                rates.append(await draw_all(how, views, in_flight, drawer.draw))
            finally:
                drawer.close()
    return rates


# ---- report --------------------------------------------------------------------------------


def floor_seconds(result: PassResult) -> float:
    """The least time Telegram's limits allow for the pass's requests: every request counts
    against the bot's 30 a second (a group's few requests stay within its 20 a minute)."""
    total = sum(result.requests.values()) - result.requests.get("GetMe", 0)
    return total / TELEGRAM_PER_SECOND


def report(campaigns: int, result: PassResult) -> None:
    """Print one pass."""
    total = sum(result.requests.values()) - result.requests.get("GetMe", 0)
    floor = floor_seconds(result)
    maps_floor = campaigns / TELEGRAM_PER_SECOND
    print(
        f"\n{result.name}: {result.campaigns_resolved}/{campaigns} campaigns resolved,"
        f" {result.at_once} at a time"
    )
    print(f"  scheduler (rules + storage) done   {result.scheduler_done:8.1f} s")
    print(
        f"  last map + summary handed over     {result.maps_done:8.1f} s"
        f"   (maps alone at 30/s: {maps_floor:.1f} s)"
    )
    print(
        f"  last message handed over           {result.all_done:8.1f} s"
        f"   floor {floor:.1f} s ({total} requests / 30 per s): ratio {result.all_done / floor:.2f}"
    )
    maps_target = 1.2 * maps_floor + 2
    print(
        f"  target: last map + summary within 1.2 x {maps_floor:.1f} s + 2 s = {maps_target:.1f} s:"
        f" {result.maps_done / maps_target:.2f} of it"
        f" ({'met' if result.maps_done <= maps_target else 'MISSED'});"
        f" everything within 1.05 x the floor: {result.all_done / floor:.2f}"
        f" ({'met' if result.all_done <= 1.05 * floor else 'MISSED'})"
    )
    print(f"  requests by method                 {result.requests}")
    print(f"  outbox messages sent, by kind      {result.kinds_sent}")
    if result.kinds_skipped:
        print(f"  rendered to nothing (not sent)     {result.kinds_skipped}")
    if result.held:
        print(f"  queued, held past Monday (unsent)  {result.held}")
    print(
        f"  summaries too long for a caption {result.summary_texts}"
        f" (each one more message); maps that reached a group twice {result.maps_sent_twice}"
    )
    print(
        f"  chats handed turn 2's opening before turn 1's news {result.out_of_order}"
        " (the story's order: 0)"
    )
    print(
        f"  429 answers {result.floods_refused}, retries {result.retries},"
        f" requests before retry_after passed {result.floods_too_early},"
        f" given up {result.given_up}"
    )
    print(
        f"  most requests seen: {result.max_bot_per_second} in 1 s (bot),"
        f" {result.max_group_per_minute} in 60 s (one group),"
        f" {result.max_private_per_second} in 1 s (one private chat)"
    )
    per_map = 1000 * result.drawing_seconds / result.maps_drawn if result.maps_drawn else 0.0
    drawn_by = (
        f"{result.map_workers} drawing processes" if result.map_workers else "drawn in threads"
    )
    print(
        f"  maps drawn {result.maps_drawn} ({drawn_by}): the sender waited"
        f" {result.drawing_seconds:.1f} s for them ({per_map:.0f} ms each),"
        f" {result.map_kilobytes / 1024:.1f} MB of PNG"
    )
    print(
        f"  CPU {result.cpu_self:.1f} s (+ {result.cpu_children:.1f} s in child processes);"
        f" peak RSS {result.peak_rss_mb:.0f} MB (before the deadline {result.rss_before_mb:.0f} MB"
        f"; children {result.children_peak_rss_mb:.0f} MB)"
    )


def machine_line() -> str:
    """Python, platform, cores and the load average now."""
    try:
        load = Path("/proc/loadavg").read_text(encoding="ascii").split()[:3]
    except OSError:
        load = ["?"]
    return (
        f"python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} CPUs;"
        f" load average {' '.join(load)}"
    )


def main() -> None:
    """Parse the options; build the database, run the passes and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--campaigns", type=int, default=100, help="campaigns due (default 100)")
    parser.add_argument(
        "--latency-ms",
        type=float,
        nargs=2,
        default=(50.0, 100.0),
        metavar=("LOW", "HIGH"),
        help="Telegram's answer time, uniform between LOW and HIGH ms (default 50 100)",
    )
    parser.add_argument(
        "--flood-share",
        type=float,
        default=0.03,
        help="share of requests answered 429 in the pass with 429s (default 0.03)",
    )
    parser.add_argument(
        "--flood-max-retry",
        type=int,
        default=5,
        help="a 429's retry_after is 1 to this many seconds (default 5)",
    )
    parser.add_argument(
        "--passes",
        nargs="+",
        choices=("old", "limits", "floods", "unlimited", "drawing"),
        default=("old", "limits", "floods", "unlimited", "drawing"),
        help="what to run (default all): a pass with Telegram's limits whose maps the old"
        f" renderer draws ({OLD_COMMIT}); the same with today's; the same with some 429"
        " answers; no limits at all (the bot's own ceiling); maps drawn alone, in threads and"
        " in process pools, by the old renderer and by today's",
    )
    parser.add_argument(
        "--map-workers",
        type=int,
        default=default_workers(),
        help="processes that draw the maps, 0: threads (default as the bot's MAP_WORKERS:"
        f" {default_workers()} here)",
    )
    parser.add_argument(
        "--at-once",
        type=int,
        default=RUNS_AT_ONCE,
        help=f"campaigns the scheduler runs at a time (default as the bot: {RUNS_AT_ONCE})",
    )
    parser.add_argument(
        "--drawn-maps",
        type=int,
        default=200,
        help="maps drawn in the drawing comparison (default 200, at most --campaigns)",
    )
    parser.add_argument(
        "--database",
        type=Path,
        help="keep the built database here and reuse it when it exists (same --campaigns)",
    )
    parser.add_argument("--workdir", type=Path, help="where the pass copies go (default: temp)")
    parser.add_argument("--run-pass", help=argparse.SUPPRESS)
    parser.add_argument("--name", default="pass", help=argparse.SUPPRESS)
    parser.add_argument("--unlimited", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--old-drawing", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.run_pass:
        run_pass_here(options)
        return
    if options.campaigns < 1:
        parser.error("--campaigns must be at least 1")

    print(machine_line())
    print(
        f"{options.campaigns} campaigns due Monday 9 March 2026, 12:00 {ZONE};"
        f" Telegram answers in {options.latency_ms[0]:g}-{options.latency_ms[1]:g} ms;"
        f" limits {Limits()}"
    )
    plans = {
        "old": Pass(f"Telegram's limits, the old drawing ({OLD_COMMIT})", old_drawing=True),
        "limits": Pass("Telegram's limits"),
        "floods": Pass(
            f"Telegram's limits, {options.flood_share:.0%} of requests answered 429",
            flood_share=options.flood_share,
        ),
        "unlimited": Pass("no limits: the bot's own ceiling", unlimited=True),
    }
    with tempfile.TemporaryDirectory(prefix="monday-", dir=options.workdir) as directory:
        work = Path(directory)
        template = options.database or work / "template.sqlite3"
        if template.exists():
            print(f"setup: reusing {template}")
        else:
            built = asyncio.run(build(template, options.campaigns))
            print(
                f"setup: {built['seconds']:.1f} s; {built['battles']:.0f} battles,"
                f" {built['reported']:.0f} reported; {built['week_messages']:.0f} earlier posts"
                " marked sent"
            )
        for key in options.passes:
            if key == "drawing":
                count = min(options.drawn_maps, options.campaigns)
                print(f"\nmaps drawn alone, 20 at a time (the sender's batch), {count} maps:")
                for rate in asyncio.run(drawing_rates(template, count, 20, options.map_workers)):
                    print(rate.line())
                continue
            result = run_pass(template, work, plans[key], options)
            if result.campaigns_resolved != options.campaigns:
                raise SystemExit(f"{template} does not hold {options.campaigns} campaigns due")
            report(options.campaigns, result)
    print(f"\nload average after: {machine_line().rsplit('load average ', 1)[-1]}")


if __name__ == "__main__":
    main()
