"""``/vacation``: a player's own absence from their current campaign, in the private chat.

The screen shows the player's vacations not over yet (each with a «Cancel» button) and lets
them set a new one: the first day by a button (today, tomorrow, in 3 or 7 days) or typed, then
the last day the same way (``5.12``, ``5 декабря``, ``Dec 5``, ``+10``, ``завтра``). Days are
the campaign's calendar (its time zone). A button acts on the presser's own vacations only (it
names no person), in the campaign it names, once they are still in it; a typed day is awaited
through a stored prompt, so a restart in between keeps it. ``bot.services.vacations`` stores
it and tells the teammates and the GMs.
"""

from __future__ import annotations

from datetime import date, timedelta

from aiogram import Router
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.handlers.filters import TYPED
from bot.handlers.private import screens
from bot.handlers.private.base import pressed_seat, seat_or_answer
from bot.handlers.private.gm_prompts import GmPromptWaiting
from bot.runtime.clock import Clock
from bot.screens.callbacks import ButtonInt
from bot.services import vacations
from bot.services.orders import Seat, seat_in
from bot.services.vacations import VacationRefusal, VacationResult
from bot.texts.core import day_label
from bot.texts.dates import parse_day
from storage import Person, Prompt, Store

VACATION = "vacation"
"""The prompt's ``field`` while a typed day is awaited: ``data["first"]`` is the first day
(ISO) once chosen."""
FIRST_DAYS = (0, 1, 3, 7)
"""The first-day buttons: days from today."""
LENGTHS = (1, 3, 7, 14)
"""The length buttons, in days."""


class VacationPress(CallbackData, prefix="vac"):
    """A vacation button: campaign, action, the first day (ordinal) and a value (the last day's
    ordinal, or a vacation's id)."""

    c: ButtonInt
    a: str
    f: ButtonInt = 0
    d: ButtonInt = 0


class VacationWaiting(GmPromptWaiting):
    """Passes while the bot waits for this person's typed vacation day in this chat; the wait
    lapses as a GM's question does."""

    def __init__(self) -> None:
        super().__init__(VACATION)


def _press(seat: Seat, action: str, first: int = 0, value: int = 0) -> str:
    return VacationPress(c=seat.campaign.id, a=action, f=first, d=value).pack()


def _day(ordinal: int) -> date | None:
    if not 1 <= ordinal <= date.max.toordinal():
        return None
    return date.fromordinal(ordinal)


async def overview(store: Store, seat: Seat, clock: Clock) -> tuple[str, InlineKeyboardMarkup]:
    """The player's vacations and the buttons to set a new one or cancel one."""
    language = screens.language()
    own = await vacations.own_vacations(store, seat.campaign, seat.member.user_id, clock.now())
    lines = [_("«{title}»: your absences.").format(title=seat.campaign.title)]
    rows: list[list[InlineKeyboardButton]] = []
    if not own:
        lines.append(
            _(
                "None set. While you are away, reminders skip you, and your teammates and the GM "
                "are told."
            )
        )
    for vacation in own:
        span = _("{first} to {last}").format(
            first=day_label(vacation.first_day, language),
            last=day_label(vacation.last_day, language),
        )
        lines.append(f"• {span}")
        rows.append(
            [
                InlineKeyboardButton(
                    text=_("✖ Cancel {span}").format(span=span),
                    callback_data=_press(seat, "del", 0, vacation.id),
                )
            ]
        )
    rows.append(
        [InlineKeyboardButton(text=_("🏖 Set an absence"), callback_data=_press(seat, "new"))]
    )
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)


