"""Messages and presses in a group from someone the bot cannot name: an anonymous admin (sent
as the group, via GroupAnonymousBot) or a channel. Every screen needs to know *who* asks (a GM,
a player of a side), so these are answered with what to do instead and go no further.

The parent registers this router before every other one that serves groups (joining too).
"""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import CallbackQuery, Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.filters import Awaited


async def sent_anonymously(message: Message) -> bool:
    """True for a message sent on behalf of a chat (the group itself, a channel) or by a bot."""
    return message.sender_chat is not None or message.from_user is None or message.from_user.is_bot


def anonymous_text() -> str:
    """What an anonymous sender is told."""
    return _(
        "Please send this as yourself, not anonymously or as a channel: I need to know who is "
        "asking. (Admins: turn off «Remain anonymous» in your admin rights for a moment.)"
    )


async def anonymous_message(message: Message) -> None:
    """A command, or a reply to the bot, gets the explanation; anything else (a channel's post
    forwarded to its discussion group, chat between admins) is left alone."""
    replied = message.reply_to_message
    to_bot = replied is not None and replied.from_user is not None and replied.from_user.is_bot
    if message.is_automatic_forward or not ((message.text or "").startswith("/") or to_bot):
        return
    await message.reply(anonymous_text())


async def anonymous_press(query: CallbackQuery) -> None:
    """A button pressed by a sender the bot cannot name."""
    await query.answer(anonymous_text(), show_alert=True)


def build() -> Router:
    """This module's router; the parent sets the group-chat filters."""
    router = Router(name=__name__)
    router.message.register(anonymous_message, sent_anonymously)
    router.callback_query.register(anonymous_press, Awaited(F.from_user.is_bot))
    return router
