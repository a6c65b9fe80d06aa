"""Battles and results in private: ``/battles`` lists the person's battles of the turn (the
same facts as the Friday notice); a participant reports an outcome with buttons, the other
side confirms it or disputes it with its own account (RULES.md 3.4: a report nobody disputes
by the deadline stands); a GM's decision (``verdicts``, or the group's GM tools) is final."""

from __future__ import annotations

import re
from datetime import datetime

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardButton, Message
from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.handlers.group.dice import log_roll
from bot.handlers.private import screens
from bot.handlers.private.base import pressed_seat, seat_or_answer, show_screen
from bot.handlers.private.callbacks import BATTLES_PHASE, BattleRollButton, ResultButton
from bot.modules import BOT_MODULES
from bot.modules.protocol import BotModule, ReportQuestion
from bot.posts.turns import results_deadline
from bot.runtime.clock import Clock
from bot.services.battle_rolls import roll_for_battle
from bot.services.campaigns import battle_list_public_at
from bot.services.orders import (
    BattleDesk,
    Refusal,
    ResultWrite,
    Seat,
    answer_result,
    battles_public_at,
    defender_mark,
    open_battles,
    report_result,
    side_names,
)
from bot.services.turns import game_for
from bot.texts.core import describe_battle, outcome_label, outcome_name
from bot.texts.dice import dice_problem, roll_reply, split_battle
from bot.texts.moments import format_moment
from rules import Battle, BattleResult, Outcome
from rules.table import (
    DiceExpression,
    DiceExpressionError,
    ScoreMargins,
    outcome_for_scores,
    parse_dice,
)
from storage import BattleReport, Campaign, Person, Store

KIND = "battles"


async def battles_view(
    store: Store, seat: Seat, now: datetime
) -> tuple[str, screens.Keyboard] | None:
    """The person's battles now, or ``None`` before the battle list is out (or public)."""
    desk = await open_battles(store, seat, now)
    if desk is None:
        return None
    names = await side_names(store, seat.campaign.id)
    deadline = await results_deadline(store, desk.campaign, screens.language())
    public = await battle_list_public_at(store, desk.campaign, now) is None
    return screens.battles_screen(
        desk, game_for(desk.campaign).map, names, seat.side, seat.is_gm, deadline, dice=public
    )


async def show_battles(message: Message, store: Store, clock: Clock, person: Person) -> None:
    """``/battles``: this turn's battles of the person's side, with result buttons."""
    seat = await seat_or_answer(message, store, person)
    if seat is None:
        return
    now = clock.now()
    view = await battles_view(store, seat, now)
    if view is None:
        campaign = await store.campaign(seat.campaign.id) or seat.campaign
        public_at = await battles_public_at(store, seat, now)
        if public_at is not None:
            moment = format_moment(public_at, campaign.time_zone, screens.language())
            await message.answer(
                _(
                    "The orders are in. The battle list comes out on {moment}; then your "
                    "battles are here, to report their results."
                ).format(moment=moment)
            )
            return
        await message.answer(_("No battle list yet.") + " " + screens.phase_words(campaign))
        return
    if message.bot is not None:
        await show_screen(message.bot, store, clock, seat, KIND, message.chat.id, *view, None)


_SCORES = re.compile(
    r"(?:(?:battle|бой|№)\s*)?(\d{1,3})(?:\s*[:.)])?\s+(\d{1,6})(?:\s*(?:[:\-–—x×/]|vs|на))?\s*(\d{1,6})",
    re.IGNORECASE,
)
SCORES_LONGEST = 40
"""The longest text read as scores («бой 12: 1450 — 1210» is 19): a longer one is not scores and
is not matched at all, so no typed text can keep the matcher busy."""


def margins_words(margins: ScoreMargins) -> str:
    """The campaign's score-margin table in one line."""
    return _(
        "Score margins here: under {solid} a draw, from {solid} a solid victory, from "
        "{crushing} a crushing victory, from {slaughter} a slaughter."
    ).format(solid=margins.solid, crushing=margins.crushing, slaughter=margins.slaughter)


