"""What the bot benchmarks share: the machine line, quantiles, and campaigns seeded in bulk.

Import it from a script in ``bench/`` run from the repository root (``python bench/x.py``):
the script's own folder is on ``sys.path``, so ``import _setup`` works, and importing it puts
the repository root there too (for ``bot``, ``storage``, ``rules`` and ``tests.bot.telegram``).

The API, kept small on purpose:

* :func:`machine_line`: cores, CPU model, Python, SQLite and aiogram versions, load average.
* :func:`quantile`: the q-quantile of a list of numbers (nearest rank).
* :func:`rss_bytes`: the process's resident set size now, from ``/proc/self/status``.
* :func:`seed_campaigns`: campaigns written through the storage API and
  :func:`bot.services.clockwork.advance`, each in turn 1's orders phase (weekly schedule, UTC)
  with four sides of two strategists; returns a :class:`Seeded` per campaign.
* :data:`MONDAY` (the moment campaigns are seeded: deployment opens and turn 1 begins) and
  :data:`TUESDAY` (a moment in the same week when the orders window is open).
* :func:`open_move_screen`: a seeded player, through the real dispatcher on a
  ``tests.bot.telegram.FakeTelegram``, sends ``/orders`` and taps sector -> Move -> destination;
  returns a :class:`Player` with the data of two "move n armies" buttons, whose alternate
  presses each save a changed order, and of the sector button.
* :func:`null_logs`: production's logfmt lines at INFO, written to nowhere (their cost counts).
"""

from __future__ import annotations

import logging
import os
import platform
import sqlite3
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aiogram.methods import EditMessageText, SendMessage  # noqa: E402
from aiogram.types import Update, User  # noqa: E402

from bot.handlers.private.callbacks import OrdersButton  # noqa: E402
from bot.runtime.clock import ManualClock  # noqa: E402
from bot.runtime.logs import LogfmtFormatter  # noqa: E402
from bot.services.campaigns import PlaceOutcome, place_side  # noqa: E402
from bot.services.clockwork import advance  # noqa: E402
from storage import NewCampaign, NewSide, Phase, Role, Store  # noqa: E402
from tests.bot.telegram import FakeTelegram, Sent  # noqa: E402

MONDAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
"""When seeded campaigns open deployment and begin turn 1 (tests/bot/conftest.py's START)."""
TUESDAY = datetime(2026, 3, 3, 10, 0, tzinfo=UTC)
"""The same week's Tuesday 10:00 UTC: the orders window of turn 1 is open."""

SIDES = (
    NewSide(id="red", name="Red Legion", colour="#cc0000"),
    NewSide(id="blue", name="Blue Host", colour="#0044cc"),
    NewSide(id="green", name="Green Horde", colour="#00aa33"),
    NewSide(id="yellow", name="Yellow Court", colour="#ccaa00"),
)
PLACEMENTS = {
    "red": {"1": 4, "2": 3, "4": 3},
    "blue": {"3": 4, "1": 3, "5": 3},
    "green": {"2": 4, "3": 3, "5": 3},
    "yellow": {"4": 4, "5": 3, "1": 3},
}
"""Planet-5 placements: every sector holds at least three armies (so a move of 1 or 2 may
leave it) and every sector is shared (so attacks are offered too)."""
STRATEGISTS_PER_SIDE = 2
PLAYERS_PER_CAMPAIGN = len(SIDES) * STRATEGISTS_PER_SIDE
FIRST_USER = 10_000_000
FIRST_GM = 9_000_000
FIRST_CHAT = -1_000_000_000_000


@dataclass(frozen=True)
class Seeded:
    """One seeded campaign: its id, group chat, GM and players (user id, side), side by side."""

    campaign_id: int
    chat_id: int
    gm: int
    players: tuple[tuple[int, str], ...]


