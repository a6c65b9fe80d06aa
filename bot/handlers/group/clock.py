"""The GM's time tools in the group: advance now, pause, resume, extend the deadline, and
resolve now when the turn waits for the GM's results.

Commands ``/advance`` (asks to confirm with a button), ``/pause``, ``/resume`` and
``/extend N`` (hours), and the same as buttons (:func:`clock_buttons`, shown on the ``/gm``
panel). An extension or a pause first shows the GM, in the campaign's zone and language, every
date it moves (a stored proposal, ``timekeeping.propose_*``) and waits for «Yes» or «No»
(:class:`ClockConfirm`); the answer re-checks that the presser is a GM of that campaign now, and
a proposal whose dates no longer hold (the campaign moved on, the deadline moved) is refused.
Under the wait-for-the-GM policy a turn whose battles lack results stops at its resolution; the
GM may then resolve it anyway (confirmed with a second button): battles without a result count
as draws without losses. Every use is checked against the sender's role in *this* campaign; a
button names the (campaign, turn, phase) it was made for and is stale once the campaign moved
on. The services audit each action and queue its announcement to the group; the GM gets a
short answer.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.callbacks import ButtonInt
from bot.clock import Clock
from bot.handlers.group.guards import (
    button_belongs,
    campaign_here,
    gm_member,
    no_campaign_words,
    not_gm_text,
    pressed_campaign,
    stale_text,
    whole_number,
)
from bot.moments import zone_label
from bot.posts.turns import change_lines, plan_lines
from bot.services import timekeeping
from bot.services.clockwork import AdvanceOutcome, AdvanceResult, BlockReason
from bot.services.deadlines import battles_length
from bot.services.timekeeping import ConfirmOutcome, ProposalRefusal, Proposed
from storage import (
    Campaign,
    CampaignStatus,
    ExtendOutcome,
    ExtendResult,
    Phase,
    ProposalAction,
    Store,
)

EXTENSIONS = (12, 24)
"""Hours offered as extension buttons."""


class ClockPress(CallbackData, prefix="clk"):
    """A time-tool button: campaign, the turn and phase it was made for, action, hours."""

    c: ButtonInt
    t: ButtonInt
    p: str
    a: str
    h: ButtonInt = 0


class ClockConfirm(CallbackData, prefix="clkc"):
    """The GM's answer to a stored extension or pause proposal: its id, ``ok`` or ``no``."""

    i: ButtonInt
    a: str


def clock_buttons(campaign: Campaign) -> list[list[InlineKeyboardButton]]:
    """Rows of time-tool buttons for the GM panel (none once the campaign is over)."""
    if campaign.phase in (Phase.SETUP, Phase.FINISHED):
        return []

    def press(action: str, hours: int = 0) -> str:
        return ClockPress(
            c=campaign.id, t=campaign.turn, p=campaign.phase.value, a=action, h=hours
        ).pack()

    if campaign.status is CampaignStatus.PAUSED:
        return [[InlineKeyboardButton(text=_("▶️ Resume"), callback_data=press("resume"))]]
    rows = [
        [
            InlineKeyboardButton(text=_("⏭ Advance now"), callback_data=press("ask")),
            InlineKeyboardButton(text=_("⏸ Pause"), callback_data=press("pause")),
        ]
    ]
    if waits_for_gm(campaign):
        rows.append([InlineKeyboardButton(text=force_label(), callback_data=press("askforce"))])
    if campaign.schedule.mode == "weekly":
        rows.append(
            [
                InlineKeyboardButton(
                    text=_("+{n} h").format(n=hours), callback_data=press("extend", hours)
                )
                for hours in EXTENSIONS
            ]
        )
    return rows


def waits_for_gm(campaign: Campaign) -> bool:
    """True when the turn stands at its resolution: it waits for the GM (an open dispute, or
    battles without a result under the wait-for-the-GM policy), so the GM may force it."""
    return campaign.phase is Phase.RESOLUTION


def force_label() -> str:
    """The GM's "resolve now" button."""
    return _("⚖ Resolve now")


