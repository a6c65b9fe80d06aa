"""Replacing a player who vanished, from the GM panel in the GM's private chat (issue 23).

«🪑 Replace a player» lists the seats (who plays which side) and the open ones. A GM picks a
seat and types the reason (a stored ``Prompt``): the player loses the side at once, is told in
private, and the group hears that the side has an open seat, with the «Join» button. Whoever
asks for that side waits for a GM (``bot.services.campaigns.join_rule_now``); the GM approves a
request, or picks someone here: people who asked to join, and people of the group who opened a
private chat with the bot. The newcomer hears in private what their side's screens are. Every
step is re-checked against the presser (a GM of *this* campaign), audited and announced.
"""

from __future__ import annotations

from datetime import datetime

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.handlers.filters import TYPED
from bot.handlers.group.guards import gm_member, not_gm_text, pressed_campaign, whole_number
from bot.handlers.private.gm_prompts import (
    GmPromptWaiting,
    cancel,
    orders_not_published,
    reads_as_orders,
)
from bot.posts.group import colour_mark
from bot.runtime.clock import Clock
from bot.screens.callbacks import JoinPress, SeatPress, gm_menu_data
from bot.services import seats
from bot.services.campaigns import group_notice
from bot.services.orders import is_active
from bot.services.posting import group_post, private_post
from bot.texts.core import role_name
from bot.texts.i18n import language_of
from bot.texts.limits import button_label
from storage import Campaign, Member, NewOutboxMessage, Person, Role, Side, Store, Vacancy

GM_VACATE = "gm_vacate"
"""The prompt's ``field``: ``data["user"]`` and ``data["side"]`` name the seat to vacate."""


def _seat_button(
    text: str, campaign: Campaign, action: str, value: str = ""
) -> InlineKeyboardButton:
    data = SeatPress(c=campaign.id, a=action, v=value)
    return InlineKeyboardButton(text=button_label(text), callback_data=data.pack())


def roles_words(roles: frozenset[Role]) -> str:
    """A seat's roles in words («strategist, tactician»)."""
    return ", ".join(role_name(role) for role in sorted(roles) if role.needs_side)


def _stamp(now: datetime) -> str:
    return now.strftime("%Y%m%dT%H%M%S%f")


def _language(person: Person | None) -> str:
    if person is None:
        return "en"
    return person.language or language_of(person.telegram_language)


async def _sides(store: Store, campaign: Campaign) -> dict[str, Side]:
    return {side.id: side for side in await store.sides(campaign.id)}


async def pressed(
    query: CallbackQuery,
    callback_data: SeatPress,
    store: Store,
    clock: Clock,
    person: Person,
    i18n: I18n,
) -> None:
    """Any button of this screen: re-check the campaign and that the presser is its GM."""
    campaign = await pressed_campaign(store, query, callback_data.c, None, None)
    if campaign is None:
        return
    if await gm_member(store, campaign, person.user_id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    if not isinstance(query.message, Message):
        await query.answer()
        return
    if not seats.seats_change(campaign):
        await query.answer(_closed_text(), show_alert=True)
        return
    match callback_data.a:
        case "list":
            text, rows = await seats_screen(store, campaign)
            await query.answer()
            await query.message.edit_text(
                text, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows)
            )
        case "vac":
            await _ask_reason(query, query.message, store, clock, campaign, callback_data.v)
        case "fill":
            await _candidates(query, query.message, store, campaign, callback_data.v)
        case "give":
            await _give(query, query.message, store, clock, i18n, person, campaign, callback_data.v)
        case "wdr":
            await _withdraw_confirm(query, query.message, store, campaign, callback_data.v)
        case "wdr!":
            await _withdraw(
                query, query.message, store, clock, i18n, person, campaign, callback_data.v
            )
        case _:
            await query.answer(_("That button is not valid any more."), show_alert=True)


def _closed_text() -> str:
    return _("Seats change only while the campaign is played: not in setup, nor once it is over.")


async def seats_screen(
    store: Store, campaign: Campaign
) -> tuple[str, list[list[InlineKeyboardButton]]]:
    """Who holds which seat (tap one to mark it vacant) and the open seats (tap to fill)."""
    sides = await _sides(store, campaign)
    rows: list[list[InlineKeyboardButton]] = []
    for vacancy in await store.vacancies(campaign.id):
        side = sides.get(vacancy.side_id)
        label = _("🙋 Fill the open seat of «{side}» (was {name})").format(
            side=side.name if side else vacancy.side_id, name=vacancy.left_name
        )
        rows.append([_seat_button(label, campaign, "fill", str(vacancy.id))])
    for member in await seats.seated(store, campaign):
        side = sides.get(member.side_id or "")
        mark = f"{colour_mark(side.colour)} {side.name}" if side else "?"
        label = f"🪑 {member.display_name}: {mark}, {roles_words(member.roles)}"
        rows.append([_seat_button(label, campaign, "vac", str(member.user_id))])
    rows.append([InlineKeyboardButton(text=_("◀ GM tools"), callback_data=gm_menu_data(campaign))])
    text = _(
        "Replace a player. Tap a player to mark their seat vacant (with a reason): they lose "
        "the side at once, the group is told and anyone may ask for the seat. Tap an open seat "
        "to give it to a newcomer."
    )
    return text, rows


