"""Siege in the private chat: the starting weather picked with buttons (MODULES.md S8)."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery, Message
from aiogram.utils.i18n import gettext as _

from bot.callbacks import WeatherPick
from bot.clock import Clock
from bot.handlers.private import screens
from bot.services.turns import ChoiceOutcome, make_choice
from bot.siege_screens import weather_name
from rules.modules.siege import NAME as SIEGE
from storage import Person, Store


async def weather_pressed(
    query: CallbackQuery, callback_data: WeatherPick, store: Store, clock: Clock, person: Person
) -> None:
    """A weather button: the choice is re-checked (who pressed, whether it is still to make)."""
    campaign = await store.campaign(callback_data.c)
    if campaign is None or not 0 <= callback_data.w < 8:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    made = await make_choice(
        store, campaign.id, SIEGE, {"weather": callback_data.w}, person.user_id, clock.now()
    )
    if made is ChoiceOutcome.NOT_YOURS:
        await query.answer(
            _("Only the choosing side's strategist or a GM picks the starting weather."),
            show_alert=True,
        )
        return
    if made is not ChoiceOutcome.MADE:
        await query.answer(
            _("The starting weather is chosen already, or the turn has moved on."),
            show_alert=True,
        )
        return
    name = weather_name(campaign, callback_data.w, screens.language())
    await query.answer()
    if isinstance(query.message, Message):
        await query.message.edit_text(
            _("{title}: the starting weather is {weather}.").format(
                title=campaign.title, weather=name
            )
        )


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.callback_query.register(weather_pressed, WeatherPick.filter())
    return router