def advanced_text(result: AdvanceResult) -> str:
    """The GM's answer after "advance now"."""
    match result.outcome:
        case AdvanceOutcome.ADVANCED:
            return _("Done: the campaign moved on. The group is told.")
        case AdvanceOutcome.ALREADY_DONE:
            return _("Already done: the campaign had just moved on.")
        case AdvanceOutcome.BLOCKED if result.reason is BlockReason.SIDES_NOT_DEPLOYED:
            return _("Not yet: some sides have not deployed. Place them first.")
        case AdvanceOutcome.BLOCKED if result.reason is BlockReason.RESULTS_MISSING:
            return _(
                "Not yet: some battles have no result. Set them, or resolve now (the button "
                "below): they count as draws without losses."
            )
        case AdvanceOutcome.BLOCKED if result.reason is BlockReason.ORDERS_MISSING:
            return _(
                "Not yet: some sides gave no orders and the campaign waits for you. Reopen their "
                "orders (GM tools), or close the orders now (the button below): they hold."
            )
        case AdvanceOutcome.BLOCKED if result.reason is BlockReason.CHOICE_PENDING:
            return _(
                "Not yet: the starting weather of the siege is not chosen. Choose it with the "
                "buttons I sent you in private, or wait for the side that chooses it."
            )
        case AdvanceOutcome.BLOCKED if result.reason is BlockReason.RESULTS_DISPUTED:
            return _(
                "Not yet: battles {battles} are disputed. Decide them (the message I sent you "
                "in private, or /battles there), or resolve now (the button below): they count "
                "as draws without losses."
            ).format(battles=", ".join(map(str, result.battles)))
        case AdvanceOutcome.BLOCKED:
            return _("Not yet: the campaign needs at least two sides.")
        case AdvanceOutcome.FINISHED:
            return _("The campaign is over.")
        case _:
            return _("Nothing done: the campaign is paused or has moved on.")


def extended_text(result: ExtendResult, max_hours: int) -> str:
    """The GM's answer after an extension."""
    match result.outcome:
        case ExtendOutcome.EXTENDED:
            return _("Deadline extended. The group is told.")
        case ExtendOutcome.OVER_LIMIT:
            used = result.clock.extension_hours if result.clock is not None else 0
            return _(
                "Too long: this phase may be extended by {max} hour in all ({used} used).",
                "Too long: this phase may be extended by {max} hours in all ({used} used).",
                max_hours,
            ).format(max=max_hours, used=used)
        case ExtendOutcome.NO_DEADLINE:
            return _("This phase has no deadline to extend.")
        case _:
            return _("Nothing done: the campaign has moved on.")


def refusal_text(proposed: Proposed) -> str:
    """Why an extension or a pause cannot be proposed."""
    campaign = proposed.campaign
    match proposed.refusal:
        case ProposalRefusal.OVER_LIMIT if campaign is not None:
            limit = campaign.schedule.max_extension_hours
            return _(
                "Too long: this phase may be extended by {max} hour in all ({used} used).",
                "Too long: this phase may be extended by {max} hours in all ({used} used).",
                limit,
            ).format(max=limit, used=proposed.used_hours)
        case ProposalRefusal.NO_DEADLINE:
            return _("This phase has no deadline to extend.")
        case ProposalRefusal.PAUSED:
            return _("The campaign is paused: resume it first (/resume), then extend.")
        case ProposalRefusal.NOT_RUNNING:
            return _("Nothing done: not running.")
        case _:
            return _("Nothing done: the campaign has moved on.")


