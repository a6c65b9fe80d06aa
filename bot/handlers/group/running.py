"""The GM's "change a running campaign" (issue 23): the weekly schedule, the current deadline
and the language of the posts, from the GM panel in the GM's private chat.

A schedule or a deadline is chosen with buttons or typed (``Tue 00:00; Thu 23:59; Fri 12:00;
Mon 12:00``, ``5.12 18:00``, ``завтра 21:00``), then shown with every date it moves, old and
new, and changed only on «Yes». The «Yes» button carries the change and the fingerprint of the
clock it was worked out on, so it needs nothing kept in memory and is refused once the campaign
moved on. Every press and typed answer re-checks that the sender is a GM of that campaign now;
``bot.services.running_changes`` audits the change and queues the group's announcement, the
board and the calendars.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.common import LANGUAGE_NAMES
from bot.handlers.filters import TYPED
from bot.handlers.group.guards import gm_member, not_gm_text, pressed_campaign, whole_number
from bot.handlers.private.gm_prompts import GmPromptWaiting
from bot.posts.changes import week_text
from bot.posts.turns import change_lines, no_deadline_reason, window_lines
from bot.runtime.clock import Clock
from bot.screens.callbacks import ChangePress, gm_menu_data
from bot.services import running_changes
from bot.services.deadlines import local_moment
from bot.services.running_changes import ChangeRefusal, Preview, pack_week, unpack_week
from bot.services.window import current_deadline, undone_back
from bot.texts.core import language_name
from bot.texts.dates import FIRST_YEAR, LAST_YEAR, parse_moment, parse_week
from bot.texts.moments import format_moment, zone_label
from storage import Campaign, CampaignStatus, Person, Prompt, Schedule, Store
from storage.models import Language

GM_SCHEDULE = "gm_schedule"
"""The prompt's ``field`` while the GM types a weekly schedule."""
GM_DEADLINE = "gm_deadline"
"""The prompt's ``field`` while the GM types a deadline."""
STANDARD = Schedule()
"""The rules' week: orders Tue 00:00 to Thu 23:59, battle list Fri 12:00, resolution Mon 12:00."""


def _shown() -> str:
    """The language of the screen being written (the GM's own in a private chat): its dates,
    weekdays and zone read in that language, not the campaign's."""
    return get_i18n().current_locale


def _press(campaign: Campaign, action: str, value: str = "", mark: str = "") -> str:
    return ChangePress(c=campaign.id, a=action, v=value, k=mark).pack()


def _button(
    text: str, campaign: Campaign, action: str, value: str = "", mark: str = ""
) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=_press(campaign, action, value, mark))


def _back(campaign: Campaign) -> list[InlineKeyboardButton]:
    return [_button(_("◀ Back"), campaign, "menu")]