def first_screen(seat: Seat, today: date) -> tuple[str, InlineKeyboardMarkup]:
    """Choose the first day away."""
    language = screens.language()
    names = {0: _("Today"), 1: _("Tomorrow")}
    buttons = [
        InlineKeyboardButton(
            text=names.get(days, day_label(today + timedelta(days=days), language)),
            callback_data=_press(seat, "from", (today + timedelta(days=days)).toordinal()),
        )
        for days in FIRST_DAYS
    ]
    rows = [
        buttons[:2],
        buttons[2:],
        [InlineKeyboardButton(text=_("⌨️ Type a date"), callback_data=_press(seat, "ask"))],
    ]
    text = _("From which day are you away? Or type it, e.g. «5.12», «5 декабря» or «Dec 5».")
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


def last_screen(seat: Seat, first: date) -> tuple[str, InlineKeyboardMarkup]:
    """Choose the last day away."""
    language = screens.language()
    buttons = [
        InlineKeyboardButton(
            text=_("{n} day", "{n} days", days).format(n=days),
            callback_data=_press(
                seat, "set", first.toordinal(), (first + timedelta(days=days - 1)).toordinal()
            ),
        )
        for days in LENGTHS
    ]
    rows = [
        buttons[:2],
        buttons[2:],
        [
            InlineKeyboardButton(
                text=_("⌨️ Type a date"), callback_data=_press(seat, "ask", first.toordinal())
            )
        ],
    ]
    text = _(
        "Away from {first}. Until which day (included)? Or type it, e.g. «12.12» or «+10» "
        "(days from today)."
    ).format(first=day_label(first, language))
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


def refusal_text(result: VacationResult) -> str:
    """Why the absence was not set, and what to do instead."""
    language = screens.language()
    match result.refusal:
        case VacationRefusal.OVER:
            return _("The campaign is over: nothing to be away from.")
        case VacationRefusal.PAST:
            return _("That day has passed: an absence begins today or later.")
        case VacationRefusal.TOO_FAR:
            return _("That is more than a year ahead: set it closer to the time.")
        case VacationRefusal.BACKWARDS:
            return _("The last day comes before the first: choose a later one.")
        case VacationRefusal.TOO_LONG:
            return _(
                "An absence lasts at most {n} days. For longer, ask the GM to find your side "
                "another player."
            ).format(n=vacations.MAX_DAYS)
        case VacationRefusal.OVERLAPS if result.overlapping is not None:
            return _(
                "You are away {first} to {last} already: cancel that one first (/vacation)."
            ).format(
                first=day_label(result.overlapping.first_day, language),
                last=day_label(result.overlapping.last_day, language),
            )
        case _:
            return _("That cannot be set.")


def set_text(seat: Seat, result: VacationResult) -> str:
    """What the player hears once it is stored."""
    vacation = result.vacation
    if vacation is None:
        return refusal_text(result)
    language = screens.language()
    return _(
        "Set: you are away from {first} to {last}. Reminders skip you; your teammates and the "
        "GM are told. /vacation shows or cancels it."
    ).format(
        first=day_label(vacation.first_day, language), last=day_label(vacation.last_day, language)
    )


async def _player_seat(message: Message, store: Store, person: Person) -> Seat | None:
    seat = await seat_or_answer(message, store, person)
    if seat is not None and seat.side is None:
        await message.answer(_("Only a side's players set absences; the GM runs the campaign."))
        return None
    return seat


async def vacation_command(message: Message, store: Store, clock: Clock, person: Person) -> None:
    """``/vacation``: the player's absences in their current campaign."""
    seat = await _player_seat(message, store, person)
    if seat is None:
        return
    text, keyboard = await overview(store, seat, clock)
    await message.answer(text, reply_markup=keyboard)


