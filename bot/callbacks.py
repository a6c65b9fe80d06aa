"""Callback data factories shared by several screens. Screens keep their own in their module;
every prefix is short and unique (a test checks), and no callback is ever trusted: handlers
re-check who pressed and whether the campaign is still where the button was made for."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class LanguageChoice(CallbackData, prefix="lang"):
    """``/lang``: a language code, or ``auto`` to follow the Telegram app."""

    language: str
