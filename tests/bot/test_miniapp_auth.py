"""Telegram's initData: accepted when signed with the bot's token and fresh, refused otherwise."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.miniapp.auth import verified_user
from tests.miniapp_init import signed_init_data

TOKEN = "4242:secret"
NOW = datetime(2026, 3, 3, 12, 0, tzinfo=UTC)
DAY = timedelta(hours=24)


def test_a_fresh_signed_init_data_names_its_user() -> None:
    user = verified_user(TOKEN, signed_init_data(TOKEN, 201, "Anna", NOW, "ru"), NOW, DAY)
    assert user is not None
    assert (user.id, user.first_name, user.language_code) == (201, "Anna", "ru")
    older = signed_init_data(TOKEN, 201, "Anna", NOW - DAY + timedelta(minutes=1))
    assert verified_user(TOKEN, older, NOW, DAY) is not None


def test_forged_tampered_old_future_or_empty_init_data_is_refused() -> None:
    good = signed_init_data(TOKEN, 201, "Anna", NOW)
    assert verified_user("4242:other", good, NOW, DAY) is None
    assert verified_user(TOKEN, good.replace("201", "202"), NOW, DAY) is None
    assert verified_user(TOKEN, good + "x", NOW, DAY) is None
    too_old = signed_init_data(TOKEN, 201, "Anna", NOW - DAY - timedelta(seconds=1))
    assert verified_user(TOKEN, too_old, NOW, DAY) is None
    future = signed_init_data(TOKEN, 201, "Anna", NOW + timedelta(hours=1))
    assert verified_user(TOKEN, future, NOW, DAY) is None
    assert verified_user(TOKEN, "", NOW, DAY) is None
    assert verified_user(TOKEN, "hash=abc", NOW, DAY) is None
