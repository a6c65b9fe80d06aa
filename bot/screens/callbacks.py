"""Callback data factories shared by several screens. Screens keep their own in their module;
every prefix is short and unique (a test checks), and no callback is ever trusted: handlers
re-check who pressed and whether the campaign is still where the button was made for."""

from __future__ import annotations

from typing import Annotated

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _
from pydantic import Field

from storage import Campaign

ButtonInt = Annotated[int, Field(ge=-(2**53), le=2**53)]
"""A number in callback data. Telegram's ids fit in 53 bits, and so does anything a button
carries; a forged press with a larger number (SQLite stores 64 bits) fails the filter like any
other malformed data and is answered as an invalid button."""


class LanguageChoice(CallbackData, prefix="lang"):
    """``/lang``: a language code, or ``auto`` to follow the Telegram app."""

    language: str


class SeatPress(CallbackData, prefix="st"):
    """A button of the GM's «Replace a player» (``bot/handlers/private/seats.py``): campaign,
    action, value (a user id, a vacancy id, or ``<vacancy>.<user>``)."""

    c: ButtonInt
    a: str
    v: str = ""


class ChangePress(CallbackData, prefix="chg"):
    """A button of the GM's "change a running campaign" tools (``bot.handlers.group.running``):
    campaign, action, value (a packed week, a moment in minutes since the epoch, a language)
    and the fingerprint of the clock it was shown on (for «Yes»)."""

    c: ButtonInt
    a: str
    v: str = ""
    k: str = ""


class GmEdit(CallbackData, prefix="ge"):
    """A button of the GM's state editor (``bot.handlers.private.gm_state``): campaign, the turn
    and phase it was made for, action, value."""

    c: ButtonInt
    t: ButtonInt
    p: str
    a: str
    v: str = ""


class GmPress(CallbackData, prefix="gm"):
    """A GM panel button (``bot.handlers.group.gm``): campaign, the turn and phase it was made
    for, action, value."""

    c: ButtonInt
    t: ButtonInt
    p: str
    a: str
    v: str = ""


def gm_menu_data(campaign: Campaign) -> str:
    """The «◀ GM tools» button's data: back to the GM panel of ``campaign``."""
    return GmPress(c=campaign.id, t=campaign.turn, p=campaign.phase.value, a="menu").pack()


class JoinPress(CallbackData, prefix="jn"):
    """The group's «Join» button, under the post that opens deployment; under the post about a
    vacant seat it names the side ``s``, and refuses once that side has no open seat."""

    c: ButtonInt
    s: str = ""


class LatePress(CallbackData, prefix="lt"):
    """A late order of turn ``t`` (one given between the battle list and the resolution): ``a``
    is ``p`` (play the piece ``k`` the screen offers) or ``x`` (take back late order ``k``)."""

    c: ButtonInt
    t: ButtonInt
    a: str
    k: ButtonInt = -1


class JoinVerdict(CallbackData, prefix="jv"):
    """A GM approves (``a`` = ``y``) or refuses (``n``) person ``u``'s request to join."""

    c: ButtonInt
    u: ButtonInt
    a: str


def join_verdict_keyboard(campaign_id: int, user_id: int) -> InlineKeyboardMarkup:
    """[Approve] [Refuse] under a join request sent to a GM."""
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=_("✅ Approve"),
                    callback_data=JoinVerdict(c=campaign_id, u=user_id, a="y").pack(),
                ),
                InlineKeyboardButton(
                    text=_("✖ Refuse"),
                    callback_data=JoinVerdict(c=campaign_id, u=user_id, a="n").pack(),
                ),
            ]
        ]
    )


def join_keyboard(campaign: Campaign) -> InlineKeyboardMarkup:
    """The «Join» button for a group post (a callback: it records the request, then links)."""
    button = InlineKeyboardButton(text=_("🙋 Join"), callback_data=JoinPress(c=campaign.id).pack())
    return InlineKeyboardMarkup(inline_keyboard=[[button]])