async def _ask_reason(
    query: CallbackQuery,
    message: Message,
    store: Store,
    clock: Clock,
    campaign: Campaign,
    value: str,
) -> None:
    user_id = whole_number(value)
    member = None if user_id is None else await store.member(campaign.id, user_id)
    if member is None or member.side_id is None:
        await query.answer(_("That person plays no side any more."), show_alert=True)
        return
    sides = await _sides(store, campaign)
    side = sides.get(member.side_id)
    await store.set_prompt(
        message.chat.id,
        query.from_user.id,
        campaign.id,
        GM_VACATE,
        {"user": member.user_id, "side": member.side_id},
        None,
        clock.now(),
    )
    await query.answer()
    await message.answer(
        _(
            "«{title}»: why does {name} leave side «{side}»? Type the reason (up to {n} "
            "characters, e.g. «silent for two weeks»): the group and {name} read it. /cancel "
            "stops."
        ).format(
            title=campaign.title,
            name=member.display_name,
            side=side.name if side else member.side_id,
            n=seats.MAX_REASON,
        )
    )


async def typed_reason(
    message: Message, store: Store, clock: Clock, person: Person, i18n: I18n
) -> None:
    """The GM's typed reason: the seat is vacated (audited), the player and the group told."""
    prompt = await store.prompt(message.chat.id, person.user_id)
    if prompt is None:
        return
    campaign = await store.campaign(prompt.campaign_id or 0)
    if campaign is None or await gm_member(store, campaign, person.user_id) is None:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("That campaign is over or no longer yours; nothing was changed."))
        return
    if not seats.seats_change(campaign):
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_closed_text())
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
    user_id = prompt.data.get("user")
    member = await store.member(campaign.id, user_id) if isinstance(user_id, int) else None
    if member is None or member.side_id is None or member.side_id != prompt.data.get("side"):
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("That person plays no side any more; nothing was changed."))
        return
    side = (await _sides(store, campaign)).get(member.side_id)
    side_name = side.name if side else member.side_id
    now = clock.now()
    notices = await _vacated_notices(i18n, store, campaign, person, member, side_name, reason, now)
    outcome, _vacancy = await seats.vacate(
        store, campaign, member.user_id, reason, person.user_id, now, notices
    )
    await store.clear_prompt(message.chat.id, person.user_id, message.message_id)
    if outcome is not seats.SeatOutcome.DONE:
        await message.answer(_("That person plays no side any more; nothing was changed."))
        return
    await message.answer(
        _(
            "Done: {name} no longer plays side «{side}». The group is told and may ask for the "
            "seat; give it with /gm, «Replace a player»."
        ).format(name=member.display_name, side=side_name)
    )


async def _vacated_notices(
    i18n: I18n,
    store: Store,
    campaign: Campaign,
    gm: Person,
    member: Member,
    side_name: str,
    reason: str,
    now: datetime,
) -> list[NewOutboxMessage]:
    """The group's announcement (with «Join») and the player's own notice."""
    with i18n.use_locale(campaign.language):
        text = _(
            "GM {gm}: side «{side}» has an open seat ({roles}); {name} no longer plays it. "
            "Reason: {reason}. To take the seat, tap «Join»: the GM chooses the new player."
        ).format(
            gm=gm.display_name,
            side=side_name,
            roles=roles_words(member.roles),
            name=member.display_name,
            reason=reason,
        )
        join: dict[str, JsonValue] = {
            "text": _("🙋 Join"),
            "callback_data": JoinPress(c=campaign.id, s=member.side_id or "").pack(),
        }
    key = f"vacated:{member.user_id}:{_stamp(now)}"
    notices = [group_post(campaign, "text", key, text=text, buttons=[[join]])]
    left = await store.person(member.user_id)
    if left is not None and left.can_receive_private:
        with i18n.use_locale(_language(left)):
            words = _(
                "In «{title}», the GM marked your seat on side «{side}» vacant: you no longer "
                "play it, and its screens are closed to you. Reason: {reason}. If this is a "
                "mistake, write to the GM."
            ).format(title=campaign.title, side=side_name, reason=reason)
        notices.append(private_post(campaign, member.user_id, "text", key, text=words))
    return notices


