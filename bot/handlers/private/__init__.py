"""Screens of the private chat. ``build()`` returns their routers, in matching order."""

from __future__ import annotations

from aiogram import Router

from bot.handlers.private import battles, campaigns, deployment, orders, typed


def build() -> list[Router]:
    """The private screens' routers (each a new ``Router`` per dispatcher); plain text last."""
    return [
        orders.build(),
        deployment.build(),
        battles.build(),
        campaigns.build(),
        typed.build(),
    ]
