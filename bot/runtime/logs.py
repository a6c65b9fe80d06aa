"""Structured logs: one ``key=value`` line per event, with the campaign and turn it concerns.

Code that works on a campaign wraps the work in :func:`log_context`; every log line inside it,
from our code or a library's, carries ``campaign=`` and ``turn=``. Log lines never carry order
contents (secret until the turn resolves): only ids, phases and counts. A library that prints
data at DEBUG is kept below it (:class:`NoStatements`), so ``LOG_LEVEL=DEBUG`` keeps them out
too; the secrecy tests read the log through the same filter.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime

_campaign: ContextVar[int | None] = ContextVar("log_campaign", default=None)
_turn: ContextVar[int | None] = ContextVar("log_turn", default=None)


@contextmanager
def log_context(campaign: int | None, turn: int | None = None) -> Iterator[None]:
    """Within the block, log lines name ``campaign`` (and ``turn``)."""
    campaign_token = _campaign.set(campaign)
    turn_token = _turn.set(turn)
    try:
        yield
    finally:
        _turn.reset(turn_token)
        _campaign.reset(campaign_token)


def _quoted(value: str) -> str:
    if value and not any(ch in value for ch in ' "=\n\t'):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


class NoStatements(logging.Filter):
    """Drops aiosqlite's DEBUG lines: each prints an SQL statement with its parameters, a
    side's secret orders and placement among them. Its warnings and errors pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        """False for a DEBUG line of aiosqlite."""
        library = record.name == "aiosqlite" or record.name.startswith("aiosqlite.")
        return not (library and record.levelno < logging.INFO)


class LogfmtFormatter(logging.Formatter):
    """``time=... level=... logger=... campaign=... turn=... msg="..."`` (``exc=`` if any)."""

    def format(self, record: logging.LogRecord) -> str:
        """One line for ``record``."""
        fields = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        campaign, turn = _campaign.get(), _turn.get()
        if campaign is not None:
            fields["campaign"] = str(campaign)
        if turn is not None:
            fields["turn"] = str(turn)
        fields["msg"] = record.getMessage()
        if record.exc_info:
            fields["exc"] = self.formatException(record.exc_info)
        return " ".join(f"{key}={_quoted(value)}" for key, value in fields.items())


def configure_logging(level: str) -> None:
    """Send every log line to standard error as logfmt at ``level``."""
    handler = logging.StreamHandler()
    handler.setFormatter(LogfmtFormatter())
    handler.addFilter(NoStatements())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