async def _open_vacancy(
    query: CallbackQuery, store: Store, campaign: Campaign, value: str
) -> Vacancy | None:
    vacancy_id = whole_number(value)
    vacancy = None if vacancy_id is None else await store.vacancy(vacancy_id)
    if vacancy is None or vacancy.campaign_id != campaign.id or not vacancy.is_open:
        await query.answer(
            _("That seat is not open any more: a GM gave it to someone or withdrew it."),
            show_alert=True,
        )
        return None
    return vacancy


async def _candidates(
    query: CallbackQuery, message: Message, store: Store, campaign: Campaign, value: str
) -> None:
    vacancy = await _open_vacancy(query, store, campaign, value)
    if vacancy is None:
        return
    side = (await _sides(store, campaign)).get(vacancy.side_id)
    rows = [
        [
            _seat_button(
                (f"✋ {c.name} " + _("(asked to join)")) if c.asked else c.name,
                campaign,
                "give",
                f"{vacancy.id}.{c.user_id}",
            )
        ]
        for c in await seats.candidates(store, campaign)
    ]
    lines = [
        _("Side «{side}», the seat of {name} ({roles}; reason: {reason}). Who takes it?").format(
            side=side.name if side else vacancy.side_id,
            name=vacancy.left_name,
            roles=roles_words(vacancy.roles),
            reason=vacancy.reason,
        )
    ]
    if not rows:
        lines.append(
            _(
                "Nobody can take it yet: people who tap «Join» in the group, and people of the "
                "group who opened a private chat with me, appear here."
            )
        )
    rows.append(
        [_seat_button(_("✖ Withdraw the seat: nobody takes it"), campaign, "wdr", str(vacancy.id))]
    )
    rows.append([_seat_button(_("◀ Back"), campaign, "list")])
    await query.answer()
    await message.edit_text(
        "\n".join(lines), reply_markup=InlineKeyboardMarkup(inline_keyboard=rows)
    )


async def _players_left(store: Store, campaign: Campaign, side_id: str) -> list[str]:
    """The names of the side's players now."""
    return [m.display_name for m in await seats.seated(store, campaign) if m.side_id == side_id]


async def _withdraw_confirm(
    query: CallbackQuery, message: Message, store: Store, campaign: Campaign, value: str
) -> None:
    """What withdrawing the seat means for the side, and «Yes»."""
    vacancy = await _open_vacancy(query, store, campaign, value)
    if vacancy is None:
        return
    side = (await _sides(store, campaign)).get(vacancy.side_id)
    side_name = side.name if side else vacancy.side_id
    players = await _players_left(store, campaign, vacancy.side_id)
    lines = [
        _(
            "Withdraw the open seat of side «{side}»? Nobody takes the place of {name}; the "
            "group is told, and its «Join» button for this seat stops working."
        ).format(side=side_name, name=vacancy.left_name)
    ]
    if players:
        lines.append(
            _("Side «{side}» plays on with {players}.").format(
                side=side_name, players=", ".join(players)
            )
        )
    else:
        lines.append(
            _(
                "Side «{side}» has no other player: until a GM gives it one (Members), it meets "
                "the campaign's rule for a side without orders."
            ).format(side=side_name)
        )
    rows = [
        [_seat_button(_("Yes, withdraw the seat"), campaign, "wdr!", str(vacancy.id))],
        [_seat_button(_("◀ Back"), campaign, "fill", str(vacancy.id))],
    ]
    await query.answer()
    await message.edit_text(
        "\n".join(lines), reply_markup=InlineKeyboardMarkup(inline_keyboard=rows)
    )


async def _withdraw(
    query: CallbackQuery,
    message: Message,
    store: Store,
    clock: Clock,
    i18n: I18n,
    gm: Person,
    campaign: Campaign,
    value: str,
) -> None:
    """Close the open seat without a newcomer (audited); the group is told."""
    vacancy = await _open_vacancy(query, store, campaign, value)
    if vacancy is None:
        return
    side = (await _sides(store, campaign)).get(vacancy.side_id)
    side_name = side.name if side else vacancy.side_id
    players = await _players_left(store, campaign, vacancy.side_id)
    now = clock.now()
    with i18n.use_locale(campaign.language):
        if players:
            text = _(
                "GM {gm} withdrew the open seat of side «{side}»: nobody takes the place of "
                "{name}. Side «{side}» plays on with {players}."
            )
        else:
            text = _(
                "GM {gm} withdrew the open seat of side «{side}»: nobody takes the place of "
                "{name}. Side «{side}» has no player for now."
            )
        words = text.format(
            gm=gm.display_name, side=side_name, name=vacancy.left_name, players=", ".join(players)
        )
    notices = [group_notice(campaign, words, now)]
    outcome = await seats.withdraw(store, campaign, vacancy, gm.user_id, now, notices)
    if outcome is not seats.SeatOutcome.DONE:
        await query.answer(
            _("That seat is not open any more: a GM gave it to someone or withdrew it."),
            show_alert=True,
        )
        return
    await query.answer(
        _("Done: the open seat of side «{side}» is withdrawn. The group is told.").format(
            side=side_name
        )
    )
    text, rows = await seats_screen(store, campaign)
    await message.edit_text(text, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))


