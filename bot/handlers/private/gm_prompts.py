"""The GM's typed answers in the private chat, asked from the GM panel: a side's placement, a
side's new name, and the reason for ending the campaign.

A placement for a side that did not deploy is secret until turn 1, so the panel asks for it
here (a stored ``Prompt`` for the GM's private chat) and never in the group. Registered before
the other private screens: while such a prompt waits, the GM's plain text is the answer, not
orders or their own side's placement. The group hears only that the GM placed the side.

A question waits only while the campaign stays in the phase it was asked in, and until the
GM sends another command (:class:`bot.runtime.middlewares.CommandEndsQuestion`): after that
the GM's text is read as any other (orders, a placement).
"""

from __future__ import annotations

from typing import Any

from aiogram import Router
from aiogram.filters import Command, Filter
from aiogram.types import Message
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.filters import TYPED
from bot.runtime.clock import Clock
from bot.services import campaigns, seats
from bot.services.turns import game_for
from bot.services.window import current_entry
from bot.texts.core import armies, describe_deployment_problem
from bot.texts.orders import Vocabulary, parse_orders_text, parse_placement
from storage import Campaign, CampaignStatus, Person, Phase, Prompt, Store

GM_PLACEMENT = "gm_placement"
"""The prompt's ``field``: ``data["side"]`` names the side to place."""
GM_RENAME = "gm_rename"
"""The prompt's ``field``: ``data["side"]`` names the side to rename."""
GM_END = "gm_end"
"""The prompt's ``field``: the GM's reason for ending the campaign is awaited."""


class GmPromptWaiting(Filter):
    """Passes when the bot waits for this person's typed answer to a GM panel question in this
    chat; gives the handler the stored ``prompt``."""

    def __init__(self, field: str) -> None:
        self.field = field

    async def __call__(self, message: Message, store: Store) -> bool | dict[str, Any]:
        if message.from_user is None:
            return False
        prompt = await store.prompt(message.chat.id, message.from_user.id)
        if prompt is None or prompt.field != self.field:
            return False
        if await asked_before_the_phase(store, prompt):
            # The campaign moved on since the question (a phase began or was undone): the
            # answer it waited for may no longer fit, and the text is likely meant for the
            # new phase (orders): the question lapses and the text is read as any other.
            await store.clear_prompt(message.chat.id, message.from_user.id)
            return False
        return {"prompt": prompt}


async def reads_as_orders(store: Store, campaign: Campaign, text: str) -> bool:
    """Whether ``text`` reads as orders on this campaign's map (a line of it), or in
    deployment as a placement: words meant for a side's secret plans, which an answer the group
    reads (a side's name, a reason) must not take."""
    game = game_for(campaign)
    if campaign.phase is Phase.DEPLOYMENT:
        return parse_placement(text, Vocabulary.build(game.map, {})).placement is not None
    state = await store.turn_start(campaign.id, campaign.turn) if campaign.turn >= 1 else None
    if state is None:
        return False
    names = {s.id: [s.name] for s in await store.sides(campaign.id) if s.id in state.armies}
    vocabulary = Vocabulary.of_state(game.map, names, state)
    return any(line.problem is None for line in parse_orders_text(text, vocabulary))


def orders_not_published() -> str:
    """Why a public answer that reads as orders was not taken, and what to do."""
    return _(
        "That reads like orders or a placement, and this answer is posted to the group, so it "
        "was not taken. Type the answer again, or /cancel; then send your orders."
    )


async def asked_before_the_phase(store: Store, prompt: Prompt) -> bool:
    """Whether the prompt's campaign is in a phase that began (or an undo brought it back to)
    after the prompt was asked."""
    campaign = None if prompt.campaign_id is None else await store.campaign(prompt.campaign_id)
    if campaign is None:
        return False
    return (await current_entry(store, campaign)).began > prompt.created_at


