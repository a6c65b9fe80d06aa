"""Siege in the private chat (MODULES.md S8): the starting weather picked with buttons, and at
the campaign's end the strategist's reward claim and the GM's choices for it."""

from __future__ import annotations

import re

from aiogram import Router
from aiogram.types import CallbackQuery, Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.private import screens
from bot.modules.siege.callbacks import RewardPick, RewardPress, WeatherPick
from bot.modules.siege.reward_screens import (
    MAX_COUNT,
    choice_screen,
    claim_lines,
    claim_screen,
    claimed_items,
    unpack_counts,
)
from bot.modules.siege.rewards import (
    ClaimOutcome,
    ClaimResult,
    choose_reward,
    claim_over,
    claim_rewards,
    claim_side,
    final_vp,
    pending_choices,
    reward_settings,
)
from bot.modules.siege.screens import weather_name
from bot.runtime.clock import Clock
from bot.services.turns import ChoiceOutcome, make_choice
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import ClaimProblem, ClaimProblemCode
from storage import CampaignStatus, Person, Store


async def weather_pressed(
    query: CallbackQuery, callback_data: WeatherPick, store: Store, clock: Clock, person: Person
) -> None:
    """A weather button: the choice is re-checked (who pressed, whether it is still to make)."""
    campaign = await store.campaign(callback_data.c)
    if campaign is None or not 0 <= callback_data.w < 8:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    made = await make_choice(
        store, campaign.id, SIEGE, {"weather": callback_data.w}, person.user_id, clock.now()
    )
    if made is ChoiceOutcome.NOT_YOURS:
        await query.answer(
            _("Only the choosing side's strategist or a GM picks the starting weather."),
            show_alert=True,
        )
        return
    if made is not ChoiceOutcome.MADE:
        await query.answer(
            _("The starting weather is chosen already, or the turn has moved on."),
            show_alert=True,
        )
        return
    name = weather_name(campaign, callback_data.w, screens.language())
    await query.answer()
    if isinstance(query.message, Message):
        await query.message.edit_text(
            _("{title}: the starting weather is {weather}.").format(
                title=campaign.title, weather=name
            )
        )


def _refusal(result: ClaimResult) -> str:
    """Why a claim or a choice was not recorded, and what to do instead."""
    match result.outcome:
        case ClaimOutcome.NOT_STRATEGIST:
            return _("Only the side's strategist claims its rewards.")
        case ClaimOutcome.NOT_GM:
            return _("Only a GM of this campaign chooses the rewards' variants.")
        case ClaimOutcome.ALREADY:
            return _("That is decided already: a claim and a GM's choice are final.")
        case ClaimOutcome.REFUSED if any(
            p.code is ClaimProblemCode.OVER_BUDGET for p in result.problems
        ):
            return _("That costs more than the side's {vp} VP: take something off.").format(
                vp=result.vp
            )
        case ClaimOutcome.NO_REWARDS:
            return _("Rewards are claimed once a siege campaign is over.")
    return _("That button is not valid any more.")


async def reward_pressed(
    query: CallbackQuery, callback_data: RewardPress, store: Store, clock: Clock, person: Person
) -> None:
    """The claim screen: one more or one less of an item, or the claim sent (re-checked: the
    presser is the side's strategist, the campaign is over, the side has not claimed)."""
    campaign = await store.campaign(callback_data.c)
    settings = None if campaign is None else reward_settings(campaign)
    if campaign is None or settings is None or not claim_over(campaign):
        await query.answer(_refusal(ClaimResult(ClaimOutcome.NO_REWARDS)), show_alert=True)
        return
    side = await claim_side(store, campaign, person.user_id)
    if side is None:
        await query.answer(_refusal(ClaimResult(ClaimOutcome.NOT_STRATEGIST)), show_alert=True)
        return
    counts = unpack_counts(callback_data.n, len(settings.rewards))
    if counts is None:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    if side in await store.reward_claims(campaign.id):
        await query.answer(_refusal(ClaimResult(ClaimOutcome.ALREADY)), show_alert=True)
        return
    vp = (await final_vp(store, campaign)).get(side, 0)
    language = screens.language()
    if callback_data.a == "ok":
        result = await claim_rewards(
            store, campaign, person.user_id, claimed_items(settings, counts), clock.now()
        )
        if result.outcome is not ClaimOutcome.SAVED:
            await query.answer(_refusal(result), show_alert=True)
            return
        claim = (await store.reward_claims(campaign.id))[side]
        await query.answer()
        if isinstance(query.message, Message):
            await query.message.edit_text(
                "\n".join(
                    [
                        _("🎁 Claimed for {total} of {vp} VP:").format(
                            total=claim.total, vp=claim.vp
                        ),
                        *claim_lines(settings, claim, language),
                        _(
                            "The GM has been told; the group hears of it once the GM has "
                            "chosen where an item says «or»."
                        )
                        if pending_choices(settings, claim)
                        else _("The GM and the group have been told."),
                    ]
                )
            )
        return
    index = callback_data.k
    if callback_data.a not in ("+", "-") or not 0 <= index < len(counts):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    counts[index] += 1 if callback_data.a == "+" else -1
    total = sum(item.price * n for item, n in zip(settings.rewards, counts, strict=True))
    if counts[index] < 0 or counts[index] > MAX_COUNT:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    if total > vp:
        await query.answer(
            _refusal(
                ClaimResult(
                    ClaimOutcome.REFUSED,
                    problems=(ClaimProblem(code=ClaimProblemCode.OVER_BUDGET, total=total, vp=vp),),
                    vp=vp,
                )
            ),
            show_alert=True,
        )
        return
    names = {s.id: s.name for s in await store.sides(campaign.id)}
    text, keyboard = claim_screen(campaign, settings, names.get(side, side), vp, counts, language)
    await query.answer()
    if isinstance(query.message, Message):
        await query.message.edit_text(text, reply_markup=keyboard)


