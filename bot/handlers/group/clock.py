"""The GM's time tools: advance now, pause, resume, extend the deadline, and resolve now when the
turn waits for the GM's results.

Commands ``/advance``, ``/pause``, ``/resume`` and ``/extend N`` (hours), in the group or in the
GM's private chat, and the same as buttons (:func:`clock_buttons`, shown on the ``/gm`` panel).
Every question a GM confirms is asked in the GM's private chat, in the GM's language: a command
typed in the group says there that the question went there (the players see only the group's
announcements). "Advance now" names what it ends and what that costs (sides that gave orders,
battles with a result, the no-show and unreported policies) and its «Yes» carries the moment it
was asked for (``window.position_mark``): pressed after the campaign moved, even back to the
same phase by an undo, it is refused. An extension or a pause first shows the GM, in the
campaign's zone, every date it moves (a stored proposal, ``timekeeping.propose_*``) and waits
for «Yes» or «No» (:class:`ClockConfirm`); the answer re-checks that the presser is a GM of that
campaign now, and a proposal whose dates no longer hold (the campaign moved on, the deadline
moved) is refused. Under the wait-for-the-GM policy a turn whose battles lack results stops at
its resolution; the GM may then resolve it anyway (confirmed with a second button): battles
without a result count as draws without losses. Every use is checked against the sender's role
in *this* campaign. The services audit each action and queue its announcement to the group; the
GM gets a short answer.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import I18n, get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.group.guards import (
    ask_in_private,
    button_belongs,
    campaign_here,
    campaigns_run_by,
    gm_member,
    no_campaign_words,
    not_gm_text,
    not_running_gm_text,
    pressed_campaign,
    stale_text,
    whole_number,
)
from bot.modules import BOT_MODULES
from bot.posts.turns import change_lines, plan_lines, window_lines
from bot.runtime.clock import Clock
from bot.screens.callbacks import ButtonInt
from bot.services import timekeeping
from bot.services.clockwork import AdvanceOutcome, AdvanceResult, BlockReason
from bot.services.deadlines import battles_length
from bot.services.timekeeping import AdvanceQuestion, ConfirmOutcome, ProposalRefusal, Proposed
from bot.services.window import position_mark
from bot.texts.moments import format_moment, zone_label
from storage import (
    Campaign,
    CampaignStatus,
    ExtendOutcome,
    ExtendResult,
    NoShowPolicy,
    Person,
    Phase,
    ProposalAction,
    Store,
    UnreportedPolicy,
)

EXTENSIONS = (12, 24, 48, 72)
"""Hours offered as extension buttons (those within the schedule's ``max_extension_hours``)."""


class ClockPress(CallbackData, prefix="clk"):
    """A time-tool button: campaign, the turn and phase it was made for, action, hours, and (on
    a confirmation) the ``position_mark`` of the moment it was asked for."""

    c: ButtonInt
    t: ButtonInt
    p: str
    a: str
    h: ButtonInt = 0
    s: ButtonInt = 0


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
    offered = [h for h in EXTENSIONS if h <= campaign.schedule.max_extension_hours]
    if campaign.schedule.mode == "weekly" and offered:
        rows.append(
            [
                InlineKeyboardButton(
                    text=_("+{n} h").format(n=hours), callback_data=press("extend", hours)
                )
                for hours in offered
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
            waiting = [
                words
                for name in result.modules
                if (module := BOT_MODULES.get(name)) is not None
                and (words := module.pending_choice_words()) is not None
            ]
            return "\n".join(waiting) or _(
                "Not yet: a choice of this campaign's rules is still to be made. Make it with "
                "the buttons I sent you in private, or wait for the side that makes it."
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
        case ExtendOutcome.PASSED:
            return passed_text()
        case _:
            return _("Nothing done: the campaign has moved on.")


def passed_text() -> str:
    """Why a deadline that has passed while its step waits is not extended, and what to do."""
    return _(
        "The deadline has already passed and the campaign is waiting (the board in the group "
        "says for what): an extension would give nobody more time. Settle what it waits for, or "
        "set a new date: /gm, «🗓 Schedule, deadline, language», «⏰ Set the current deadline»."
    )


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
        case ProposalRefusal.PASSED:
            return passed_text()
        case ProposalRefusal.PAUSED:
            return _("The campaign is paused: resume it first (/resume), then extend.")
        case ProposalRefusal.NOT_RUNNING:
            return _("Nothing done: not running.")
        case _:
            return _("Nothing done: the campaign has moved on.")


def proposal_text(proposed: Proposed) -> str:
    """What the GM is asked to confirm: the dates the extension or the pause moves, in the
    campaign's zone and the reader's language."""
    campaign, proposal = proposed.campaign, proposed.proposal
    if campaign is None or proposal is None:
        return refusal_text(proposed)
    zone, language = campaign.time_zone, get_i18n().current_locale
    if proposal.action is ProposalAction.EXTEND:
        head = _(
            "Extend the deadline by {n} hour? These dates move ({zone}):",
            "Extend the deadline by {n} hours? These dates move ({zone}):",
            proposal.hours,
        ).format(n=proposal.hours, zone=zone_label(zone, language))
        lines = change_lines(proposed.changes, zone, language) + window_lines(proposed.windows)
        return "\n".join([head, *lines])
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


async def show_proposal(message: Message, person: Person, i18n: I18n, proposed: Proposed) -> None:
    """Show the GM a proposal with its dates and buttons, in the GM's private chat (or why there
    is none)."""

    def render() -> tuple[str, InlineKeyboardMarkup | None]:
        if proposed.proposal is not None and proposed.proposal.outcome is not None:
            return _("That was answered already; see the group's posts."), None
        return proposal_text(proposed), proposal_keyboard(proposed)

    await ask_in_private(message, person, i18n, render)


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


async def _gm_campaign(message: Message, store: Store, person: Person) -> Campaign | None:
    """The campaign a GM's command is about: the group's, or in private the one the GM runs (the
    current one if several); else say why there is none."""
    if message.chat.type == "private":
        running = await campaigns_run_by(store, person.user_id)
        campaign = next((c for c in running if c.id == person.current_campaign_id), None)
        if campaign is None and len(running) == 1:
            campaign = running[0]
        if campaign is None:
            await message.answer(
                _(
                    "You run several campaigns: choose one with /campaigns, then send the "
                    "command again."
                )
                if running
                else not_running_gm_text()
            )
            return None
    else:
        found = await campaign_here(store, message)
        if found is None:
            await message.answer(await no_campaign_words(store, message))
            return None
        campaign = found
    if await gm_member(store, campaign, person.user_id) is None:
        await message.answer(not_gm_text())
        return None
    if campaign.phase is Phase.SETUP:
        await message.answer(
            _("«{title}» is still being set up: /newcampaign in its group continues.").format(
                title=campaign.title
            )
        )
        return None
    return campaign


async def ask_advance(
    message: Message, store: Store, clock: Clock, person: Person, i18n: I18n
) -> None:
    """``/advance``: what moving the campaign to its next phase now ends and costs, with a
    button to confirm it, in the GM's private chat."""
    campaign = await _gm_campaign(message, store, person)
    if campaign is not None:
        await ask_advance_for(message, store, clock, person, i18n, campaign)


async def pause_command(
    message: Message, store: Store, clock: Clock, person: Person, i18n: I18n
) -> None:
    """``/pause``: the dates a pause holds, and a button to confirm it."""
    campaign = await _gm_campaign(message, store, person)
    if campaign is None:
        return
    request = f"message:{message.chat.id}:{message.message_id}"
    proposed = await timekeeping.propose_pause(
        store, campaign.id, person.user_id, clock.now(), request
    )
    if proposed.refusal is not None:
        await message.answer(refusal_text(proposed))
        return
    await show_proposal(message, person, i18n, proposed)


async def resume_command(message: Message, store: Store, clock: Clock, person: Person) -> None:
    """``/resume``: start the clock again; deadlines move by the time paused."""
    campaign = await _gm_campaign(message, store, person)
    if campaign is None:
        return
    result = await timekeeping.resume(store, campaign.id, person.user_id, clock.now())
    await message.answer(_("Resumed.") if result.applied else _("Nothing done: not paused."))


async def extend_command(
    message: Message,
    command: CommandObject,
    store: Store,
    clock: Clock,
    person: Person,
    i18n: I18n,
) -> None:
    """``/extend N``: the dates moving the deadline N hours later moves, and a button to
    confirm it."""
    campaign = await _gm_campaign(message, store, person)
    if campaign is None:
        return
    hours = whole_number((command.args or "").strip(), max_digits=9)
    if hours is None or hours <= 0:
        await message.answer(_("Say by how many hours, e.g. /extend 24."))
        return
    request = f"message:{message.chat.id}:{message.message_id}"
    proposed = await timekeeping.propose_extension(
        store, campaign.id, hours, person.user_id, clock.now(), request
    )
    if proposed.refusal is not None:
        await message.answer(refusal_text(proposed))
        return
    await show_proposal(message, person, i18n, proposed)


async def clock_pressed(
    query: CallbackQuery,
    callback_data: ClockPress,
    store: Store,
    clock: Clock,
    person: Person,
    i18n: I18n,
) -> None:
    """A time-tool button: re-check the presser and the campaign's position, then act. A
    confirmation («Yes, …») must also be pressed at the moment it was asked for."""
    data = callback_data
    campaign = await pressed_campaign(store, query, data.c, data.t, data.p)
    if campaign is None:
        return
    if await gm_member(store, campaign, query.from_user.id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    actor, now = query.from_user.id, clock.now()
    message = query.message if isinstance(query.message, Message) else None
    match callback_data.a:
        case "ask":
            await query.answer()
            if message is not None:
                await ask_advance_for(message, store, clock, person, i18n, campaign)
            return
        case "advance" | "force":
            await _advance_pressed(query, data, store, clock, person, i18n, campaign)
            return
        case "askforce" if waits_for_gm(campaign):
            await query.answer()
            if message is not None:
                await ask_force_for(message, store, person, i18n, campaign)
            return
        case "pause" | "extend" if message is not None and (
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
            await show_proposal(message, person, i18n, proposed)
            return
        case "no":
            await query.answer(_("Cancelled: nothing changed."))
            if message is not None and message.reply_markup is not None:
                await message.edit_reply_markup(reply_markup=None)
            return
        case "resume":
            resumed = await timekeeping.resume(store, campaign.id, actor, now)
            text = _("Resumed.") if resumed.applied else _("Nothing done: not paused.")
        case _:
            text = _("That button is not valid any more.")
    await query.answer(text, show_alert=True)


async def _advance_pressed(
    query: CallbackQuery,
    data: ClockPress,
    store: Store,
    clock: Clock,
    person: Person,
    i18n: I18n,
    campaign: Campaign,
) -> None:
    """«Yes» under an advance or resolve question: only at the moment it was asked for (a
    second tap, or a tap after the campaign moved, even back by an undo, is refused); a step
    that waits for the GM offers to force it."""
    message = query.message if isinstance(query.message, Message) else None
    if data.s != position_mark(await store.phase_history(campaign.id)):
        await query.answer(stale_text(), show_alert=True)
        return
    force = data.a == "force"
    result = await timekeeping.advance_now(
        store,
        campaign.id,
        campaign.turn,
        campaign.phase,
        query.from_user.id,
        clock.now(),
        force=force,
    )
    waiting = (
        BlockReason.RESULTS_MISSING,
        BlockReason.RESULTS_DISPUTED,
        BlockReason.ORDERS_MISSING,
    )
    await query.answer(advanced_text(result), show_alert=True)
    if result.reason in waiting and not force and result.campaign is not None:
        if message is not None:
            await ask_force_for(message, store, person, i18n, result.campaign)
        return
    if result.advanced and message is not None and message.reply_markup is not None:
        await message.edit_reply_markup(reply_markup=None)


def _no_button(campaign: Campaign) -> InlineKeyboardButton:
    """«✖ No» under an advance or resolve question: nothing happens, the buttons go."""
    return InlineKeyboardButton(
        text=_("✖ No"),
        callback_data=ClockPress(
            c=campaign.id, t=campaign.turn, p=campaign.phase.value, a="no"
        ).pack(),
    )


def _yes_button(text: str, campaign: Campaign, action: str, mark: int) -> InlineKeyboardButton:
    """A confirmation: it acts only while the campaign stands where it was asked (``mark``)."""
    return InlineKeyboardButton(
        text=text,
        callback_data=ClockPress(
            c=campaign.id, t=campaign.turn, p=campaign.phase.value, a=action, s=mark
        ).pack(),
    )


def advance_question_text(question: AdvanceQuestion) -> str:
    """ "End turn 1's orders now? 0 of 2 sides have given orders.": what "advance now" ends, and
    what that costs, in the reader's language (dates in the campaign's zone)."""
    campaign = question.campaign
    language = get_i18n().current_locale
    then = (
        None
        if question.then is None
        else format_moment(question.then, campaign.time_zone, language)
    )
    lines: list[str] = []
    match campaign.phase:
        case Phase.DEPLOYMENT:
            lines.append(_("End deployment now?"))
            lines.append(
                _(
                    "Placements confirmed: {n} of {total} side.",
                    "Placements confirmed: {n} of {total} sides.",
                    question.sides,
                ).format(n=question.ready, total=question.sides)
            )
            if question.missing:
                lines.append(
                    _(
                        "Not placed yet: {names}. Turn 1 begins only once every side is placed: "
                        "place them first (📍 Place a side that did not deploy)."
                    ).format(names=", ".join(question.names.get(s, s) for s in question.missing))
                )
            lines.append(
                _("Turn 1's orders then open at once and close {moment}.").format(moment=then)
                if then is not None
                else _("Turn 1's orders then open at once.")
            )
        case Phase.ORDERS:
            lines.append(_("End turn {turn}'s orders now?").format(turn=campaign.turn))
            lines.append(
                _(
                    "Orders given: {n} of {total} side.",
                    "Orders given: {n} of {total} sides.",
                    question.sides,
                ).format(n=question.given, total=question.sides)
            )
            unconfirmed = question.given - question.ready
            if unconfirmed > 0:
                lines.append(
                    _(
                        "{n} of them has not confirmed its orders: they count as they are.",
                        "{n} of them have not confirmed their orders: they count as they are.",
                        unconfirmed,
                    ).format(n=unconfirmed)
                )
            if question.not_open:
                lines.append(_("The orders window has not opened yet: no side could give orders."))
            if question.silent:
                lines.append(no_show_words(campaign.no_show_policy))
            lines.append(
                _("The battle list goes out at once; results are due {moment}.").format(moment=then)
                if then is not None
                else _("The battle list goes out at once.")
            )
        case Phase.BATTLES:
            lines.append(
                _("End turn {turn}'s battles and resolve it now?").format(turn=campaign.turn)
            )
            if question.battles == 0:
                lines.append(_("This turn has no battles."))
            else:
                lines.append(
                    _(
                        "Results in: {n} of {total} battle.",
                        "Results in: {n} of {total} battles.",
                        question.battles,
                    ).format(n=question.results, total=question.battles)
                )
            if question.disputed:
                lines.append(
                    _("Disputed, waiting for your decision: battles {ids}.").format(
                        ids=", ".join(map(str, question.disputed))
                    )
                )
            if question.battles - question.results - len(question.disputed) > 0:
                lines.append(
                    _("Battles without a result: the resolution waits for you.")
                    if campaign.unreported_policy is UnreportedPolicy.WAIT_FOR_GM
                    else _("Battles without a result count as draws without losses.")
                )
            following = campaign.turn + 1
            lines.append(
                _("Turn {turn}'s orders then open at once and close {moment}.").format(
                    turn=following, moment=then
                )
                if then is not None
                else _("Turn {turn}'s orders then open at once.").format(turn=following)
            )
        case _:
            lines.append(_("Advance the campaign to its next phase now?"))
    return "\n".join(lines)


def no_show_words(policy: NoShowPolicy) -> str:
    """What the orders' close does with the sides that gave no orders."""
    match policy:
        case NoShowPolicy.REPEAT:
            return _("Sides without orders repeat last turn's orders, those the rules still allow.")
        case NoShowPolicy.WAIT_FOR_GM:
            return _(
                "Sides without orders: the campaign waits for you; you can then close the "
                "orders anyway (they hold)."
            )
        case _:
            return _("Sides without orders hold: every sector of theirs fortifies.")


def advance_question_keyboard(question: AdvanceQuestion) -> InlineKeyboardMarkup:
    """«Yes, end …» for the phase the question names, and «✖ No»."""
    campaign = question.campaign
    match campaign.phase:
        case Phase.DEPLOYMENT:
            label = _("⏭ Yes, end deployment")
        case Phase.ORDERS:
            label = _("⏭ Yes, close the orders")
        case Phase.BATTLES:
            label = _("⚖ Yes, resolve the turn")
        case _:
            label = _("⏭ Yes, advance now")
    yes = _yes_button(label, campaign, "advance", question.mark)
    return InlineKeyboardMarkup(inline_keyboard=[[yes, _no_button(campaign)]])


async def ask_advance_for(
    message: Message, store: Store, clock: Clock, person: Person, i18n: I18n, campaign: Campaign
) -> None:
    """What "advance now" ends and costs, with its confirmation, in the GM's private chat (a
    resolution that waits for the GM: the "resolve now" question)."""
    if campaign.status is CampaignStatus.PAUSED:
        await message.answer(_("The campaign is paused: resume it first (/resume)."))
        return
    if waits_for_gm(campaign):
        await ask_force_for(message, store, person, i18n, campaign)
        return
    question = await timekeeping.advance_question(store, campaign, clock.now())
    await ask_in_private(
        message,
        person,
        i18n,
        lambda: (advance_question_text(question), advance_question_keyboard(question)),
    )


async def ask_force_for(
    message: Message, store: Store, person: Person, i18n: I18n, campaign: Campaign
) -> None:
    """The confirm button for resolving a turn whose battles lack results, or for closing the
    orders while the no-show policy waits for the GM, in the GM's private chat."""
    mark = position_mark(await store.phase_history(campaign.id))

    def render() -> tuple[str, InlineKeyboardMarkup]:
        no = _no_button(campaign)
        if campaign.phase is Phase.ORDERS:
            close = _yes_button(_("⏭ Yes, close the orders now"), campaign, "force", mark)
            text = _(
                "Close the orders of turn {turn} now? Sides that gave no orders hold: every "
                "sector of theirs fortifies."
            ).format(turn=campaign.turn)
            return text, InlineKeyboardMarkup(inline_keyboard=[[close, no]])
        button = _yes_button(_("⚖ Yes, resolve now"), campaign, "force", mark)
        text = _(
            "Resolve turn {turn} now? Battles without an agreed or decided result count as "
            "draws without losses; results set later do not change this turn (only a GM "
            "correction does)."
        ).format(turn=campaign.turn)
        return text, InlineKeyboardMarkup(inline_keyboard=[[button, no]])

    await ask_in_private(message, person, i18n, render)


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
    """The time tools in a GM's private chat: the commands, and the buttons under the GM panel
    and under the questions asked there."""
    router = Router(name=f"{__name__}.private")
    router.message.register(ask_advance, Command("advance"))
    router.message.register(pause_command, Command("pause"))
    router.message.register(resume_command, Command("resume"))
    router.message.register(extend_command, Command("extend"))
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
