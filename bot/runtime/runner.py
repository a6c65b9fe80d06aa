"""Runs the bot as a service: store, dispatcher, background workers, then polling or webhook.

Two workers always run beside the dispatcher: the campaign scheduler (catches up from the
database at start, then APScheduler fires each campaign's deadlines and reminders) and the
outbox sender (takes queued posts to Telegram); the scheduler wakes the sender when it queued
something. The sender and the handlers draw maps in a pool of ``MAP_WORKERS`` processes
(:mod:`bot.screens.rendering`). Further ``workers`` may be passed in. When the database cannot save,
neither stops: they wait and go on when it can, and the campaigns' GMs are told
(:mod:`bot.runtime.storage_faults`), as are people whose action was not saved.

With ``TEST_CLOCK_CONTROL=true`` (end-to-end tests and the offline demo only) the process runs
on a manual clock that moves only by ``POST /clock`` on 127.0.0.1
(:mod:`bot.testing.clock_control`): the scheduler's jobs are not started, and each POST runs
the due steps and sends the due posts before it answers.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import secrets
from collections.abc import Callable, Coroutine, Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramNetworkError, TelegramServerError
from aiogram.methods import TelegramMethod
from aiogram.types import Update
from aiogram.types.update import UpdateTypeLookupError
from aiogram.utils.i18n import I18n
from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
from aiohttp import web
from pydantic import ValidationError

from bot.miniapp.server import RouteAccessLogger, build_miniapp
from bot.runtime.app import build_dispatcher
from bot.runtime.clock import Clock, ManualClock, SystemClock
from bot.runtime.commands import set_command_menus
from bot.runtime.config import Settings
from bot.runtime.health import beat, heartbeat_path
from bot.runtime.middlewares import UpdateHeldError
from bot.runtime.storage_faults import StorageAlarm, StorageAwareScheduler
from bot.runtime.web_input import BadJsonError, read_json
from bot.screens.rendering import MapDrawer
from bot.services.outbox_sender import (
    SHARED_LEASE_SECONDS,
    SHARED_RENEW_SECONDS,
    SOLE_LEASE_SECONDS,
    OutboxSender,
)
from bot.testing.clock_control import (
    NO_LIMITS,
    ClockControl,
    require_loopback,
    starting_clock,
)
from bot.texts.i18n import build_i18n
from storage import PostgresCampaignStore, SqlCampaignStore, SqliteCampaignStore, Store
from storage.postgres import AnotherProcessError as PostgresTakenError

log = logging.getLogger(__name__)

Worker = Callable[[Bot, Store, Clock], Coroutine[Any, Any, None]]


class AnotherProcessError(RuntimeError):
    """Another bot process serves the same database file."""


@contextmanager
def only_process(database: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``<database>.lock`` while the bot runs: a second process on
    the same file refuses to start (both would send the same posts). The system drops the
    lock when the process ends, however it ends."""
    path = database.with_name(database.name + ".lock")
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AnotherProcessError(
                f"another Strategium process serves {database}: stop it first"
            ) from None
        yield


def make_bot(settings: Settings) -> Bot:
    """A bot on Telegram, or on the local Bot API server ``BOT_API_BASE`` names."""
    if settings.bot_token is None:
        raise ValueError("BOT_TOKEN is not set")
    session = (
        AiohttpSession(api=TelegramAPIServer.from_base(settings.bot_api_base))
        if settings.bot_api_base
        else AiohttpSession()
    )
    return Bot(
        settings.bot_token.get_secret_value(),
        session=session,
        default=DefaultBotProperties(link_preview_is_disabled=True),
    )


async def wait_for_telegram(bot: Bot, first_delay: float = 1.0, max_delay: float = 60.0) -> None:
    """Ask Telegram who we are until it answers, waiting longer after each failure: a bot that
    starts while the network or Telegram is down keeps trying instead of exiting."""
    delay = first_delay
    while True:
        try:
            me = await bot.me()
        except (TelegramNetworkError, TelegramServerError) as error:
            log.warning("Telegram not reachable (%s); trying again in %.0f s", error, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, max_delay)
        else:
            log.info("connected as @%s", me.username)
            return


