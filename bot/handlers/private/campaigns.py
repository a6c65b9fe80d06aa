"""``/campaigns``: a person in several campaigns chooses the one their private commands are
about (with exactly one active campaign, it is used without asking)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.clock import Clock
from bot.handlers.editing import edit_in_place
from bot.handlers.private import screens
from bot.handlers.private.base import answer_text
from bot.handlers.private.callbacks import CampaignButton
from bot.services.orders import Refusal, pick_campaign, seat_in
from storage import Membership, Person, Store


def _keyboard(choices: tuple[Membership, ...], current: int | None) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=("• " if m.campaign.id == current else "") + m.campaign.title,
                    callback_data=CampaignButton(campaign=m.campaign.id).pack(),
                )
            ]
            for m in choices
        ]
    )


async def list_campaigns(message: Message, store: Store, person: Person) -> None:
    """Every active campaign of the person; the current one is marked."""
    pick = await pick_campaign(store, person)
    if not pick.choices:
        await message.answer(
            _("You are not in a campaign yet. Join one from its group chat with /join.")
        )
        return
    current = pick.seat.campaign.id if pick.seat else None
    lines = [_("Your campaigns (the marked one is current):")]
    for membership in pick.choices:
        lines.append(f"• {screens.phase_words(membership.campaign)}")
    await answer_text(message, "\n".join(lines), _keyboard(pick.choices, current))


async def choose(
    query: CallbackQuery, callback_data: CampaignButton, store: Store, clock: Clock
) -> None:
    """Make the pressed campaign current, if the person is still in it."""
    seat = await seat_in(store, query.from_user.id, callback_data.campaign)
    if seat is None:
        await query.answer(screens.refusal_words(Refusal.NOT_MEMBER, None), show_alert=True)
        return
    person = await store.set_current_campaign(query.from_user.id, seat.campaign.id, clock.now())
    pick = await pick_campaign(store, person)
    await query.answer(_("Current campaign: {title}").format(title=seat.campaign.title))
    if isinstance(query.message, Message):
        await edit_in_place(
            query.message,
            _("Current campaign: {title}").format(title=seat.campaign.title)
            + "\n"
            + screens.phase_words(seat.campaign),
            _keyboard(pick.choices, seat.campaign.id),
        )


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(list_campaigns, Command("campaigns"))
    router.callback_query.register(choose, CampaignButton.filter())
    return router