def proposal_text(proposed: Proposed) -> str:
    """What the GM is asked to confirm: the dates the extension or the pause moves, in the
    campaign's zone (the group's language is the campaign's)."""
    campaign, proposal = proposed.campaign, proposed.proposal
    if campaign is None or proposal is None:
        return refusal_text(proposed)
    zone, language = campaign.time_zone, campaign.language
    if proposal.action is ProposalAction.EXTEND:
        head = _(
            "Extend the deadline by {n} hour? These dates move ({zone}):",
            "Extend the deadline by {n} hours? These dates move ({zone}):",
            proposal.hours,
        ).format(n=proposal.hours, zone=zone_label(zone, language))
        return "\n".join([head, *change_lines(proposed.changes, zone, language)])
    head = _("Pause «{title}»? Until you resume, no deadline passes.").format(title=campaign.title)
    if not proposed.held:
        return head + "\n" + _("This phase has no deadline, so no date moves.")
    hours = int(battles_length(campaign.schedule).total_seconds() // 3600)
    then = _("On resume these move later by as long as the pause lasted ({zone}):").format(
        zone=zone_label(zone, language)
    )
    after = _(
        "The steps after them keep their dates unless the new deadline passes them; the battles "
        "always keep at least {n} hour after the battle list.",
        "The steps after them keep their dates unless the new deadline passes them; the battles "
        "always keep at least {n} hours after the battle list.",
        hours,
    ).format(n=hours)
    return "\n".join([head, then, *plan_lines(proposed.held, zone, language), after])


def proposal_keyboard(proposed: Proposed) -> InlineKeyboardMarkup | None:
    """«Yes» and «No» under a proposal (none once it has an answer)."""
    proposal = proposed.proposal
    if proposal is None or proposal.outcome is not None:
        return None
    if proposal.action is ProposalAction.EXTEND:
        yes = _("✅ Yes, extend by {n} h").format(n=proposal.hours)
    else:
        yes = _("⏸ Yes, pause")
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=yes, callback_data=ClockConfirm(i=proposal.id, a="ok").pack()
                ),
                InlineKeyboardButton(
                    text=_("✖ No"), callback_data=ClockConfirm(i=proposal.id, a="no").pack()
                ),
            ]
        ]
    )


async def show_proposal(message: Message, proposed: Proposed) -> None:
    """Show the GM a proposal with its dates and buttons (or why there is none)."""
    if proposed.proposal is not None and proposed.proposal.outcome is not None:
        await message.answer(_("That was answered already; see the group's posts."))
        return
    await message.answer(proposal_text(proposed), reply_markup=proposal_keyboard(proposed))


def confirmed_text(confirmation: timekeeping.Confirmation, max_hours: int) -> str:
    """The GM's answer after «Yes» or «No»."""
    proposal = confirmation.proposal
    match confirmation.outcome:
        case ConfirmOutcome.DONE if (
            proposal is not None and proposal.action is ProposalAction.PAUSE
        ):
            return _("Paused. The group is told.")
        case ConfirmOutcome.DONE:
            return _("Deadline extended. The group is told the new dates.")
        case ConfirmOutcome.CANCELLED:
            return _("Cancelled: nothing changed.")
        case ConfirmOutcome.ANSWERED:
            return _("That was answered already: nothing more was done.")
        case ConfirmOutcome.STALE:
            return _(
                "Out of date: the campaign or its deadline moved since these dates were shown. "
                "Nothing was done; ask again to see the new dates."
            )
        case ConfirmOutcome.REFUSED if confirmation.extended is not None:
            return extended_text(confirmation.extended, max_hours)
        case ConfirmOutcome.REFUSED:
            return _("Nothing done: not running.")
        case _:
            return _("That button is not valid any more.")


async def _gm_campaign(message: Message, store: Store) -> Campaign | None:
    campaign = await campaign_here(store, message)
    if campaign is None or message.from_user is None:
        await message.answer(await no_campaign_words(store, message))
        return None
    if await gm_member(store, campaign, message.from_user.id) is None:
        await message.answer(not_gm_text())
        return None
    return campaign


async def ask_advance(message: Message, store: Store) -> None:
    """``/advance``: a button to confirm moving the campaign to its next phase now."""
    campaign = await _gm_campaign(message, store)
    if campaign is not None:
        await ask_advance_for(message, campaign)


