"""``/roll 2d6`` in the group (MODULES.md "002"): dice drawn from the turn's roll seed by label,
recorded (``table_rolls``, exported for ``python -m rules verify-rolls``) and logged; anyone can
check them once the seed is revealed in the turn's summary. ``/roll 2d6 3`` rolls for battle 3
(its sides' players or a GM); the players of both its sides get the values in private too."""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.group.guards import campaign_here, no_campaign_words
from bot.runtime.clock import Clock
from bot.services.battle_rolls import roll_for_battle
from bot.services.dice import RollDone, roll_dice
from bot.texts.dice import dice_problem, roll_reply, split_battle
from rules.table import DiceExpression, DiceExpressionError, parse_dice
from storage import Person, Store

log = logging.getLogger(__name__)


def log_roll(campaign_id: int, done: RollDone, context: int | None, user: int, dice: str) -> None:
    """One line in the log per roll made: anyone with the revealed seed can recompute it."""
    if done.roll is None:
        return
    log.info(
        "table roll campaign=%s turn=%s context=%s k=%s by=%s %s -> %s",
        campaign_id,
        done.turn,
        "group" if context is None else context,
        done.roll.k,
        user,
        dice,
        ", ".join(str(die.value) for die in done.roll.dice),
    )


async def roll(
    message: Message, command: CommandObject, store: Store, clock: Clock, person: Person
) -> None:
    """A member rolls dice at the table (or for a battle); the values, their labels and the
    seed's SHA-256."""
    campaign = await campaign_here(store, message)
    if campaign is None:
        await message.answer(await no_campaign_words(store, message))
        return
    dice, battle = split_battle(command.args or "")
    try:
        expression: DiceExpression = parse_dice(dice)
    except DiceExpressionError as error:
        await message.reply(dice_problem(error))
        return
    member = await store.member(campaign.id, person.user_id)
    if member is None:
        await message.reply(_("Only the campaign's players and GMs roll dice here."))
        return
    now = clock.now()
    if battle is None:
        done = await roll_dice(store, campaign, None, expression, person.user_id, now)
    else:
        done = await roll_for_battle(store, campaign, member, battle, expression, now)
    log_roll(campaign.id, done, battle, person.user_id, str(expression))
    await message.reply(roll_reply(expression, done, battle))


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(roll, Command("roll"))
    return router