def placement_question(campaign: Campaign, side_name: str) -> str:
    """What the GM is asked in private."""
    ruleset = game_for(campaign).ruleset
    amount = _("{armies} in {n} sector", "{armies} in {n} sectors", ruleset.start_sectors).format(
        armies=armies(ruleset.start_armies), n=ruleset.start_sectors
    )
    return _(
        "«{title}»: type {side}'s placement here as sector:armies pairs, e.g. «1:4 2:3 4:3» "
        "({amount}). It stays secret: the group hears only that you placed {side}. /cancel "
        "stops."
    ).format(title=campaign.title, side=side_name, amount=amount)


async def typed_placement(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt, i18n: I18n
) -> None:
    """The GM's typed placement for a side that did not deploy: checked by the rules, stored,
    and announced to the group without the numbers."""
    campaign = await store.campaign(prompt.campaign_id or 0)
    side_id = str(prompt.data.get("side", ""))
    gm = None if campaign is None else await store.member(campaign.id, person.user_id)
    if (
        campaign is None
        or campaign.status is CampaignStatus.FINISHED
        or campaign.phase is not Phase.DEPLOYMENT
        or gm is None
        or not gm.is_gm
    ):
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("Deployment is over; nothing was changed."))
        return
    missing = {side.id: side for side in await campaigns.missing_placements(store, campaign)}
    side = missing.get(side_id)
    if side is None:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("That side has deployed already; nothing was changed."))
        return
    try:
        placement = campaigns.parse_placement(message.text or "")
    except campaigns.PlacementInputError:
        await message.answer(
            _("Write the placement as sector:armies pairs, e.g. «1:4 2:3 4:3», or /cancel.")
        )
        return
    now = clock.now()
    outcome, problems = await campaigns.place_side(
        store, campaign, side.id, placement, person.user_id, now
    )
    if outcome is campaigns.PlaceOutcome.INVALID:
        lines = [describe_deployment_problem(problem) for problem in problems]
        lines.append(_("Send the placement again, or /cancel."))
        await message.answer("\n".join(lines))
        return
    await store.clear_prompt(message.chat.id, person.user_id)
    if outcome is campaigns.PlaceOutcome.CLOSED:
        await message.answer(_("Deployment is over; nothing was changed."))
        return
    if outcome is campaigns.PlaceOutcome.DEPLOYED:
        await message.answer(
            _("{side} confirmed its own placement meanwhile; nothing was changed.").format(
                side=side.name
            )
        )
        return
    with i18n.use_locale(campaign.language):
        notice = _("GM {gm} placed {side}, which had not deployed.").format(
            gm=person.display_name, side=side.name
        )
    await store.enqueue(campaigns.group_notice(campaign, notice, now), now)
    await message.answer(
        _("Saved: {side} at {placement}. The group is told that you placed it, not where.").format(
            side=side.name,
            placement=" ".join(f"{sector}:{count}" for sector, count in placement.items()),
        )
    )


def rename_question(campaign: Campaign, side_name: str) -> str:
    """What the GM is asked when renaming a side."""
    return _(
        "«{title}»: type the new name of side «{side}» (up to 64 characters). Its armies, "
        "orders and colour stay; the group is told. /cancel stops."
    ).format(title=campaign.title, side=side_name)


