"""The storage errors every backend raises for the same causes."""

from __future__ import annotations


class ChatHasActiveCampaignError(ValueError):
    """The group chat (topic) already runs an unfinished campaign."""


class SettingsLockedError(ValueError):
    """Map and ruleset are fixed once the first turn has started (replays depend on them)."""


class NotFoundError(LookupError):
    """The campaign, side or turn asked for is not stored."""
