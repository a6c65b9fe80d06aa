"""``/rules`` in words: the campaign's rules with its own numbers, one section a screen.

Every number here is read from the campaign as stored (its ruleset overrides with the
defaults filled in, its module settings, its schedule and policies), never written into a
text, so the screen is always true to the settings: ``tests/bot/test_rules_command.py``
compares it with them for random settings. Sections are short enough for a phone; the
handler (``bot/handlers/rules.py``) shows one at a time with buttons to the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _
from pydantic import BaseModel

from bot.modules import BOT_MODULES
from bot.texts.core import (
    describe_foc,
    joining_label,
    no_show_label,
    outcome_label,
    phase_name,
    policy_label,
    schedule_label,
)
from bot.texts.moments import zone_label
from bot.texts.sectors import sector_label
from rules import Game, Ruleset
from rules.ruleset import Outcome
from storage import Campaign, Side

CORE_SECTIONS = ("campaign", "orders", "battles", "monday")
"""The core's sections, in the order of the buttons; the enabled modules' follow, each from its
package (:meth:`bot.modules.BotModule.rules_button` and ``rules_lines``)."""
NEIGHBOURS_SHOWN = 12
"""Maps up to this many sectors list each sector's neighbours; larger ones point to /map."""
SettingsT = TypeVar("SettingsT", bound=BaseModel)
LISTED = 30
"""The most tokens, defences, heroes or rewards a section lists one a line."""


@dataclass(frozen=True)
class RulesView:
    """What the rules screens read: the campaign as stored, its sides, its game (map, ruleset,
    modules), and the moments its schedule brings, already worded (``plan``: one line each)."""

    campaign: Campaign
    sides: Sequence[Side]
    game: Game
    deadline: str | None
    plan: Sequence[str]
    language: str
    """The reader's language: the names of sectors, tokens and weather states are in it."""
    passed: str | None = None
    """Instead of the deadline: it has passed while its step waits, and what comes next."""

    @property
    def side_names(self) -> dict[str, str]:
        """Each side's name by its id."""
        return {side.id: side.name for side in self.sides}

    def sector(self, sector: str) -> str:
        """A sector as every screen shows it: «2 West»."""
        return sector_label(self.game.map, sector, self.language)


def sections_of(game: Game) -> tuple[str, ...]:
    """The sections this campaign's rules have: the core's four, then each enabled module's
    that has one, in the registry's order."""
    enabled = game.ruleset.modules
    modules = tuple(
        name
        for name, module in BOT_MODULES.items()
        if name in enabled and module.rules_button() is not None
    )
    return CORE_SECTIONS + modules


def section_button(section: str) -> str:
    """The label of a section's button."""
    labels = {
        "campaign": _("📋 Campaign"),
        "orders": _("📝 Orders"),
        "battles": _("⚔️ Battles"),
        "monday": _("🏁 Monday and victory"),
    }
    if section in labels:
        return labels[section]
    label = BOT_MODULES[section].rules_button()
    assert label is not None, section  # sections_of names only modules with a section
    return label


def section_text(view: RulesView, section: str) -> str:
    """The text of one section, headed by the campaign's title and the section's place."""
    shown = sections_of(view.game)
    head = _("📖 Rules of «{title}» ({n} of {total})").format(
        title=view.campaign.title, n=shown.index(section) + 1, total=len(shown)
    )
    writers = {
        "campaign": campaign_lines,
        "orders": orders_lines,
        "battles": battles_lines,
        "monday": monday_lines,
    }
    writer = writers.get(section)
    lines = writer(view) if writer is not None else BOT_MODULES[section].rules_lines(view)
    return "\n".join([head, "", *lines])


def armies(n: int) -> str:
    """«3 armies», the number with its noun."""
    return _("{n} army", "{n} armies", n).format(n=n)


# ---- the core ----------------------------------------------------------------------------


