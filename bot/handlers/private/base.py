"""What the private screens share: finding the person's campaign (and checking a press against
it), showing a screen in one message that is edited in place (a new one only when the old one
is gone), and sending built text within Telegram's 4096 characters (split at line ends; an edit
is shortened)."""

from __future__ import annotations

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.private import screens
from bot.runtime.clock import Clock
from bot.services.orders import (
    CampaignPick,
    Refusal,
    Seat,
    is_active,
    pick_campaign,
    remember_screen,
    seat_in,
    snapshot_of,
)
from bot.texts.limits import shorten, split_text
from storage import CampaignStatus, Membership, Person, Store


async def seat_or_answer(message: Message, store: Store, person: Person) -> Seat | None:
    """The person's current campaign; if there is none or several, say so and return None."""
    pick = await pick_campaign(store, person)
    if pick.seat is None and not pick.choices:
        await message.answer(no_campaign_words(await store.memberships(person.user_id)))
    elif pick.seat is None:
        await message.answer(no_seat_words(pick))
    return pick.seat


def no_campaign_words(memberships: list[Membership]) -> str:
    """What a person in no running campaign hears: how to join one (and where the finished
    ones they played are)."""
    if any(not is_active(m.campaign) for m in memberships):
        return _(
            "You are in no running campaign now; your finished ones are in /history. Join the "
            "next one from its group chat with /join."
        )
    return _(
        "You are not in a campaign yet. Join one from its group chat with /join, then come "
        "back here."
    )


async def pressed_seat(
    query: CallbackQuery, store: Store, clock: Clock, campaign_id: int, button_side: str = ""
) -> Seat | None:
    """The presser's seat in the campaign a button names, or ``None`` with the press answered:
    they are not in it, the button is on another side's screen, or the GM ended the campaign.
    A button acts on its own campaign; when that is not the person's current one, it becomes
    current (:func:`follow_button`), so what they type next goes where they just pressed."""
    seat = await seat_in(store, query.from_user.id, campaign_id)
    if seat is None:
        await query.answer(screens.refusal_words(Refusal.NOT_MEMBER, None), show_alert=True)
        return None
    refusal = foreign_button_words() if foreign_button(seat, button_side) else campaign_over(seat)
    if refusal is not None:
        await query.answer(refusal, show_alert=True)
        return None
    await follow_button(query, store, clock, seat)
    return seat


async def follow_button(query: CallbackQuery, store: Store, clock: Clock, seat: Seat) -> None:
    """Make the pressed button's campaign the person's current one, and say so in the chat, when
    they play in several running campaigns and another one was current (or none was chosen).
    Judged on the seat's snapshot (the person and how many campaigns they play in)."""
    snapshot = await snapshot_of(store, seat)
    if snapshot is None:
        return
    person = snapshot.people.get(query.from_user.id)
    if person is None or person.current_campaign_id == seat.campaign.id:
        return
    if snapshot.running_campaigns < 2 or query.message is None:
        return
    await store.set_current_campaign(person.user_id, seat.campaign.id, clock.now())
    if query.bot is not None:
        await query.bot.send_message(
            query.message.chat.id,
            _(
                "That button is from «{title}», so it acted there, and «{title}» is your "
                "current campaign now: /orders, /battles and typed orders go to it. /campaigns "
                "switches back."
            ).format(title=seat.campaign.title),
        )


def foreign_button(seat: Seat, button_side: str) -> bool:
    """True when a button names the side whose screen it is on and the presser does not play
    that side (a forwarded or forged button)."""
    return bool(button_side) and button_side != seat.side


def foreign_button_words() -> str:
    """What a press of another side's button is answered."""
    return _(
        "That button is on another side's screen, so it does nothing for you. Your own "
        "screens: /orders, /deploy, /battles."
    )


def campaign_over(seat: Seat) -> str | None:
    """What a press in a campaign the GM ended is answered (an ended campaign keeps its turn
    and phase, so its old buttons would otherwise still look current), else ``None``."""
    if seat.campaign.status is not CampaignStatus.FINISHED:
        return None
    return _("«{title}» is over: nothing can be changed now.").format(title=seat.campaign.title)


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
    shows ``kind`` for the person. Returns that message's id. A text too long for one message
    is shortened in an edit, and sent as several messages (the buttons under the last)."""
    if message_id is not None:
        try:
            await bot.edit_message_text(
                text=shorten(text), chat_id=chat_id, message_id=message_id, reply_markup=keyboard
            )
        except TelegramBadRequest as error:
            if "not modified" not in str(error):
                message_id = None
    if message_id is None:
        sent = await send_text(bot, chat_id, text, keyboard)
        message_id = sent.message_id
    await remember_screen(store, seat, kind, chat_id, message_id, clock.now())
    return message_id


async def send_text(
    bot: Bot, chat_id: int, text: str, keyboard: InlineKeyboardMarkup | None = None
) -> Message:
    """Send built text, in several messages if it is too long for one (cut at line ends), the
    buttons under the last; returns the last message."""
    *leading, last = split_text(text)
    for piece in leading:
        await bot.send_message(chat_id, piece)
    return await bot.send_message(chat_id, last, reply_markup=keyboard)


async def answer_text(
    message: Message, text: str, keyboard: InlineKeyboardMarkup | None = None
) -> None:
    """Answer ``message`` with built text, split as :func:`send_text` does."""
    if message.bot is None:
        raise RuntimeError("a message from an update always has its bot")
    await send_text(message.bot, message.chat.id, text, keyboard)
