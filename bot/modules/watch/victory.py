"""The Night Watch's fix of a campaign its first resolution can end (the setup wizard's warning,
``bot.handlers.group.victory_check``): victory by heroes, with every sector to capture."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiogram.utils.i18n import gettext as _

from bot.modules.protocol import VictoryFix
from bot.modules.watch import setup as watch_setup


def victory_fix(overrides: Mapping[str, Any], sectors: int) -> VictoryFix | None:
    """The setup's fix of a campaign its first resolution can end: victory by heroes on, with
    all ``sectors`` to capture, so the heroes decide."""
    if not watch_setup.is_on(overrides):
        return None
    line = _(
        "«🌃 Victory by heroes only» switches victory by heroes on, and captured "
        "sectors win only when a side holds all {n} of the map, which it does only when "
        "no other side has armies left.",
        "«🌃 Victory by heroes only» switches victory by heroes on, and captured "
        "sectors win only when a side holds all {n} of the map, which it does only when "
        "no other side has armies left.",
        sectors,
    ).format(n=sectors)
    after = watch_setup.with_hero_victory(overrides, True)
    return VictoryFix("heroes", _("🌃 Victory by heroes only"), line, after)
