"""A JSON request body read safely, for the bot's HTTP endpoints (the Mini App's API, the
webhook, the test clock): whatever a caller sends, the answer is the value or
:class:`BadJsonError`, never an exception that would answer 500."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web


class BadJsonError(ValueError):
    """A body that is not one JSON value this process can keep and send back."""


async def read_json(request: web.Request) -> Any:
    """The request's body as a JSON value. JSON is UTF-8 (RFC 8259), so the bytes are read as
    JSON whatever charset the request claims (aiohttp's ``request.json()`` decodes by the
    claimed charset, and an unknown one is a ``LookupError``). Arrays or objects nested past
    Python's recursion limit raise ``RecursionError``, not ``ValueError``; a string with half a
    surrogate pair (``"\\ud800"``) can be neither stored nor sent back as UTF-8: each is a
    :class:`BadJsonError`. A body over the application's ``client_max_size`` is aiohttp's own
    413."""
    raw = await request.read()
    try:
        value = json.loads(raw)
        json.dumps(value, ensure_ascii=False).encode()
    except (ValueError, RecursionError) as error:  # UnicodeError is a ValueError
        raise BadJsonError(type(error).__name__) from None
    return value
