"""The GM's "-1" tokens (watch, MODULES.md W7): from the GM panel, between the battle list and
the resolution, the cards laid in this turn's closed duel steps, each lowered by a number of
tokens (0 takes them off; a card never counts below 0). Audited and posted in the group; the
resolution counts the lowered power.

Every press names the (campaign, turn) it was made for and is re-checked: the presser
must be a GM of *this* campaign now, or nothing happens.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.group.guards import gm_member, not_gm_text, pressed_campaign
from bot.modules.watch.duels import hero_names
from bot.modules.watch.gm import (
    LaidCard,
    cards_hidden,
    laid_cards,
    lower_card,
    may_lower_cards,
)
from bot.modules.watch.gm_texts import describe_change_problem, laid_card_words
from bot.modules.watch.texts import hero_name, spell_words
from bot.runtime.clock import Clock
from bot.screens.callbacks import ButtonInt, gm_menu_data
from bot.services.state_edits import EditOutcome
from bot.services.turns import game_for
from bot.texts.limits import button_label
from storage import Campaign, Store

MOST_TOKENS = 9
"""The most tokens a button offers (a card's power caps it: it never counts below 0)."""


class WatchCardPress(CallbackData, prefix="wcg"):
    """The GM's "-1" tokens button: the campaign and turn it was made for; the laid card by its
    hero's id ``h`` (empty: the list) and its place ``i`` in the hero's step (so a press after
    the list changed finds that very card or none); ``n`` the tokens to set (-1: ask how many).
    With a hero id of at most 32 characters and a turn below 10000 it stays within Telegram's
    64 bytes; the phase is not carried: the tokens may go on in either late phase."""

    c: ButtonInt
    t: ButtonInt
    h: str = ""
    i: ButtonInt = -1
    n: ButtonInt = -1


def _press(campaign: Campaign, card: LaidCard | None = None, n: int = -1) -> str:
    if card is None:
        return WatchCardPress(c=campaign.id, t=campaign.turn).pack()
    return WatchCardPress(c=campaign.id, t=campaign.turn, h=card.hero, i=card.play, n=n).pack()


def cards_button(campaign: Campaign) -> list[InlineKeyboardButton]:
    """The GM panel's row for the tool (empty without watch or outside the late window)."""
    if not may_lower_cards(campaign):
        return []
    return [
        InlineKeyboardButton(text=_("🃏 Lower a played spell (−1)"), callback_data=_press(campaign))
    ]


def _back(campaign: Campaign) -> list[InlineKeyboardButton]:
    return [InlineKeyboardButton(text=_("◀ GM tools"), callback_data=gm_menu_data(campaign))]


def _label(card: LaidCard, names: dict[str, str]) -> str:
    spell = spell_words(card.card) + (f" −{card.lowered_by}" if card.lowered_by else "")
    return f"{hero_name(names, card.hero)}: {spell} → {hero_name(names, card.target)}"


def _sealed_text() -> str:
    return _(
        "The sealed duels are not shown yet: their spells can be lowered once every step is "
        "played and the group has seen them."
    )


async def _list(
    store: Store, campaign: Campaign, cards: list[LaidCard], hidden: bool = False
) -> tuple[str, InlineKeyboardMarkup]:
    names = await hero_names(store, campaign.id, campaign.turn)
    rows = [
        [
            InlineKeyboardButton(
                text=button_label(_label(card, names)), callback_data=_press(campaign, card)
            )
        ]
        for card in cards
    ]
    rows.append(_back(campaign))
    if hidden:
        text = _sealed_text()
    elif not cards:
        text = _(
            "No spell is played yet this turn: the spells of a duel step can be lowered once the "
            "step is closed, until the results deadline."
        )
    else:
        text = _(
            'The spells played this turn. Pick one to lower it with the GM\'s "-1" tokens '
            "(until the results deadline; a spell never counts below 0). The group sees it."
        )
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


def _amounts(
    campaign: Campaign, card: LaidCard, names: dict[str, str]
) -> tuple[str, InlineKeyboardMarkup]:
    top = min(MOST_TOKENS, int(card.card[1:]))
    numbers = [
        InlineKeyboardButton(
            text=f"• −{n}" if n == card.lowered_by else f"−{n}",
            callback_data=_press(campaign, card, n),
        )
        for n in range(top + 1)
    ]
    rows = [numbers[i : i + 5] for i in range(0, len(numbers), 5)]
    rows.append([InlineKeyboardButton(text=_("◀ Played spells"), callback_data=_press(campaign))])
    text = _("{hero}: {laid}. How many tokens lower it (• now; −0 takes them off)?").format(
        hero=hero_name(names, card.hero), laid=laid_card_words(card.card, card.target, names)
    )
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


async def cards_pressed(
    query: CallbackQuery, callback_data: WatchCardPress, store: Store, clock: Clock
) -> None:
    """The list of laid cards, one card's token buttons, or the tokens set."""
    data = callback_data
    campaign = await pressed_campaign(store, query, data.c, data.t, None)
    if campaign is None:
        return
    if await gm_member(store, campaign, query.from_user.id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    if not may_lower_cards(campaign):
        await query.answer(
            _("Spells are lowered only between the battle list and the resolution."),
            show_alert=True,
        )
        return
    if await cards_hidden(store, campaign):
        if data.h:
            await query.answer(_sealed_text(), show_alert=True)
            return
        await query.answer()
        if isinstance(query.message, Message):
            text, keyboard = await _list(store, campaign, [], hidden=True)
            await query.message.edit_text(text, reply_markup=keyboard)
        return
    cards = await laid_cards(store, campaign)
    names = await hero_names(store, campaign.id, campaign.turn)
    pressed = next((c for c in cards if (c.hero, c.play) == (data.h, data.i)), None)
    if (data.h and pressed is None) or (not data.h and data.n >= 0):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    if pressed is not None and data.n < 0:
        await query.answer()
        text, keyboard = _amounts(campaign, pressed, names)
        if isinstance(query.message, Message):
            await query.message.edit_text(text, reply_markup=keyboard)
        return
    if pressed is not None:
        result = await lower_card(
            store, campaign, pressed.hero, pressed.play, data.n, query.from_user.id, clock.now()
        )
        if result.outcome is EditOutcome.REFUSED and result.error is not None:
            sides = {side.id: side.name for side in await store.sides(campaign.id)}
            problem = describe_change_problem(
                result.error, game_for(campaign).map, sides | names, get_i18n().current_locale
            )
            await query.answer(problem, show_alert=True)
            return
        if result.outcome is not EditOutcome.APPLIED:
            await query.answer(
                _("The state changed meanwhile; nothing was changed. Try again."), show_alert=True
            )
            return
        await query.answer(_("Done: the group sees it; the resolution counts it."))
        cards = await laid_cards(store, campaign)
    else:
        await query.answer()
    if isinstance(query.message, Message):
        text, keyboard = await _list(store, campaign, cards)
        await query.message.edit_text(text, reply_markup=keyboard)


def build() -> Router:
    """The tool's router (group and GM's private chat alike: the press checks the chat)."""
    router = Router(name=__name__)
    router.callback_query.register(cards_pressed, WatchCardPress.filter())
    return router
