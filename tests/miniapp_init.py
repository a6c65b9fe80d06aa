"""Telegram's Mini App ``initData`` as Telegram signs it, for tests (HMAC-SHA256 with the bot
token, https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app)."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import datetime
from urllib.parse import urlencode


def signed_fields(token: str, fields: dict[str, str]) -> str:
    """``initData`` of exactly ``fields`` (whatever they say) with a valid hash for ``token``:
    what only someone holding the token could send."""
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    signed = {**fields, "hash": hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()}
    return urlencode(signed)


def signed_init_data(
    token: str, user_id: int, name: str, when: datetime, language: str = "en"
) -> str:
    """``initData`` for ``user_id`` signed at ``when`` with ``token``."""
    user = {"id": user_id, "first_name": name, "language_code": language}
    return signed_fields(
        token,
        {
            "auth_date": str(int(when.timestamp())),
            "query_id": f"AAQ{user_id}",
            "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
        },
    )
