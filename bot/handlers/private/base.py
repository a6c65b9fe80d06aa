"""What the private screens share: finding the person's campaign, and showing a screen in one
message that is edited in place (a new one only when the old one is gone)."""

from __future__ import annotations

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.clock import Clock
from bot.services.orders import CampaignPick, Seat, pick_campaign
from storage import Person, Store


async def seat_or_answer(message: Message, store: Store, person: Person) -> Seat | None:
    """The person's current campaign; if there is none or several, say so and return None."""
    pick = await pick_campaign(store, person)
    if pick.seat is None:
        await message.answer(no_seat_words(pick))
    return pick.seat


def no_seat_words(pick: CampaignPick) -> str:
    """Why no campaign is chosen and how to choose one."""
    if pick.choices:
        return _("You play in several campaigns: choose one with /campaigns.")
    return _(
        "You are not in a campaign yet. Join one from its group chat with /join, then come "
        "back here."
    )


async def show_screen(
    bot: Bot,
    store: Store,
    clock: Clock,
    seat: Seat,
    kind: str,
    chat_id: int,
    text: str,
    keyboard: InlineKeyboardMarkup | None,
    message_id: int | None,
) -> int:
    """Show a screen: edit ``message_id`` in place, else send it anew; remember which message
    shows ``kind`` for the person. Returns that message's id."""
    if message_id is not None:
        try:
            await bot.edit_message_text(
                text=text, chat_id=chat_id, message_id=message_id, reply_markup=keyboard
            )
        except TelegramBadRequest as error:
            if "not modified" not in str(error):
                message_id = None
    if message_id is None:
        sent = await bot.send_message(chat_id, text, reply_markup=keyboard)
        message_id = sent.message_id
    await store.remember_ui_message(
        seat.campaign.id, seat.member.user_id, kind, chat_id, message_id, clock.now()
    )
    return message_id