async def pause_command(message: Message, store: Store, clock: Clock) -> None:
    """``/pause``: the dates a pause holds, and a button to confirm it."""
    campaign = await _gm_campaign(message, store)
    if campaign is None or message.from_user is None:
        return
    request = f"message:{message.chat.id}:{message.message_id}"
    proposed = await timekeeping.propose_pause(
        store, campaign.id, message.from_user.id, clock.now(), request
    )
    if proposed.refusal is not None:
        await message.answer(refusal_text(proposed))
        return
    await show_proposal(message, proposed)


async def resume_command(message: Message, store: Store, clock: Clock) -> None:
    """``/resume``: start the clock again; deadlines move by the time paused."""
    campaign = await _gm_campaign(message, store)
    if campaign is None or message.from_user is None:
        return
    result = await timekeeping.resume(store, campaign.id, message.from_user.id, clock.now())
    await message.answer(_("Resumed.") if result.applied else _("Nothing done: not paused."))


async def extend_command(
    message: Message, command: CommandObject, store: Store, clock: Clock
) -> None:
    """``/extend N``: the dates moving the deadline N hours later moves, and a button to
    confirm it."""
    campaign = await _gm_campaign(message, store)
    if campaign is None or message.from_user is None:
        return
    hours = whole_number((command.args or "").strip(), max_digits=9)
    if hours is None or hours <= 0:
        await message.answer(_("Say by how many hours, e.g. /extend 24."))
        return
    request = f"message:{message.chat.id}:{message.message_id}"
    proposed = await timekeeping.propose_extension(
        store, campaign.id, hours, message.from_user.id, clock.now(), request
    )
    if proposed.refusal is not None:
        await message.answer(refusal_text(proposed))
        return
    await show_proposal(message, proposed)


async def clock_pressed(
    query: CallbackQuery, callback_data: ClockPress, store: Store, clock: Clock
) -> None:
    """A time-tool button: re-check the presser and the campaign's position, then act."""
    data = callback_data
    campaign = await pressed_campaign(store, query, data.c, data.t, data.p)
    if campaign is None:
        return
    if await gm_member(store, campaign, query.from_user.id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    actor, now = query.from_user.id, clock.now()
    match callback_data.a:
        case "ask":
            await query.answer()
            if isinstance(query.message, Message):
                await ask_advance_for(query.message, campaign)
            return
        case "advance" | "force":
            force = callback_data.a == "force"
            result = await timekeeping.advance_now(
                store, campaign.id, campaign.turn, campaign.phase, actor, now, force=force
            )
            text = advanced_text(result)
            waiting = (
                BlockReason.RESULTS_MISSING,
                BlockReason.RESULTS_DISPUTED,
                BlockReason.ORDERS_MISSING,
            )
            blocked = result.reason in waiting and not force
            if blocked and result.campaign is not None and isinstance(query.message, Message):
                await query.answer(text, show_alert=True)
                await ask_force_for(query.message, result.campaign)
                return
        case "askforce" if waits_for_gm(campaign):
            await query.answer()
            if isinstance(query.message, Message):
                await ask_force_for(query.message, campaign)
            return
        case "pause" | "extend" if isinstance(query.message, Message) and (
            callback_data.a == "pause" or callback_data.h > 0
        ):
            request = f"press:{query.id}"
            if callback_data.a == "pause":
                proposed = await timekeeping.propose_pause(store, campaign.id, actor, now, request)
            else:
                proposed = await timekeeping.propose_extension(
                    store, campaign.id, callback_data.h, actor, now, request
                )
            if proposed.refusal is not None:
                await query.answer(refusal_text(proposed), show_alert=True)
                return
            await query.answer()
            await show_proposal(query.message, proposed)
            return
        case "no":
            await query.answer(_("Cancelled: nothing changed."))
            if isinstance(query.message, Message) and query.message.reply_markup is not None:
                await query.message.edit_reply_markup(reply_markup=None)
            return
        case "resume":
            resumed = await timekeeping.resume(store, campaign.id, actor, now)
            text = _("Resumed.") if resumed.applied else _("Nothing done: not paused.")
        case _:
            text = _("That button is not valid any more.")
    await query.answer(text, show_alert=True)


def _no_button(campaign: Campaign) -> InlineKeyboardButton:
    """«✖ No» under an advance or resolve question: nothing happens, the buttons go."""
    return InlineKeyboardButton(
        text=_("✖ No"),
        callback_data=ClockPress(
            c=campaign.id, t=campaign.turn, p=campaign.phase.value, a="no"
        ).pack(),
    )


async def ask_advance_for(message: Message, campaign: Campaign) -> None:
    """The confirm button for "advance now", under the panel."""
    button = InlineKeyboardButton(
        text=_("⏭ Yes, advance now"),
        callback_data=ClockPress(
            c=campaign.id, t=campaign.turn, p=campaign.phase.value, a="advance"
        ).pack(),
    )
    await message.answer(
        _("Advance the campaign to its next phase now?"),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button, _no_button(campaign)]]),
    )


