"""Contact's question before a battle result is reported (by a side) or decided (by a GM): was
a warlord slain? (MODULES.md C: a slain warlord gives the other side VP.) Its answers are masks
of the battle's sides: bit 0 the attacker's warlord, bit 1 the defender's."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.handlers.private import screens
from bot.modules.contact.texts import slain_warlords
from bot.modules.protocol import ReportQuestion
from bot.services.turns import game_for
from rules import Battle, BattleResult, Outcome
from rules.modules.contact import NAME, ContactSettings
from storage import Campaign

WARLORD_MASKS = ("0", "1", "2", "3")
"""Warlords slain in a contact battle: bit 0 the attacker's, bit 1 the defender's."""


def question(
    campaign: Campaign,
    battle: Battle,
    outcome: Outcome,
    winner: str | None,
    names: Mapping[str, str],
) -> ReportQuestion | None:
    """Whether a warlord was slain in ``battle``, when the campaign plays contact."""
    game = game_for(campaign)
    if game.module(NAME) is None:
        return None
    text = _(
        "Battle {id}, {result}. Was a warlord slain? A slain warlord gives the other side {vp} VP."
    ).format(
        id=battle.id,
        result=screens.result_words(outcome, winner, dict(names)),
        vp=game.settings_of(NAME, ContactSettings).warlord_vp,
    )
    return ReportQuestion(text=text, answers=_labels(battle, names))


def _labels(battle: Battle, names: Mapping[str, str]) -> dict[str, str]:
    """The warlord buttons' words by their mask (:data:`WARLORD_MASKS`)."""
    attacker, defender = battle.participants()[0], battle.participants()[-1]
    return {
        "0": _("No warlord was slain"),
        "1": _("☠ The warlord of {side} was slain").format(side=names.get(attacker, attacker)),
        "2": _("☠ The warlord of {side} was slain").format(side=names.get(defender, defender)),
        "3": _("☠ Both warlords were slain"),
    }


def data(battle: Battle, mask: str) -> JsonValue | None:
    """The contact data of a result whose warlord mask is ``mask``; ``None`` when no warlord
    was slain."""
    slain: list[JsonValue] = [
        side
        for bit, side in enumerate(battle.participants())
        if mask in WARLORD_MASKS and int(mask) & (1 << bit)
    ]
    return {"warlord_slain": slain} if slain else None


def answer(battle: Battle, result: BattleResult) -> str:
    """The warlord mask of the warlords ``result`` says were slain."""
    slain = slain_warlords(result)
    return str(sum(1 << bit for bit, side in enumerate(battle.participants()) if side in slain))
