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

from bot.handlers.group.setup import (
    joining_label,
    policy_label,
    schedule_label,
)
from bot.modules.contact import setup as contact_setup
from bot.modules.contact.handlers.wizard import defences_words
from bot.modules.siege import setup as siege_setup
from bot.modules.siege.handlers.wizard import holder_words, token_kind_name
from bot.modules.siege.texts import token_label
from bot.modules.watch.texts import deck_words, duel_mode_words
from bot.moments import zone_label
from bot.posts.group import colour_mark
from bot.sectors import sector_label
from bot.services import setup_map
from bot.texts import describe_foc, no_show_label, outcome_label, phase_name
from rules import Game, Ruleset
from rules.modules.contact import NAME as CONTACT
from rules.modules.contact import ContactSettings
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import SiegeSettings
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import WatchSettings
from rules.ruleset import Outcome
from storage import Campaign, Side

MODULES = (SIEGE, CONTACT, WATCH)
SECTIONS = ("campaign", "orders", "battles", "monday", *MODULES)
"""Every section, in the order of the buttons; a module's only when it is enabled."""
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

    @property
    def side_names(self) -> dict[str, str]:
        """Each side's name by its id."""
        return {side.id: side.name for side in self.sides}

    def sector(self, sector: str) -> str:
        """A sector as every screen shows it: «2 West»."""
        return sector_label(self.game.map, sector, self.language)


def sections_of(game: Game) -> tuple[str, ...]:
    """The sections this campaign's rules have: the core's four, then each enabled module's."""
    enabled = game.ruleset.modules
    return tuple(name for name in SECTIONS if name not in MODULES or name in enabled)


def section_button(section: str) -> str:
    """The label of a section's button."""
    labels = {
        "campaign": _("📋 Campaign"),
        "orders": _("📝 Orders"),
        "battles": _("⚔️ Battles"),
        "monday": _("🏁 Monday and victory"),
        SIEGE: _("🏰 Midnight Siege"),
        CONTACT: _("🧟 Contact"),
        WATCH: _("🌃 Watches"),
    }
    return labels[section]


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
        SIEGE: siege_lines,
        CONTACT: contact_lines,
        WATCH: watch_lines,
    }
    return "\n".join([head, "", *writers[section](view)])


def armies(n: int) -> str:
    """«3 armies», the number with its noun."""
    return _("{n} army", "{n} armies", n).format(n=n)


# ---- the core ----------------------------------------------------------------------------


def campaign_lines(view: RulesView) -> list[str]:
    """The map and its sectors, the sides, where the campaign stands, the schedule with its
    coming dates, and the policies for silence."""
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
            near = ", ".join(view.sector(n) for n in sorted(sector.neighbours, key=_sector_order))
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
    if view.deadline is not None:
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
    modules = [section_button(name) for name in sections_of(game) if name in MODULES]
    lines.append(
        _("Rule modules: {modules}.").format(modules=", ".join(modules))
        if modules
        else _("Rule modules: none.")
    )
    return lines


def _sector_order(sector: str) -> tuple[int, int, str]:
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
    contact = _module_settings(view.game, CONTACT, ContactSettings)
    if contact is not None and contact.vp_to_win is not None:
        lines.append(
            _(
                "Contact: a side with {vp} VP or more wins (the most VP; ties: captured "
                "sectors, then armies)."
            ).format(vp=contact.vp_to_win)
        )
    watch = _module_settings(view.game, WATCH, WatchSettings)
    if watch is not None and watch.hero_victory:
        lines.append(_("Watches: a side whose heroes are the only ones alive wins."))
    lines += [
        "",
        _(
            "Then the new map is posted here with what happened, and every player gets their "
            "side's summary in private."
        ),
    ]
    return lines


def _module_settings(game: Game, name: str, model: type[SettingsT]) -> SettingsT | None:
    """A module's settings in force, or ``None`` when the campaign does not enable it."""
    return game.settings_of(name, model) if name in game.ruleset.modules else None


# ---- the modules ---------------------------------------------------------------------------


