"""Moments and time zones in the reader's language, through Babel, on the campaign's wall clock.

ru: «пн, 9 марта, 12:00 (МСК)», «чт, 26 марта, 23:59 (Берлин, UTC+1)»;
en: "Mon 9 Mar, 12:00 (Moscow, UTC+3)", "Thu 26 Mar, 23:59 (Berlin, UTC+1)".

A zone is named by its city in the reader's language (Babel's CLDR data), with its offset from
UTC at that moment, so a daylight-saving change shows (Berlin is UTC+1 until 29 March, UTC+2
after it) and so does a half-hour zone (Kolkata, UTC+5:30). Zones with no city (``UTC``,
``Etc/GMT-3``) are named by their offset alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from babel.core import Locale, get_global
from babel.dates import format_datetime, get_timezone_location

DATE_PATTERNS = {"ru": "EEE, d MMMM", "en": "EEE d MMM"}
"""The day as each language writes it in a deadline: «пн, 9 марта», "Mon 9 Mar"."""

TIME_PATTERN = "HH:mm"

DAY_PATTERNS = {"ru": "d MMMM y", "en": "d MMM y"}
"""A day with its year, as each language writes it in a list of dates: «9 марта 2026 г.» is
what CLDR's long form adds; the bare «9 марта 2026» reads as people write it."""

ZONE_ABBREVIATIONS = {("ru", "Europe/Moscow"): "МСК", ("ru", "W-SU"): "МСК"}
"""Zones a language names by an abbreviation CLDR does not have: Russians write «12:00 МСК»."""

_OFFSET_ONLY = frozenset({"UTC", "UCT", "GMT", "GMT0", "GMT+0", "GMT-0", "Greenwich"})
_OFFSET_ONLY |= {"Universal", "Zulu"}


def _offset_only(zone: str) -> bool:
    return zone in _OFFSET_ONLY or zone.startswith("Etc/")


def format_offset(offset: timedelta | None) -> str:
    """ "UTC+3", "UTC+5:30", "UTC-3:30", "UTC+0"."""
    minutes = int((offset or timedelta()).total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


@cache
def _city(zone: str, language: str) -> str:
    """The zone's city in ``language``. CLDR keys its city names by its own ids, some older
    than the IANA names people type (``Asia/Calcutta`` for ``Asia/Kolkata``, ``Asia/Katmandu``,
    ``Europe/Kiev``); Babel looks up the IANA name only, and gives back the id's English words
    («Kathmandu» in a Russian deadline), so every id CLDR knows the zone by is tried first."""
    cities = Locale.parse(language).time_zones
    for known in _cldr_ids(zone):
        city = cities.get(known, {}).get("city")
        if city:
            return str(city)
    city = get_timezone_location(ZoneInfo(zone), locale=language, return_city=True)
    return str(city).rsplit("/", 1)[-1]


@cache
def _cldr_ids(zone: str) -> tuple[str, ...]:
    """``zone`` and every id CLDR's aliases give it (old and new names of one zone)."""
    aliases: Mapping[str, str] = get_global("zone_aliases")
    target = aliases.get(zone, zone)
    return (zone, *sorted(old for old, new in aliases.items() if target in (new, old)))


def zone_label(zone: str, language: str) -> str:
    """The zone as people name it: its city in ``language`` («Москва», "Moscow"), or its
    offset for a zone with no city ("UTC", "UTC+3" for ``Etc/GMT-3``)."""
    if _offset_only(zone):
        offset = datetime(2000, 1, 1, tzinfo=UTC).astimezone(ZoneInfo(zone)).utcoffset()
        return "UTC" if not offset else format_offset(offset)
    return _city(zone, language)


def zone_at(moment: datetime, zone: str, language: str) -> str:
    """The zone as it stands at ``moment``: «МСК», "Berlin, UTC+2", "UTC"."""
    abbreviation = ZONE_ABBREVIATIONS.get((language, zone))
    if abbreviation is not None:
        return abbreviation
    if _offset_only(zone):
        return zone_label(zone, language)
    offset = moment.astimezone(ZoneInfo(zone)).utcoffset()
    return f"{_city(zone, language)}, {format_offset(offset)}"


def format_wall(moment: datetime, zone: str, language: str) -> str:
    """ "Thu 26 Mar, 23:59" / «чт, 26 марта, 23:59»: a moment on the wall clock of ``zone``,
    without the zone (for lists of moments under one heading that names it)."""
    local = moment.astimezone(ZoneInfo(zone))
    day = format_datetime(local, DATE_PATTERNS.get(language, "EEE d MMM"), locale=language)
    time = format_datetime(local, TIME_PATTERN, locale=language)
    return f"{day}, {time}"


def format_day(moment: datetime, zone: str, language: str) -> str:
    """ "9 Mar 2026" / «9 марта 2026»: the day of ``moment`` on the wall clock of ``zone``."""
    local = moment.astimezone(ZoneInfo(zone))
    return str(format_datetime(local, DAY_PATTERNS.get(language, "d MMM y"), locale=language))


def format_moment(moment: datetime, zone: str, language: str) -> str:
    """ "Thu 26 Mar, 23:59 (Berlin, UTC+1)" / «чт, 26 марта, 23:59 (Берлин, UTC+1)»: a moment
    on the wall clock of ``zone``, worded in ``language``."""
    return f"{format_wall(moment, zone, language)} ({zone_at(moment, zone, language)})"


@cache
def _zones_by_city() -> dict[str, str | None]:
    """Every zone's city, in each language, folded -> the zone (``None`` when two zones that
    are not aliases of one another share it)."""
    aliases: Mapping[str, str] = get_global("zone_aliases")
    zones = available_timezones()
    found: dict[str, str | None] = {}
    for zone in sorted(zones):
        if _offset_only(zone) or "/" not in zone:
            continue
        canonical = aliases.get(zone, zone) if aliases.get(zone) in zones else zone
        for language in DATE_PATTERNS:
            city = _fold(_city(zone, language))
            if city not in found:
                found[city] = canonical
            elif found[city] != canonical:
                found[city] = None
    return found


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold().replace("ё", "е")


def find_zone_by_city(text: str) -> str | None:
    """The zone a city name means, in any language the bot speaks («Омск», "Omsk",
    «новосибирск»); ``None`` if no zone or more than one has that city."""
    return _zones_by_city().get(_fold(text))