async def typed_scores(message: Message, store: Store, clock: Clock, seat: Seat) -> bool:
    """A battle's final scores typed as «1: 1450 1210» (attacker's first): the outcome the
    campaign's score-margin table suggests, with a button to report it. ``False`` if the text
    is not scores (the caller answers it)."""
    typed = (message.text or "").strip()
    found = _SCORES.fullmatch(typed) if len(typed) <= SCORES_LONGEST else None
    if found is None:
        return False
    desk = await open_battles(store, seat, clock.now())
    battle_id, first, second = (int(found.group(i)) for i in (1, 2, 3))
    battle = None if desk is None else next((b for b in desk.battles if b.id == battle_id), None)
    if desk is None or battle is None:
        await message.answer(screens.refusal_words(Refusal.NO_SUCH_BATTLE, seat.campaign))
        return True
    names = await side_names(store, seat.campaign.id)
    attacker, defender = battle.attacker, battle.defender
    margins = desk.campaign.score_margins
    outcome, winner = outcome_for_scores(margins, {attacker: first, defender: second})
    suggestion = (
        _("{side} won, {outcome}").format(
            side=names.get(winner, winner), outcome=outcome_name(outcome)
        )
        if winner is not None
        else outcome_name(outcome)
    )
    text = "\n".join(
        [
            _("Battle {id}: {attacker} {a}, {defender} {b}; margin {margin}.").format(
                id=battle.id,
                attacker=names.get(attacker, attacker),
                a=first,
                defender=names.get(defender, defender),
                b=second,
                margin=abs(first - second),
            ),
            margins_words(margins),
            _("Suggested result: {result}. Report it, or choose another.").format(
                result=suggestion
            ),
        ]
    )
    code = screens.CODE_OF_OUTCOME[outcome]
    report = ResultButton(
        campaign=desk.campaign.id,
        turn=desk.campaign.turn,
        battle=battle.id,
        action="win" if winner is not None else "out",
        outcome=code,
        winner=battle.participants().index(winner) if winner is not None else -1,
        vs=defender_mark(battle),
    )
    other = ResultButton(
        campaign=desk.campaign.id,
        turn=desk.campaign.turn,
        battle=battle.id,
        action="pick",
        vs=defender_mark(battle),
    )
    keyboard = screens.Keyboard(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=_("✅ Report: {result}").format(result=suggestion),
                    callback_data=report.pack(),
                )
            ],
            [InlineKeyboardButton(text=_("Choose another result"), callback_data=other.pack())],
        ]
    )
    await message.answer(text, reply_markup=keyboard)
    return True


def _outcome_keyboard(data: ResultButton) -> screens.Keyboard:
    buttons = [
        InlineKeyboardButton(
            text=outcome_label(outcome),
            callback_data=ResultButton(
                campaign=data.campaign,
                turn=data.turn,
                battle=data.battle,
                action="out",
                outcome=code,
                vs=data.vs,
            ).pack(),
        )
        for code, outcome in screens.OUTCOME_CODES.items()
    ]
    back = InlineKeyboardButton(
        text=_("« Back"),
        callback_data=ResultButton(campaign=data.campaign, turn=data.turn, action="list").pack(),
    )
    return screens.Keyboard(inline_keyboard=[[b] for b in buttons] + [[back]])


def _with_module_data(
    expected: BattleResult | None, report: BattleReport | None
) -> BattleResult | None:
    """The account a confirm button stands for: the reported (or counter) result with the
    same outcome and winner, with its module data (warlords slain), if there is one."""
    if expected is None or report is None:
        return expected
    for known in (report.reported, report.counter):
        if known is not None and (known.outcome, known.winner) == (
            expected.outcome,
            expected.winner,
        ):
            return known
    return expected


