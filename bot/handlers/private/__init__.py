"""Screens of the private chat. ``build()`` returns their routers, in matching order."""

from __future__ import annotations

from aiogram import Router

from bot.handlers.private import (
    battles,
    campaigns,
    deployment,
    duels,
    gm_prompts,
    orders,
    typed,
    vacation,
    verdicts,
)
from bot.modules.siege.handlers import late
from bot.modules.siege.handlers import private as siege


def build() -> list[Router]:
    """The private screens' routers (each a new ``Router`` per dispatcher): a GM question
    waiting for typed input first, plain text read as the phase's input last."""
    return [
        gm_prompts.build(),
        vacation.build(),
        orders.build(),
        deployment.build(),
        battles.build(),
        verdicts.build(),
        campaigns.build(),
        siege.build(),
        late.build(),
        duels.build(),
        typed.build(),
    ]
