"""Days and moments as people type them (bot/texts/dates.py): the forms both languages use,
and what is no day at all (refused with ``None``, never an exception)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.texts.dates import parse_day, parse_moment

TODAY = date(2026, 12, 20)
MOSCOW = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 12, 20, 9, 0, tzinfo=UTC)  # 12:00 in Moscow


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("сегодня", date(2026, 12, 20)),
        ("Завтра", date(2026, 12, 21)),
        ("+3", date(2026, 12, 23)),
        ("24.12", date(2026, 12, 24)),
        ("3.01", date(2027, 1, 3)),
        ("5.1.27", date(2027, 1, 5)),
        ("2027-02-01", date(2027, 2, 1)),
        ("25 декабря", date(2026, 12, 25)),
        ("Dec 25", date(2026, 12, 25)),
        ("1 янв", date(2027, 1, 1)),
    ],
)
def test_a_day_in_the_forms_people_type(text: str, day: date) -> None:
    assert parse_day(text, TODAY) == day


@pytest.mark.parametrize(
    "text",
    [
        "² dec",
        "99999999999999999999 dec",
        "31.02",
        "32 декабря",
        "1.1.0001",
        "31.12.9999",
        "9999-12-31",
        "+400",
        "пятница",
        "",
    ],
)
def test_what_is_no_day_is_refused_without_an_exception(text: str) -> None:
    assert parse_day(text, TODAY) is None


def test_a_moment_is_on_the_campaigns_wall_clock() -> None:
    assert parse_moment("24.12 18:00", NOW, MOSCOW) == datetime(2026, 12, 24, 15, 0, tzinfo=UTC)
    # A time alone: today while it is ahead, else tomorrow.
    assert parse_moment("18:00", NOW, MOSCOW) == datetime(2026, 12, 20, 15, 0, tzinfo=UTC)
    assert parse_moment("9:30", NOW, MOSCOW) == datetime(2026, 12, 21, 6, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "text", ["31.12.9999 23:59", "1.1.0001 00:30", "² дек 18:00", "24.12 25:00", "24.12"]
)
def test_what_is_no_moment_is_refused_without_an_exception(text: str) -> None:
    assert parse_moment(text, NOW, MOSCOW) is None
