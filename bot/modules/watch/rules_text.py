"""The Watches' part of ``/rules`` (``bot.texts.rules``), with the campaign's numbers: their
section (heroes, the NPC marker, hands, duels, wounds) and the heroes' victory on Monday."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot.modules.watch.texts import deck_words, duel_mode_words
from bot.texts.rules import LISTED, RulesView, module_settings
from rules.modules.watch import NAME, WatchSettings


def button() -> str:
    """The label of the section's button."""
    return _("🌃 Watches")


def victory_lines(view: RulesView) -> list[str]:
    """How the heroes win the campaign, for the Monday section, when they can."""
    settings = module_settings(view.game, NAME, WatchSettings)
    if settings is None or not settings.hero_victory:
        return []
    return [_("Watches: a side whose heroes are the only ones alive wins.")]


def rules_lines(view: RulesView) -> list[str]:
    """The Watches: the heroes, the NPC marker, hands, duels and wounds, with this campaign's
    numbers."""
    settings = module_settings(view.game, NAME, WatchSettings)
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
