"""Imported once by the fork server of the SIGKILL test: every bot process forked from it
starts with the bot's modules loaded and its slow caches warm (the catalogs, the order
grammar, the date formats), so a restart costs milliseconds instead of seconds."""

from datetime import UTC, datetime

from bot.texts.moments import format_moment
from bot.texts.orders import Vocabulary, parse_orders_text
from rules import builtin_map
from tests.faults import sigkill_week

sigkill_week.catalogs()
parse_orders_text("reinforce 1", Vocabulary.build(builtin_map("planet-5"), {"red": ["Red"]}))
for language in ("en", "ru"):
    for zone in ("UTC", "Europe/Moscow", "Europe/Berlin"):
        format_moment(datetime(2026, 3, 2, tzinfo=UTC), zone, language)
__all__ = ["sigkill_week"]
