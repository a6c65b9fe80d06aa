"""Screens of the group chat. ``build()`` returns their routers, in matching order."""

from __future__ import annotations

from aiogram import Router


def build() -> list[Router]:
    """The group screens' routers (each a new ``Router`` per dispatcher)."""
    return []
