"""Days, moments and weekly times as people type them on a phone, in Russian or English.

Pure functions, no clock: the caller passes "today" (in the campaign's time zone) and the zone.

* a day: ``today``/``сегодня``, ``tomorrow``/``завтра``, ``+3`` (days from today), ``5.12``,
  ``5.12.2026``, ``2026-12-05``, ``5 dec``/``5 декабря``/``Dec 5``. A day without a year is the
  next one on or after today (``3.01`` typed in December is next January);
* a moment: a day and a time (``5.12 18:00``, ``завтра 9:30``), or a time alone (today, or
  tomorrow once that time has passed);
* a weekly time: a weekday and a time (``Tue 00:00``, ``вт 0:00``, ``четверг 23:59``); a weekly
  schedule is four of them, in the order orders open, orders close, battle list, resolution.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.services.deadlines import on_clock
from storage import Weekday, WeeklyTime

MAX_DAYS_AHEAD = 366
"""A typed ``+N`` counts at most this many days."""

_TODAY = frozenset({"today", "сегодня"})
_TOMORROW = frozenset({"tomorrow", "завтра"})
_MONTHS = {
    1: ("jan", "янв"),
    2: ("feb", "фев"),
    3: ("mar", "мар"),
    4: ("apr", "апр"),
    5: ("may", "мая", "май"),
    6: ("jun", "июн"),
    7: ("jul", "июл"),
    8: ("aug", "авг"),
    9: ("sep", "сен"),
    10: ("oct", "окт"),
    11: ("nov", "ноя"),
    12: ("dec", "дек"),
}
_WEEKDAYS = {
    Weekday.MONDAY: ("mon", "пн", "пон"),
    Weekday.TUESDAY: ("tue", "вт", "вто"),
    Weekday.WEDNESDAY: ("wed", "ср", "сре"),
    Weekday.THURSDAY: ("thu", "чт", "чет"),
    Weekday.FRIDAY: ("fri", "пт", "пят"),
    Weekday.SATURDAY: ("sat", "сб", "суб"),
    Weekday.SUNDAY: ("sun", "вс", "вос"),
}
_TIME = re.compile(r"^(\d{1,2})[:.](\d{2})$")
_NUMERIC_DAY = re.compile(r"^(\d{1,2})[./](\d{1,2})(?:[./](\d{2}|\d{4}))?$")
_ISO_DAY = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")


def _words(text: str) -> list[str]:
    return text.strip().lower().replace("ё", "е").replace(",", " ").split()


def _month(word: str) -> int | None:
    word = word.rstrip(".")
    for number, stems in _MONTHS.items():
        if any(word.startswith(stem) for stem in stems):
            return number
    return None


def _upcoming(day: int, month: int, today: date) -> date | None:
    """``day``.``month`` on or after ``today`` (this year, else the next)."""
    for year in (today.year, today.year + 1):
        try:
            found = date(year, month, day)
        except ValueError:
            continue
        if found >= today:
            return found
    return None


FIRST_YEAR, LAST_YEAR = 2000, 2100
"""Days outside these years are refused: nobody plans a campaign there, and the calendar's
edges (year 1, year 9999) overflow when moved between time zones."""


def parse_day(text: str, today: date) -> date | None:
    """The day ``text`` names (see the module doc), or ``None``."""
    day = _parse_day(text, today)
    return day if day is not None and FIRST_YEAR <= day.year <= LAST_YEAR else None


def _day_number(word: str) -> int | None:
    """A day of the month in ASCII digits (``²`` and 20-digit numbers are no day)."""
    return int(word) if word.isascii() and word.isdigit() and len(word) <= 2 else None


def _parse_day(text: str, today: date) -> date | None:
    words = _words(text)
    if not words:
        return None
    joined = " ".join(words)
    if joined in _TODAY:
        return today
    if joined in _TOMORROW:
        return today + timedelta(days=1)
    if re.fullmatch(r"\+\s*\d{1,3}", joined):
        days = int(joined[1:].strip())
        return today + timedelta(days=days) if days <= MAX_DAYS_AHEAD else None
    if len(words) == 1:
        if match := _ISO_DAY.match(words[0]):
            try:
                return date(int(match[1]), int(match[2]), int(match[3]))
            except ValueError:
                return None
        if match := _NUMERIC_DAY.match(words[0]):
            day, month, year = int(match[1]), int(match[2]), match[3]
            if year is None:
                return _upcoming(day, month, today)
            full = int(year) + (2000 if len(year) == 2 else 0)
            try:
                return date(full, month, day)
            except ValueError:
                return None
        return None
    if len(words) == 2:
        first, second = words
        if (number := _day_number(first)) is not None and (named := _month(second)) is not None:
            return _upcoming(number, named, today)
        if (number := _day_number(second)) is not None and (named := _month(first)) is not None:
            return _upcoming(number, named, today)
    return None


def parse_time(text: str) -> time | None:
    """``18:00``, ``9.30``, ``0:00`` (24-hour clock), or ``None``."""
    match = _TIME.match(text.strip())
    if match is None:
        return None
    hour, minute = int(match[1]), int(match[2])
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)


def parse_moment(text: str, now: datetime, zone: ZoneInfo) -> datetime | None:
    """The moment ``text`` names on the wall clock of ``zone`` (a day and a time, or a time
    alone: the next such time), as an aware UTC moment; ``None`` when it names none."""
    words = _words(text)
    if not words:
        return None
    at = parse_time(words[-1])
    if at is None:
        return None
    local_now = now.astimezone(zone)
    if len(words) == 1:
        moment = on_clock(datetime.combine(local_now.date(), at), zone)
        return (
            moment
            if moment > now
            else on_clock(datetime.combine(local_now.date() + timedelta(days=1), at), zone)
        )
    day = parse_day(" ".join(words[:-1]), local_now.date())
    if day is None:
        return None
    return on_clock(datetime.combine(day, at), zone)


def parse_weekday(text: str) -> Weekday | None:
    """``Tue``, ``tuesday``, ``вт``, ``вторник``: the weekday, or ``None``."""
    word = text.strip().lower().rstrip(".")
    if len(word) < 2:
        return None
    for weekday, stems in _WEEKDAYS.items():
        if any(word == stem or (len(stem) == 3 and word.startswith(stem)) for stem in stems):
            return weekday
    return None


def parse_weekly(text: str) -> WeeklyTime | None:
    """A weekday and a time (``Thu 23:59``, ``чт 23:59``), or ``None``."""
    words = _words(text)
    if len(words) != 2:
        return None
    weekday, at = parse_weekday(words[0]), parse_time(words[1])
    if weekday is None or at is None:
        return None
    return WeeklyTime(weekday=weekday, at=at)


def parse_week(text: str) -> tuple[WeeklyTime, ...] | None:
    """Four weekly times separated by ``;`` or new lines (or commas): orders open, orders close,
    battle list, resolution; ``None`` unless there are four and each is one."""
    parts = [part for part in re.split(r"[;\n]+", text) if part.strip()]
    if len(parts) != 4:
        parts = [part for part in re.split(r"[;,\n]+", text) if part.strip()]
    if len(parts) != 4:
        return None
    found = [parse_weekly(part) for part in parts]
    if any(item is None for item in found):
        return None
    return tuple(item for item in found if item is not None)