def report_question(
    campaign: Campaign,
    battle: Battle,
    outcome: Outcome,
    winner: str | None,
    names: dict[str, str],
) -> tuple[BotModule, ReportQuestion] | None:
    """The question asked before ``battle``'s result ``outcome``/``winner`` is reported (or
    decided): the first of the campaign's modules that asks one
    (``BotModule.report_question``), with that module; ``None``: none asks, or the result
    cannot be (a victory without a winner)."""
    try:
        BattleResult(battle=battle.id, outcome=outcome, winner=winner)
    except ValueError:
        return None
    game = game_for(campaign)
    for module in BOT_MODULES.values():
        if game.module(module.name) is None:
            continue
        question = module.report_question(campaign, battle, outcome, winner, names)
        if question is not None:
            return module, question
    return None


def answered(
    asked: tuple[BotModule, ReportQuestion] | None, battle: Battle, answer: str
) -> tuple[bool, dict[str, JsonValue] | None]:
    """Whether a ``wl`` button's ``answer`` stands, and the modules' data to store with the
    result (by module name; ``None``: nothing): an answer to the question ``asked``. With no
    question asked (a forged button, or one of a module the campaign does not play), the data
    the first module makes of the answer, which the rules then refuse in their own words."""
    if asked is not None:
        module, question = asked
        if answer not in question.answers:
            return False, None
        data = module.report_data(battle, answer)
        return True, None if data is None else {module.name: data}
    for module in BOT_MODULES.values():
        data = module.report_data(battle, answer)
        if data is not None:
            return True, {module.name: data}
    return False, None


def _question_keyboard(data: ResultButton, question: ReportQuestion) -> screens.Keyboard:
    """The answers to a module's question (``wl``, the answer after the outcome's code)."""
    rows = [
        [
            InlineKeyboardButton(
                text=label,
                callback_data=ResultButton(
                    campaign=data.campaign,
                    turn=data.turn,
                    battle=data.battle,
                    action="wl",
                    outcome=f"{data.outcome}.{code}",
                    winner=data.winner,
                    vs=data.vs,
                ).pack(),
            )
        ]
        for code, label in question.answers.items()
    ]
    rows.append(
        [
            InlineKeyboardButton(
                text=_("« Back"),
                callback_data=ResultButton(
                    campaign=data.campaign,
                    turn=data.turn,
                    battle=data.battle,
                    action="pick",
                    vs=data.vs,
                ).pack(),
            )
        ]
    )
    return screens.Keyboard(inline_keyboard=rows)


def _winner_keyboard(data: ResultButton, battle: Battle, names: dict[str, str]) -> screens.Keyboard:
    rows = [
        [
            InlineKeyboardButton(
                text=_("{side} won").format(side=names.get(side, side)),
                callback_data=ResultButton(
                    campaign=data.campaign,
                    turn=data.turn,
                    battle=data.battle,
                    action="win",
                    outcome=data.outcome,
                    winner=index,
                    vs=data.vs,
                ).pack(),
            )
        ]
        for index, side in enumerate(battle.participants())
    ]
    rows.append(
        [
            InlineKeyboardButton(
                text=_("« Back"),
                callback_data=ResultButton(
                    campaign=data.campaign,
                    turn=data.turn,
                    battle=data.battle,
                    action="pick",
                    vs=data.vs,
                ).pack(),
            )
        ]
    )
    return screens.Keyboard(inline_keyboard=rows)


