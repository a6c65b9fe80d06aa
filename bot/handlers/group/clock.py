"""The GM's time tools in the group: advance now, pause, resume, extend the deadline, and
resolve now when the turn waits for the GM's results.

Commands ``/advance`` (asks to confirm with a button), ``/pause``, ``/resume`` and
``/extend N`` (hours), and the same as buttons (:func:`clock_buttons`, shown on the ``/gm``
panel). Under the wait-for-the-GM policy a turn whose battles lack results stops at its
resolution; the GM may then resolve it anyway (confirmed with a second button): battles without
a result count as draws without losses. Every use is checked against the sender's role in
*this* campaign; a button names the (campaign, turn, phase) it was made for and is stale once
the campaign moved on. The services audit each action and queue its announcement to the group;
the GM gets a short answer.
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
    campaign_here,
    gm_member,
    no_campaign_text,
    not_gm_text,
    pressed_campaign,
    whole_number,
)
from bot.services import timekeeping
from bot.services.clockwork import AdvanceOutcome, AdvanceResult, BlockReason
from storage import (
    Campaign,
    CampaignStatus,
    ExtendOutcome,
    ExtendResult,
    Phase,
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
    return _("⚖ Resolve now (undecided battles count as draws)")


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
                "Too long: this phase may be extended by {max} hours in all ({used} used)."
            ).format(max=max_hours, used=used)
        case ExtendOutcome.NO_DEADLINE:
            return _("This phase has no deadline to extend.")
        case _:
            return _("Nothing done: the campaign has moved on.")


async def _gm_campaign(message: Message, store: Store) -> Campaign | None:
    campaign = await campaign_here(store, message)
    if campaign is None or message.from_user is None:
        await message.answer(no_campaign_text())
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
    """``/pause``: stop the campaign's clock."""
    campaign = await _gm_campaign(message, store)
    if campaign is None or message.from_user is None:
        return
    result = await timekeeping.pause(store, campaign.id, message.from_user.id, clock.now())
    await message.answer(_("Paused.") if result.applied else _("Nothing done: not running."))


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
    """``/extend N``: move the current deadline N hours later."""
    campaign = await _gm_campaign(message, store)
    if campaign is None or message.from_user is None:
        return
    hours = whole_number((command.args or "").strip(), max_digits=9)
    if hours is None or hours <= 0:
        await message.answer(_("Say by how many hours, e.g. /extend 24."))
        return
    request = f"message:{message.chat.id}:{message.message_id}"
    result = await timekeeping.extend(
        store, campaign.id, hours, message.from_user.id, clock.now(), request
    )
    await message.answer(extended_text(result, campaign.schedule.max_extension_hours))


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
            waiting = (BlockReason.RESULTS_MISSING, BlockReason.RESULTS_DISPUTED)
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
        case "pause":
            paused = await timekeeping.pause(store, campaign.id, actor, now)
            text = _("Paused.") if paused.applied else _("Nothing done: not running.")
        case "resume":
            resumed = await timekeeping.resume(store, campaign.id, actor, now)
            text = _("Resumed.") if resumed.applied else _("Nothing done: not paused.")
        case "extend" if callback_data.h > 0:
            extended = await timekeeping.extend(
                store, campaign.id, callback_data.h, actor, now, f"press:{query.id}"
            )
            text = extended_text(extended, campaign.schedule.max_extension_hours)
        case _:
            text = _("That button is not valid any more.")
    await query.answer(text, show_alert=True)


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
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button]]),
    )


async def ask_force_for(message: Message, campaign: Campaign) -> None:
    """The confirm button for resolving a turn whose battles lack results."""
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
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button]]),
    )


def build() -> Router:
    """The time tools' router."""
    router = Router(name=__name__)
    router.message.register(ask_advance, Command("advance"))
    router.message.register(pause_command, Command("pause"))
    router.message.register(resume_command, Command("resume"))
    router.message.register(extend_command, Command("extend"))
    router.callback_query.register(clock_pressed, ClockPress.filter())
    return router