def siege_lines(view: RulesView) -> list[str]:
    """Midnight Siege: the tokens at the start, assaults, guards, the weather rose, cards and
    the rewards, with this campaign's numbers."""
    settings = _module_settings(view.game, SIEGE, SiegeSettings)
    if settings is None:
        return []
    campaign, language = view.campaign, view.language
    shown = view.game.map
    names = view.side_names
    pairs = list(names.items())
    tokens = [
        token.model_copy(update={"controller": _holder(token.controller, pairs)})
        for token in siege_setup.start_of(campaign)
    ]
    lines = [_("Tokens at the start:") if tokens else _("No tokens on the map.")]
    for token in tokens[:LISTED]:
        words = _("{kind} in {sector}, strength {strength}").format(
            kind=token_kind_name(token.kind),
            sector=view.sector(token.sector),
            strength=token.strength,
        )
        if token.kind == "occult":
            words += ", " + holder_words(token, names)
        lines.append(
            _("• {token}: {words}").format(
                token=token_label(shown, token.id, language), words=words
            )
        )
    if len(tokens) > LISTED:
        lines.append(_("…and {n} more (/map shows them).").format(n=len(tokens) - LISTED))
    per, die = settings.strength_per_army, settings.die
    lines += [
        "",
        _(
            "Assault (the sector's order, instead of a move or attacks there): strength = "
            "{per} × armies in the sector + a d{die}; the token falls if the total beats its "
            "strength (a tie holds). {loss} A fallen fortification gives 1 VP or one step of "
            "the weather, as ordered; a taken occult token gives its card."
        ).format(
            per=per,
            die=die,
            loss=_(
                "A failed unguarded assault costs {n} army.",
                "A failed unguarded assault costs {n} armies.",
                settings.assault_loss,
            ).format(n=settings.assault_loss),
        ),
        _(
            "Guard: a side with armies {distance} may guard a token. A guarded "
            "assault is a chain of battles, one per guard, nearest first; the stormer must win "
            "each. The guard's force organisation counts its armies plus the token's strength "
            "divided by {per} (rounded up); the stormer's units use no abilities."
        ).format(distance=_away(settings.guard_range), per=per),
    ]
    control = siege_setup.weather_control(campaign)
    steps = _("{n} step", "{n} steps", settings.weather_steps_per_turn).format(
        n=settings.weather_steps_per_turn
    )
    steering = (
        _("It is steered from {sectors} (the sector's order).").format(
            sectors=", ".join(view.sector(sector) for sector in control)
        )
        if control
        else _("No sector steers it: only won assaults move it.")
    )
    lines += [
        _(
            "Weather: a wind rose of 8 states, a step moves it one state clockwise. {steering} "
            "Each side moves it at most {steps} a turn, and a won step beyond that becomes "
            "1 VP. The last side picks the starting state."
        ).format(steering=steering, steps=steps),
        _("The states:"),
    ]
    for number, state in enumerate(settings.weather_states):
        name = state.names.get(language, state.name)
        text = state.texts.get(language, state.text)
        lines.append(f"{number}. {name}" + (f": {text}" if text else ""))
    lines += [
        _(
            "Cards: the holder of an occult token plays its card with the orders or after the "
            "battle list, one card per side in each; weakest token first. The GM carries out "
            "its text."
        ),
    ]
    roles = settings.roles.items()
    stormers = [names.get(side, side) for side, played in roles if "defender" not in played]
    defenders = [names.get(side, side) for side, played in roles if "stormer" not in played]
    if stormers or defenders:
        lines.append(
            _("Only assault: {sides}. Only guard: {others}. Every other side does both.").format(
                sides=", ".join(stormers) or _("nobody"), others=", ".join(defenders) or _("nobody")
            )
        )
    lines += ["", _("When the campaign ends, a side's VP buy rewards:")]
    for item in settings.rewards[:LISTED]:
        lines.append(
            _("• {price} VP: {text}").format(
                price=item.price, text=item.texts.get(language, item.text)
            )
        )
    return lines


def _away(n: int) -> str:
    """ "up to 2 sectors away": how far a guard or a transport reaches."""
    return _("up to {n} sector away", "up to {n} sectors away", n).format(n=n)


def _holder(owner: str | None, sides: Sequence[tuple[str, str]]) -> str | None:
    """An occult token's holder by side id (a map may name the side), as the map says when
    it names no side here."""
    return setup_map.holder_of(owner, sides) or owner


