"""The late window in private (MODULES.md A2.9): between the battle list and the resolution a
side's strategist plays siege's "after" cards with buttons, or takes one back."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery, Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.private import screens
from bot.handlers.private.base import pressed_seat
from bot.modules.siege.screens import late_screen
from bot.modules.siege.typed import siege_tokens
from bot.runtime.clock import Clock
from bot.screens.callbacks import LatePress
from bot.services.late import give_late_order, late_desk, take_back_late_order
from bot.texts.core import describe_rejection
from rules.modules import siege
from storage import Store


async def late_pressed(
    query: CallbackQuery, callback_data: LatePress, store: Store, clock: Clock
) -> None:
    """Play or take back a late card: re-checks the presser gives their side's orders and the
    window is still open for that turn."""
    seat = await pressed_seat(query, store, clock, callback_data.c)
    if seat is None:
        return
    if not seat.gives_orders or seat.side is None:
        await query.answer(_("Only your side's strategists play its cards."), show_alert=True)
        return
    desk = await late_desk(store, seat.campaign.id, seat.side, callback_data.t)
    if desk is None:
        await query.answer(
            _("The cards after the battles can no longer be played: the turn has moved on."),
            show_alert=True,
        )
        return
    now, actor = clock.now(), seat.member.user_id
    tokens = list(siege_tokens(desk.state.modules))
    if callback_data.a == "p" and 0 <= callback_data.k < len(tokens):
        order = siege.play_card(tokens[callback_data.k], "after")
        result = await give_late_order(
            store, seat.campaign.id, seat.side, order, actor, now, callback_data.t
        )
    elif (
        callback_data.a == "x"
        and 0 <= callback_data.k < len(desk.current)
        and desk.current[callback_data.k].module == siege.NAME
    ):
        result = await take_back_late_order(
            store,
            seat.campaign.id,
            seat.side,
            callback_data.k,
            desk.current[callback_data.k],
            actor,
            now,
            callback_data.t,
        )
    else:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    names = {side.id: side.name for side in await store.sides(seat.campaign.id)}
    language = screens.language()
    if result.rejection is not None:
        await query.answer(
            describe_rejection(result.rejection, desk.game.map, names, language), show_alert=True
        )
        return
    if result.desk is None:
        await query.answer(
            _("The cards after the battles can no longer be played: the turn has moved on."),
            show_alert=True,
        )
        return
    await query.answer(_("Saved.") if result.changed else _("Nothing changed."))
    if isinstance(query.message, Message):
        text, keyboard = late_screen(result.desk, names, language)
        await query.message.edit_text(text, reply_markup=keyboard)


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.callback_query.register(late_pressed, LatePress.filter())
    return router
