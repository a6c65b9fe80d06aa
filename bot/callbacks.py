"""Callback data factories shared by several screens. Screens keep their own in their module;
every prefix is short and unique (a test checks), and no callback is ever trusted: handlers
re-check who pressed and whether the campaign is still where the button was made for."""

from __future__ import annotations

from typing import Annotated

from aiogram.filters.callback_data import CallbackData
from pydantic import Field

ButtonInt = Annotated[int, Field(ge=-(2**53), le=2**53)]
"""A number in callback data. Telegram's ids fit in 53 bits, and so does anything a button
carries; a forged press with a larger number (SQLite stores 64 bits) fails the filter like any
other malformed data and is answered as an invalid button."""


class LanguageChoice(CallbackData, prefix="lang"):
    """``/lang``: a language code, or ``auto`` to follow the Telegram app."""

    language: str
