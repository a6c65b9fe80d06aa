"""Telegram's initData: accepted when signed with the bot's token and fresh, refused otherwise."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from bot.miniapp.auth import verified_user
from tests.miniapp_init import signed_fields, signed_init_data

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


def _accepted(init_data: str) -> bool:
    return verified_user(TOKEN, init_data, NOW, DAY) is not None


def _signed_user(user: object, auth_date: str = str(int(NOW.timestamp()))) -> str:
    return signed_fields(TOKEN, {"auth_date": auth_date, "user": json.dumps(user)})


def test_signed_init_data_telegram_never_sends_is_refused() -> None:
    """Signed with the right token, but no Telegram app would send it: a user id past what
    Telegram gives (one past 64 bits answered 500: SQLite cannot hold it), a user nested past
    the recursion limit, an ``auth_date`` without a time zone, a hash with non-ASCII letters."""
    assert _accepted(_signed_user({"id": 2**53, "first_name": "A"}))
    for user_id in (2**64 + 1, 2**63, 2**53 + 1, 0, -5):
        assert not _accepted(_signed_user({"id": user_id, "first_name": "A"})), user_id
    nested = "[" * 5000 + "]" * 5000
    assert not _accepted(signed_fields(TOKEN, {"auth_date": "1", "user": nested}))
    naive = NOW.replace(tzinfo=None).isoformat()
    assert not _accepted(_signed_user({"id": 201, "first_name": "A"}, auth_date=naive))
    good = signed_init_data(TOKEN, 201, "Anna", NOW)
    assert not _accepted(good[:-1] + "é")
    assert not _accepted(good.rsplit("hash=", 1)[0] + "hash=%C3%A9")