def shares_the_database(settings: Settings) -> bool:
    """Whether this process shares its database with other bot processes: PostgreSQL in
    webhook mode (replicas behind one address). SQLite, and polling (Telegram gives updates to
    one ``getUpdates`` caller), keep one process per database."""
    return settings.postgresql_url() is not None and bool(settings.webhook_url)


def outbox_lease(settings: Settings) -> tuple[float, float | None]:
    """The outbox's lease in seconds and how often it is renewed: short and renewed while
    sending when replicas share the database (a killed one's posts go to another within
    seconds), long and never renewed for a process alone (the next start releases it)."""
    if shares_the_database(settings):
        return SHARED_LEASE_SECONDS, SHARED_RENEW_SECONDS
    return SOLE_LEASE_SECONDS, None


async def _open_store(stack: AsyncExitStack, settings: Settings) -> Store:
    """The store, closed with ``stack``. SQLite (``DATABASE_PATH``) is kept to one process by
    :func:`only_process`, PostgreSQL in polling mode by an advisory lock the connection holds;
    then posts a stopped process was sending are taken over at once. PostgreSQL in webhook
    mode is shared (:func:`shares_the_database`): no lock, and another process's posts wait
    for their leases (that process may still be sending them)."""
    url = settings.postgresql_url()
    shared = shares_the_database(settings)
    store: SqlCampaignStore
    if url is not None:
        try:
            store = await PostgresCampaignStore.open(url, only_process=not shared, shared=shared)
        except PostgresTakenError as error:
            raise AnotherProcessError(f"{error}: stop it first") from None
    else:
        database = settings.sqlite_file()
        database.parent.mkdir(parents=True, exist_ok=True)
        stack.enter_context(only_process(database))
        store = await SqliteCampaignStore.open(database)
    stack.push_async_callback(store.close)
    if shared:
        log.info("sharing the database with the other webhook processes")
        return store
    released = await store.release_leases()
    if released:
        log.info("%s post(s) an earlier process was sending go out again now", released)
    return store


async def serve(
    settings: Settings,
    clock: Clock | None = None,
    workers: Sequence[Worker] = (),
) -> None:
    """Serve until cancelled: polling, or a webhook server when ``WEBHOOK_URL`` is set."""
    test_clock: ManualClock | None = None
    if settings.test_clock_control:
        require_loopback(settings.test_clock_host)
        test_clock = (
            clock
            if isinstance(clock, ManualClock)
            else starting_clock(settings.test_clock_start, SystemClock().now())
        )
        log.warning(
            "TEST CLOCK CONTROL IS ON: the bot's time starts at %s and moves only when a test "
            "says so (never use this in production)",
            test_clock.now().isoformat(),
        )
    clock = test_clock or clock or SystemClock()
    async with AsyncExitStack() as stack:
        store = await _open_store(stack, settings)
        bot = make_bot(settings)
        stack.push_async_callback(bot.session.close)
        i18n = build_i18n()
        maps = MapDrawer(settings.map_workers, record=settings.test_map_record)
        stack.callback(maps.close)
        alarm = StorageAlarm(store, clock, i18n)
        shared = shares_the_database(settings)
        dispatcher = build_dispatcher(
            store,
            clock,
            i18n,
            alarm,
            maps,
            settings.miniapp_url,
            updates_once=bool(settings.webhook_url),
        )
        miniapp = _miniapp(settings, store, clock, i18n)
        await wait_for_telegram(bot)
        try:
            await set_command_menus(bot, i18n)
        except (TelegramNetworkError, TelegramServerError) as error:
            log.warning("command menus not set now (%s); they are set at the next start", error)
        stop = asyncio.Event()
        lease_seconds, renew_seconds = outbox_lease(settings)
        sender = OutboxSender(
            bot,
            store,
            clock,
            i18n,
            limits=NO_LIMITS if test_clock is not None else None,
            maps=maps,
            shared_limits=shared and test_clock is None,
            lease_seconds=lease_seconds,
            renew_seconds=renew_seconds,
        )
        scheduler = StorageAwareScheduler(store, clock, bot=bot, alarm=alarm, on_queued=sender.wake)
        control = (
            ClockControl(test_clock, store, scheduler, sender) if test_clock is not None else None
        )
        tasks = [asyncio.create_task(worker(bot, store, clock)) for worker in workers]
        tasks.append(asyncio.create_task(_warm(maps)))
        # The heartbeat says the process is alive: in real time, also under the test clock.
        alive_clock = clock if test_clock is None else SystemClock()
        tasks.append(asyncio.create_task(beat(heartbeat_path(settings), alive_clock)))
        tasks.append(
            asyncio.create_task(sender.run(stop) if control is None else control.run_sender(stop))
        )
        try:
            if control is None:
                await scheduler.start()
            else:
                await scheduler.rebuild()
                await control.start(settings.test_clock_host, settings.test_clock_port)
                stack.push_async_callback(control.stop)
            await _serve_updates(stack, settings, bot, dispatcher, miniapp)
        finally:
            scheduler.shutdown()
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def _serve_updates(
    stack: AsyncExitStack,
    settings: Settings,
    bot: Bot,
    dispatcher: Dispatcher,
    miniapp: web.Application | None,
) -> None:
    """Take updates until cancelled: by webhook (with the Mini App on its port) when
    ``WEBHOOK_URL`` is set, else by polling (the Mini App on ``MINIAPP_PORT``)."""
    if settings.webhook_url:
        await _serve_webhook(settings, bot, dispatcher, miniapp)
        return
    if miniapp is not None and settings.miniapp_port is not None:
        await _serve_miniapp(stack, miniapp, settings)
    log.info("polling %s", settings.bot_api_base or "Telegram")
    await _poll_until_cancelled(dispatcher, bot)