async def press(
    query: CallbackQuery, callback_data: ResultButton, store: Store, clock: Clock, bot: Bot
) -> None:
    """Report, confirm or dispute a result; re-checks who pressed and that the turn is on."""
    seat = await pressed_seat(query, store, clock, callback_data.campaign)
    if seat is None:
        return
    message_id = query.message.message_id if query.message is not None else None
    desk = await open_battles(store, seat, clock.now())
    if desk is None and await battles_public_at(store, seat, clock.now()) is not None:
        await _refuse(query, store, clock, bot, seat, Refusal.LIST_NOT_PUBLIC, message_id)
        return
    if (
        desk is None
        or desk.campaign.turn != callback_data.turn
        or callback_data.phase != BATTLES_PHASE
    ):
        await _refuse(query, store, clock, bot, seat, Refusal.STALE, message_id, callback_data.turn)
        return
    battle = next((b for b in desk.battles if b.id == callback_data.battle), None)
    names = await side_names(store, seat.campaign.id)
    action = callback_data.action
    code = callback_data.outcome.partition(".")[0] if action == "wl" else callback_data.outcome
    outcome = screens.OUTCOME_CODES.get(code)
    if action == "list" and (battle is not None or not callback_data.battle):
        # Back to the presser's own list (a back button names no battle).
        await query.answer()
        await _show_list(store, clock, bot, seat, query.from_user.id, message_id)
        return
    if battle is None:
        await _refuse(query, store, clock, bot, seat, Refusal.NOT_PARTICIPANT, message_id)
        return
    if callback_data.vs != defender_mark(battle):
        await _refuse(query, store, clock, bot, seat, Refusal.SIDES_CHANGED, message_id)
        return
    if action in ("pick", "dis"):
        await query.answer()
        question = (
            _("By your side's account, how did battle {id} end? The GM decides between the two.")
            if action == "dis"
            else _("How did battle {id} end?")
        )
        text = "\n".join(
            [
                *describe_battle(
                    battle,
                    game_for(desk.campaign).map,
                    names,
                    screens.language(),
                    desk.status.get(battle.id),
                ),
                "",
                question.format(id=battle.id),
                _(
                    "Ended on points? Type the scores here, the attacker's first: «{id}: 1450 "
                    "1210»."
                ).format(id=battle.id),
                margins_words(desk.campaign.score_margins),
            ]
        )
        await show_screen(
            bot,
            store,
            clock,
            seat,
            KIND,
            query.from_user.id,
            text,
            _outcome_keyboard(callback_data),
            message_id,
        )
        return
    if outcome is None:
        await _refuse(query, store, clock, bot, seat, Refusal.STALE, message_id, callback_data.turn)
        return
    if action == "out" and outcome.has_winner:
        await query.answer()
        text = _("Battle {id}, {outcome}: who won?").format(
            id=battle.id, outcome=outcome_name(outcome)
        )
        await show_screen(
            bot,
            store,
            clock,
            seat,
            KIND,
            query.from_user.id,
            text,
            _winner_keyboard(callback_data, battle, names),
            message_id,
        )
        return
    winner = battle.participants()[callback_data.winner] if callback_data.winner in (0, 1) else None
    asked = (
        report_question(desk.campaign, battle, outcome, winner, names)
        if action in ("out", "win", "wl")
        else None
    )
    if action in ("out", "win") and asked is not None:
        await query.answer()
        await show_screen(
            bot,
            store,
            clock,
            seat,
            KIND,
            query.from_user.id,
            asked[1].text,
            _question_keyboard(callback_data, asked[1]),
            message_id,
        )
        return
    written = await _write(store, seat, callback_data, desk, battle, outcome, asked, clock.now())
    if written is None:
        await _refuse(query, store, clock, bot, seat, Refusal.STALE, message_id, callback_data.turn)
        return
    if written.refusal is not None:
        await _refuse(query, store, clock, bot, seat, written.refusal, message_id)
        return
    await query.answer(_done_words(written.event))
    await _show_list(store, clock, bot, seat, query.from_user.id, message_id)


async def _write(
    store: Store,
    seat: Seat,
    data: ResultButton,
    desk: BattleDesk,
    battle: Battle,
    outcome: Outcome,
    asked: tuple[BotModule, ReportQuestion] | None,
    now: datetime,
) -> ResultWrite | None:
    """Report (with a module's answer, ``wl``, to the question ``asked``) or confirm a result;
    ``None`` for a button that does neither."""
    winner = battle.participants()[data.winner] if data.winner in (0, 1) else None
    stands, modules = answered(asked, battle, data.outcome.partition(".")[2])
    if data.action in ("out", "win") or (data.action == "wl" and stands):
        return await report_result(
            store,
            seat,
            data.turn,
            battle.id,
            outcome,
            winner,
            now,
            modules if data.action == "wl" else None,
        )
    if data.action == "yes":
        try:
            expected = BattleResult(battle=battle.id, outcome=outcome, winner=winner)
        except ValueError:
            expected = None
        expected = _with_module_data(expected, desk.reports.get(battle.id))
        return await answer_result(store, seat, data.turn, battle.id, expected, True, now)
    return None


