"""Screens of the group chat. ``build()`` returns their routers, in matching order."""

from __future__ import annotations

from aiogram import Router

from bot.handlers.group import clock, dice, duels_gm, gm, migration, reopen, setup, status, watch_gm
from bot.modules.siege.handlers import gm as siege_gm


def build() -> list[Router]:
    """The group screens' routers (each a new ``Router`` per dispatcher)."""
    return [
        migration.build(),
        setup.build(),
        gm.build(),
        siege_gm.build(),
        dice.build(),
        status.build(),
        clock.build(),
        reopen.build(),
        duels_gm.build(),
        watch_gm.build(),
    ]