async def _give(
    query: CallbackQuery,
    message: Message,
    store: Store,
    clock: Clock,
    i18n: I18n,
    gm: Person,
    campaign: Campaign,
    value: str,
) -> None:
    vacancy_text, _sep, user_text = value.partition(".")
    vacancy = await _open_vacancy(query, store, campaign, vacancy_text)
    user_id = whole_number(user_text)
    if vacancy is None:
        return
    newcomer = None if user_id is None else await store.person(user_id)
    offered = {c.user_id for c in await seats.candidates(store, campaign)}
    if newcomer is None or newcomer.user_id not in offered:
        await query.answer(
            _("That person cannot take the seat now (they play here, or were removed)."),
            show_alert=True,
        )
        return
    side = (await _sides(store, campaign)).get(vacancy.side_id)
    side_name = side.name if side else vacancy.side_id
    now = clock.now()
    notices = await _filled_notices(i18n, store, campaign, gm, vacancy, newcomer, side_name, now)
    outcome, member = await seats.fill(
        store, campaign, vacancy, newcomer.user_id, newcomer.display_name, gm.user_id, now, notices
    )
    match outcome:
        case seats.SeatOutcome.DONE:
            pass
        case seats.SeatOutcome.REMOVED:
            await query.answer(
                _("A GM removed {name}: let them join again first (Members).").format(
                    name=newcomer.display_name
                ),
                show_alert=True,
            )
            return
        case seats.SeatOutcome.PLAYING:
            await query.answer(
                _("{name} plays a side here already: move them from Members instead.").format(
                    name=newcomer.display_name
                ),
                show_alert=True,
            )
            return
        case _:
            await query.answer(
                _("That seat is not open any more: a GM gave it to someone or withdrew it."),
                show_alert=True,
            )
            return
    roles = roles_words(member.roles) if member is not None else ""
    await query.answer(
        _("Done: {name} plays side «{side}» now ({roles}). The group is told.").format(
            name=newcomer.display_name, side=side_name, roles=roles
        )
    )
    text, rows = await seats_screen(store, campaign)
    await message.edit_text(text, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))


async def _filled_notices(
    i18n: I18n,
    store: Store,
    campaign: Campaign,
    gm: Person,
    vacancy: Vacancy,
    newcomer: Person,
    side_name: str,
    now: datetime,
) -> list[NewOutboxMessage]:
    """The group's announcement and the newcomer's welcome (what their screens are)."""
    with i18n.use_locale(campaign.language):
        text = _("GM {gm} gave the open seat of side «{side}» to {name} ({roles}).").format(
            gm=gm.display_name,
            side=side_name,
            name=newcomer.display_name,
            roles=roles_words(vacancy.roles),
        )
    notices = [group_notice(campaign, text, now)]
    others = [
        m
        for m in await store.memberships(newcomer.user_id)
        if is_active(m.campaign) and m.campaign.id != campaign.id
    ]
    with i18n.use_locale(_language(newcomer)):
        lines = [
            _(
                "You play side «{side}» in «{title}» now ({roles}), in place of {name}. Your "
                "side's orders: /orders; its map: /map; its past turns: /history."
            ).format(
                side=side_name,
                title=campaign.title,
                roles=roles_words(vacancy.roles),
                name=vacancy.left_name,
            )
        ]
        if others:
            lines.append(
                _(
                    "You play in several campaigns: /campaigns chooses which one these commands "
                    "are about."
                )
            )
    key = f"seated:{vacancy.id}:{_stamp(now)}"
    notices.append(private_post(campaign, newcomer.user_id, "text", key, text="\n".join(lines)))
    return notices


def build() -> Router:
    """This module's router (a new one per dispatcher); register it before the other private
    screens, so the waiting reason gets the GM's text first."""
    router = Router(name=__name__)
    router.message.register(cancel, Command("cancel"), GmPromptWaiting(GM_VACATE))
    router.message.register(typed_reason, TYPED, GmPromptWaiting(GM_VACATE))
    router.callback_query.register(pressed, SeatPress.filter())
    return router
