"""The siege's tools on the GM panel (``bot.handlers.group.gm``): «🃏 Carry out a card», which
asks the GM to type a card's effect (``gm`` applies it, ``handlers/gm`` reads the answer); the
card's line in the GM's ``/help``; and the answer to «advance now» while the starting weather
waits (``bot.handlers.group.clock``)."""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton
from aiogram.utils.i18n import gettext as _

from bot.handlers.group.gm import GmContext, GmScreen, panel_button
from bot.handlers.group.guards import ask
from bot.modules.siege.gm import may_adjust
from bot.modules.siege.handlers.gm import GM_ADJUST, adjust_question
from storage import Campaign


def edit_rows(campaign: Campaign) -> list[list[InlineKeyboardButton]]:
    """The card's row while its effect may be carried out (a siege campaign, orders open)."""
    if not may_adjust(campaign):
        return []
    return [[panel_button(_("🃏 Carry out a card (siege)"), campaign, "adj")]]


def help_tools() -> list[tuple[str, str]]:
    """The card's line in the GM's ``/help``."""
    return [(_("🃏 Carry out a card (siege)"), _("a siege card's effect"))]


def weather_pending() -> str:
    """The GM's answer to «advance now» while the starting weather is not chosen."""
    return _(
        "Not yet: the starting weather of the siege is not chosen. Choose it with the "
        "buttons I sent you in private, or wait for the side that chooses it."
    )


async def _adjust_prompt(ctx: GmContext, value: str) -> None:
    """Ask the GM to type a card's effect (``bot.modules.siege.gm``) where the panel is (the
    GM's private chat, or an old panel in the group)."""
    if not may_adjust(ctx.campaign):
        await ctx.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    await ctx.store.set_prompt(
        ctx.message.chat.id,
        ctx.person.user_id,
        ctx.campaign.id,
        GM_ADJUST,
        {"turn": ctx.campaign.turn},
        ctx.message.message_id,
        ctx.clock.now(),
    )
    await ctx.query.answer()
    await ask(ctx.message, ctx.query.from_user, adjust_question(ctx.query.from_user))


SCREENS: dict[str, GmScreen] = {"adj": _adjust_prompt}
"""The panel's siege buttons, by action."""