async def reward_picked(
    query: CallbackQuery, callback_data: RewardPick, store: Store, clock: Clock, person: Person
) -> None:
    """A GM's one-tap choice for a claimed reward (re-checked: a GM of this campaign, the place
    still open, the variant one of the item's)."""
    campaign = await store.campaign(callback_data.c)
    settings = None if campaign is None else reward_settings(campaign)
    sides = [] if campaign is None else await store.sides(campaign.id)
    if campaign is None or settings is None or not 0 <= callback_data.s < len(sides):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    side = sides[callback_data.s]
    result = await choose_reward(
        store, campaign, person.user_id, side.id, callback_data.p, callback_data.v, clock.now()
    )
    if result.outcome is not ClaimOutcome.SAVED:
        await query.answer(_refusal(result), show_alert=True)
        return
    claim = (await store.reward_claims(campaign.id))[side.id]
    text, keyboard = choice_screen(
        campaign,
        settings,
        callback_data.s,
        side.name,
        claim,
        pending_choices(settings, claim),
        screens.language(),
    )
    await query.answer()
    if isinstance(query.message, Message):
        await query.message.edit_text(text, reply_markup=keyboard)


_ITEM_TEXT = r"\d{1,2}(?:\s*[xх×*]\s*\d{1,2})?"
# The items are separated by at least one space, comma or semicolon: with the separator
# optional, «claim 1111…x» could be split into items in exponentially many ways to fail.
_CLAIM = re.compile(
    rf"(?:claim|rewards?|награды?|забрать|беру)\s*:?\s*({_ITEM_TEXT}(?:[\s,;]+{_ITEM_TEXT})*)[,;]?",
    re.IGNORECASE,
)
_ITEM = re.compile(r"(\d{1,2})(?:\s*[xх×*]\s*(\d{1,2}))?")
CLAIM_LONGEST = 200
"""The longest text read as a claim (a reward deck has at most a few dozen items)."""


async def typed_claim(message: Message, store: Store, person: Person) -> bool:
    """«claim 8 4 2» (or «награды 8 4 2», «claim 2x2 8»): the items by their numbers on the
    claim screen, shown on a claim screen to check and send with its button (a typed claim is
    never sent at once). ``False`` if the text is not a claim or the person has no claim to
    make (the caller reads the text as it would otherwise)."""
    typed = (message.text or "").strip()
    found = _CLAIM.fullmatch(typed) if len(typed) <= CLAIM_LONGEST else None
    if found is None:
        return False
    for membership in reversed(await store.memberships(person.user_id)):
        campaign = membership.campaign
        settings = reward_settings(campaign)
        side = await claim_side(store, campaign, person.user_id)
        if settings is None or side is None or campaign.status is not CampaignStatus.FINISHED:
            continue
        vp = (await final_vp(store, campaign)).get(side, 0)
        if vp <= 0 or side in await store.reward_claims(campaign.id):
            continue
        counts = [0] * len(settings.rewards)
        for number, times in _ITEM.findall(found.group(1)):
            index = int(number) - 1
            if not 0 <= index < len(counts):
                await message.answer(
                    _("There is no item {n}: the list has items 1 to {last}.").format(
                        n=number, last=len(counts)
                    )
                )
                return True
            counts[index] += int(times or 1)
        total = sum(item.price * n for item, n in zip(settings.rewards, counts, strict=True))
        if total > vp or max(counts) > MAX_COUNT:
            await message.answer(
                _refusal(
                    ClaimResult(
                        ClaimOutcome.REFUSED,
                        (ClaimProblem(code=ClaimProblemCode.OVER_BUDGET, total=total, vp=vp),),
                        vp,
                    )
                )
            )
            return True
        names = {s.id: s.name for s in await store.sides(campaign.id)}
        text, keyboard = claim_screen(
            campaign, settings, names.get(side, side), vp, counts, screens.language()
        )
        await message.answer(text, reply_markup=keyboard)
        return True
    return False


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.callback_query.register(weather_pressed, WeatherPick.filter())
    router.callback_query.register(reward_pressed, RewardPress.filter())
    router.callback_query.register(reward_picked, RewardPick.filter())
    return router