def _minutes(moment: datetime) -> str:
    return str(int(moment.timestamp()) // 60)


def _moment(value: str) -> datetime | None:
    """The moment a button carries (minutes since the epoch), within the years a typed day
    may name; ``None`` otherwise (a forged button)."""
    minutes = whole_number(value, 10)
    if minutes is None:
        return None
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(minutes=minutes)
    return moment if FIRST_YEAR <= moment.year <= LAST_YEAR else None


def refusal_text(preview: Preview) -> str:
    """Why the change was not made (or shown), and what to do instead."""
    campaign = preview.campaign
    match preview.refusal:
        case ChangeRefusal.NOT_RUNNING:
            return _("Nothing changed: the campaign is not running.")
        case ChangeRefusal.PAUSED:
            return _("The campaign is paused: resume it first (/resume), then change its dates.")
        case ChangeRefusal.NO_DEADLINE:
            return _(
                "This phase has no deadline to move: in manual mode, or while the resolution "
                "waits, the GM advances it (/gm, «Advance now»)."
            )
        case ChangeRefusal.TOO_SOON:
            return _(
                "That moment is too soon: a new deadline must be at least 10 minutes ahead, so "
                "the players hear of it. To end the phase now, use «Advance now»."
            )
        case ChangeRefusal.TOO_FAR:
            return _(
                "That is too far ahead: a deadline may be set at most {n} days ahead. Pause the "
                "campaign for a longer break."
            ).format(n=running_changes.MAX_DAYS_AHEAD)
        case ChangeRefusal.BEFORE_OPENING if campaign is not None and preview.deadline:
            opening = format_moment(preview.deadline, campaign.time_zone, _shown())
            return _(
                "The orders open only {opening}: a deadline before that leaves no time to give "
                "them. Choose a later moment."
            ).format(opening=opening)
        case ChangeRefusal.OUT_OF_ORDER:
            return _(
                "These times are out of order: through the week the orders open, then close, "
                "then the battle list is posted, then the resolution comes. Type them again in "
                "that order, or /cancel."
            )
        case ChangeRefusal.UNCHANGED:
            return _("The campaign has that already; nothing changed.")
        case ChangeRefusal.STALE:
            return _(
                "Out of date: the campaign or its deadline moved since these dates were shown. "
                "Nothing was done; ask again to see the new dates."
            )
        case _:
            return _("That button is not valid any more.")


def preview_text(head: str, preview: Preview) -> str:
    """``head`` and every date the change moves, in the campaign's zone."""
    campaign = preview.campaign
    if campaign is None:
        return head
    zone, language = campaign.time_zone, _shown()
    lines = [head]
    if preview.changes:
        lines.append(_("These dates move ({zone}):").format(zone=zone_label(zone, language)))
        lines += change_lines(preview.changes, zone, language)
        lines += window_lines(preview.windows)
    else:
        lines.append(_("No date of the current turn moves."))
    if preview.passed:
        lines.append(
            _("The current deadline would already be past: the step runs as soon as you confirm.")
        )
    lines.append(_("The group is told, the pinned board and the calendars follow."))
    return "\n".join(lines)


async def menu_screen(
    store: Store, campaign: Campaign
) -> tuple[str, list[list[InlineKeyboardButton]]]:
    """The tools' first screen: the schedule, the deadline and the language as they are."""
    deadline = await current_deadline(store, campaign)
    shown = (
        format_moment(deadline, campaign.time_zone, _shown())
        if deadline is not None
        else _("none ({reason})").format(
            reason=no_deadline_reason(campaign, campaign.phase, await undone_back(store, campaign))
        )
    )
    text = _(
        "«{title}»: change the running campaign.\n"
        "Schedule: {week}.\n"
        "Current deadline: {deadline}.\n"
        "Language of the posts: {language}."
    ).format(
        title=campaign.title,
        week=week_text(campaign.schedule, _shown()),
        deadline=shown,
        language=language_name(campaign.language),
    )
    rows = [
        [_button(_("📅 Change the weekly schedule"), campaign, "week")],
        [_button(_("⏰ Set the current deadline"), campaign, "dl")],
        [
            _button(("• " if campaign.language == code else "") + name, campaign, "lang", code)
            for code, name in LANGUAGE_NAMES.items()
        ],
        [InlineKeyboardButton(text=_("◀ GM tools"), callback_data=gm_menu_data(campaign))],
    ]
    return text, rows


def _week_screen(campaign: Campaign) -> tuple[str, list[list[InlineKeyboardButton]]]:
    text = _(
        "The weekly schedule now: {week}.\n"
        "Choose the rules' week, manual mode, or type your own: four times in the order orders "
        "open; orders close; battle list; resolution, e.g. «Tue 00:00; Thu 23:59; Fri 12:00; "
        "Mon 12:00» (or «вт 00:00; чт 23:59; пт 12:00; пн 12:00»)."
    ).format(week=week_text(campaign.schedule, _shown()))
    base = campaign.schedule
    rows = [
        [
            _button(
                _("📅 The rules' week (Tue–Thu, Fri, Mon)"),
                campaign,
                "sch",
                pack_week(running_changes.with_week(base, running_changes.week_of(STANDARD))),
            )
        ],
        [_button(_("Manual: I advance each phase"), campaign, "sch", "m")],
        [_button(_("⌨️ Type the four times"), campaign, "askw")],
        _back(campaign),
    ]
    return text, rows


def _deadline_choices(campaign: Campaign, now: datetime) -> list[datetime]:
    zone = ZoneInfo(campaign.time_zone)
    today = now.astimezone(zone)
    return [
        local_moment(today, datetime.min.time().replace(hour=23, minute=59), zone),
        local_moment(
            today + timedelta(days=1), datetime.min.time().replace(hour=23, minute=59), zone
        ),
        local_moment(
            today + timedelta(days=2), datetime.min.time().replace(hour=23, minute=59), zone
        ),
    ]


async def _deadline_screen(
    store: Store, campaign: Campaign, now: datetime
) -> tuple[str, list[list[InlineKeyboardButton]]]:
    deadline = await current_deadline(store, campaign)
    shown = (
        format_moment(deadline, campaign.time_zone, _shown())
        if deadline is not None
        else _("none ({reason})").format(
            reason=no_deadline_reason(campaign, campaign.phase, await undone_back(store, campaign))
        )
    )
    text = _(
        "The current deadline: {deadline}.\n"
        "Choose a new one (earlier or later), or type a day and a time, e.g. «5.12 18:00», "
        "«tomorrow 21:00» or «завтра 21:00» ({zone})."
    ).format(deadline=shown, zone=zone_label(campaign.time_zone, _shown()))
    rows = [
        [
            _button(
                format_moment(moment, campaign.time_zone, _shown()),
                campaign,
                "dlset",
                _minutes(moment),
            )
        ]
        for moment in _deadline_choices(campaign, now)
        if moment > now + running_changes.LEAST_AHEAD and moment != deadline
    ]
    rows.append([_button(_("⌨️ Type a day and time"), campaign, "askd")])
    rows.append(_back(campaign))
    return text, rows


def _confirm_rows(
    campaign: Campaign, action: str, value: str, mark: str
) -> list[list[InlineKeyboardButton]]:
    return [
        [
            _button(_("✅ Yes, change"), campaign, action, value, mark),
            _button(_("✖ No"), campaign, "menu"),
        ]
    ]


async def _schedule_preview(
    store: Store, campaign: Campaign, schedule: Schedule, now: datetime
) -> tuple[str, list[list[InlineKeyboardButton]] | None]:
    preview = await running_changes.preview_schedule(store, campaign.id, schedule, now)
    if preview.refusal is not None:
        return refusal_text(preview), None
    head = _("Change the schedule to: {week}?").format(week=week_text(schedule, _shown()))
    return preview_text(head, preview), _confirm_rows(
        campaign, "sch!", pack_week(schedule), preview.mark
    )


async def _deadline_preview(
    store: Store, campaign: Campaign, moment: datetime, now: datetime
) -> tuple[str, list[list[InlineKeyboardButton]] | None]:
    preview = await running_changes.preview_deadline(store, campaign.id, moment, now)
    if preview.refusal is not None:
        return refusal_text(preview), None
    head = _("Set the deadline of turn {turn} to {moment}?").format(
        turn=campaign.turn, moment=format_moment(moment, campaign.time_zone, _shown())
    )
    return preview_text(head, preview), _confirm_rows(
        campaign, "dl!", _minutes(moment), preview.mark
    )


async def pressed(
    query: CallbackQuery, callback_data: ChangePress, store: Store, clock: Clock, person: Person
) -> None:
    """Any button of these tools: the presser must be a GM of the campaign it names, now."""
    data = callback_data
    campaign = await pressed_campaign(store, query, data.c, None, None)
    if campaign is None:
        return
    if await gm_member(store, campaign, person.user_id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    if not isinstance(query.message, Message) or campaign.status is CampaignStatus.SETUP:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    message, now = query.message, clock.now()
    rows: list[list[InlineKeyboardButton]] | None
    match data.a:
        case "menu":
            text, rows = await menu_screen(store, campaign)
        case "week":
            text, rows = _week_screen(campaign)
        case "dl":
            text, rows = await _deadline_screen(store, campaign, now)
        case "sch" | "sch!" if (schedule := unpack_week(data.v, campaign.schedule)) is not None:
            if data.a == "sch":
                text, rows = await _schedule_preview(store, campaign, schedule, now)
                if rows is None:
                    await query.answer(text, show_alert=True)
                    return
            else:
                done = await running_changes.change_schedule(
                    store, campaign.id, schedule, data.k, person.user_id, person.display_name, now
                )
                await _finish(query, store, done, _("Schedule changed. The group is told."))
                return
        case "dlset" | "dl!" if (moment := _moment(data.v)) is not None:
            if data.a == "dlset":
                text, rows = await _deadline_preview(store, campaign, moment, now)
                if rows is None:
                    await query.answer(text, show_alert=True)
                    return
            else:
                done = await running_changes.set_deadline(
                    store, campaign.id, moment, data.k, person.user_id, person.display_name, now
                )
                await _finish(query, store, done, _("Deadline set. The group is told."))
                return
        case "lang" if data.v in LANGUAGE_NAMES:
            language: Language = "ru" if data.v == "ru" else "en"
            changed = await running_changes.change_language(
                store, campaign, language, person.user_id, person.display_name, now
            )
            if changed is None:
                await query.answer(_("The campaign has that already; nothing changed."))
                return
            await query.answer(_("Language changed. The group is told."))
            text, rows = await menu_screen(store, changed)
            await message.edit_text(text, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))
            return
        case "askw" | "askd":
            await _ask_typed(query, message, store, campaign, person, data.a, now)
            return
        case _:
            await query.answer(_("That button is not valid any more."), show_alert=True)
            return
    await query.answer()
    await message.edit_text(text, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))