def machine_line() -> str:
    """The machine and versions a figure was measured on, with the load average now."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/loadavg", encoding="utf-8") as load:
            loadavg = " ".join(load.read().split()[:3])
    except OSError:
        loadavg = "unknown"
    return (
        f"{os.cpu_count()} cores ({model}), {platform.platform()}; "
        f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, "
        f"aiogram {metadata.version('aiogram')}, aiosqlite {metadata.version('aiosqlite')}, "
        f"APScheduler {metadata.version('APScheduler')}; load average {loadavg}"
    )


def quantile(values: list[float], q: float) -> float:
    """The ``q`` (0..1) quantile of ``values`` by nearest rank (``values`` must not be empty)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def rss_bytes() -> int:
    """The resident set size of this process now (``VmRSS``), in bytes."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


async def seed_campaigns(
    store: Store, clock: ManualClock, count: int, first: int = 0
) -> list[Seeded]:
    """``count`` campaigns in turn 1's orders phase, numbered from ``first`` (so several calls
    on one store do not collide): each in its own group, with a GM and four sides of two
    strategists who opened the bot in private, deployed by the GM at :data:`MONDAY`.

    Everything goes through the storage API and ``advance`` (no dispatcher), a few dozen
    committed transactions per campaign, at :data:`MONDAY` (the clock must not be past it; it is
    left there).
    """
    clock.set(MONDAY)
    now = clock.now()
    seeded: list[Seeded] = []
    for number in range(first, first + count):
        chat_id = FIRST_CHAT - number
        gm = FIRST_GM + number
        await store.see_person(gm, f"GM {number}", None, "en", True, now)
        campaign = await store.create_campaign(
            NewCampaign(
                chat_id=chat_id,
                title=f"Bench {number}",
                created_by=gm,
                creator_name=f"GM {number}",
            ),
            now,
        )
        for side in SIDES:
            await store.add_side(campaign.id, side, gm, now)
        players: list[tuple[int, str]] = []
        for side_index, side in enumerate(SIDES):
            for slot in range(STRATEGISTS_PER_SIDE):
                user = (
                    FIRST_USER
                    + number * PLAYERS_PER_CAMPAIGN
                    + side_index * STRATEGISTS_PER_SIDE
                    + slot
                )
                name = f"Player {user}"
                await store.see_person(user, name, None, "en", True, now)
                await store.put_member(
                    campaign.id, user, name, frozenset({Role.STRATEGIST}), side.id, gm, now
                )
                players.append((user, side.id))
        opened = await advance(store, campaign.id, 0, Phase.SETUP, gm, now)
        if not opened.advanced or opened.campaign is None:
            raise RuntimeError(f"campaign {campaign.id}: deployment did not open: {opened}")
        for side in SIDES:
            placed, problems = await place_side(
                store, opened.campaign, side.id, PLACEMENTS[side.id], gm, now
            )
            if placed is not PlaceOutcome.PLACED:
                raise RuntimeError(f"campaign {campaign.id}: {side.id} not placed: {problems}")
        started = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, gm, now)
        if not started.advanced:
            raise RuntimeError(f"campaign {campaign.id}: turn 1 did not begin: {started}")
        seeded.append(Seeded(campaign.id, chat_id, gm, tuple(players)))
    return seeded


@dataclass
class Player:
    """A strategist ready to press: who, the two "move n armies" buttons of their count screen
    and the sector button of their ``/orders`` screen (callback data taken from the screens).

    Only the data is kept, not the screens: a thousand players' keyboards would make the
    process hold megabytes of objects the bot does not hold, which costs the garbage collector
    time and the memory figures bytes. :meth:`press` builds the update Telegram sends for a tap
    (its message carries no keyboard; the handlers read only its id)."""

    user: User
    moves: tuple[str, str]
    sector: str
    screen: int
    """The message the screens are shown in (edited in place as the player taps)."""
    presses: int = field(default=0)

    def next_move(self) -> str:
        """The count button that changes the move now recorded (1 <-> 2 armies), so every
        press saves a changed order, however many times it is pressed."""
        data = self.moves[self.presses % 2]
        self.presses += 1
        return data

    def press(self, telegram: FakeTelegram, data: str) -> Update:
        """The update of this player tapping the button with ``data`` on their screen."""
        return telegram.forged_press(self.user, self.user.id, data, self.screen)


def _buttons(sent: Sent, action: str) -> list[str]:
    prefix = OrdersButton.__prefix__ + OrdersButton.__separator__
    return [
        data
        for _text, data in sent.buttons()
        if data.startswith(prefix) and OrdersButton.unpack(data).action == action
    ]


def _screen_for(telegram: FakeTelegram, chat_id: int, after: int) -> Sent:
    """The last screen (a sent or edited text with buttons) for ``chat_id`` among the
    requests from index ``after`` on."""
    for sent in reversed(telegram.sent[after:]):
        if (
            sent.chat_id == chat_id
            and isinstance(sent.method, SendMessage | EditMessageText)
            and sent.markup is not None
        ):
            return sent
    raise RuntimeError(f"no screen was sent to {chat_id}")


async def open_move_screen(telegram: FakeTelegram, user: User, slot: int) -> Player:
    """``user`` (a strategist, in private) sends ``/orders`` and taps a sector, Move, a
    destination, reaching the count screen; ``slot`` picks which of the side's sectors that
    offer a move (so a side's two strategists move from different sectors).

    Safe to run for many players at once (each scans only its own chat's requests); the
    caller clears ``telegram.sent`` between batches to keep the scans short."""
    start = len(telegram.sent)
    await telegram.dispatcher.feed_update(telegram.bot, telegram.message(user, user.id, "/orders"))
    home = _screen_for(telegram, user.id, start)
    sectors = _buttons(home, "sec")
    for data in sectors[slot:] + sectors[:slot]:
        await telegram.dispatcher.feed_update(telegram.bot, telegram.press(user, home, data))
        sector = _screen_for(telegram, user.id, start)
        moves = _buttons(sector, "mv")
        if not moves:
            continue
        await telegram.dispatcher.feed_update(telegram.bot, telegram.press(user, sector, moves[0]))
        destination = _screen_for(telegram, user.id, start)
        targets = _buttons(destination, "to")
        if not targets:
            continue
        await telegram.dispatcher.feed_update(
            telegram.bot, telegram.press(user, destination, targets[0])
        )
        count = _screen_for(telegram, user.id, start)
        counts = _buttons(count, "n")
        if len(counts) >= 2 and isinstance(count.method, EditMessageText):
            screen = count.method.message_id
            if screen is None:
                raise RuntimeError(f"player {user.id}: the count screen names no message")
            return Player(user=user, moves=(counts[0], counts[1]), sector=data, screen=screen)
    raise RuntimeError(f"player {user.id}: no sector offers a move of 1 or 2 armies")


class _Nowhere(logging.Handler):
    """Formats every record (as production does) and drops the line."""

    def emit(self, record: logging.LogRecord) -> None:
        self.format(record)


def null_logs() -> None:
    """Log as ``python -m bot`` does (logfmt, INFO and above), but to nowhere."""
    handler = _Nowhere()
    handler.setFormatter(LogfmtFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
