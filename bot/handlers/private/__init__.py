"""Screens of the private chat. ``build()`` returns their routers, in matching order."""

from __future__ import annotations

from collections.abc import Sequence

from aiogram import Router

from bot.handlers.private import (
    battles,
    campaigns,
    deployment,
    gm_prompts,
    orders,
    typed,
    vacation,
    verdicts,
)


def build(modules: Sequence[Router] = ()) -> list[Router]:
    """The private screens' routers (each a new ``Router`` per dispatcher): a GM question
    waiting for typed input first, the
    modules' screens (``modules``) after the shared ones, plain text read as the phase's input
    last."""
    return [
        gm_prompts.build(),
        vacation.build(),
        orders.build(),
        deployment.build(),
        battles.build(),
        verdicts.build(),
        campaigns.build(),
        *modules,
        typed.build(),
    ]
