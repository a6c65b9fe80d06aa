"""Contact's fix of a campaign its first resolution can end (the setup wizard's warning,
``bot.handlers.group.victory_check``): its victory points, with every sector to capture."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiogram.utils.i18n import gettext as _

from bot.modules.contact import setup as contact_setup
from bot.modules.protocol import VictoryFix

CONTACT_VP = 2 * contact_setup.VP_STEP
"""The victory points that win when «Victory points only» finds none set (10; the GM changes
them on the contact screen)."""


def victory_fix(overrides: Mapping[str, Any], sectors: int) -> VictoryFix | None:
    """The setup's fix of a campaign its first resolution can end: the contact victory points
    that win (:data:`CONTACT_VP` unless the GM set some), with all ``sectors`` to capture."""
    current = dict(overrides)
    if not contact_setup.is_on(current):
        return None
    chosen = contact_setup.effective(current).vp_to_win
    line = _(
        "«🧟 Victory points only» sets {vp} VP to win (change them under «🧟 Contact»), "
        "and captured sectors win only when a side holds all {n} of the map, which it "
        "does only when no other side has armies left.",
        "«🧟 Victory points only» sets {vp} VP to win (change them under «🧟 Contact»), "
        "and captured sectors win only when a side holds all {n} of the map, which it "
        "does only when no other side has armies left.",
        sectors,
    ).format(vp=chosen or CONTACT_VP, n=sectors)
    after = current if chosen else contact_setup.with_vp_to_win(dict(current), CONTACT_VP)
    return VictoryFix("vp", _("🧟 Victory points only"), line, after)
