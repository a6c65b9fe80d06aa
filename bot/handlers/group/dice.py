"""``/roll 2d6`` in the group (MODULES.md "002"): dice drawn from the turn's roll seed by label,
recorded (``table_rolls``, exported for ``python -m rules verify-rolls``) and logged; anyone can
check them once the seed is revealed in the turn's summary."""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message
from aiogram.utils.i18n import gettext as _

from bot.clock import Clock
from bot.handlers.group.guards import campaign_here, no_campaign_words
from bot.services.dice import RollRefusal, roll_dice
from rules.table import DiceExpressionError, DiceProblemCode, parse_dice
from storage import Person, Store

log = logging.getLogger(__name__)


def dice_problem(error: DiceExpressionError) -> str:
    """Why the dice cannot be rolled, and how to write them."""
    how = _("Write the dice as /roll 2d6 (or 2д6, 2к6): up to 20 dice of 2 to 100 faces.")
    match error.code:
        case DiceProblemCode.TOO_MANY_DICE:
            head = _("At most {max} dice at once.").format(max=error.params.get("max"))
        case DiceProblemCode.TOO_FEW_FACES:
            head = _("A die has at least {min} faces.").format(min=error.params.get("min"))
        case DiceProblemCode.TOO_MANY_FACES:
            head = _("A die has at most {max} faces.").format(max=error.params.get("max"))
        case DiceProblemCode.NO_DICE:
            head = _("Roll at least one die.")
        case _:
            head = _("Those are not dice I can roll.")
    return f"{head} {how}"


async def roll(
    message: Message, command: CommandObject, store: Store, clock: Clock, person: Person
) -> None:
    """A member rolls dice at the table; the values, their labels and the seed's SHA-256."""
    campaign = await campaign_here(store, message)
    if campaign is None:
        await message.answer(await no_campaign_words(store, message))
        return
    try:
        expression = parse_dice((command.args or "").strip())
    except DiceExpressionError as error:
        await message.reply(dice_problem(error))
        return
    if await store.member(campaign.id, person.user_id) is None:
        await message.reply(_("Only the campaign's players and GMs roll dice here."))
        return
    done = await roll_dice(store, campaign, None, expression, person.user_id, clock.now())
    if done.roll is None:
        refusal = {
            RollRefusal.CAMPAIGN_OVER: _("The campaign is over: its seeds are public now."),
            RollRefusal.BUSY: _("Many dice at once: roll again in a moment."),
        }.get(done.refusal or RollRefusal.BUSY, _("Nothing was rolled."))
        await message.reply(refusal)
        return
    values = ", ".join(str(die.value) for die in done.roll.dice)
    log.info(
        "table roll campaign=%s turn=%s k=%s by=%s %s -> %s",
        campaign.id,
        done.turn,
        done.roll.k,
        person.user_id,
        expression,
        values,
    )
    lines = [
        _("🎲 {expression}: {values} (total {total}).").format(
            expression=expression, values=values, total=done.roll.total
        ),
        _(
            "Drawn from turn {turn}'s roll seed as {label}…; it is revealed in the turn's summary."
        ).format(turn=done.turn, label=done.roll.dice[0].label.rsplit("/", 1)[0]),
    ]
    if done.fresh_seeds:
        lines.append(_("SHA-256 of the roll seed: {hash}").format(hash=done.roll_commitment))
    await message.reply("\n".join(lines))


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(roll, Command("roll"))
    return router
