"""Who is asking: Telegram's ``initData``, checked by HMAC with the bot token and for age."""

from __future__ import annotations

from datetime import datetime, timedelta

from aiogram.utils.web_app import WebAppUser, safe_parse_webapp_init_data

FUTURE_SLACK = timedelta(minutes=5)
"""How far ahead of the bot's clock an ``auth_date`` may be (the two clocks differ a little)."""
LARGEST_USER_ID = 2**53
"""Telegram's user ids are positive and fit in 53 bits (its WebAppUser says so); a signed
``initData`` naming any other id comes from no Telegram app, and one past 64 bits would not
even reach the database."""


def verified_user(
    token: str, init_data: str, now: datetime, max_age: timedelta
) -> WebAppUser | None:
    """The Telegram user ``init_data`` was signed for, or ``None``: a bad or missing hash, no
    user, a user id Telegram never gives (:data:`LARGEST_USER_ID`), or an ``auth_date`` that
    is not a moment in time, older than ``max_age`` or from the future at ``now``."""
    if not init_data:
        return None
    try:
        parsed = safe_parse_webapp_init_data(token, init_data)
    except (ValueError, RecursionError):  # a bad hash, bad fields, or JSON nested too deep
        return None
    except TypeError:  # hmac.compare_digest refuses a hash with non-ASCII letters
        return None
    if parsed.user is None or not 0 < parsed.user.id <= LARGEST_USER_ID:
        return None
    signed = parsed.auth_date
    if signed.tzinfo is None:  # a date written without its zone: Telegram sends Unix time
        return None
    if signed > now + FUTURE_SLACK or now - signed > max_age:
        return None
    return parsed.user
