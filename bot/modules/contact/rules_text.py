"""Contact's part of ``/rules`` (``bot.texts.rules``), with the campaign's numbers: its
section (defences, moves, zombies, chains, retreats, VP) and the VP that win on Monday."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot.modules.contact import setup as contact_setup
from bot.modules.contact.handlers.wizard import defences_words
from bot.texts.rules import LISTED, RulesView, away, module_settings, sector_order
from rules.modules.contact import NAME, ContactSettings


def button() -> str:
    """The label of the section's button."""
    return _("🧟 Contact")


def victory_lines(view: RulesView) -> list[str]:
    """How Contact wins the campaign, for the Monday section: VP, when they win."""
    settings = module_settings(view.game, NAME, ContactSettings)
    if settings is None or settings.vp_to_win is None:
        return []
    return [
        _(
            "Contact: a side with {vp} VP or more wins (the most VP; ties: captured "
            "sectors, then armies)."
        ).format(vp=settings.vp_to_win)
    ]


def rules_lines(view: RulesView) -> list[str]:
    """Contact: the defences at the start, moves into contact, zombies, chains, retreats and
    victory points, with this campaign's numbers."""
    settings = module_settings(view.game, NAME, ContactSettings)
    if settings is None:
        return []
    found = contact_setup.defences(view.campaign)
    names = view.side_names
    lines = [_("Defences at the start:") if found else _("No defences on the map.")]
    for sector in sorted(found, key=sector_order)[:LISTED]:
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
            distance=away(settings.transport_range),
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