def campaign_lines(view: RulesView) -> list[str]:
    """The map and its sectors, the sides, where the campaign stands, the schedule with its
    coming dates, and the policies for silence."""
    # Imported here: ``bot.posts`` imports every post, some of them the handlers, and the
    # handlers this module; so ``import bot.texts.rules`` works first (tests/test_imports.py).
    from bot.posts.group import colour_mark  # noqa: PLC0415

    campaign, game = view.campaign, view.game
    count = len(game.map.sectors)
    shown = _("{name} ({n} sector)", "{name} ({n} sectors)", count).format(
        name=game.map.names.get(view.language, game.map.name), n=count
    )
    lines = [_("Map: {map}.").format(map=shown)]
    sectors = game.map.sectors
    if len(sectors) <= NEIGHBOURS_SHOWN:
        lines.append(_("Sectors and their neighbours:"))
        for sector in sectors:
            near = ", ".join(view.sector(n) for n in sorted(sector.neighbours, key=sector_order))
            lines.append(
                _("• {sector}: {neighbours}").format(
                    sector=view.sector(sector.id), neighbours=near or _("none")
                )
            )
    else:
        lines.append(_("/map shows the sectors and their neighbours."))
    lines.append("")
    lines.append(_("Sides:"))
    lines += [f"{colour_mark(side.colour)} {side.name}" for side in view.sides] or [_("none yet")]
    lines.append("")
    if campaign.turn >= 1:
        now = _("Now: turn {turn}, {phase}.").format(
            turn=campaign.turn, phase=phase_name(campaign.phase)
        )
    else:
        now = _("Now: {phase}.").format(phase=phase_name(campaign.phase))
    lines.append(now)
    if view.passed is not None:
        lines.append(view.passed)
    elif view.deadline is not None:
        lines.append(_("Deadline: {moment}.").format(moment=view.deadline))
    lines.append(
        _("Schedule ({zone} time): {schedule}.").format(
            zone=zone_label(campaign.time_zone, view.language),
            schedule=schedule_label(campaign),
        )
    )
    if view.plan:
        lines.append(_("Coming:"))
        lines += list(view.plan)
    lines.append("")
    lines.append(
        _("When a side gives no orders by the deadline, {policy}.").format(
            policy=no_show_label(campaign.no_show_policy)
        )
    )
    lines.append(
        _("A battle nobody reports by the deadline: {policy}.").format(
            policy=policy_label(campaign.unreported_policy)
        )
    )
    lines.append(_("Joining: {joining}.").format(joining=joining_label(campaign.joining)))
    modules = [section_button(name) for name in sections_of(game) if name not in CORE_SECTIONS]
    lines.append(
        _("Rule modules: {modules}.").format(modules=", ".join(modules))
        if modules
        else _("Rule modules: none.")
    )
    return lines


def sector_order(sector: str) -> tuple[int, int, str]:
    return (0, int(sector), "") if sector.isdigit() else (1, 0, sector)


def orders_lines(view: RulesView) -> list[str]:
    """Deployment and the orders a side gives each turn, with this campaign's numbers."""
    ruleset = view.game.ruleset
    per = ruleset.armies_per_attack
    return [
        _(
            "Deployment: each side places {armies} in secret over exactly {sectors}, at least "
            "1 army in each; sides may share a sector. The first map is posted when every "
            "side has placed its armies or the deployment ends."
        ).format(
            armies=armies(ruleset.start_armies),
            sectors=_(
                "{n} different sector", "{n} different sectors", ruleset.start_sectors
            ).format(n=ruleset.start_sectors),
        ),
        "",
        _(
            "Orders are secret until the turn resolves; they may change until the orders "
            "window closes. For each sector where the side has armies, one of:"
        ),
        _(
            "• move: some armies to one neighbouring sector, at least 1 army stays; moved "
            "armies take part in no battle this turn, neither where they leave nor where they "
            "arrive;"
        ),
        _(
            "• attack: a side that has armies in this sector at the start of the turn; one "
            "attack for every {per} (rounded up: {examples}); each attack is one battle;"
        ).format(per=armies(per), examples=_attack_examples(ruleset)),
        _("• fortify: what a sector without an order does."),
        _(
            "And once a turn: the sector for the orbital reinforcement, one where the side has "
            "armies. Without it the army lands in the side's smallest sector."
        ),
    ]


def _span(low: int, high: int) -> str:
    """ "4–6 armies"."""
    return _("{low}–{high} army", "{low}–{high} armies", high).format(low=low, high=high)


def _attack_examples(ruleset: Ruleset) -> str:
    """«1–3 armies: 1 attack, 4–6 armies: 2 attacks»."""
    per = ruleset.armies_per_attack
    parts = []
    for attacks in (1, 2):
        low, high = (attacks - 1) * per + 1, attacks * per
        span = armies(low) if low == high else _span(low, high)
        parts.append(
            _("{armies}: {n} attack", "{armies}: {n} attacks", attacks).format(
                armies=span, n=attacks
            )
        )
    return ", ".join(parts)


