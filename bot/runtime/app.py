"""Builds the bot's dispatcher: services injected as workflow data, middlewares, routers."""

from __future__ import annotations

from aiogram import Dispatcher
from aiogram.utils.i18n import I18n

from bot.handlers import build_router
from bot.handlers.errors import CommitWatch
from bot.runtime.clock import Clock
from bot.runtime.middlewares import (
    CommandEndsQuestion,
    LocaleMiddleware,
    PersonMiddleware,
    UnhandledAnswer,
    UpdateOnce,
    UpdateReads,
)
from bot.runtime.storage_faults import StorageAlarm
from bot.screens.rendering import MapDrawer
from storage import Store


def build_dispatcher(
    store: Store,
    clock: Clock,
    i18n: I18n,
    storage_alarm: StorageAlarm | None = None,
    maps: MapDrawer | None = None,
    miniapp_url: str | None = None,
    *,
    updates_once: bool = False,
) -> Dispatcher:
    """A dispatcher whose handlers get ``store``, ``clock``, ``person``, ``i18n`` and ``maps``
    by name (``storage_alarm``: a new one unless the caller shares its own; ``maps``: drawing
    in threads unless the caller shares its pool; ``miniapp_url``: the Mini App's public address,
    whose button the private orders screen then shows). ``updates_once``: an update is handled
    by one of the processes sharing the database (webhook replicas), once."""
    alarm = storage_alarm or StorageAlarm(store, clock, i18n)
    # No FSM: every wait is kept in the database (prompts); aiogram would keep a record per
    # (chat, user) in memory for good.
    dispatcher = Dispatcher(
        store=store,
        clock=clock,
        storage_alarm=alarm,
        maps=maps or MapDrawer(),
        miniapp_url=miniapp_url,
        disable_fsm=True,
    )
    if updates_once:
        dispatcher.update.outer_middleware(UpdateOnce())
    dispatcher.update.outer_middleware(PersonMiddleware())
    dispatcher.update.outer_middleware(CommitWatch())
    dispatcher.update.outer_middleware(UpdateReads())
    LocaleMiddleware(i18n).setup(dispatcher)
    CommandEndsQuestion().setup(dispatcher)
    UnhandledAnswer().setup(dispatcher)
    dispatcher.include_router(build_router())
    return dispatcher
