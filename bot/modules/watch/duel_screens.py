"""The side's duel step screen (watch, MODULES.md W6) and its buttons: the hero's hand as card
buttons, then the heroes there as target buttons, then «Play» or «Play nothing».

Every button names the step and the draft it was drawn for (``v``: the step's edits), so a
press on an older screen changes nothing (``bot.modules.watch.duels``).
"""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot.modules.watch.duel_texts import card_name, closed_step_text, screen_text, target_text
from bot.modules.watch.duels import StepDesk
from bot.screens.callbacks import ButtonInt
from bot.texts.limits import button_label
from storage import DuelStepState

CARDS_PER_ROW = 3


class DuelPress(CallbackData, prefix="wd"):
    """A duel step button: step ``s`` as drawn at edits ``v``; ``a`` is ``o`` (show the step),
    ``c`` (card ``k`` chosen: ask its target), ``t`` (lay card ``k`` on hero ``h``), ``u`` (take
    the last card back), ``p`` (play the cards laid) or ``n`` (play nothing)."""

    s: ButtonInt
    v: ButtonInt
    a: str
    k: str = ""
    h: str = ""


def _press(desk: StepDesk, action: str, card: str = "", hero: str = "") -> str:
    return DuelPress(s=desk.step.id, v=desk.step.edits, a=action, k=card, h=hero).pack()


def _button(text: str, data: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=button_label(text), callback_data=data)


def step_screen(desk: StepDesk, language: str) -> tuple[str, InlineKeyboardMarkup | None]:
    """The step as its side sees it: an open step with its buttons, a closed one without."""
    campaign_map = desk.game.map
    if desk.step.state is DuelStepState.CLOSED:
        return closed_step_text(desk.step, desk.names, campaign_map, language), None
    text = screen_text(
        desk.step,
        desk.hand,
        desk.heroes,
        desk.names,
        campaign_map,
        desk.campaign.time_zone,
        language,
    )
    free = list(dict.fromkeys(desk.free_cards()))
    rows = [
        [_button(card_name(card), _press(desk, "c", card)) for card in free[i : i + CARDS_PER_ROW]]
        for i in range(0, len(free), CARDS_PER_ROW)
    ]
    if desk.step.plays:
        rows.append([_button(_("↩ Take back the last spell"), _press(desk, "u"))])
    last = [_button(_("Play nothing"), _press(desk, "n"))]
    if desk.step.plays:
        last.insert(0, _button(_("✅ Play"), _press(desk, "p")))
    rows.append(last)
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


def target_screen(desk: StepDesk, card: str) -> tuple[str, InlineKeyboardMarkup]:
    """Which hero of the duel gets ``card``."""
    rows = [[_button(name, _press(desk, "t", card, hero))] for hero, name, _w in desk.heroes]
    rows.append([_button(_("◀ Back"), _press(desk, "o"))])
    return target_text(card), InlineKeyboardMarkup(inline_keyboard=rows)