async def _poll_until_cancelled(dispatcher: Dispatcher, bot: Bot) -> None:
    """Long polling until cancelled (SIGTERM: :mod:`bot.__main__`), then stopped the way
    aiogram stops it: its ``getUpdates`` loop ends before the session closes. (Cancelling
    ``start_polling`` itself leaves that loop running against a closed session.)"""
    polling = asyncio.create_task(dispatcher.start_polling(bot, handle_signals=False))
    try:
        await asyncio.shield(polling)
    except asyncio.CancelledError:
        if not polling.done():
            await dispatcher.stop_polling()
            await polling
        raise


async def _warm(maps: MapDrawer) -> None:
    """Start the map drawing processes now rather than with the first map."""
    try:
        await maps.warm()
    except Exception:
        log.exception("the map drawing processes did not start; the first map starts them")


def _miniapp(settings: Settings, store: Store, clock: Clock, i18n: I18n) -> web.Application | None:
    """The Mini App, when ``MINIAPP_URL`` or ``MINIAPP_PORT`` asks for it."""
    if settings.bot_token is None or (
        settings.miniapp_url is None and settings.miniapp_port is None
    ):
        return None
    return build_miniapp(
        store,
        clock,
        i18n,
        settings.bot_token.get_secret_value(),
        timedelta(hours=settings.miniapp_max_age_hours),
    )


async def _serve_miniapp(
    stack: AsyncExitStack, miniapp: web.Application, settings: Settings
) -> None:
    """Polling mode: the Mini App on its own port (0: any free one), logged."""
    runner = web.AppRunner(miniapp, access_log_class=RouteAccessLogger)
    await runner.setup()
    stack.push_async_callback(runner.cleanup)
    site = web.TCPSite(runner, settings.miniapp_host, settings.miniapp_port or 0)
    await site.start()
    server = site._server
    sockets = getattr(server, "sockets", None) or []
    port = sockets[0].getsockname()[1] if sockets else settings.miniapp_port
    log.info("mini app on http://%s:%s/", settings.miniapp_host, port)


