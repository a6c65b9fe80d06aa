"""Who is asking: Telegram's ``initData``, checked by HMAC with the bot token and for age."""

from __future__ import annotations

from datetime import datetime, timedelta

from aiogram.utils.web_app import WebAppUser, safe_parse_webapp_init_data

FUTURE_SLACK = timedelta(minutes=5)
"""How far ahead of the bot's clock an ``auth_date`` may be (the two clocks differ a little)."""


def verified_user(
    token: str, init_data: str, now: datetime, max_age: timedelta
) -> WebAppUser | None:
    """The Telegram user ``init_data`` was signed for, or ``None``: a bad or missing hash, no
    user, or an ``auth_date`` older than ``max_age`` (or from the future) at ``now``."""
    if not init_data:
        return None
    try:
        parsed = safe_parse_webapp_init_data(token, init_data)
    except ValueError:
        return None
    if parsed.user is None:
        return None
    signed = parsed.auth_date
    if signed > now + FUTURE_SLACK or now - signed > max_age:
        return None
    return parsed.user
