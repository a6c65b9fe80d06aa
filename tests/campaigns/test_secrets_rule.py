"""«Secrets» reads what a person sees less their own desk's buttons: an order their side may
give can read like another side's given one (seed 20096: both sides held 4 North Pole and could
guard O2 from it). The rule must not blind the scan: the same button on another side's desk,
or in the text, is still read."""

from __future__ import annotations

from aiogram.methods import SendMessage
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.handlers.private.callbacks import OrdersButton
from tests.bot.telegram import Sent
from tests.campaigns.invariants import _words_beside_own_desk
from tests.campaigns.world import Request

GUARD = "guard O2 from 4 North Pole"


def _desk(side: str, text: str = "🏰 Siege orders for turn 1.\nNone given yet.") -> Request:
    data = OrdersButton(campaign=1, turn=1, action="sd", sector=3, arg=1, side=side).pack()
    markup = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=GUARD, callback_data=data)]]
    )
    method = SendMessage(chat_id=204, text=text, reply_markup=markup)
    return Request(Sent(method, 204), 204, 1, None, 39)


def test_an_offer_on_the_readers_own_desk_is_not_read_as_a_leak() -> None:
    assert GUARD not in _words_beside_own_desk(_desk("s3"), {"s3"})


def test_the_same_button_on_another_sides_desk_is_read() -> None:
    assert GUARD in _words_beside_own_desk(_desk("s1"), {"s3"})
    assert GUARD in _words_beside_own_desk(_desk("s1"), {None})


def test_the_text_is_read_whatever_the_buttons() -> None:
    shown = _words_beside_own_desk(_desk("s3", text=f"Side s1 gave: {GUARD}"), {"s3"})
    assert f"Side s1 gave: {GUARD}" in shown
