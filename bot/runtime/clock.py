"""Time as a service: the bot asks a clock for "now", so tests can drive weeks in milliseconds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Gives the current moment, timezone-aware, in UTC."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real time."""

    def now(self) -> datetime:
        """The current moment in UTC."""
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to (tests, and the end-to-end test control)."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware start")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        """The moment the clock was last set to."""
        return self._now

    def set(self, moment: datetime) -> None:
        """Jump to ``moment`` (never backwards)."""
        moment = moment.astimezone(UTC)
        if moment < self._now:
            raise ValueError(f"clock cannot go back from {self._now} to {moment}")
        self._now = moment

    def advance(self, delta: timedelta) -> datetime:
        """Move forward by ``delta`` and return the new moment."""
        self.set(self._now + delta)
        return self._now
