"""The wizard's check that the core's victory cannot end a campaign at its first resolution
(issue 30): on a small map for its sides' deployment (night-demo's six locations, two sides of
three sectors each) a side can hold ``sectors_to_win`` captured sectors at once, with no battle,
before anything a rule module adds has mattered. The summary says so and offers the fixes as
buttons (``vc`` actions of the wizard's ``su`` callbacks, re-checked for the GM on press):

- ``goal`` («🏆 Captured sectors to win: n»): a capture goal the first resolution cannot reach
  (one past :func:`rules.captures_at_once`);
- each module's own victory (``BotModule.victory_fix``), and the capture goal every sector of
  the map, which a side holds only when no other side has armies left (the core's early victory
  names the same side then), so the module's victory decides.

The check needs only the map and the numbers, never the sides' placements: it runs in setup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiogram.types import InlineKeyboardButton
from aiogram.utils.i18n import gettext as _

from bot.modules import BOT_MODULES
from bot.modules.protocol import VictoryFix
from bot.services import setup_map
from bot.texts.core import armies
from rules import Ruleset, captures_at_once, overrides_in_force
from storage import Campaign

Button = Callable[[str, Campaign, str, str], InlineKeyboardButton]
ACTION = "vc"
"""The wizard action of this check's buttons; the value names the fix."""
GOAL = "goal"
"""The fix every campaign has: a capture goal the first resolution cannot reach."""


@dataclass(frozen=True)
class EarlyEnd:
    """Why the first resolution can end a campaign: the capture goal, the most sectors a side
    can capture by then, the map's sectors and the armies that capture one."""

    goal: int
    most: int
    sectors: int
    capture_armies: int


def early_end(campaign: Campaign) -> EarlyEnd | None:
    """The campaign's first resolution can end it by captured sectors, or ``None``."""
    ruleset = Ruleset.with_overrides(overrides_in_force(campaign.ruleset_overrides))
    shown = setup_map.campaign_map(campaign)
    most = captures_at_once(ruleset, shown)
    if ruleset.sectors_to_win > most:
        return None
    return EarlyEnd(ruleset.sectors_to_win, most, len(shown.sectors), ruleset.capture_min_armies)


def module_fixes(campaign: Campaign, found: EarlyEnd) -> list[VictoryFix]:
    """The fixes of the modules on, in the registry's order."""
    overrides = campaign.ruleset_overrides
    return [
        fix
        for module in BOT_MODULES.values()
        if (fix := module.victory_fix(overrides, found.sectors)) is not None
    ]


def warning_lines(campaign: Campaign) -> list[str]:
    """The summary's warning and what each fix does; nothing when the campaign is safe."""
    found = early_end(campaign)
    if found is None:
        return []
    goal, raised = found.goal, found.most + 1
    return [
        _(
            "⚠ The first resolution can end this campaign before anything else matters: on "
            "this map a side can have {armies} or more, and no other side, in {n} sector by "
            "then, which captures it, and {n} captured sector wins.",
            "⚠ The first resolution can end this campaign before anything else matters: on "
            "this map a side can have {armies} or more, and no other side, in each of {n} "
            "sectors by then, which captures them, and {n} captured sectors win.",
            goal,
        ).format(armies=armies(found.capture_armies), n=goal),
        _(
            "«🏆 Captured sectors to win: {n}» asks for more than the first resolution can give."
        ).format(n=raised),
        *(fix.line for fix in module_fixes(campaign, found)),
    ]


def fix_rows(campaign: Campaign, button: Button) -> list[list[InlineKeyboardButton]]:
    """The fixes as buttons, one a row (two do not fit a phone's row); none when the campaign
    is safe."""
    found = early_end(campaign)
    if found is None:
        return []
    goal = _("🏆 Captured sectors to win: {n}").format(n=found.most + 1)
    return [
        [button(goal, campaign, ACTION, GOAL)],
        *(
            [button(fix.label, campaign, ACTION, fix.value)]
            for fix in module_fixes(campaign, found)
        ),
    ]


def fixed(campaign: Campaign, fix: str) -> dict[str, Any] | None:
    """The overrides after a fix, or ``None`` for one that does not fit any more (the
    campaign is safe now, or its module is off)."""
    found = early_end(campaign)
    if found is None:
        return None
    if fix == GOAL:
        return _with_goal(campaign.ruleset_overrides, found.most + 1)
    chosen = next((item for item in module_fixes(campaign, found) if item.value == fix), None)
    return None if chosen is None else _with_goal(chosen.overrides, found.sectors)


def _with_goal(overrides: dict[str, Any], goal: int) -> dict[str, Any]:
    """The overrides with ``sectors_to_win`` at ``goal`` (stored only when not the default)."""
    changed = dict(overrides)
    if goal == Ruleset().sectors_to_win:
        changed.pop("sectors_to_win", None)
    else:
        changed["sectors_to_win"] = goal
    return changed
