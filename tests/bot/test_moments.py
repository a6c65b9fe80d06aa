"""Moments and zones in the reader's language: Babel's day and month names, the zone's city,
its offset at that moment (half-hour zones, daylight-saving changes), and zones typed by city."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.services.campaigns import find_time_zone
from bot.texts.moments import find_zone_by_city, format_moment, format_offset, zone_label


@pytest.mark.parametrize(
    ("moment", "zone", "language", "expected"),
    [
        (datetime(2026, 3, 9, 9, 0, tzinfo=UTC), "Europe/Moscow", "ru", "пн, 9 марта, 12:00 (МСК)"),
        (
            datetime(2026, 3, 9, 9, 0, tzinfo=UTC),
            "Europe/Moscow",
            "en",
            "Mon 9 Mar, 12:00 (Moscow, UTC+3)",
        ),
        (
            datetime(2026, 3, 5, 20, 59, tzinfo=UTC),
            "Asia/Novosibirsk",
            "ru",
            "пт, 6 марта, 03:59 (Новосибирск, UTC+7)",
        ),
        (datetime(2026, 3, 3, 0, 0, tzinfo=UTC), "UTC", "ru", "вт, 3 марта, 00:00 (UTC)"),
        (datetime(2026, 3, 3, 0, 0, tzinfo=UTC), "UTC", "en", "Tue 3 Mar, 00:00 (UTC)"),
        (datetime(2026, 3, 3, 0, 0, tzinfo=UTC), "Etc/GMT-3", "en", "Tue 3 Mar, 03:00 (UTC+3)"),
        # half-hour and three-quarter-hour offsets
        (
            datetime(2026, 3, 9, 9, 0, tzinfo=UTC),
            "Asia/Kolkata",
            "en",
            "Mon 9 Mar, 14:30 (Kolkata, UTC+5:30)",
        ),
        (
            datetime(2026, 3, 9, 9, 0, tzinfo=UTC),
            "Asia/Kathmandu",
            "en",
            "Mon 9 Mar, 14:45 (Kathmandu, UTC+5:45)",
        ),
        (
            datetime(2026, 3, 9, 9, 0, tzinfo=UTC),
            "America/St_Johns",
            "ru",
            "пн, 9 марта, 06:30 (Сент-Джонс, UTC-2:30)",
        ),
        # Adelaide: UTC+10:30 in its summer, UTC+9:30 after daylight saving ends on 5 April
        (
            datetime(2026, 1, 12, 1, 0, tzinfo=UTC),
            "Australia/Adelaide",
            "ru",
            "пн, 12 января, 11:30 (Аделаида, UTC+10:30)",
        ),
        (
            datetime(2026, 6, 15, 1, 0, tzinfo=UTC),
            "Australia/Adelaide",
            "en",
            "Mon 15 Jun, 10:30 (Adelaide, UTC+9:30)",
        ),
    ],
)
def test_a_moment_in_each_language(
    moment: datetime, zone: str, language: str, expected: str
) -> None:
    assert format_moment(moment, zone, language) == expected


def test_the_offset_follows_a_daylight_saving_change() -> None:
    """Berlin's clocks go forward at 02:00 on Sunday 29 March 2026: the same wall-clock noon
    is UTC+1 on Saturday and UTC+2 on Sunday, and the night's hour 02:00-03:00 is skipped."""
    saturday_noon = datetime(2026, 3, 28, 11, 0, tzinfo=UTC)
    assert format_moment(saturday_noon, "Europe/Berlin", "ru") == (
        "сб, 28 марта, 12:00 (Берлин, UTC+1)"
    )
    assert format_moment(
        saturday_noon + timedelta(days=1) - timedelta(hours=1), "Europe/Berlin", "en"
    ) == ("Sun 29 Mar, 12:00 (Berlin, UTC+2)")
    before = datetime(2026, 3, 29, 0, 59, tzinfo=UTC)
    assert format_moment(before, "Europe/Berlin", "en") == "Sun 29 Mar, 01:59 (Berlin, UTC+1)"
    after = before + timedelta(minutes=1)
    assert format_moment(after, "Europe/Berlin", "en") == "Sun 29 Mar, 03:00 (Berlin, UTC+2)"
    autumn = datetime(2026, 10, 25, 0, 30, tzinfo=UTC)  # 02:30, then 02:30 again an hour later
    assert format_moment(autumn, "Europe/Berlin", "ru") == "вс, 25 октября, 02:30 (Берлин, UTC+2)"
    assert format_moment(autumn + timedelta(hours=1), "Europe/Berlin", "ru") == (
        "вс, 25 октября, 02:30 (Берлин, UTC+1)"
    )


@pytest.mark.parametrize(
    ("zone", "ru", "en"),
    [
        ("Europe/Kaliningrad", "Калининград", "Kaliningrad"),
        ("Europe/Moscow", "Москва", "Moscow"),
        ("Asia/Yekaterinburg", "Екатеринбург", "Yekaterinburg"),
        ("Asia/Vladivostok", "Владивосток", "Vladivostok"),
        ("Europe/London", "Лондон", "London"),
        ("America/New_York", "Нью-Йорк", "New York"),
        # IANA names newer than CLDR's own ids (Asia/Katmandu, Asia/Calcutta, Europe/Kiev):
        # found by the random campaigns as «(Kathmandu, UTC+5:45)» in Russian deadlines
        ("Asia/Kathmandu", "Катманду", "Kathmandu"),
        ("Asia/Kolkata", "Калькутта", "Kolkata"),
        ("Europe/Kyiv", "Киев", "Kyiv"),
        ("America/Argentina/Buenos_Aires", "Буэнос-Айрес", "Buenos Aires"),
        ("UTC", "UTC", "UTC"),
        ("Etc/GMT+5", "UTC-5", "UTC-5"),
    ],
)
def test_a_zone_is_named_by_its_city(zone: str, ru: str, en: str) -> None:
    assert (zone_label(zone, "ru"), zone_label(zone, "en")) == (ru, en)


@pytest.mark.parametrize(
    ("minutes", "text"),
    [(0, "UTC+0"), (180, "UTC+3"), (330, "UTC+5:30"), (-210, "UTC-3:30"), (-600, "UTC-10")],
)
def test_offsets(minutes: int, text: str) -> None:
    assert format_offset(timedelta(minutes=minutes)) == text


@pytest.mark.parametrize(
    ("typed", "zone"),
    [
        ("Омск", "Asia/Omsk"),
        ("  новосибирск ", "Asia/Novosibirsk"),
        ("Omsk", "Asia/Omsk"),
        ("Екатеринбург", "Asia/Yekaterinburg"),
        ("нью-йорк", "America/New_York"),
        ("asia/omsk", "Asia/Omsk"),
        ("utc", "UTC"),
        ("Катманду", "Asia/Kathmandu"),
        ("Mars", None),
        ("Olympus Mons", None),
    ],
)
def test_a_zone_is_found_by_its_city_in_either_language(typed: str, zone: str | None) -> None:
    assert find_time_zone(typed) == zone


def test_every_city_found_names_its_zone_back() -> None:
    for city in ("Москва", "Berlin", "Калининград", "Лондон", "Vladivostok", "Самара", "Катманду"):
        zone = find_zone_by_city(city)
        assert zone is not None
        assert city in (zone_label(zone, "ru"), zone_label(zone, "en"))