class WebhookUpdates(SimpleRequestHandler):
    """Telegram's webhook requests, answered when the update was handled (not at once, as
    aiogram does by default): an update whose process dies while handling it gets no answer, so
    Telegram sends it again and another process (or this one, restarted) handles it
    (:class:`~bot.runtime.middlewares.UpdateOnce`). An update another process is handling now is
    answered 503, so Telegram sends it again later."""

    def __init__(self, dispatcher: Dispatcher, bot: Bot, secret_token: str | None) -> None:
        super().__init__(
            dispatcher=dispatcher, bot=bot, handle_in_background=False, secret_token=secret_token
        )

    def verify_secret(self, telegram_secret_token: str, bot: Bot) -> bool:
        """The secret-token header against ours, compared as bytes: aiogram compares strings,
        and ``hmac.compare_digest`` raises on a header with non-ASCII letters (a 500)."""
        if not self.secret_token:
            return True
        return secrets.compare_digest(
            telegram_secret_token.encode("utf-8", "surrogateescape"),
            self.secret_token.encode("utf-8", "surrogateescape"),
        )

    async def _handle_request(self, bot: Bot, request: web.Request) -> web.Response:
        try:
            update = _update_from(await read_json(request), bot)
        except (BadJsonError, ValidationError, NotAnUpdateError) as error:
            # Telegram sends only updates; anything else is answered 400, not handled.
            log.info("webhook request that is not an update: %s", type(error).__name__)
            return web.Response(status=400, text="not a Telegram update")
        try:
            update.event_type  # noqa: B018 (it raises for an update of no kind aiogram knows)
        except UpdateTypeLookupError:
            # A newer Bot API's update: nothing here can handle it, and Telegram must not
            # send it again and again.
            log.info("update %s is of a kind this version does not know", update.update_id)
            return web.Response(body=self._build_response_writer(bot=bot, result=None))
        try:
            result: TelegramMethod[Any] | None = await self.dispatcher.feed_webhook_update(
                bot, update, **self.data
            )
        except UpdateHeldError as held:
            log.info("%s; Telegram is asked to send it again", held)
            return web.Response(status=503, headers={"Retry-After": "5"})
        return web.Response(body=self._build_response_writer(bot=bot, result=result))


class NotAnUpdateError(ValueError):
    """A webhook body that is JSON but cannot be one of Telegram's updates."""


LARGEST_UPDATE_ID = 2**53
"""Telegram's update ids are positive and far below 2**31; one past 64 bits would not even
reach the database's record of updates handled (:class:`~bot.runtime.middlewares.UpdateOnce`)."""


def _update_from(body: object, bot: Bot) -> Update:
    """The update a webhook body carries (``ValidationError`` for one that is no update)."""
    if not isinstance(body, dict):
        raise NotAnUpdateError("not an object")
    update = Update.model_validate(body, context={"bot": bot})
    if not 0 <= update.update_id <= LARGEST_UPDATE_ID:
        raise NotAnUpdateError("update id out of range")
    return update


async def _serve_webhook(
    settings: Settings, bot: Bot, dispatcher: Dispatcher, miniapp: web.Application | None = None
) -> None:
    """A webhook server that accepts only Telegram's secret-token header, when one is set;
    the Mini App under ``/miniapp/`` on the same port."""
    secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
    application = web.Application()
    if miniapp is not None:
        application.add_subapp("/miniapp/", miniapp)
    WebhookUpdates(dispatcher=dispatcher, bot=bot, secret_token=secret).register(
        application, path=settings.webhook_path
    )
    setup_application(application, dispatcher, bot=bot)
    runner = web.AppRunner(application, access_log_class=RouteAccessLogger)
    await runner.setup()
    site = web.TCPSite(runner, settings.webhook_host, settings.webhook_port)
    await site.start()
    await bot.set_webhook(
        settings.webhook_url.rstrip("/") + settings.webhook_path if settings.webhook_url else "",
        secret_token=secret,
        drop_pending_updates=False,
    )
    log.info(
        "webhook on %s:%s%s", settings.webhook_host, settings.webhook_port, settings.webhook_path
    )
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
