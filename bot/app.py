"""Builds the bot's dispatcher: services injected as workflow data, middlewares, routers."""

from __future__ import annotations

from aiogram import Dispatcher
from aiogram.utils.i18n import I18n

from bot.clock import Clock
from bot.handlers import build_router
from bot.middlewares import LocaleMiddleware, PersonMiddleware
from storage import Store


def build_dispatcher(store: Store, clock: Clock, i18n: I18n) -> Dispatcher:
    """A dispatcher whose handlers get ``store``, ``clock``, ``person`` and ``i18n`` by name."""
    dispatcher = Dispatcher(store=store, clock=clock)
    dispatcher.update.outer_middleware(PersonMiddleware())
    LocaleMiddleware(i18n).setup(dispatcher)
    dispatcher.include_router(build_router())
    return dispatcher
