"""The GM's Night Watch changes in words (MODULES.md W1, W7): why the rules refuse one and what
to do instead, the group's lines for each change and its undo, and the "-1" tokens on a card.

Hero names reach these functions in the same mapping as the side names, as in
``bot.modules.watch.texts``; no hand is read here.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiogram.utils.i18n import gettext as _

from bot.modules.watch.texts import hero_name, spell_words
from bot.texts.sectors import sector_label
from rules import CampaignMap
from rules.modules.watch import WatchAdjustCode, WatchAdjustmentError, WatchChange


def describe_change_problem(
    error: WatchAdjustmentError,
    campaign_map: CampaignMap,
    names: Mapping[str, str],
    language: str,
) -> str:
    """Why the rules refuse a GM's watch change, and what to do instead."""
    p = error.params

    def place(key: str) -> str:
        return sector_label(campaign_map, str(p.get(key, "")), language)

    match error.code:
        case WatchAdjustCode.NO_NPC:
            return _("This campaign has no NPC marker: the GM names one in the setup.")
        case WatchAdjustCode.UNKNOWN_SECTOR:
            return _("There is no location {sector} on this map.").format(sector=p.get("sector"))
        case WatchAdjustCode.NPC_MOVE_NOT_ADJACENT:
            return _(
                "The NPC marker moves one location a turn, to a neighbouring one: {to} is not "
                "next to {sector}. Pick one of the locations offered."
            ).format(to=place("to"), sector=place("sector"))
        case WatchAdjustCode.HERO_ID_TAKEN:
            return _("A hero with that id is in the campaign already; nothing was added.")
        case WatchAdjustCode.TOO_MANY_HEROES:
            most = int(p.get("max", 0))
            return _(
                "A campaign has at most {most} hero, the fallen included: no more can join.",
                "A campaign has at most {most} heroes, the fallen included: no more can join.",
                most,
            ).format(most=most)
        case WatchAdjustCode.SIDE_NOT_IN_PLAY:
            side = str(p.get("side", ""))
            return _("Side «{side}» has no armies on the map: a hero joins a side in play.").format(
                side=names.get(side, side)
            )
        case WatchAdjustCode.TURN_ALREADY_BEGUN:
            return _(
                "Turn {turn} has begun and its spells are dealt: a hero added now enters on "
                "turn {earliest} or later."
            ).format(turn=p.get("enters_turn"), earliest=p.get("earliest"))
        case WatchAdjustCode.UNKNOWN_HERO:
            return _("There is no such hero in this campaign.")
        case WatchAdjustCode.NO_SUCH_PLAY:
            return _(
                "{hero} played no spell number {play} this turn: pick a spell from the list."
            ).format(hero=hero_name(names, str(p.get("hero", ""))), play=p.get("play"))
        case _:
            return _("A spell is lowered by 0 to {most}.").format(most=p.get("max"))


def change_lines(
    change: WatchChange,
    campaign_map: CampaignMap,
    names: Mapping[str, str],
    language: str,
    *,
    undone: bool = False,
) -> list[str]:
    """The group's lines for a GM's NPC move or added hero (``undone``: taken back)."""
    if change.change == "npc" and change.to is not None:
        to = sector_label(campaign_map, change.to, language)
        if undone:
            return [
                _("👤 The NPC marker goes back: the move to {sector} is taken back.").format(
                    sector=to
                )
            ]
        return [_("👤 The NPC marker moves to {sector}.").format(sector=to)]
    if change.change == "hero" and change.spec is not None:
        spec = change.spec
        side = names.get(spec.side, spec.side)
        if undone:
            return [
                _("🧙 {hero} (side «{side}») does not join the game after all.").format(
                    hero=spec.name, side=side
                )
            ]
        return [
            _(
                "🧙 {hero} (side «{side}», initiative {initiative}) joins the game: enters on "
                "turn {turn} in {sector}, dealt spells with the others."
            ).format(
                hero=spec.name,
                side=side,
                initiative=spec.initiative,
                turn=spec.enters_turn,
                sector=sector_label(campaign_map, spec.start, language),
            )
        ]
    return []


def laid_card_words(card: str, target: str, names: Mapping[str, str]) -> str:
    """A laid card: «attack 3 on Андрей»."""
    return _("{spell} on {target}").format(spell=spell_words(card), target=hero_name(names, target))


def card_lowered_post(
    hero: str, card: str, target: str, lowered_by: int, names: Mapping[str, str], turn: int
) -> str:
    """The group: the GM put "-1" tokens on a laid card (or took them off)."""
    laid = laid_card_words(card, target, names)
    if not lowered_by:
        return _(
            "🃏 Turn {turn}: the GM took the tokens off {hero}'s spell, {laid}: it counts as "
            "printed."
        ).format(turn=turn, hero=hero_name(names, hero), laid=laid)
    power = max(0, int(card[1:]) - lowered_by)
    return _(
        "🃏 Turn {turn}: the GM lowers {hero}'s spell, {laid}, by {n}: it counts {power} when "
        "the wounds are counted."
    ).format(turn=turn, hero=hero_name(names, hero), laid=laid, n=lowered_by, power=power)
