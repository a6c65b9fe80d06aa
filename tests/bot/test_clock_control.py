"""The test clock is off unless asked for, and listens on loopback only."""

from datetime import UTC, datetime, timedelta

import aiohttp
import pytest
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.runtime.config import Settings
from bot.runtime.runner import serve
from bot.services.outbox_sender import OutboxSender
from bot.services.schedule import CampaignScheduler
from bot.testing.clock_control import (
    ClockControl,
    ClockControlError,
    parse_moment,
    require_loopback,
    starting_clock,
)
from storage import Store
from tests.bot.telegram import FakeTelegram

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_the_test_clock_is_off_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TEST_CLOCK_CONTROL", "TEST_CLOCK_START", "TEST_CLOCK_HOST", "TEST_CLOCK_PORT"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(_env_file=None)
    assert settings.test_clock_control is False
    assert settings.test_clock_host == "127.0.0.1"


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "localhost", "192.168.1.10", "::1", ""])
def test_the_test_clock_refuses_any_host_but_loopback(host: str) -> None:
    with pytest.raises(ClockControlError):
        require_loopback(host)
    assert require_loopback("127.0.0.1") == "127.0.0.1"


async def test_the_bot_refuses_to_start_with_the_test_clock_on_another_host() -> None:
    settings = Settings(
        _env_file=None,
        bot_token="42:TEST",
        test_clock_control=True,
        test_clock_host="0.0.0.0",
    )
    with pytest.raises(ClockControlError):
        await serve(settings)


def test_moments_without_a_zone_are_utc() -> None:
    assert parse_moment("2026-03-05T20:59:00") == datetime(2026, 3, 5, 20, 59, tzinfo=UTC)
    assert parse_moment("2026-03-05T23:59:00+03:00") == datetime(2026, 3, 5, 20, 59, tzinfo=UTC)
    with pytest.raises(ClockControlError):
        parse_moment("next thursday")
    with pytest.raises(ClockControlError):  # before year 1 in UTC: it was an OverflowError
        parse_moment("0001-01-01T00:00:00+05:00")


async def test_get_and_post_the_clock_on_loopback(
    store: Store, telegram: FakeTelegram, i18n: I18n
) -> None:
    clock = ManualClock(START)
    sender = OutboxSender(telegram.bot, store, clock, i18n)
    control = ClockControl(clock, store, CampaignScheduler(store, clock), sender)
    port = await control.start("127.0.0.1", 0)
    url = f"http://127.0.0.1:{port}/clock"
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(url) as response:
                assert await response.json() == {"now": START.isoformat(), "next": None}
            later = START + timedelta(days=3)
            async with session.post(url, json={"now": later.isoformat()}) as response:
                assert response.status == 200
                assert await response.json() == {
                    "now": later.isoformat(),
                    "phases": [],
                    "sent": 0,
                }
            async with session.post(url, json={"now": START.isoformat()}) as response:
                assert response.status == 409
                assert "cannot go back" in (await response.json())["error"]
            async with session.post(url, json={"when": "soon"}) as response:
                assert response.status == 400
            # Bodies that answered 500: nested past the recursion limit, an unknown charset.
            for body, kind in (
                ("[" * 20_000 + "]" * 20_000, "application/json"),
                ('{"when": "soon"}', "application/json; charset=no-such"),
            ):
                headers = {"Content-Type": kind}
                async with session.post(url, data=body, headers=headers) as response:
                    assert response.status == 400, kind
    finally:
        await control.stop()
    assert clock.now() == START + timedelta(days=3)


def test_the_test_clock_starts_where_it_is_told_or_now() -> None:
    naive = datetime(2026, 3, 2, 9, 0)
    assert starting_clock(naive, START + timedelta(days=9)).now() == START
    assert starting_clock(None, START).now() == START