async def _ask_typed(
    query: CallbackQuery,
    message: Message,
    store: Store,
    campaign: Campaign,
    person: Person,
    action: str,
    now: datetime,
) -> None:
    """Wait for the GM's typed week or deadline in this chat (a stored prompt)."""
    field = GM_SCHEDULE if action == "askw" else GM_DEADLINE
    await store.set_prompt(message.chat.id, person.user_id, campaign.id, field, {}, None, now)
    await query.answer()
    if action == "askw":
        ask = _(
            "Type the four times of the week in this order: orders open; orders close; "
            "battle list; resolution, e.g. «Tue 00:00; Thu 23:59; Fri 12:00; Mon 12:00». "
            "/cancel stops."
        )
    else:
        ask = _(
            "Type the new deadline: a day and a time ({zone}), e.g. «5.12 18:00», "
            "«tomorrow 21:00» or «завтра 21:00». /cancel stops."
        ).format(zone=zone_label(campaign.time_zone, _shown()))
    await message.answer(ask)


async def _finish(query: CallbackQuery, store: Store, done: Preview, text: str) -> None:
    """The GM's answer after «Yes»: done (the panel's tools again), or why not."""
    if done.refusal is not None or done.campaign is None:
        await query.answer(refusal_text(done), show_alert=True)
        return
    await query.answer(text, show_alert=True)
    if isinstance(query.message, Message):
        screen, rows = await menu_screen(store, done.campaign)
        await query.message.edit_text(
            screen, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows)
        )