async def pressed(
    query: CallbackQuery, callback_data: VacationPress, store: Store, clock: Clock, person: Person
) -> None:
    """A vacation button: it acts on the presser's own absences in the campaign it names."""
    data = callback_data
    seat = await pressed_seat(query, store, clock, data.c)
    if seat is None:
        return
    if seat.side is None:
        await query.answer(
            _("Only a side's players set absences; the GM runs the campaign."), show_alert=True
        )
        return
    if not isinstance(query.message, Message):
        await query.answer()
        return
    now = clock.now()
    today = vacations.today_in(seat.campaign, now)
    first, last = _day(data.f), _day(data.d)
    note: str | None = None
    match data.a:
        case "new":
            text, keyboard = first_screen(seat, today)
        case "from" if first is not None:
            if first < today:
                await query.answer(
                    refusal_text(VacationResult(refusal=VacationRefusal.PAST)), show_alert=True
                )
                return
            text, keyboard = last_screen(seat, first)
        case "set" if first is not None and last is not None:
            result = await vacations.set_vacation(
                store, seat.campaign, seat.member, first, last, now
            )
            if result.vacation is None:
                await query.answer(refusal_text(result), show_alert=True)
                return
            await query.answer()
            await query.message.edit_text(set_text(seat, result))
            return
        case "ask":
            payload: dict[str, JsonValue] = {} if first is None else {"first": first.isoformat()}
            await store.set_prompt(
                query.message.chat.id,
                person.user_id,
                seat.campaign.id,
                VACATION,
                payload,
                None,
                now,
            )
            await query.answer()
            await query.message.answer(
                _("Type the day, e.g. «5.12», «5 декабря», «Dec 5» or «+3». /cancel stops.")
            )
            return
        case "del":
            cancelled = await vacations.cancel_vacation(
                store, seat.campaign, seat.member, data.d, now
            )
            if cancelled is None:
                await query.answer(
                    _("That absence is not yours, or was cancelled already."), show_alert=True
                )
                return
            note = _("Cancelled. Your teammates and the GM are told.")
            text, keyboard = await overview(store, seat, clock)
        case _:
            await query.answer(_("That button is not valid any more."), show_alert=True)
            return
    await query.answer(note)
    await query.message.edit_text(text, reply_markup=keyboard)


async def typed_day(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """A typed first or last day of an absence."""
    seat = await seat_in(store, person.user_id, prompt.campaign_id or 0)
    if seat is None or seat.side is None:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("You are not in that campaign any more; nothing was set."))
        return
    now = clock.now()
    today = vacations.today_in(seat.campaign, now)
    day = parse_day(message.text or "", today)
    if day is None:
        await message.answer(
            _("I could not read a day. Type e.g. «5.12», «5 декабря», «Dec 5» or «+3», or /cancel.")
        )
        return
    chosen = prompt.data.get("first")
    if not isinstance(chosen, str):
        if day < today:
            await message.answer(refusal_text(VacationResult(refusal=VacationRefusal.PAST)))
            return
        await store.clear_prompt(message.chat.id, person.user_id)
        text, keyboard = last_screen(seat, day)
        await message.answer(text, reply_markup=keyboard)
        return
    first = date.fromisoformat(chosen)
    if first < today:
        # The first day chosen passed while the player was typing the last: choose it again.
        await store.clear_prompt(message.chat.id, person.user_id)
        text, keyboard = first_screen(seat, today)
        await message.answer(
            _("The first day you chose has passed. Choose it again.") + "\n\n" + text,
            reply_markup=keyboard,
        )
        return
    result = await vacations.set_vacation(store, seat.campaign, seat.member, first, day, now)
    if result.vacation is None:
        await message.answer(refusal_text(result) + " " + _("Type another day, or /cancel."))
        return
    await store.clear_prompt(message.chat.id, person.user_id)
    await message.answer(set_text(seat, result))


async def cancel(message: Message, store: Store, person: Person) -> None:
    """``/cancel`` while a typed day is awaited."""
    await store.clear_prompt(message.chat.id, person.user_id)
    await message.answer(_("Stopped; nothing was set. /vacation starts again."))


def build() -> Router:
    """This screen's router (before the private screens that read plain text as orders)."""
    router = Router(name=__name__)
    router.message.register(cancel, Command("cancel"), VacationWaiting())
    router.message.register(vacation_command, Command("vacation"))
    router.message.register(typed_day, TYPED, VacationWaiting())
    router.callback_query.register(pressed, VacationPress.filter())
    return router