async def ask_force_for(message: Message, campaign: Campaign) -> None:
    """The confirm button for resolving a turn whose battles lack results, or for closing the
    orders while the no-show policy waits for the GM."""
    if campaign.phase is Phase.ORDERS:
        close = InlineKeyboardButton(
            text=_("⏭ Yes, close the orders now"),
            callback_data=ClockPress(
                c=campaign.id, t=campaign.turn, p=campaign.phase.value, a="force"
            ).pack(),
        )
        await message.answer(
            _(
                "Close the orders of turn {turn} now? Sides that gave no orders hold: every "
                "sector of theirs fortifies."
            ).format(turn=campaign.turn),
            reply_markup=InlineKeyboardMarkup(inline_keyboard=[[close, _no_button(campaign)]]),
        )
        return
    button = InlineKeyboardButton(
        text=_("⚖ Yes, resolve now"),
        callback_data=ClockPress(
            c=campaign.id, t=campaign.turn, p=campaign.phase.value, a="force"
        ).pack(),
    )
    await message.answer(
        _(
            "Resolve turn {turn} now? Battles without an agreed or decided result count as "
            "draws without losses; results set later do not change this turn (only a GM "
            "correction does)."
        ).format(turn=campaign.turn),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button, _no_button(campaign)]]),
    )


async def confirm_pressed(
    query: CallbackQuery, callback_data: ClockConfirm, store: Store, clock: Clock
) -> None:
    """«Yes» or «No» under a proposal: the proposal must belong to this chat's campaign and the
    presser be a GM of it now; «Yes» acts once, and not at all once the dates moved."""
    proposal = await store.clock_proposal(callback_data.i)
    campaign = None if proposal is None else await store.campaign(proposal.campaign_id)
    if proposal is None or campaign is None or not await button_belongs(store, query, campaign):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    if await gm_member(store, campaign, query.from_user.id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    if campaign.status is CampaignStatus.FINISHED:
        await query.answer(stale_text(), show_alert=True)
        return
    actor, now = query.from_user.id, clock.now()
    if callback_data.a == "ok":
        confirmation = await timekeeping.confirm(store, proposal.id, actor, now)
    elif callback_data.a == "no":
        confirmation = await timekeeping.cancel(store, proposal.id, actor, now)
    else:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    await query.answer(
        confirmed_text(confirmation, campaign.schedule.max_extension_hours), show_alert=True
    )
    if isinstance(query.message, Message) and query.message.reply_markup is not None:
        await query.message.edit_reply_markup(reply_markup=None)


def build_private() -> Router:
    """The time tools' buttons under the GM panel in a GM's private chat."""
    router = Router(name=f"{__name__}.private")
    router.callback_query.register(clock_pressed, ClockPress.filter())
    router.callback_query.register(confirm_pressed, ClockConfirm.filter())
    return router


def build() -> Router:
    """The time tools' router."""
    router = Router(name=__name__)
    router.message.register(ask_advance, Command("advance"))
    router.message.register(pause_command, Command("pause"))
    router.message.register(resume_command, Command("resume"))
    router.message.register(extend_command, Command("extend"))
    router.callback_query.register(clock_pressed, ClockPress.filter())
    router.callback_query.register(confirm_pressed, ClockConfirm.filter())
    return router
