"""Posts of a running campaign's changes and of vacations (issue 23), worded when sent.

* ``schedule_changed``: to the group, the GM changed the weekly schedule (or made it manual):
  the new week and every date that moved, old and new.
* ``deadline_set``: to the group, the GM set the current deadline: old, new, and what moved.
* ``language_changed``: to the group, in the new language.
* ``vacation_set`` / ``vacation_cancelled``: to a player's teammates and the campaign's GMs,
  in private; checked at send time that the recipient is still on that side or a GM.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from aiogram.utils.i18n import gettext as _
from babel.dates import format_date

from bot.posts import Post, PostContext, Renderer
from bot.posts.turns import change_lines, deadline_of, window_lines
from bot.services.deadlines import Milestone, Planned, WindowChange
from bot.texts.core import day_label, language_name
from bot.texts.moments import format_moment, zone_label
from storage import Campaign, OutboxMessage, Phase, Schedule, Weekday, WeeklyTime

_A_MONDAY = date(2024, 1, 1)


def _language(context: PostContext) -> str:
    return context.i18n.current_locale


def weekday_label(weekday: Weekday, language: str) -> str:
    """ "Tue" / «вт»."""
    return str(format_date(_A_MONDAY + timedelta(days=int(weekday)), "EEE", locale=language))


def weekly_label(when: WeeklyTime, language: str) -> str:
    """ "Thu 23:59" / «чт 23:59»."""
    return f"{weekday_label(when.weekday, language)} {when.at.strftime('%H:%M')}"


def week_text(schedule: Schedule, language: str) -> str:
    """The weekly schedule in one line (or that it is manual)."""
    if schedule.mode == "manual":
        return _("manual: the GM moves every phase")
    return _(
        "orders open {opens}, close {closes}; battle list {listed}; resolution {resolved}"
    ).format(
        opens=weekly_label(schedule.orders_open, language),
        closes=weekly_label(schedule.orders_close, language),
        listed=weekly_label(schedule.battle_list, language),
        resolved=weekly_label(schedule.resolution, language),
    )


async def _campaign(context: PostContext, message: OutboxMessage) -> Campaign | None:
    campaign_id = message.payload.get("campaign_id")
    if not isinstance(campaign_id, int):
        return None
    return await context.store.campaign(campaign_id)


def _text(message: OutboxMessage, key: str) -> str | None:
    value = message.payload.get(key)
    return value if isinstance(value, str) else None


def moved_lines(message: OutboxMessage, campaign: Campaign, language: str) -> list[str]:
    """The payload's moved dates as lines (old → new), under a heading naming the zone."""
    changes: list[tuple[Planned, Planned]] = []
    raw = message.payload.get("changes")
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        turn, milestone = item.get("turn"), item.get("milestone")
        before, after = item.get("before"), item.get("after")
        if not (
            isinstance(turn, int)
            and milestone in {m.value for m in Milestone}
            and isinstance(before, str)
            and isinstance(after, str)
        ):
            continue
        kind = Milestone(str(milestone))
        changes.append(
            (
                Planned(turn, kind, datetime.fromisoformat(before)),
                Planned(turn, kind, datetime.fromisoformat(after)),
            )
        )
    if not changes:
        return []
    heading = _("New dates ({zone}):").format(zone=zone_label(campaign.time_zone, language))
    return [heading, *change_lines(changes, campaign.time_zone, language), *_windows(message)]


def _windows(message: OutboxMessage) -> list[str]:
    """The payload's orders windows the change shrinks or keeps, as lines."""
    windows: list[WindowChange] = []
    raw = message.payload.get("windows")
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        turn, before, after = item.get("turn"), item.get("before"), item.get("after")
        if isinstance(turn, int) and isinstance(before, int) and isinstance(after, int):
            windows.append(WindowChange(turn, timedelta(seconds=before), timedelta(seconds=after)))
    return window_lines(windows)


