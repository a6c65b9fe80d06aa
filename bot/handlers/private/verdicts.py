"""The GM's decisions on battle results, in private: a dispute reaches every GM here at once,
with both accounts side by side and one tap to decide; ``/battles`` shows a GM every battle of
the turn with «Decide». A decision is final, audited, and told to both sides and the group.

Every press is re-checked: the presser must be a GM of the campaign the button names, and the
campaign still at the turn the button was made for.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import CallbackQuery, InlineKeyboardButton
from aiogram.utils.i18n import gettext as _

from bot.handlers.private import screens
from bot.handlers.private.base import pressed_seat, show_screen
from bot.handlers.private.battles import KIND, answered, battles_view, report_question
from bot.handlers.private.callbacks import BATTLES_PHASE, VerdictButton
from bot.modules.protocol import BotModule, ReportQuestion
from bot.runtime.clock import Clock
from bot.services.orders import (
    BattleDesk,
    Refusal,
    Seat,
    decide_result,
    defender_mark,
    open_battles,
    side_names,
)
from bot.services.turns import game_for
from bot.texts.core import full_result_words
from rules import Battle, BattleResult
from storage import Store


async def press(
    query: CallbackQuery, callback_data: VerdictButton, store: Store, clock: Clock, bot: Bot
) -> None:
    """A decision button: show the choices, every outcome, or set the result (GMs only)."""
    seat = await pressed_seat(query, store, clock, callback_data.campaign)
    if seat is None:
        return
    if not seat.is_gm:
        await query.answer(screens.refusal_words(Refusal.NOT_GM, seat.campaign), show_alert=True)
        return
    message_id = query.message.message_id if query.message is not None else None
    desk = await open_battles(store, seat, clock.now())
    if (
        desk is None
        or desk.campaign.turn != callback_data.turn
        or callback_data.phase != BATTLES_PHASE
    ):
        campaign = await store.campaign(seat.campaign.id) or seat.campaign
        await query.answer(
            screens.refusal_words(Refusal.STALE, campaign, callback_data.turn), show_alert=True
        )
        return
    battle = next((b for b in desk.battles if b.id == callback_data.battle), None)
    if battle is None:
        await query.answer(
            screens.refusal_words(Refusal.NO_SUCH_BATTLE, desk.campaign), show_alert=True
        )
        return
    names = await side_names(store, desk.campaign.id)
    if callback_data.action != "show" and callback_data.vs != defender_mark(battle):
        await query.answer(
            screens.refusal_words(Refusal.SIDES_CHANGED, desk.campaign), show_alert=True
        )
        return
    if not desk.playable(battle):
        await query.answer(
            screens.refusal_words(Refusal.NOT_PLAYABLE, desk.campaign), show_alert=True
        )
        return
    if callback_data.action in ("show", "more"):
        await query.answer()
        text = screens.verdict_text(desk, battle, game_for(desk.campaign).map, names)
        keyboard = screens.verdict_keyboard(
            desk, battle, names, every_outcome=callback_data.action == "more"
        )
        await show_screen(
            bot, store, clock, seat, KIND, query.from_user.id, text, keyboard, message_id
        )
        return
    code, _dot, answer = callback_data.outcome.partition(".")
    outcome = screens.OUTCOME_CODES.get(code)
    participants = battle.participants()
    winner = participants[callback_data.winner] if callback_data.winner in (0, 1) else None
    asked = (
        None if outcome is None else report_question(desk.campaign, battle, outcome, winner, names)
    )
    stands, data = answered(asked, battle, answer)
    marked = callback_data.action == "wl" and stands
    modules = data if marked and data is not None else {}
    try:
        result = (
            None
            if outcome is None
            else BattleResult(battle=battle.id, outcome=outcome, winner=winner, modules=modules)
        )
    except ValueError:
        result = None
    if not (callback_data.action == "set" or marked) or result is None:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    if callback_data.action == "set" and asked is not None:
        await query.answer()
        keyboard = _question_keyboard(desk, battle, callback_data, asked)
        await show_screen(
            bot, store, clock, seat, KIND, query.from_user.id, asked[1].text, keyboard, message_id
        )
        return
    report = desk.reports.get(battle.id)
    if callback_data.dispute and (report is None or not report.disputed):
        settled = report.effective() if report is not None else None
        await query.answer(
            _(
                "This dispute is settled already: {result}. /battles shows it; «Decide» there "
                "changes it."
            ).format(
                result="?"
                if settled is None
                else screens.result_words(settled.outcome, settled.winner, names)
            ),
            show_alert=True,
        )
        return
    written = await decide_result(store, seat, callback_data.turn, battle.id, result, clock.now())
    if written.refusal is not None:
        await query.answer(screens.refusal_words(written.refusal, desk.campaign), show_alert=True)
        return
    await query.answer(
        _("Decided: {result}. Both sides and the group are told.").format(
            result=full_result_words(result, names)
        )
    )
    await _show_battles(store, clock, bot, seat, query.from_user.id, message_id)


def _question_keyboard(
    desk: BattleDesk,
    battle: Battle,
    data: VerdictButton,
    asked: tuple[BotModule, ReportQuestion],
) -> screens.Keyboard:
    """The GM's answers to a module's question on the result ``data`` names; the answer of a
    side's account of the same result is shown with «•»."""
    module, question = asked
    report = desk.reports.get(battle.id)
    accounts = (report.reported, report.counter) if report is not None else ()
    said = {
        module.report_answer(battle, account)
        for account in accounts
        if account is not None
        and screens.result_codes(battle, account) == (data.outcome, data.winner)
    }
    rows = [
        [
            InlineKeyboardButton(
                text=f"• {label}" if code in said else label,
                callback_data=VerdictButton(
                    campaign=data.campaign,
                    turn=data.turn,
                    battle=data.battle,
                    action="wl",
                    outcome=f"{data.outcome}.{code}",
                    winner=data.winner,
                    dispute=data.dispute,
                    vs=data.vs,
                ).pack(),
            )
        ]
        for code, label in question.answers.items()
    ]
    back = screens.verdict_button(desk.campaign, battle, "show", dispute=bool(data.dispute))
    rows.append([InlineKeyboardButton(text=_("« Back"), callback_data=back)])
    return screens.Keyboard(inline_keyboard=rows)


async def _show_battles(
    store: Store, clock: Clock, bot: Bot, seat: Seat, chat_id: int, message_id: int | None
) -> None:
    view = await battles_view(store, seat, clock.now())
    if view is not None:
        await show_screen(bot, store, clock, seat, KIND, chat_id, *view, message_id)


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.callback_query.register(press, VerdictButton.filter())
    return router
