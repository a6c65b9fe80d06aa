"""watch's duel steps in private (MODULES.md W6): a strategist of the hero's side lays cards
from the hero's hand on heroes of the duel, then plays them or plays nothing.

Each press re-reads the step: the presser must give the orders of the step's side, the step
must be current and open, and the screen must be the step's latest (its draft unchanged since);
otherwise nothing changes and the press is told why, in the rule's words where a rule refuses.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery, Message
from aiogram.utils.i18n import gettext as _
from pydantic import ValidationError

from bot.handlers.private import screens
from bot.handlers.private.base import pressed_seat
from bot.modules.watch.duel_screens import DuelPress, step_screen, target_screen
from bot.modules.watch.duel_texts import refusal_text, rule_text
from bot.modules.watch.duels import (
    StepRefusal,
    StepResult,
    draft_play,
    step_desk,
    submit_step,
)
from bot.runtime.clock import Clock
from storage import DuelPlay, Store


async def _show(query: CallbackQuery, store: Store, step_id: int) -> None:
    """Redraw the step's screen as it is now."""
    step = await store.duel_step(step_id)
    desk = None if step is None else await step_desk(store, step)
    if desk is None or not isinstance(query.message, Message):
        return
    text, keyboard = step_screen(desk, screens.language())
    await query.message.edit_text(text, reply_markup=keyboard)


async def _answer(query: CallbackQuery, store: Store, step_id: int, result: StepResult) -> None:
    if result.rejection is not None:
        desk = None if result.step is None else await step_desk(store, result.step)
        names = {} if desk is None else desk.names
        await query.answer(rule_text(result.rejection, names), show_alert=True)
        return
    if result.refusal is not None:
        await query.answer(refusal_text(result.refusal), show_alert=True)
        if result.refusal is StepRefusal.STALE or result.refusal is StepRefusal.CLOSED:
            await _show(query, store, step_id)
        return
    await query.answer(_("Saved."))
    await _show(query, store, step_id)


def _play(data: DuelPress) -> DuelPlay | None:
    """The card and target a ``t`` button names (None for a forged one)."""
    try:
        return DuelPlay(card=data.k, target=data.h)
    except ValidationError:
        return None


async def duel_pressed(
    query: CallbackQuery, callback_data: DuelPress, store: Store, clock: Clock
) -> None:
    """A duel step button: show, choose a card, lay it, take it back, play, play nothing."""
    data = callback_data
    step = await store.duel_step(data.s)
    if step is None:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    seat = await pressed_seat(query, store, clock, step.campaign_id, step.side_id)
    if seat is None:
        return
    if not seat.gives_orders or seat.side != step.side_id:
        await query.answer(
            _("Only a strategist of the hero's side plays its step."), show_alert=True
        )
        return
    match data.a:
        case "o":
            await query.answer()
            await _show(query, store, step.id)
        case "c":
            desk = await step_desk(store, step)
            if desk is None or step.edits != data.v or data.k not in desk.free_cards():
                await _answer(query, store, step.id, StepResult(step, StepRefusal.STALE))
                return
            await query.answer()
            if isinstance(query.message, Message):
                text, keyboard = target_screen(desk, data.k)
                await query.message.edit_text(text, reply_markup=keyboard)
        case "t" | "u":
            play = _play(data) if data.a == "t" else None
            if data.a == "t" and play is None:
                await query.answer(_("That button is not valid any more."), show_alert=True)
                return
            result = await draft_play(store, step.id, seat.side, data.v, play)
            await _answer(query, store, step.id, result)
        case "p" | "n":
            result = await submit_step(
                store, step.id, seat.side, data.v, data.a == "p", seat.member.user_id, clock.now()
            )
            await _answer(query, store, step.id, result)
        case _:
            await query.answer(_("That button is not valid any more."), show_alert=True)


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.callback_query.register(duel_pressed, DuelPress.filter())
    return router