async def render_schedule_changed(context: PostContext, message: OutboxMessage) -> Post | None:
    """The GM changed the weekly schedule."""
    campaign = await _campaign(context, message)
    if campaign is None:
        return None
    language = _language(context)
    by = _text(message, "by") or "—"
    head = _("GM {gm} changed the campaign's schedule: {week}.").format(
        gm=by, week=week_text(campaign.schedule, language)
    )
    lines = moved_lines(message, campaign, language)
    if not lines and campaign.schedule.mode == "manual":
        lines = [_("From now on each phase ends when the GM advances it.")]
    return Post(text="\n".join([head, *lines]))


async def render_deadline_set(context: PostContext, message: OutboxMessage) -> Post | None:
    """The GM set the current deadline to a moment of their choice."""
    campaign = await _campaign(context, message)
    after, turn, phase = (
        _text(message, "after"),
        message.payload.get("turn"),
        _text(message, "phase"),
    )
    if campaign is None or after is None or not isinstance(turn, int) or phase is None:
        return None
    language = _language(context)
    by = _text(message, "by") or "—"
    moment = datetime.fromisoformat(after)
    now = await deadline_of(context.store, campaign, turn, Phase(phase))
    head = _("GM {gm} moved the deadline of turn {turn}.").format(gm=by, turn=turn)
    lines = moved_lines(message, campaign, language)
    if now is not None and now != moment:
        # Moved again since (another change, a pause): the latest is what holds.
        lines = []
    if not lines:
        lines = [
            _("The deadline is now {deadline}.").format(
                deadline=format_moment(now or moment, campaign.time_zone, language)
            )
        ]
    return Post(text="\n".join([head, *lines]))


async def render_language_changed(context: PostContext, message: OutboxMessage) -> Post | None:
    """The GM changed the language of the campaign's posts (worded in the new one)."""
    campaign = await _campaign(context, message)
    if campaign is None:
        return None
    by = _text(message, "by") or "—"
    return Post(
        text=_("GM {gm} changed the language of the campaign's posts: {language}.").format(
            gm=by, language=language_name(campaign.language)
        )
    )


async def _teammate_or_gm(
    context: PostContext, campaign: Campaign, user_id: int, side: str | None
) -> bool:
    member = await context.store.member(campaign.id, user_id)
    return member is not None and (member.is_gm or (side is not None and member.side_id == side))


def _days(message: OutboxMessage) -> tuple[date, date] | None:
    first, last = _text(message, "first"), _text(message, "last")
    if first is None or last is None:
        return None
    return date.fromisoformat(first), date.fromisoformat(last)


async def render_vacation_set(context: PostContext, message: OutboxMessage) -> Post | None:
    """A player set an absence: their teammates and the GMs are told."""
    campaign = await _campaign(context, message)
    days, name, side = _days(message), _text(message, "name"), _text(message, "side")
    if campaign is None or days is None or name is None:
        return None
    if not await _teammate_or_gm(context, campaign, message.chat_id, side):
        return None
    language = _language(context)
    first, last = (day_label(day, language) for day in days)
    text = _(
        "«{title}»: {name} is away from {first} to {last}. Reminders skip them meanwhile; their "
        "teammates may give the side's orders, and if nobody does, the campaign's rule for a "
        "side without orders applies."
    ).format(title=campaign.title, name=name, first=first, last=last)
    return Post(text=text)


async def render_vacation_cancelled(context: PostContext, message: OutboxMessage) -> Post | None:
    """A player cancelled an absence."""
    campaign = await _campaign(context, message)
    days, name, side = _days(message), _text(message, "name"), _text(message, "side")
    if campaign is None or days is None or name is None:
        return None
    if not await _teammate_or_gm(context, campaign, message.chat_id, side):
        return None
    language = _language(context)
    first, last = (day_label(day, language) for day in days)
    return Post(
        text=_(
            "«{title}»: {name} cancelled their absence ({first} to {last}): they are back."
        ).format(title=campaign.title, name=name, first=first, last=last)
    )


RENDERERS: dict[str, Renderer] = {
    "schedule_changed": render_schedule_changed,
    "deadline_set": render_deadline_set,
    "language_changed": render_language_changed,
    "vacation_set": render_vacation_set,
    "vacation_cancelled": render_vacation_cancelled,
}