async def typed_rename(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt, i18n: I18n
) -> None:
    """The GM's typed new name for a side: checked, stored (audited) and announced."""
    campaign = await store.campaign(prompt.campaign_id or 0)
    gm = None if campaign is None else await store.member(campaign.id, person.user_id)
    if campaign is None or campaign.status is CampaignStatus.FINISHED or gm is None or not gm.is_gm:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("That campaign is over or no longer yours; nothing was changed."))
        return
    if await reads_as_orders(store, campaign, message.text or ""):
        await message.answer(orders_not_published())
        return
    now = clock.now()
    side_id = str(prompt.data.get("side", ""))
    outcome, before = await campaigns.rename_side(
        store, campaign, side_id, message.text or "", person.user_id, now
    )
    match outcome:
        case campaigns.RenameOutcome.BAD_NAME:
            await message.answer(
                _("A side's name has 1 to 64 characters. Type it again, or /cancel.")
            )
            return
        case campaigns.RenameOutcome.NAME_TAKEN:
            await message.answer(_("Another side has that name. Type another, or /cancel."))
            return
    await store.clear_prompt(message.chat.id, person.user_id)
    if outcome is campaigns.RenameOutcome.NO_SIDE or before is None:
        await message.answer(_("That side is gone; nothing was changed."))
        return
    if outcome is campaigns.RenameOutcome.UNCHANGED:
        await message.answer(_("That is its name already; nothing was changed."))
        return
    sides = {side.id: side.name for side in await store.sides(campaign.id)}
    new = sides.get(side_id, "")
    with i18n.use_locale(campaign.language):
        notice = _("GM {gm} renamed side «{old}»: it is now «{new}».").format(
            gm=person.display_name, old=before.name, new=new
        )
    await store.enqueue(campaigns.group_notice(campaign, notice, now), now)
    await message.answer(
        _("Renamed: «{old}» is now «{new}». The group is told; /gm for the tools.").format(
            old=before.name, new=new
        )
    )


def end_question(campaign: Campaign) -> str:
    """What the GM is asked when ending the campaign."""
    return _(
        "«{title}»: why does the campaign end? Type the reason (up to {n} characters, e.g. «half "
        "the players left»): the campaign ends with it, and the group and the players read it. "
        "/cancel keeps the campaign running."
    ).format(title=campaign.title, n=seats.MAX_REASON)


async def typed_end_reason(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt, i18n: I18n
) -> None:
    """The GM's typed reason: the campaign ends (audited with it), the group is told why."""
    campaign = await store.campaign(prompt.campaign_id or 0)
    gm = None if campaign is None else await store.member(campaign.id, person.user_id)
    if campaign is None or campaign.status is CampaignStatus.FINISHED or gm is None or not gm.is_gm:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("That campaign is over or no longer yours; nothing was changed."))
        return
    reason = seats.clean_reason(message.text or "")
    if reason is None:
        await message.answer(
            _("A reason has 1 to {n} characters. Type it again, or /cancel.").format(
                n=seats.MAX_REASON
            )
        )
        return
    if await reads_as_orders(store, campaign, message.text or ""):
        await message.answer(orders_not_published())
        return
    now = clock.now()
    with i18n.use_locale(campaign.language):
        notice = _(
            "GM {gm} ended «{title}». Reason: {reason}. It is in the archive now (/history). "
            "Thank you for playing! A GM starts the next campaign with /newcampaign."
        ).format(gm=person.display_name, title=campaign.title, reason=reason)
    async with store.atomic():
        ended = await campaigns.end_campaign(
            store,
            campaign,
            person.user_id,
            now,
            reason,
            [campaigns.group_notice(campaign, notice, now)],
        )
        await store.clear_prompt(message.chat.id, person.user_id, message.message_id)
    if ended is None:
        await message.answer(_("The campaign changed meanwhile; nothing was changed."))
        return
    await message.answer(
        _(
            "«{title}» is over and archived (/history). The group and the players are told why."
        ).format(title=campaign.title)
    )


async def cancel(message: Message, store: Store, person: Person) -> None:
    """``/cancel`` while a GM question waits: stop waiting, change nothing."""
    await store.clear_prompt(message.chat.id, person.user_id)
    await message.answer(_("Stopped; nothing was changed. /gm opens the GM tools again."))


def build() -> Router:
    """This module's router (a new one per dispatcher); register it before the other private
    screens, so a waiting GM question gets the text first."""
    router = Router(name=__name__)
    for field in (GM_PLACEMENT, GM_RENAME, GM_END):
        router.message.register(cancel, Command("cancel"), GmPromptWaiting(field))
    typed = (TYPED,)
    router.message.register(typed_placement, *typed, GmPromptWaiting(GM_PLACEMENT))
    router.message.register(typed_rename, *typed, GmPromptWaiting(GM_RENAME))
    router.message.register(typed_end_reason, *typed, GmPromptWaiting(GM_END))
    return router
