"""Screens of the group chat. ``build()`` returns their routers, in matching order."""

from __future__ import annotations

from aiogram import Router

from bot.handlers.group import clock, dice, gm, migration, reopen, setup, status
from bot.modules import BOT_MODULES


def build() -> list[Router]:
    """The group screens' routers (each a new ``Router`` per dispatcher); the modules' follow
    them (``bot.handlers.build_router``)."""
    return [
        migration.build(),
        setup.build(),
        gm.build(),
        *(router for module in BOT_MODULES.values() for router in module.gm_answer_routers()),
        dice.build(),
        status.build(),
        clock.build(),
        reopen.build(),
    ]
