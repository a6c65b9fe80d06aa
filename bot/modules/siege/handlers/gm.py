"""A GM carries out a siege card's effect (MODULES.md S7): the typed answer to «Carry out a
card» (in the GM's private chat, or under an old panel in the group), checked by the rules and
applied to the turn's start (audited)."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import Message, User
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.filters import Awaited
from bot.handlers.group.guards import AwaitedAnswer, ask_again, gm_member, not_gm_text
from bot.modules.siege.gm import (
    AdjustmentInputError,
    AdjustOutcome,
    adjust_turn_start,
    parse_adjustment,
)
from bot.modules.siege.texts import describe_adjustment_problem
from bot.runtime.clock import Clock
from bot.runtime.middlewares import display_name
from bot.services.turns import game_for
from bot.texts.orders import Vocabulary
from storage import Person, Prompt, Store

GM_ADJUST = "gm.adjust"


def adjust_question(user: User) -> str:
    """What the GM is asked to type."""
    return _(
        "{name}, reply with the card's effect, one change a line: «Red 2 -1» (armies of a side "
        "in a sector), «VP Blue +2», «weather +1» (steps clockwise), and «reason: …» (the card). "
        "Nothing may go below zero."
    ).format(name=display_name(user))


def _adjust_help(line: int, words: str) -> str:
    head = (
        _("Line {line} cannot be read: «{words}».").format(line=line, words=words)
        if line
        else _("No change was found.")
    )
    return (
        head
        + " "
        + _("Write one change a line: «Red 2 -1», «VP Blue +2», «weather +1», «reason: …».")
    )


async def adjust_answer(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """The GM's typed card effect: read, checked by the rules, applied, or refused with why."""
    if prompt.answered_by is not None:
        await message.reply(_("That change was taken already."))
        return
    campaign = await store.campaign(prompt.campaign_id or 0)
    if campaign is None or campaign.turn != prompt.data.get("turn"):
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.reply(_("The turn has moved on; nothing was changed."))
        return
    if await gm_member(store, campaign, person.user_id) is None:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.reply(not_gm_text())
        return
    game = game_for(campaign)
    sides = await store.sides(campaign.id)
    vocabulary = Vocabulary.build(game.map, {side.id: [side.name] for side in sides})
    try:
        adjustment = parse_adjustment(message.text or "", vocabulary)
    except AdjustmentInputError as error:
        await ask_again(message, _adjust_help(error.line, error.words))
        return
    result = await adjust_turn_start(store, campaign, adjustment, person.user_id, clock.now())
    if result.outcome is AdjustOutcome.REFUSED:
        names = {side.id: side.name for side in sides}
        reasons = [
            describe_adjustment_problem(problem, game.map, names, get_i18n().current_locale)
            for problem in result.problems
        ]
        await ask_again(message, "\n".join([_("Nothing was changed:"), *reasons]))
        return
    await store.clear_prompt(message.chat.id, person.user_id, message.message_id)
    if result.outcome is AdjustOutcome.CLOSED:
        await message.reply(_("The orders are closed now; nothing was changed."))
        return
    await message.reply(_("Done: the change is posted in the group and kept in the audit log."))


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(adjust_answer, Awaited(F.text), AwaitedAnswer(GM_ADJUST))
    return router