def _done_words(event: str) -> str:
    match event:
        case "confirmed":
            return _("Confirmed: the result is agreed.")
        case "disputed":
            return _("Disputed: the GM has both accounts and decides.")
        case _:
            return _(
                "Reported. The other side may confirm or dispute it; if it does neither by "
                "the deadline, your report stands."
            )


async def _show_list(
    store: Store, clock: Clock, bot: Bot, seat: Seat, chat_id: int, message_id: int | None
) -> None:
    view = await battles_view(store, seat, clock.now())
    if view is None:
        campaign = await store.campaign(seat.campaign.id) or seat.campaign
        view = (screens.phase_words(campaign), screens.Keyboard(inline_keyboard=[]))
    await show_screen(bot, store, clock, seat, KIND, chat_id, *view, message_id)


async def _refuse(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    seat: Seat,
    refusal: Refusal,
    message_id: int | None,
    button_turn: int | None = None,
) -> None:
    campaign = await store.campaign(seat.campaign.id) or seat.campaign
    await query.answer(screens.refusal_words(refusal, campaign, button_turn), show_alert=True)
    await _show_list(store, clock, bot, seat, query.from_user.id, message_id)


async def roll_in_private(
    message: Message, command: CommandObject, store: Store, clock: Clock, person: Person
) -> None:
    """``/roll 2d6 3`` in private: dice for battle 3 of the person's campaign; the players of
    both its sides get the values too."""
    seat = await seat_or_answer(message, store, person)
    if seat is None:
        return
    dice, battle = split_battle(command.args or "")
    try:
        expression = parse_dice(dice)
    except DiceExpressionError as error:
        await message.answer(dice_problem(error))
        return
    if battle is None:
        await message.answer(
            _(
                "Here dice are rolled for one of your battles: write /roll 2d6 and its number, "
                "e.g. /roll 2d6 3 (see /battles). /roll 2d6 in the group rolls for the table."
            )
        )
        return
    await _roll(store, clock, seat, battle, expression, message)


async def _roll(
    store: Store,
    clock: Clock,
    seat: Seat,
    battle: int,
    expression: DiceExpression,
    message: Message,
) -> None:
    campaign = await store.campaign(seat.campaign.id) or seat.campaign
    done = await roll_for_battle(store, campaign, seat.member, battle, expression, clock.now())
    log_roll(campaign.id, done, battle, seat.member.user_id, str(expression))
    await message.answer(roll_reply(expression, done, battle))


async def roll_pressed(
    query: CallbackQuery, callback_data: BattleRollButton, store: Store, clock: Clock
) -> None:
    """A dice button on the battles screen (re-checked like ``/roll``: the presser plays one
    of the battle's sides, or is a GM, and the battle is on the current list)."""
    seat = await pressed_seat(query, store, clock, callback_data.campaign)
    if seat is None:
        return
    if not 1 <= callback_data.dice <= 2 or seat.campaign.turn != callback_data.turn:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    expression = DiceExpression(count=callback_data.dice, faces=6)
    done = await roll_for_battle(
        store, seat.campaign, seat.member, callback_data.battle, expression, clock.now()
    )
    if done.roll is None:
        await query.answer(roll_reply(expression, done, callback_data.battle), show_alert=True)
        return
    log_roll(seat.campaign.id, done, callback_data.battle, seat.member.user_id, str(expression))
    await query.answer()
    if isinstance(query.message, Message):
        await query.message.answer(roll_reply(expression, done, callback_data.battle))


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(show_battles, Command("battles"))
    router.message.register(roll_in_private, Command("roll"))
    router.callback_query.register(press, ResultButton.filter())
    router.callback_query.register(roll_pressed, BattleRollButton.filter())
    return router