async def _typed_campaign(
    message: Message, store: Store, person: Person, prompt: Prompt
) -> Campaign | None:
    campaign = await store.campaign(prompt.campaign_id or 0)
    gm = None if campaign is None else await gm_member(store, campaign, person.user_id)
    if campaign is None or campaign.status is CampaignStatus.FINISHED or gm is None:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("That campaign is over or no longer yours; nothing was changed."))
        return None
    return campaign


async def typed_schedule(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """The GM's typed week: parsed, then shown with the dates it moves and «Yes»/«No»."""
    campaign = await _typed_campaign(message, store, person, prompt)
    if campaign is None:
        return
    week = parse_week(message.text or "")
    if week is None:
        await message.answer(
            _(
                "I could not read four times. Type them as a weekday and a time each, separated "
                "by «;», in this order: orders open; orders close; battle list; resolution, e.g. "
                "«Tue 00:00; Thu 23:59; Fri 12:00; Mon 12:00». Or /cancel."
            )
        )
        return
    schedule = running_changes.with_week(campaign.schedule, week)
    text, rows = await _schedule_preview(store, campaign, schedule, clock.now())
    if rows is None:
        await message.answer(text)
        return
    await store.clear_prompt(message.chat.id, person.user_id)
    await message.answer(text, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))


async def typed_deadline(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """The GM's typed deadline: parsed in the campaign's zone, then shown with «Yes»/«No»."""
    campaign = await _typed_campaign(message, store, person, prompt)
    if campaign is None:
        return
    now = clock.now()
    moment = parse_moment(message.text or "", now, ZoneInfo(campaign.time_zone))
    if moment is None:
        await message.answer(
            _(
                "I could not read a day and a time. Type e.g. «5.12 18:00», «tomorrow 21:00» or "
                "«завтра 21:00», or /cancel."
            )
        )
        return
    text, rows = await _deadline_preview(store, campaign, moment, now)
    if rows is None:
        await message.answer(text)
        return
    await store.clear_prompt(message.chat.id, person.user_id)
    await message.answer(text, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))


async def cancel(message: Message, store: Store, person: Person) -> None:
    """``/cancel`` while a typed schedule or deadline is awaited."""
    await store.clear_prompt(message.chat.id, person.user_id)
    await message.answer(_("Stopped; nothing was changed. /gm opens the GM tools again."))


def build() -> Router:
    """The tools' router, in the private chats (before the other private screens, so a typed
    answer the GM was asked for is taken here)."""
    router = Router(name=__name__)
    for field in (GM_SCHEDULE, GM_DEADLINE):
        router.message.register(cancel, Command("cancel"), GmPromptWaiting(field))
    typed = (TYPED,)
    router.message.register(typed_schedule, *typed, GmPromptWaiting(GM_SCHEDULE))
    router.message.register(typed_deadline, *typed, GmPromptWaiting(GM_DEADLINE))
    router.callback_query.register(pressed, ChangePress.filter())
    return router
