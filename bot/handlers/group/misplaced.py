"""Group commands sent in a private chat: say where they work instead of staying silent."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message
from aiogram.utils.i18n import gettext as _


async def group_only(message: Message) -> None:
    """``/newcampaign``, ``/join``, ``/status``, ``/gm``, ``/rules`` in private."""
    await message.answer(
        _(
            "That command works in the campaign's group chat. Add me to your group and send it "
            "there; here I take your secret orders (/help)."
        )
    )


def build() -> Router:
    """This module's router; the parent sets the private-chat filter."""
    router = Router(name=__name__)
    router.message.register(group_only, Command("newcampaign", "join", "status", "gm", "rules"))
    return router
