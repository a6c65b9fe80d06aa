"""The outbox worker: takes queued posts from storage to Telegram, in order, within its limits.

:meth:`OutboxSender.send_due` claims due messages (at most one per chat at a time, so a chat's
posts keep their order), renders each in the chat's language (:func:`bot.posts.render`), sends
it, and records the outcome: sent; retry later (flood control: after ``retry_after``; a 5xx or
network error: with exponential backoff); sent again at once to the new chat when a group became
a supergroup (its campaigns follow it: ``Store.move_chat``); or given up (the bot was blocked or
removed, the chat is gone, the request is malformed), logged, so one dead chat never holds back
the others.
:meth:`OutboxSender.run` is the production loop: it polls about once a second, or at once when
:meth:`wake` is called after something was queued.

When the database cannot save (:class:`~storage.db.StorageUnavailableError`), nothing is
claimed, so nothing is sent; a post Telegram accepted whose ``mark_sent`` could not be saved is
remembered and marked before anything else is claimed, so it is not sent again while the
process lives. The loop waits with backoff (one error line when the fault starts, one info line
when it ends) and goes on when the file takes writes again.

Each claimed post is leased to this process while it is sent. Alone on its database the lease
is long and never renewed (:data:`SOLE_LEASE_SECONDS`; the next process to start releases it).
Sharing the database with other replicas it is short and renewed while the post is being sent
(:data:`SHARED_LEASE_SECONDS`, :data:`SHARED_RENEW_SECONDS`, :meth:`OutboxSender.renew_leases`):
a killed replica's posts go to another within seconds, and a live one's slow send keeps them.

With ``shared_limits`` (several processes on one PostgreSQL database) the windows are kept in
the database and every process's requests count in them (``Store.reserve_send``, on Unix
time, so the processes' clocks must agree: NTP); otherwise in this process.

Telegram's limits are kept with sliding windows (``bot.services.rate_limits``): at most 30
requests in any second per bot, 20 in any minute per group, 1 in any second per private chat;
a token bucket would let twice the rate through in the second it starts full. A map post's
requests (the map, the rest of its summary) go first: while one waits for the bot's window, no
other post takes a place in it (``rate_limits.Precedence``), so on a Monday the private notices
fill only what the maps leave. "Once" has the
limits storage describes: a crash between Telegram accepting a post and ``mark_sent`` sends it
again after the lease, and a post split into several messages (a long caption or text) is
retried whole.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramEntityTooLarge,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import I18n

from bot.posts import OnSent, Post, PostContext, render
from bot.runtime.clock import Clock
from bot.runtime.logs import log_context
from bot.screens.rendering import MapDrawer
from bot.services.rate_limits import (
    Precedence,
    Reserve,
    SlidingWindow,
    acquire,
    acquire_shared,
)
from bot.texts.limits import CAPTION_LIMIT, TEXT_LIMIT, shorten, split_text
from storage import OutboxMessage, SendWindow, Store
from storage.db import StorageUnavailableError

log = logging.getLogger(__name__)

CHAT_WINDOWS_KEPT = 10_000
"""Chats whose send times are kept before the idle ones are dropped."""

FORGET_EVERY = 3600.0
"""Seconds between two clean-ups of the updates taken and the idle send windows."""

SOLE_LEASE_SECONDS = 300.0
"""The outbox lease of a process alone on its database: never renewed, and never waited out
either (a starting process releases the leases of the one before it: ``Store.release_leases``),
so it only needs to outlast the slowest send."""

SHARED_LEASE_SECONDS = 6.0
"""The outbox lease of a process that shares the database with other replicas: the posts a
killed replica had claimed go to another one within this many seconds (the issue asks for a
Monday finished within 10 s of extra time)."""

SHARED_RENEW_SECONDS = 1.5
"""How often a sharing process renews the leases of the posts it is sending: a slow send
(Telegram's timeouts, a ``retry_after`` waited out in place, a long post in parts) keeps its
posts for as long as the process lives. Only a process stalled for ``SHARED_LEASE_SECONDS``
minus this loses them."""

_GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")


@dataclass(frozen=True)
class Limits:
    """Telegram's sending limits: requests in any second (bot), minute (group), second (private
    chat)."""

    per_second: int = 30
    group_per_minute: int = 20
    private_per_second: int = 1
    margin: float = 0.02
    """Seconds added to each window: a request reaches Telegram a little after it is let go,
    and not always equally late, so windows of exactly one second let 31 arrive within one.
    It also slows the steady rate to ``per_second / (1 + margin)``: 0.05 s cost every busy
    Monday 5 % of its time (docs/performance.md)."""

    @classmethod
    def unlimited(cls) -> Limits:
        """No waiting (an emulator or a test that does not count)."""
        return cls(per_second=10**9, group_per_minute=10**9, private_per_second=10**9, margin=0.0)


@dataclass
class SendReport:
    """What one :meth:`OutboxSender.send_due` did, by message id."""

    sent: list[int] = field(default_factory=list)
    retried: list[int] = field(default_factory=list)
    dead: list[int] = field(default_factory=list)
    unmarked: list[int] = field(default_factory=list)  # sent, the database could not record it
    lost: list[int] = field(default_factory=list)  # its lease ran out here: another sends it


class ClaimLostError(Exception):
    """This sender's claim on a post ran out before its next request went: another process
    may have it now, and sending it here too would double it."""


def backoff(attempts: int, base: timedelta, cap: timedelta) -> timedelta:
    """Exponential backoff: ``base`` after the first attempt, doubling, at most ``cap``."""
    factor: int = 2 ** max(0, min(attempts - 1, 20))
    return min(cap, base * factor)


class OutboxSender:
    """Sends the outbox. ``send_due(now)`` does one pass; ``run(stop)`` loops until ``stop``.
    Maps are drawn by ``maps`` (default: in threads)."""

    def __init__(
        self,
        bot: Bot,
        store: Store,
        clock: Clock,
        i18n: I18n,
        *,
        limits: Limits | None = None,
        lease_seconds: float = SOLE_LEASE_SECONDS,
        renew_seconds: float | None = None,
        batch: int = 20,
        max_attempts: int = 20,
        base_backoff: timedelta = timedelta(seconds=5),
        max_backoff: timedelta = timedelta(minutes=10),
        poll_seconds: float = 1.0,
        continuation_attempts: int = 5,
        pause: Callable[[float], Awaitable[None]] = asyncio.sleep,
        maps: MapDrawer | None = None,
        shared_limits: bool = False,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.bot = bot
        self.store = store
        self.clock = clock
        self.i18n = i18n
        self.limits = limits or Limits()
        if renew_seconds is not None and not 0 < renew_seconds < lease_seconds:
            raise ValueError(
                f"leases renewed every {renew_seconds} s would run out: their length is"
                f" {lease_seconds} s"
            )
        self.lease_seconds = lease_seconds
        self.renew_seconds = renew_seconds
        self.batch = batch
        self.max_attempts = max_attempts
        self.base_backoff = base_backoff
        self.max_backoff = max_backoff
        self.poll_seconds = poll_seconds
        self.continuation_attempts = continuation_attempts
        self._wait_in_place = pause
        self.shared_limits = shared_limits
        self._wall = wall
        self._forgotten_at: float | None = None
        self.maps = maps or MapDrawer()
        self._bot_window = SlidingWindow(self.limits.per_second, 1 + self.limits.margin)
        self._precedence = Precedence()
        self._chat_windows: dict[int, SlidingWindow] = {}
        self._wake = asyncio.Event()
        self._username: str | None = None
        # Sent but not recorded (the database could not save): id -> (Telegram id, sent at,
        # the post's on_sent).
        self._unmarked: dict[int, tuple[int | None, datetime, OnSent | None]] = {}
        self._storage_error: StorageUnavailableError | None = None
        # The posts this sender claimed and has not finished: id -> the claim's token.
        self._claims: dict[int, str] = {}
        # Until when each claim's lease is known to hold (as claimed, then as last renewed),
        # on ``clock``; and the claims another process took since, as (id, token).
        self._leased_until: dict[int, datetime] = {}
        self._lost: set[tuple[int, str]] = set()

    def wake(self) -> None:
        """Something was queued: look at the outbox now rather than at the next poll."""
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        """Send until ``stop`` is set: a pass, then wait for a wake-up, ``stop`` or the poll
        (with backoff while the database cannot save)."""
        storage_failures = 0
        while not stop.is_set():
            wait = self.poll_seconds
            try:
                if self.shared_limits:
                    await self.forget_shared_work()
                await self.send_due()
            except StorageUnavailableError as error:
                storage_failures += 1
                wait = backoff(
                    storage_failures, self.base_backoff, self.max_backoff
                ).total_seconds()
                report = log.error if storage_failures == 1 else log.warning
                report("outbox paused, the database cannot save (retry in %.0f s): %s", wait, error)
            except Exception:
                log.exception("outbox pass failed; trying again at the next poll")
            else:
                if storage_failures:
                    log.info("outbox resumed: the database saves again")
                storage_failures = 0
            self._wake.clear()
            await self._pause(stop, wait)

    async def _pause(self, stop: asyncio.Event, seconds: float) -> None:
        """Wait ``seconds``, or less if woken or stopped."""
        waits = [asyncio.create_task(self._wake.wait()), asyncio.create_task(stop.wait())]
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()

    async def send_due(self, now: datetime | None = None) -> SendReport:
        """Send everything due at ``now`` (default: the clock's now), chat by chat in order,
        up to ``batch`` posts at a time; more are claimed once half of them are done, so a slow
        post (a map being drawn) holds up its own chat, not the next ones.
        Raises :class:`StorageUnavailableError` when the database could not save a step."""
        report = SendReport()
        context = PostContext(
            store=self.store, i18n=self.i18n, bot_username=await self._me(), maps=self.maps
        )
        renewer = (
            None
            if self.renew_seconds is None
            else asyncio.create_task(self._keep_leases(self.renew_seconds))
        )
        try:
            await self._mark_unmarked()
            await self._send_claimed(context, now, report)
        finally:
            if renewer is not None:
                renewer.cancel()
                await asyncio.gather(renewer, return_exceptions=True)
        if self._storage_error is not None:
            raise self._storage_error
        return report

    async def _send_claimed(
        self, context: PostContext, now: datetime | None, report: SendReport
    ) -> None:
        """Claim and deliver until nothing is due and every delivery has ended."""
        sending: set[asyncio.Task[None]] = set()
        try:
            while True:
                if self._storage_error is None and len(sending) <= self.batch // 2:
                    moment = now or self.clock.now()
                    free = self.batch - len(sending)
                    claimed_at = self.clock.now()
                    for message in await self.store.claim_due(moment, free, self.lease_seconds):
                        self._claims[message.id] = message.claim_token or ""
                        self._leased_until[message.id] = claimed_at + timedelta(
                            seconds=self.lease_seconds
                        )
                        delivery = self._deliver(context, message, moment, report)
                        sending.add(asyncio.create_task(delivery))
                if not sending:
                    break
                done, sending = await asyncio.wait(sending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()
        except asyncio.CancelledError:
            for task in sending:
                task.cancel()
            raise
        except Exception:
            if sending:  # the posts already on their way finish and are recorded
                await asyncio.wait(sending)
            raise

    async def _keep_leases(self, every: float) -> None:
        """Renew the leases of the posts being sent every ``every`` seconds, until cancelled."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.renew_leases()
            except Exception:
                log.exception("outbox leases not renewed; trying again in %.1f s", every)

    async def renew_leases(self) -> None:
        """Extend the leases of the posts this sender claimed and is still sending (or sent
        and could not record) to ``lease_seconds`` from now, so no other process takes them."""
        if not self._claims:
            return
        claims = dict(self._claims)
        until = self.clock.now() + timedelta(seconds=self.lease_seconds)
        taken = await self.store.renew_leases(claims, until)
        for message_id, token in claims.items():
            if self._claims.get(message_id) != token:
                continue  # finished meanwhile (or claimed again, under a new token)
            if message_id in taken:
                log.warning(
                    "post %s: its lease ran out before it was renewed (was this process"
                    " stalled?); another process claimed it and sends it, not this one",
                    message_id,
                )
                self._lost.add((message_id, token))
                del self._claims[message_id]
            else:
                self._leased_until[message_id] = until

    def _claim_lost(self, message: OutboxMessage) -> bool:
        """Whether this sender no longer holds its claim on ``message``: another process took
        it, or (with leases renewed) no renewal has held it since its lease ran out."""
        if (message.id, message.claim_token or "") in self._lost:
            return True
        until = self._leased_until.get(message.id)
        return self.renew_seconds is not None and until is not None and self.clock.now() >= until

    async def _mark_unmarked(self) -> None:
        """Record the posts sent while the database could not save; raises while it still
        cannot (so nothing new is claimed: the lease would run out and send them again)."""
        for message_id, (telegram_id, sent_at, on_sent) in sorted(self._unmarked.items()):
            await self._record_sent(message_id, telegram_id, sent_at, on_sent)
            del self._unmarked[message_id]
            self._claims.pop(message_id, None)
            self._leased_until.pop(message_id, None)
        self._storage_error = None

    async def _record_sent(
        self, message_id: int, telegram_id: int | None, now: datetime, on_sent: OnSent | None
    ) -> None:
        """Mark the post sent and run its ``on_sent`` in the same transaction: a crash keeps
        both or neither (then the post goes again after its lease)."""
        if on_sent is None or telegram_id is None:
            await self.store.mark_sent(message_id, telegram_id, now)
            return
        async with self.store.atomic():
            if await self.store.mark_sent(message_id, telegram_id, now):
                await on_sent(telegram_id)

    async def _mark_sent(
        self,
        message: OutboxMessage,
        telegram_id: int | None,
        now: datetime,
        report: SendReport,
        on_sent: OnSent | None = None,
    ) -> None:
        try:
            await self._record_sent(message.id, telegram_id, now, on_sent)
        except StorageUnavailableError as error:
            log.warning("post %s sent; the database could not record it yet", message.id)
            self._unmarked[message.id] = (telegram_id, now, on_sent)
            self._storage_error = error
            report.unmarked.append(message.id)
            return
        report.sent.append(message.id)

    async def _me(self) -> str:
        if self._username is None:
            self._username = (await self.bot.me()).username or ""
        return self._username

    def _chat_window(self, chat_id: int) -> SlidingWindow:
        window = self._chat_windows.get(chat_id)
        if window is None:
            if len(self._chat_windows) >= CHAT_WINDOWS_KEPT:
                now = asyncio.get_running_loop().time()
                self._chat_windows = {
                    chat: kept for chat, kept in self._chat_windows.items() if not kept.idle(now)
                }
            window = (
                SlidingWindow(self.limits.group_per_minute, 60 + self.limits.margin)
                if chat_id < 0
                else SlidingWindow(self.limits.private_per_second, 1 + self.limits.margin)
            )
            self._chat_windows[chat_id] = window
        return window

    async def _deliver(
        self, context: PostContext, message: OutboxMessage, now: datetime, report: SendReport
    ) -> None:
        turn = message.payload.get("turn")
        with log_context(message.campaign_id, turn if isinstance(turn, int) else None):
            try:
                await self._deliver_now(context, message, now, report)
            except StorageUnavailableError as error:
                # Not sent (a failed send could not be recorded, or the post not read): it goes
                # again after its lease. send_due stops after this batch.
                self._storage_error = error
            except ClaimLostError:
                log.warning(
                    "post %s: its lease ran out before its request went; left to the process"
                    " that has it now",
                    message.id,
                )
                report.lost.append(message.id)
            finally:
                self._lost.discard((message.id, message.claim_token or ""))
                if message.id not in self._unmarked:  # else held until it is recorded
                    if self._claims.get(message.id) == (message.claim_token or ""):
                        del self._claims[message.id]
                    self._leased_until.pop(message.id, None)

    async def _deliver_now(
        self, context: PostContext, message: OutboxMessage, now: datetime, report: SendReport
    ) -> None:
        try:
            post = await render(context, message)
        except Exception as error:
            log.exception("post %s (%s) did not render", message.id, message.kind)
            await self._retry(message, f"render: {error!r}", now, report)
            return
        if post is None:
            await self._mark_sent(message, None, now, report)
            return
        try:
            telegram_id = await self._send(message, post)
        except TelegramRetryAfter as error:
            # From Telegram's answer, not from the claim: the limits may have held it for seconds.
            retry_at = max(now, self.clock.now()) + timedelta(seconds=error.retry_after)
            await self.store.mark_failed(message.id, str(error), retry_at, now)
            report.retried.append(message.id)
            return
        except TelegramMigrateToChat as error:
            await self._follow_migration(message, error, now, report)
            return
        except (
            TelegramForbiddenError,
            TelegramNotFound,
            TelegramEntityTooLarge,
            TelegramBadRequest,
        ) as error:
            log.warning(
                "post %s (%s) to chat %s given up: %s",
                message.id,
                message.kind,
                message.chat_id,
                error,
            )
            await self.store.mark_failed(message.id, str(error), None, now)
            report.dead.append(message.id)
            return
        except (TelegramAPIError, TimeoutError) as error:
            await self._retry(message, str(error) or repr(error), now, report)
            return
        await self._pin(message, post, telegram_id)
        await self._mark_sent(message, telegram_id, now, report, post.on_sent)

    async def _follow_migration(
        self,
        message: OutboxMessage,
        error: TelegramMigrateToChat,
        now: datetime,
        report: SendReport,
    ) -> None:
        """The group became a supergroup: move its campaigns and unsent posts (this one too)
        to the new chat id, and send this one again at once, there."""
        moved = await self.store.move_chat(message.chat_id, error.migrate_to_chat_id, now)
        log.info(
            "chat %s became supergroup %s; campaigns moved: %s",
            message.chat_id,
            error.migrate_to_chat_id,
            [campaign.id for campaign in moved],
        )
        await self._retry(message, str(error), now, report, at_once=True)

    async def _retry(
        self,
        message: OutboxMessage,
        error: str,
        now: datetime,
        report: SendReport,
        *,
        at_once: bool = False,
    ) -> None:
        if message.attempts >= self.max_attempts:
            log.error("post %s given up after %s attempts: %s", message.id, message.attempts, error)
            await self.store.mark_failed(message.id, error, None, now)
            report.dead.append(message.id)
            return
        delay = (
            timedelta(0)
            if at_once
            else backoff(message.attempts, self.base_backoff, self.max_backoff)
        )
        log.info("post %s failed (%s); retry in %s", message.id, error, delay)
        await self.store.mark_failed(message.id, error, now + delay, now)
        report.retried.append(message.id)

    async def _pin(self, message: OutboxMessage, post: Post, telegram_id: int) -> None:
        # A post edited in place keeps its pin: only a message sent anew is pinned (a board
        # re-pinned after every edit would cost a request per campaign and step). Pinned before
        # the post is marked sent: a crash in between sends and pins it again, never leaves it
        # sent and unpinned.
        if post.pin and telegram_id != post.edit_message_id:
            try:
                async with self._limited(message):
                    await self.bot.pin_chat_message(
                        message.chat_id, telegram_id, disable_notification=True
                    )
            except TelegramAPIError as error:
                log.warning("post %s sent but not pinned: %s", message.id, error)

    @asynccontextmanager
    async def _limited(self, message: OutboxMessage, first: bool = False) -> AsyncIterator[None]:
        """Waits until a request for ``message`` fits Telegram's limits, then lets it go, unless
        this sender's claim on the post was lost meanwhile (:class:`ClaimLostError`)."""
        chat_id = message.chat_id
        limited: _Limited | _SharedLimited
        if self.shared_limits:
            limited = _SharedLimited(
                self.store.reserve_send,
                self._send_windows(chat_id),
                self._wall,
                self._precedence,
                first,
            )
        else:
            limited = _Limited(
                self._bot_window, self._chat_window(chat_id), self._precedence, first
            )
        async with limited:
            if self._claim_lost(message):
                raise ClaimLostError(message.id)
            yield

    def _send_windows(self, chat_id: int) -> tuple[SendWindow, SendWindow]:
        """The bot's window and the chat's, as every process on the database keeps them."""
        limits = self.limits
        chat = (
            SendWindow(f"chat:{chat_id}", limits.group_per_minute, 60 + limits.margin)
            if chat_id < 0
            else SendWindow(f"chat:{chat_id}", limits.private_per_second, 1 + limits.margin)
        )
        return SendWindow("bot", limits.per_second, 1 + limits.margin), chat

    async def forget_shared_work(self) -> None:
        """At most once an hour: drop the updates taken and the send windows unused for a day
        (a sender of processes that share the database)."""
        now = self._wall()
        if self._forgotten_at is not None and now - self._forgotten_at < FORGET_EVERY:
            return
        self._forgotten_at = now
        await self.store.forget_shared_work(self.clock.now() - timedelta(days=1))

    async def _send(self, message: OutboxMessage, post: Post) -> int:
        """Send (or edit) ``post``; the id of the message that now shows it."""
        if post.edit_message_id is not None:
            edited = await self._edit(message, post, post.edit_message_id)
            if edited:
                return post.edit_message_id
        thread = message.thread_id or None
        if post.document is not None:
            name, content = post.document
            async with self._limited(message):
                document: Message = await self.bot.send_document(
                    message.chat_id,
                    BufferedInputFile(content, filename=name),
                    caption=shorten(post.text, CAPTION_LIMIT) or None,
                    message_thread_id=thread,
                    reply_markup=post.keyboard,
                )
            return document.message_id
        if post.photo is not None:
            caption, *rest = split_text(post.text, CAPTION_LIMIT)
            texts = split_text("\n".join(rest), TEXT_LIMIT) if rest else []
            async with self._limited(message, first=True):
                first: Message = await self.bot.send_photo(
                    message.chat_id,
                    BufferedInputFile(post.photo, filename="map.png"),
                    caption=caption or None,
                    message_thread_id=thread,
                    reply_markup=None if texts else post.keyboard,
                )
            await self._send_texts(message, texts, post.keyboard, thread, started=True, first=True)
            return first.message_id
        texts = split_text(post.text, TEXT_LIMIT)
        ids = await self._send_texts(message, texts, post.keyboard, thread)
        return ids[0]

    async def _send_texts(
        self,
        message: OutboxMessage,
        texts: list[str],
        keyboard: InlineKeyboardMarkup | None,
        thread: int | None,
        *,
        started: bool = False,
        first: bool = False,
    ) -> list[int]:
        """Send ``texts`` in order. Once a first part is out (``started``, or the first text),
        a failing part is tried again in place: failing the whole post would send the parts
        already delivered a second time."""
        ids: list[int] = []
        for index, text in enumerate(texts):
            markup = keyboard if index == len(texts) - 1 else None
            if started or index > 0:
                sent = await self._send_continuation(message, text, markup, thread, first)
            else:
                async with self._limited(message, first):
                    sent = await self.bot.send_message(
                        message.chat_id, text, message_thread_id=thread, reply_markup=markup
                    )
            ids.append(sent.message_id)
        return ids

    async def _send_continuation(
        self,
        message: OutboxMessage,
        text: str,
        keyboard: InlineKeyboardMarkup | None,
        thread: int | None,
        first: bool = False,
    ) -> Message:
        """One later part of a post: waits out ``retry_after`` and retries server and network
        errors in place, up to ``continuation_attempts``; then the error goes up (and the whole
        post is retried, its first parts included: rare, and better than losing words)."""
        for attempt in range(1, self.continuation_attempts + 1):
            try:
                async with self._limited(message, first):
                    return await self.bot.send_message(
                        message.chat_id, text, message_thread_id=thread, reply_markup=keyboard
                    )
            except TelegramRetryAfter as error:
                if attempt == self.continuation_attempts:
                    raise
                await self._wait_in_place(error.retry_after)
            except (TelegramServerError, TelegramNetworkError, TimeoutError):
                if attempt == self.continuation_attempts:
                    raise
                await self._wait_in_place(float(2 ** (attempt - 1)))
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _edit(self, message: OutboxMessage, post: Post, message_id: int) -> bool:
        """Edit in place; False when that message is gone (then a new one is sent)."""
        try:
            async with self._limited(message):
                if post.photo is not None:
                    await self.bot.edit_message_caption(
                        chat_id=message.chat_id,
                        message_id=message_id,
                        caption=shorten(post.text, CAPTION_LIMIT),
                        reply_markup=post.keyboard,
                    )
                else:
                    await self.bot.edit_message_text(
                        text=shorten(post.text, TEXT_LIMIT),
                        chat_id=message.chat_id,
                        message_id=message_id,
                        reply_markup=post.keyboard,
                    )
        except TelegramBadRequest as error:
            reason = str(error).lower()
            if "not modified" in reason:
                return True
            if any(gone in reason for gone in _GONE):
                return False
            raise
        return True


@dataclass(frozen=True)
class _SharedLimited:
    """Waits until a request fits the bot's and the chat's windows that every process on the
    database shares, then makes it."""

    reserve: Reserve
    windows: tuple[SendWindow, SendWindow]
    wall: Callable[[], float]
    precedence: Precedence
    first: bool = False

    async def __aenter__(self) -> None:
        await acquire_shared(
            self.reserve, self.windows, self.wall, precedence=self.precedence, first=self.first
        )

    async def __aexit__(self, *_: object) -> None:
        return None


@dataclass(frozen=True)
class _Limited:
    """Waits until a request fits the bot's and the chat's windows, then makes it; a map's
    requests (``first``) go before the others (``precedence``)."""

    bot_window: SlidingWindow
    chat_window: SlidingWindow
    precedence: Precedence
    first: bool = False

    async def __aenter__(self) -> None:
        await acquire(
            self.bot_window, self.chat_window, precedence=self.precedence, first=self.first
        )

    async def __aexit__(self, *_: object) -> None:
        return None