def contact_lines(view: RulesView) -> list[str]:
    """Contact: the defences at the start, moves into contact, zombies, chains, retreats and
    victory points, with this campaign's numbers."""
    settings = _module_settings(view.game, CONTACT, ContactSettings)
    if settings is None:
        return []
    found = contact_setup.defences(view.campaign)
    names = view.side_names
    lines = [_("Defences at the start:") if found else _("No defences on the map.")]
    for sector in sorted(found, key=_sector_order)[:LISTED]:
        level, owner = found[sector]
        lines.append(
            _("• {sector}: {defences}").format(
                sector=view.sector(sector), defences=defences_words(level, owner, names)
            )
        )
    lines += [
        _(
            "A sector with a side's defences is its ground while no other side holds it. The "
            "defender of a chain adds the defences' level to its armies for its force "
            "organisation."
        ),
        "",
        _(
            "Moves: a sector may send several groups, each to its own neighbour (at least 1 "
            "army stays); the groups of all sides move in turn order, and a group stops in the "
            "first hostile sector. Transport: {n} a turn, {capacity}, {distance}."
        ).format(
            n=settings.transports_per_turn,
            capacity=_("up to {n} army", "up to {n} armies", settings.transport_capacity).format(
                n=settings.transport_capacity
            ),
            distance=_away(settings.transport_range),
        ),
        _(
            "Zombies: a group that stops outside its own ground draws a zombie card; it wins "
            "when {per} × its armies reach the card (+1 for intact defences not its own). "
            "The deck: {deck}."
        ).format(
            per=settings.strength_per_army,
            deck=", ".join(str(card) for card in settings.zombie_deck),
        ),
        _(
            "Chains: where groups of several sides meet, the sector's holder defends battle 1, "
            "the arrivals attack in the order they came, and the winner of each battle defends "
            "the next one (on a draw, its defender)."
        ),
        _(
            "Retreats: a loser retreats to a neighbouring sector of its own, exhausted (it "
            "moves one sector next turn); an exhausted army that must retreat again, or has "
            "nowhere to go, is destroyed. A side may yield a sector before its chain."
        ),
        _(
            "Defences are ruined when their first defender is beaten. VP: {warlord} for each "
            "enemy warlord slain, {defences} for ruining another side's defences."
        ).format(warlord=settings.warlord_vp, defences=settings.defences_vp),
        _("A side with {vp} VP wins.").format(vp=settings.vp_to_win)
        if settings.vp_to_win is not None
        else _("VP win nothing by themselves in this campaign."),
    ]
    return lines


def watch_lines(view: RulesView) -> list[str]:
    """The Watches: the heroes, the NPC marker, hands, duels and wounds, with this campaign's
    numbers."""
    settings = _module_settings(view.game, WATCH, WatchSettings)
    if settings is None:
        return []
    names = view.side_names
    lines = [_("Heroes:") if settings.heroes else _("No heroes yet.")]
    for hero in settings.heroes[:LISTED]:
        line = _("• {hero} (side «{side}»), initiative {initiative}, starts in {sector}").format(
            hero=hero.name,
            side=names.get(hero.side, hero.side),
            initiative=hero.initiative,
            sector=view.sector(hero.start),
        )
        if hero.enters_turn > 1:
            line += _(", enters on turn {turn}").format(turn=hero.enters_turn)
        lines.append(line)
    if settings.npc is not None:
        lines.append(
            _("NPC marker: {name}, starts in {sector}; the GM moves it.").format(
                name=settings.npc.name, sector=view.sector(settings.npc.start)
            )
        )
    hours = settings.duel_step_hours
    lines += [
        "",
        _(
            "Moves: each hero moves to one neighbouring location a turn (a secret order); "
            "the Metro joins the locations."
        ),
        _(
            "Hands: as the orders open each hero is dealt up to {n} from a fresh deck: {deck}. "
            "A hand is seen only by its side."
        ).format(
            n=_("{n} spell", "{n} spells", settings.hand_size).format(n=settings.hand_size),
            deck=deck_words(settings.spell_deck),
        ),
        _(
            "Duels: where heroes of two sides stand after the moves, they lay spells from "
            "their hands on the heroes there, lowest initiative first: {mode}."
        ).format(mode=duel_mode_words(settings.duel_mode)),
    ]
    if settings.duel_mode == "initiative":
        lines.append(
            _(
                "A step lasts at most {n} hour; then it closes with nothing played.",
                "A step lasts at most {n} hours; then it closes with nothing played.",
                hours,
            ).format(n=hours)
        )
    lines += [
        _(
            "Wounds: the attacks on a hero minus the defences on it, never below 0; {n} kill. "
            "Played spells are gone; wounds do not heal."
        ).format(
            n=_("{n} wound", "{n} wounds", settings.wounds_to_kill).format(
                n=settings.wounds_to_kill
            )
        ),
        _("Victory by heroes: a side whose heroes are the only ones alive wins.")
        if settings.hero_victory
        else _("Heroes alone do not win the campaign."),
    ]
    return lines
