"""The GM's "reopen a side's orders" (issue 23): from the GM panel, choose a side, then a short
deadline (1, 3, 6 or 12 hours); ``bot.services.reopening`` says when it is possible and does it.

Every press names the (campaign, turn, phase) it was made for and is re-checked: the presser
must be a GM of *this* campaign now, or nothing happens. The group is told which side's orders
were reopened and until when, never their contents; the side's strategists are told in private.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.group.guards import gm_member, not_gm_text, pressed_campaign
from bot.posts.group import colour_mark
from bot.runtime.clock import Clock
from bot.screens.callbacks import ButtonInt, gm_menu_data
from bot.services.reopening import (
    REOPEN_HOURS,
    ReopenOutcome,
    may_reopen,
    reopen_side_orders,
    reopenable_sides,
)
from bot.texts.limits import button_label
from bot.texts.moments import format_moment
from storage import Campaign, Phase, Store


class ReopenPress(CallbackData, prefix="ro"):
    """A reopen button: campaign, turn and phase it was made for, side and hours (0: choose)."""

    c: ButtonInt
    t: ButtonInt
    p: str
    s: str = ""
    h: ButtonInt = 0


def _press(campaign: Campaign, side: str = "", hours: int = 0) -> str:
    return ReopenPress(
        c=campaign.id, t=campaign.turn, p=campaign.phase.value, s=side, h=hours
    ).pack()


def reopen_button(campaign: Campaign) -> list[InlineKeyboardButton]:
    """The GM panel's row for the tool (empty in phases where it never works)."""
    if not may_reopen(campaign):
        return []
    return [
        InlineKeyboardButton(text=_("🔓 Reopen a side's orders"), callback_data=_press(campaign))
    ]


def refusal_text(outcome: ReopenOutcome) -> str:
    """Why the orders were not reopened, and what to do instead."""
    match outcome:
        case ReopenOutcome.WINDOW_OPEN:
            return _(
                "The orders window is still open for every side. To give everyone more time, "
                "extend the deadline (+12 h, +24 h)."
            )
        case ReopenOutcome.LIST_PUBLIC:
            return _(
                "Too late: the battle list is public and players may have arranged their "
                "battles. To reopen every side's orders, undo the last step."
            )
        case ReopenOutcome.PAUSED:
            return _("The campaign is paused: resume it first (/resume).")
        case ReopenOutcome.NOT_IN_PLAY:
            return _("That side has no armies on the map this turn.")
        case ReopenOutcome.ALREADY:
            return _("These orders were reopened once already; extend the deadline instead.")
        case _:
            return _("Orders can be reopened only between their deadline and the battle list.")


async def reopen_pressed(
    query: CallbackQuery, callback_data: ReopenPress, store: Store, clock: Clock
) -> None:
    """A reopen button: the sides, then the hours, then the reopening."""
    data = callback_data
    campaign = await pressed_campaign(store, query, data.c, data.t, data.p)
    if campaign is None:
        return
    if await gm_member(store, campaign, query.from_user.id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    if not isinstance(query.message, Message):
        await query.answer()
        return
    names = {side.id: side for side in await store.sides(campaign.id)}
    sides = await reopenable_sides(store, campaign)
    if not data.s:
        rows = [
            [
                InlineKeyboardButton(
                    text=button_label(f"{colour_mark(names[s].colour)} {names[s].name}"),
                    callback_data=_press(campaign, s),
                )
            ]
            for s in sides
            if s in names
        ]
        rows.append(
            [InlineKeyboardButton(text=_("◀ GM tools"), callback_data=gm_menu_data(campaign))]
        )
        await query.answer()
        await query.message.edit_text(
            _(
                "Whose orders do you reopen? Only that side may then change its orders, until a "
                "short deadline; the others' orders stay as they are."
            ),
            reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
        )
        return
    side = names.get(data.s)
    if side is None or side.id not in sides:
        await query.answer(refusal_text(ReopenOutcome.NOT_IN_PLAY), show_alert=True)
        return
    if data.h not in REOPEN_HOURS:
        hours_row = [
            InlineKeyboardButton(
                text=_("{n} h").format(n=hours), callback_data=_press(campaign, side.id, hours)
            )
            for hours in REOPEN_HOURS
        ]
        await query.answer()
        back = InlineKeyboardButton(text=_("◀ Back"), callback_data=_press(campaign))
        await query.message.edit_text(
            _("Reopen the orders of side «{side}» for how long?").format(side=side.name),
            reply_markup=InlineKeyboardMarkup(inline_keyboard=[hours_row, [back]]),
        )
        return
    result = await reopen_side_orders(
        store,
        campaign.id,
        campaign.turn,
        Phase(data.p),
        side.id,
        data.h,
        query.from_user.id,
        clock.now(),
    )
    if result.reopening is None:
        await query.answer(refusal_text(result.outcome), show_alert=True)
        return
    until = format_moment(result.reopening.deadline, campaign.time_zone, get_i18n().current_locale)
    await query.answer()
    back = InlineKeyboardButton(text=_("◀ GM tools"), callback_data=gm_menu_data(campaign))
    await query.message.edit_text(
        _(
            "Reopened: side «{side}» may change its orders until {deadline}. The group and the "
            "side are told."
        ).format(side=side.name, deadline=until),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[[back]]),
    )


def build() -> Router:
    """The tool's router (group and GM's private chat alike: the press checks the chat)."""
    router = Router(name=__name__)
    router.callback_query.register(reopen_pressed, ReopenPress.filter())
    return router
