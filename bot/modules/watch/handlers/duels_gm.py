"""The GM's duel steps (watch, MODULES.md W6): from the GM panel, the current turn's steps not
closed yet, each closed now with a press (nothing played for it; audited). The group sees it
with the step's cards (initiative mode) or in the reveal (sealed mode).

Every press names the (campaign, turn, phase) it was made for and is re-checked: the presser
must be a GM of *this* campaign now, or nothing happens.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.group.guards import gm_member, not_gm_text, pressed_campaign
from bot.modules.watch.duel_texts import gm_step_label, gm_steps_text, refusal_text
from bot.modules.watch.duels import duel_mode, gm_close_step, hero_names, open_steps, watch_settings
from bot.runtime.clock import Clock
from bot.screens.callbacks import ButtonInt, gm_menu_data
from bot.services.late import LATE_PHASES
from bot.services.turns import game_for
from bot.texts.limits import button_label
from storage import Campaign, Store


class DuelGmPress(CallbackData, prefix="wdg"):
    """The GM's duel steps button: campaign, turn and phase it was made for; ``s`` the step to
    close now (0: show the list)."""

    c: ButtonInt
    t: ButtonInt
    p: str
    s: ButtonInt = 0


def _press(campaign: Campaign, step: int = 0) -> str:
    return DuelGmPress(c=campaign.id, t=campaign.turn, p=campaign.phase.value, s=step).pack()


def duels_button(campaign: Campaign) -> list[InlineKeyboardButton]:
    """The GM panel's row for the tool (empty without watch or outside the battles)."""
    if campaign.phase not in LATE_PHASES or watch_settings(game_for(campaign)) is None:
        return []
    return [InlineKeyboardButton(text=_("⚔️ Duel steps"), callback_data=_press(campaign))]


async def _list(store: Store, campaign: Campaign) -> tuple[str, InlineKeyboardMarkup]:
    steps = await open_steps(store, campaign)
    names = await hero_names(store, campaign.id, campaign.turn)
    campaign_map = game_for(campaign).map
    rows = [
        [
            InlineKeyboardButton(
                text=button_label(
                    gm_step_label(step, names, campaign_map, get_i18n().current_locale)
                ),
                callback_data=_press(campaign, step.id),
            )
        ]
        for step in steps
    ]
    rows.append([InlineKeyboardButton(text=_("◀ GM tools"), callback_data=gm_menu_data(campaign))])
    return gm_steps_text(len(steps), duel_mode(game_for(campaign))), InlineKeyboardMarkup(
        inline_keyboard=rows
    )


async def duels_pressed(
    query: CallbackQuery, callback_data: DuelGmPress, store: Store, clock: Clock
) -> None:
    """The list of open steps, or one closed now."""
    data = callback_data
    campaign = await pressed_campaign(store, query, data.c, data.t, data.p)
    if campaign is None:
        return
    if await gm_member(store, campaign, query.from_user.id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    if data.s:
        result = await gm_close_step(store, campaign, data.s, query.from_user.id, clock.now())
        if result.step is None:
            refusal = "closed" if result.refusal is None else result.refusal.value
            await query.answer(refusal_text(refusal), show_alert=True)
        else:
            await query.answer(_("Closed: nothing played for this step."))
    else:
        await query.answer()
    if isinstance(query.message, Message):
        text, keyboard = await _list(store, campaign)
        await query.message.edit_text(text, reply_markup=keyboard)


def build() -> Router:
    """The tool's router (group and GM's private chat alike: the press checks the chat)."""
    router = Router(name=__name__)
    router.callback_query.register(duels_pressed, DuelGmPress.filter())
    return router
