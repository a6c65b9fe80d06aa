"""Editing a bot message in place, as the screens do when a button is pressed."""

from __future__ import annotations

from aiogram.exceptions import TelegramBadRequest
from aiogram.types import InlineKeyboardMarkup, Message

from bot.texts.limits import shorten


def unchanged(error: TelegramBadRequest) -> bool:
    """True when Telegram refused an edit because it would change nothing."""
    return "message is not modified" in str(error)


async def edit_in_place(
    message: Message, text: str, keyboard: InlineKeyboardMarkup | None = None
) -> None:
    """Show ``text`` (and ``keyboard``) in ``message``. An edit that would change nothing (the
    same button pressed twice) is no error: the message already shows it."""
    try:
        await message.edit_text(shorten(text), reply_markup=keyboard)
    except TelegramBadRequest as error:
        if not unchanged(error):
            raise
