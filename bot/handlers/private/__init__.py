"""Screens of the private chat. ``build()`` returns their routers, in matching order."""

from __future__ import annotations

from aiogram import Router


def build() -> list[Router]:
    """The private screens' routers (each a new ``Router`` per dispatcher)."""
    return []
