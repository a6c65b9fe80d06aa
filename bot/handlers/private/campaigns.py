"""``/campaigns``: a person in several campaigns sees each with their side and role, its phase
and what awaits them there, and taps one to make it current (the choice is stored with the
person; with exactly one running campaign it is used without asking)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.editing import edit_in_place
from bot.handlers.private import screens
from bot.handlers.private.base import answer_text, no_campaign_words
from bot.handlers.private.callbacks import CampaignButton
from bot.runtime.clock import Clock
from bot.services.agenda import Awaited, Duty, awaiting
from bot.services.orders import CampaignPick, Refusal, Seat, is_active, pick_campaign, seat_in
from bot.texts.core import role_name
from storage import CampaignStatus, Membership, Person, Store


def _keyboard(choices: tuple[Membership, ...], current: int | None) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=("▶ " if m.campaign.id == current else "") + m.campaign.title[:60],
                    callback_data=CampaignButton(campaign=m.campaign.id).pack(),
                )
            ]
            for m in choices
        ]
    )


def awaited_words(item: Awaited) -> str:
    """One thing that awaits the person, with the command that does it."""
    n = item.count
    match item.duty:
        case Duty.DEPLOY:
            return _("your side's deployment (/deploy)")
        case Duty.ORDERS:
            return _("your side's orders (/orders)")
        case Duty.REPORT:
            return _(
                "{n} battle result to report (/battles)",
                "{n} battle results to report (/battles)",
                n,
            ).format(n=n)
        case Duty.ANSWER:
            return _(
                "{n} result reported by the other side, to confirm or dispute (/battles)",
                "{n} results reported by the other side, to confirm or dispute (/battles)",
                n,
            ).format(n=n)
        case Duty.SIDES_NOT_READY:
            return _(
                "{n} side has not confirmed yet (/status in the group)",
                "{n} sides have not confirmed yet (/status in the group)",
                n,
            ).format(n=n)
        case Duty.DISPUTES:
            return _(
                "{n} disputed result to decide (/battles)",
                "{n} disputed results to decide (/battles)",
                n,
            ).format(n=n)


async def campaign_lines(
    store: Store, seat: Seat, names: dict[str, str], clock: Clock
) -> list[str]:
    """A campaign in the list: where it stands, the person's place in it, what awaits them."""
    campaign, member = seat.campaign, seat.member
    lines = [screens.phase_words(campaign)]
    if campaign.status is CampaignStatus.PAUSED:
        lines.append(_("The GM has paused it."))
    roles = ", ".join(sorted(role_name(role) for role in member.roles))
    if member.side_id is not None:
        place = _("You: side «{side}», {roles}.").format(
            side=names.get(member.side_id, member.side_id), roles=roles
        )
    else:
        place = _("You: {roles}.").format(roles=roles)
    lines.append(place)
    items = await awaiting(store, seat, clock.now())
    if items:
        lines.append(
            _("Awaits you: {items}.").format(items="; ".join(awaited_words(i) for i in items))
        )
    else:
        lines.append(_("Nothing awaits you there now."))
    return lines


async def campaigns_text(store: Store, person: Person, pick: CampaignPick, clock: Clock) -> str:
    """The list of the person's running campaigns, the current one marked."""
    current = pick.seat.campaign.id if pick.seat else None
    if current is None:
        lines = [_("You play in several campaigns. Tap the one your commands should act on:")]
    else:
        lines = [
            _(
                "Your campaigns. ▶ marks the current one: /orders, /deploy, /battles, /map and "
                "typed orders act on it. Tap another to switch."
            )
        ]
    for membership in pick.choices:
        seat = Seat(membership.campaign, membership.member)
        names = {side.id: side.name for side in await store.sides(membership.campaign.id)}
        marker = "▶" if membership.campaign.id == current else "•"
        block = await campaign_lines(store, seat, names, clock)
        lines.append("")
        lines.append(f"{marker} {block[0]}")
        lines += [f"   {line}" for line in block[1:]]
    if any(not is_active(m.campaign) for m in await store.memberships(person.user_id)):
        lines.append("")
        lines.append(_("Finished campaigns are in /history."))
    return "\n".join(lines)


async def list_campaigns(message: Message, store: Store, clock: Clock, person: Person) -> None:
    """Every running campaign of the person, with their place and what awaits them there."""
    pick = await pick_campaign(store, person)
    if not pick.choices:
        await message.answer(no_campaign_words(await store.memberships(person.user_id)))
        return
    current = pick.seat.campaign.id if pick.seat else None
    text = await campaigns_text(store, person, pick, clock)
    await answer_text(message, text, _keyboard(pick.choices, current))


async def choose(
    query: CallbackQuery, callback_data: CampaignButton, store: Store, clock: Clock
) -> None:
    """Make the pressed campaign current, if the person is still in it and it still runs."""
    seat = await seat_in(store, query.from_user.id, callback_data.campaign)
    if seat is None:
        await query.answer(screens.refusal_words(Refusal.NOT_MEMBER, None), show_alert=True)
        return
    if not is_active(seat.campaign):
        await query.answer(
            screens.refusal_words(Refusal.CAMPAIGN_OVER, seat.campaign), show_alert=True
        )
        return
    person = await store.set_current_campaign(query.from_user.id, seat.campaign.id, clock.now())
    pick = await pick_campaign(store, person)
    await query.answer(_("Current campaign: {title}").format(title=seat.campaign.title))
    if isinstance(query.message, Message):
        chosen = _("Current campaign: {title}").format(title=seat.campaign.title)
        text = chosen + "\n\n" + await campaigns_text(store, person, pick, clock)
        await edit_in_place(query.message, text, _keyboard(pick.choices, seat.campaign.id))


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(list_campaigns, Command("campaigns"))
    router.callback_query.register(choose, CampaignButton.filter())
    return router