def battles_lines(view: RulesView) -> list[str]:
    """The battle list, the force organisation table, the outcomes and their losses, and how
    results are reported."""
    ruleset = view.game.ruleset
    margins = view.campaign.score_margins
    lines = [
        _(
            "The battle list (when the orders close): one battle per attack, {points} points "
            "a side. A side's armies in the sector count in each of its battles there and set "
            "its force organisation:"
        ).format(points=ruleset.battle_points)
    ]
    rows = ruleset.foc_table
    for index, row in enumerate(rows):
        if index == len(rows) - 1:
            count = _("{n} army or more", "{n} armies or more", row.armies).format(n=row.armies)
        elif rows[index + 1].armies - 1 == row.armies:
            count = armies(row.armies)
        else:
            count = _span(row.armies, rows[index + 1].armies - 1)
        limits = describe_foc(row.limits)
        lines.append(_("• {armies}: {limits}").format(armies=count, limits=limits))
    lines += [
        _(
            "A defender that fortified the sector may choose the table side and re-roll the "
            "roll for the first turn, once a turn in that sector."
        ),
        "",
        _("Outcomes and the armies lost in the battle's sector:"),
    ]
    losses = ruleset.losses
    for outcome in Outcome:
        lost = losses.for_outcome(outcome)
        if not lost:
            words = _("nobody loses an army")
        elif outcome.has_winner:
            words = _("the loser loses {n} army", "the loser loses {n} armies", lost).format(n=lost)
        else:
            words = _("each side loses {n} army", "each side loses {n} armies", lost).format(n=lost)
        lines.append(
            _("• {outcome}: {losses}").format(outcome=outcome_label(outcome), losses=words)
        )
    if get_i18n().current_locale != "en":
        # The rules' text names the outcomes in English: said once, here (docs/glossary.md).
        lines.append(
            _(
                "The rules' text names them in English: Draw, Bloody draw, Solid victory, "
                "Crushing victory, Slaughter."
            )
        )
    lines += [
        _(
            "A game scored in points: a margin under {solid} is a draw, from {solid} a solid "
            "victory, from {crushing} a crushing one, from {slaughter} a slaughter."
        ).format(solid=margins.solid, crushing=margins.crushing, slaughter=margins.slaughter),
        "",
        _(
            "Results: either side reports in the private chat (/battles), the other confirms "
            "or disputes it. A report nobody answers by the deadline stands; a dispute goes "
            "to the GM, who decides. A battle nobody reports: {policy}."
        ).format(policy=policy_label(view.campaign.unreported_policy)),
    ]
    return lines


def monday_lines(view: RulesView) -> list[str]:
    """The resolution's steps in order and what wins the campaign."""
    ruleset = view.game.ruleset
    lines = [
        _("The resolution, in this order:"),
        _("1. Every battle's losses at once (never below 0)."),
        _("2. Moved armies arrive."),
        _(
            "3. Capture: a side with {armies} or more in a sector where no other side has "
            "any captures it."
        ).format(armies=armies(ruleset.capture_min_armies)),
        _(
            "4. Replenishment: where exactly one side has armies left (not counting armies "
            "that moved this turn), it gets +{n} there."
        ).format(n=ruleset.replenishment),
        _(
            "5. Orbital reinforcement: every side still on the map gets +{n} in its "
            "reinforcement sector, else in its smallest sector."
        ).format(n=ruleset.reinforcement),
        _(
            "6. Victory: a side holding {sectors} wins; so does a side whose opponents have no "
            "armies left. A side with no armies is out."
        ).format(
            sectors=_("{n} captured sector", "{n} captured sectors", ruleset.sectors_to_win).format(
                n=ruleset.sectors_to_win
            )
        ),
    ]
    for name, module in BOT_MODULES.items():
        if name in ruleset.modules:
            lines += module.rules_victory_lines(view)
    lines += [
        "",
        _(
            "Then the new map is posted here with what happened, and every player gets their "
            "side's summary in private."
        ),
    ]
    return lines


def module_settings(game: Game, name: str, model: type[SettingsT]) -> SettingsT | None:
    """A module's settings in force, or ``None`` when the campaign does not enable it."""
    return game.settings_of(name, model) if name in game.ruleset.modules else None


def away(n: int) -> str:
    """ "up to 2 sectors away": how far a guard or a transport reaches."""
    return _("up to {n} sector away", "up to {n} sectors away", n).format(n=n)
