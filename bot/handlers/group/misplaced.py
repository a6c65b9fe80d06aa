"""Commands sent in the wrong kind of chat: say where they work instead of staying silent."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message
from aiogram.utils.i18n import gettext as _

GROUP_ONLY = (
    "newcampaign",
    "join",
    "status",
    "rules",
    "roll",
)
PRIVATE_ONLY = ("campaigns", "vacation", "hand")


async def group_only(message: Message) -> None:
    """A group command (``/newcampaign``, ``/join``, ``/status`` ...) in private."""
    await message.answer(
        _(
            "That command works in the campaign's group chat. Add me to your group and send it "
            "there; here I take your secret orders (/help)."
        )
    )


async def private_only(message: Message) -> None:
    """A private command (``/campaigns``) in a group."""
    await message.answer(
        _("That command works in a private chat with me: tap my name, then «Start».")
    )


def build() -> Router:
    """Group commands sent in private; the parent sets the private-chat filter."""
    router = Router(name=__name__)
    router.message.register(group_only, Command(*GROUP_ONLY))
    return router


def build_in_group() -> Router:
    """Private commands sent in a group; the parent sets the group-chat filter."""
    router = Router(name=f"{__name__}.in_group")
    router.message.register(private_only, Command(*PRIVATE_ONLY))
    return router
