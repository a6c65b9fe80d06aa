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

Telegram's limits are kept with token buckets (aiolimiter): about 30 messages a second per bot,
20 a minute per group, 1 a second per private chat. "Once" has the limits storage describes: a
crash between Telegram accepting a post and ``mark_sent`` sends it again after the lease, and a
post split into several messages (a long caption or text) is retried whole.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramEntityTooLarge,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNotFound,
    TelegramRetryAfter,
)
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import I18n
from aiolimiter import AsyncLimiter

from bot.clock import Clock
from bot.logs import log_context
from bot.message_limits import CAPTION_LIMIT, TEXT_LIMIT, shorten, split_text
from bot.posts import Post, PostContext, render
from storage import OutboxMessage, Store

log = logging.getLogger(__name__)

_GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")


@dataclass(frozen=True)
class Limits:
    """Telegram's sending limits (messages per period)."""

    per_second: float = 30
    group_per_minute: float = 20
    private_per_second: float = 1


@dataclass
class SendReport:
    """What one :meth:`OutboxSender.send_due` did, by message id."""

    sent: list[int] = field(default_factory=list)
    retried: list[int] = field(default_factory=list)
    dead: list[int] = field(default_factory=list)


def backoff(attempts: int, base: timedelta, cap: timedelta) -> timedelta:
    """Exponential backoff: ``base`` after the first attempt, doubling, at most ``cap``."""
    factor: int = 2 ** max(0, min(attempts - 1, 20))
    return min(cap, base * factor)


class OutboxSender:
    """Sends the outbox. ``send_due(now)`` does one pass; ``run(stop)`` loops until ``stop``."""

    def __init__(
        self,
        bot: Bot,
        store: Store,
        clock: Clock,
        i18n: I18n,
        *,
        limits: Limits | None = None,
        lease_seconds: float = 300.0,
        batch: int = 20,
        max_attempts: int = 20,
        base_backoff: timedelta = timedelta(seconds=5),
        max_backoff: timedelta = timedelta(minutes=10),
        poll_seconds: float = 1.0,
    ) -> None:
        self.bot = bot
        self.store = store
        self.clock = clock
        self.i18n = i18n
        self.limits = limits or Limits()
        self.lease_seconds = lease_seconds
        self.batch = batch
        self.max_attempts = max_attempts
        self.base_backoff = base_backoff
        self.max_backoff = max_backoff
        self.poll_seconds = poll_seconds
        self._bot_limiter = AsyncLimiter(self.limits.per_second, 1)
        self._chat_limiters: dict[int, AsyncLimiter] = {}
        self._wake = asyncio.Event()
        self._username: str | None = None

    def wake(self) -> None:
        """Something was queued: look at the outbox now rather than at the next poll."""
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        """Send until ``stop`` is set: a pass, then wait for a wake-up, ``stop`` or the poll."""
        while not stop.is_set():
            try:
                await self.send_due()
            except Exception:
                log.exception("outbox pass failed; trying again at the next poll")
            self._wake.clear()
            waits = [asyncio.create_task(self._wake.wait()), asyncio.create_task(stop.wait())]
            try:
                await asyncio.wait(
                    waits, timeout=self.poll_seconds, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                for task in waits:
                    task.cancel()

    async def send_due(self, now: datetime | None = None) -> SendReport:
        """Send everything due at ``now`` (default: the clock's now), chat by chat in order."""
        report = SendReport()
        context = PostContext(store=self.store, i18n=self.i18n, bot_username=await self._me())
        while True:
            moment = now or self.clock.now()
            claimed = await self.store.claim_due(moment, self.batch, self.lease_seconds)
            if not claimed:
                return report
            await asyncio.gather(
                *(self._deliver(context, message, moment, report) for message in claimed)
            )

    async def _me(self) -> str:
        if self._username is None:
            self._username = (await self.bot.me()).username or ""
        return self._username

    def _chat_limiter(self, chat_id: int) -> AsyncLimiter:
        limiter = self._chat_limiters.get(chat_id)
        if limiter is None:
            limiter = (
                AsyncLimiter(self.limits.group_per_minute, 60)
                if chat_id < 0
                else AsyncLimiter(self.limits.private_per_second, 1)
            )
            self._chat_limiters[chat_id] = limiter
        return limiter

    async def _deliver(
        self, context: PostContext, message: OutboxMessage, now: datetime, report: SendReport
    ) -> None:
        turn = message.payload.get("turn")
        with log_context(message.campaign_id, turn if isinstance(turn, int) else None):
            await self._deliver_now(context, message, now, report)

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
            await self.store.mark_sent(message.id, None, now)
            report.sent.append(message.id)
            return
        try:
            telegram_id = await self._send(message, post)
        except TelegramRetryAfter as error:
            retry_at = now + timedelta(seconds=error.retry_after)
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
        await self.store.mark_sent(message.id, telegram_id, now)
        report.sent.append(message.id)
        await self._after_sent(message, post, telegram_id)

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

    async def _after_sent(self, message: OutboxMessage, post: Post, telegram_id: int) -> None:
        if post.pin:
            try:
                async with self._limited(message.chat_id):
                    await self.bot.pin_chat_message(
                        message.chat_id, telegram_id, disable_notification=True
                    )
            except TelegramAPIError as error:
                log.warning("post %s sent but not pinned: %s", message.id, error)
        if post.on_sent is not None:
            try:
                await post.on_sent(telegram_id)
            except Exception:
                log.exception("post %s sent; its on_sent callback failed", message.id)

    def _limited(self, chat_id: int) -> _Limited:
        return _Limited(self._bot_limiter, self._chat_limiter(chat_id))

    async def _send(self, message: OutboxMessage, post: Post) -> int:
        """Send (or edit) ``post``; the id of the message that now shows it."""
        if post.edit_message_id is not None:
            edited = await self._edit(message, post, post.edit_message_id)
            if edited:
                return post.edit_message_id
        thread = message.thread_id or None
        if post.photo is not None:
            caption, *rest = split_text(post.text, CAPTION_LIMIT)
            texts = split_text("\n".join(rest), TEXT_LIMIT) if rest else []
            async with self._limited(message.chat_id):
                first: Message = await self.bot.send_photo(
                    message.chat_id,
                    BufferedInputFile(post.photo, filename="map.png"),
                    caption=caption or None,
                    message_thread_id=thread,
                    reply_markup=None if texts else post.keyboard,
                )
            await self._send_texts(message, texts, post.keyboard, thread)
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
    ) -> list[int]:
        ids: list[int] = []
        for index, text in enumerate(texts):
            async with self._limited(message.chat_id):
                sent = await self.bot.send_message(
                    message.chat_id,
                    text,
                    message_thread_id=thread,
                    reply_markup=keyboard if index == len(texts) - 1 else None,
                )
            ids.append(sent.message_id)
        return ids

    async def _edit(self, message: OutboxMessage, post: Post, message_id: int) -> bool:
        """Edit in place; False when that message is gone (then a new one is sent)."""
        try:
            async with self._limited(message.chat_id):
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
class _Limited:
    """Waits for the bot-wide and the chat's token bucket before a request."""

    bot_limiter: AsyncLimiter
    chat_limiter: AsyncLimiter

    async def __aenter__(self) -> None:
        await self.bot_limiter.acquire()
        await self.chat_limiter.acquire()

    async def __aexit__(self, *_: object) -> None:
        return None
