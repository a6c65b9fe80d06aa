"""Joining a campaign, across both chats.

In the group: ``/join`` or the «Join» button notes a join request and opens a deep link
``https://t.me/<bot>?start=join-<campaign>``. A bot may write only to people who started it, so
the join finishes in the private chat: ``/start join-<id>``, choose a side, choose a role. The
group is told, and the status board lists who still has to open the private chat.

The stored join request is the ticket (the link and the buttons prove nothing: anyone can type
them): without it, or for someone the GM removed, or for a player who already has a side (only
the GM moves players), the private steps refuse and say what to do instead. After setup the
GMs also hear of each new player in private, so they can remove someone who should not play.

Joining shows a side's secret orders, so the campaign's ``joining`` setting decides when a GM
approves instead (by default once deployment is over): the chosen side and role then wait in
the GMs' private chats with one tap to approve or refuse, and the person sees nothing of the
side until a GM approves.
"""

from __future__ import annotations

from datetime import datetime

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.filters import GROUPS, PRIVATE
from bot.handlers.group.guards import campaign_here, no_campaign_words
from bot.posts.group import colour_mark
from bot.runtime.clock import Clock
from bot.screens.callbacks import ButtonInt, JoinPress, JoinVerdict
from bot.services import campaigns
from bot.services.posting import private_post
from bot.texts.core import role_name
from bot.texts.i18n import language_of
from storage import Campaign, CampaignStatus, NewOutboxMessage, Person, Phase, Role, Store

JOIN_PAYLOAD = r"^join-(\d{1,12})$"


class JoinChoice(CallbackData, prefix="jc"):
    """A side (and then a role) chosen in the private chat; ``r`` empty until the role step."""

    c: ButtonInt
    s: str
    r: str = ""


async def join_link(bot: Bot, campaign: Campaign) -> str:
    """The deep link that opens the private chat on this campaign's join screen."""
    me = await bot.me()
    return f"https://t.me/{me.username}?start=join-{campaign.id}"


async def _request(store: Store, clock: Clock, person: Person, campaign: Campaign) -> str | None:
    """Record a join request; the refusal text if the person cannot join."""
    if campaign.status is CampaignStatus.FINISHED:
        return _("This campaign is over.")
    if await store.removed_member(campaign.id, person.user_id) is not None:
        return removed_text(campaign)
    member = await store.member(campaign.id, person.user_id)
    if member is not None and member.side_id is not None:
        return _("You already play in this campaign. /status shows your side.")
    if (
        await campaigns.join_rule_now(store, campaign, member is not None and member.is_gm)
        is campaigns.JoinRule.CLOSED
    ):
        return closed_text(campaign)
    await store.request_join(campaign.id, person.user_id, person.display_name, clock.now())
    await store.enqueue(
        campaigns.board_refresh(campaign, f"request:{person.user_id}", clock.now()), clock.now()
    )
    return None


async def join_command(
    message: Message, bot: Bot, store: Store, clock: Clock, person: Person
) -> None:
    """``/join`` in the group: note the request and give the link to the private chat."""
    campaign = await campaign_here(store, message)
    if campaign is None:
        await message.answer(await no_campaign_words(store, message))
        return
    refusal = await _request(store, clock, person, campaign)
    if refusal is not None:
        await message.answer(refusal)
        return
    link = InlineKeyboardButton(text=_("Open the private chat"), url=await join_link(bot, campaign))
    await message.answer(
        _(
            "{name}, tap the button, then «Start»: you choose your side there. Until you do, "
            "I cannot send you your secret orders screen."
        ).format(name=person.display_name),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[[link]]),
    )


async def join_pressed(
    query: CallbackQuery,
    callback_data: JoinPress,
    bot: Bot,
    store: Store,
    clock: Clock,
    person: Person,
) -> None:
    """The «Join» button: record the request and open the private chat in one tap."""
    campaign = await store.campaign(callback_data.c)
    chat_id = query.message.chat.id if query.message is not None else None
    if campaign is None or campaign.chat_id != chat_id:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    open_seats = {vacancy.side_id for vacancy in await store.vacancies(campaign.id)}
    if callback_data.s and callback_data.s not in open_seats:
        side = next((s for s in await store.sides(campaign.id) if s.id == callback_data.s), None)
        await query.answer(
            _(
                "Side «{side}» has no open seat any more: a GM gave it to someone or withdrew "
                "it. /join here tells you whether «{title}» takes new players."
            ).format(side=side.name if side else "?", title=campaign.title),
            show_alert=True,
        )
        return
    refusal = await _request(store, clock, person, campaign)
    if refusal is not None:
        await query.answer(refusal, show_alert=True)
        return
    await query.answer(url=await join_link(bot, campaign))


def removed_text(campaign: Campaign) -> str:
    """What a person the GM removed is told when they try to join again."""
    return _(
        "The GM removed you from «{title}». If that was a mistake, ask the GM to let you back "
        "in (/gm, Members), then tap «Join» in the group again."
    ).format(title=campaign.title)


def closed_text(campaign: Campaign) -> str:
    """What a newcomer is told when the campaign takes no new players."""
    return _(
        "«{title}» takes no new players now (the GM's setting). If you should play, ask the GM."
    ).format(title=campaign.title)


def refusal_text(outcome: campaigns.JoinOutcome, campaign: Campaign) -> str:
    """Why a join was refused, and what to do instead."""
    match outcome:
        case campaigns.JoinOutcome.JOINING_CLOSED:
            return closed_text(campaign)
        case campaigns.JoinOutcome.REMOVED:
            return removed_text(campaign)
        case campaigns.JoinOutcome.ALREADY_PLAYING:
            return _(
                "You already play in «{title}». Only the GM can move you to another side: ask them."
            ).format(title=campaign.title)
        case campaigns.JoinOutcome.NO_REQUEST:
            return _(
                "To join «{title}», tap «Join» under the campaign's post in its group (or send "
                "/join there), then «Start» here."
            ).format(title=campaign.title)
        case campaigns.JoinOutcome.UNKNOWN_SIDE:
            return _("That side is gone; send the join link again.")
        case _:
            return _("That campaign is over or does not exist. Ask your GM for a new link.")


async def start_join(
    message: Message, command: CommandObject, store: Store, person: Person
) -> None:
    """``/start join-<id>`` in private: show the campaign's sides to choose from, to a person
    who asked to join in the group (and was not removed, and has no side yet)."""
    campaign_id = int((command.args or "join-0").removeprefix("join-"))
    campaign = await store.campaign(campaign_id)
    if campaign is None or campaign.status is CampaignStatus.FINISHED:
        await message.answer(
            _("That campaign is over or does not exist. Ask your GM for a new link.")
        )
        return
    refusal = await campaigns.join_refusal(store, campaign, person.user_id)
    if refusal is not None:
        await message.answer(refusal_text(refusal, campaign))
        return
    sides = [side for side in await store.sides(campaign.id) if not side.retired]
    member = await store.member(campaign.id, person.user_id)
    is_gm = member is not None and member.is_gm
    vacant = {vacancy.side_id for vacancy in await store.vacancies(campaign.id)}
    if campaigns.join_rule(campaign, is_gm) is campaigns.JoinRule.CLOSED:
        sides = [side for side in sides if side.id in vacant]  # only open seats take anyone
    if not sides:
        await message.answer(
            _("«{title}» has no sides yet: try again once the GM adds them.").format(
                title=campaign.title
            )
        )
        return
    rows = [
        [
            InlineKeyboardButton(
                text=f"{colour_mark(side.colour)} {side.name}"
                + (" · " + _("open seat") if side.id in vacant else ""),
                callback_data=JoinChoice(c=campaign.id, s=side.id).pack(),
            )
        ]
        for side in sides
    ]
    lines = [_("«{title}»: which side do you play?").format(title=campaign.title)]
    if vacant & {side.id for side in sides}:
        lines.append(
            _(
                "A side marked «open seat» lost its player: ask for it, and the GM chooses who "
                "takes the seat."
            )
        )
    rule = await campaigns.join_rule_now(store, campaign, is_gm, user_id=person.user_id)
    if rule is campaigns.JoinRule.APPROVAL:
        lines.append(
            _(
                "A GM approves new players now: choose the side and role you want, and you "
                "play it once a GM approves."
            )
        )
    request = await store.join_request(campaign.id, person.user_id)
    if request is not None and request.awaits_gm and request.role is not None:
        names = {side.id: side.name for side in sides}
        lines.append(
            _(
                "Your request to play {side} as {role} waits for a GM; choosing again changes it."
            ).format(side=names.get(request.side_id or "", "?"), role=role_name(request.role))
        )
    await message.answer("\n".join(lines), reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))


async def choice_pressed(
    query: CallbackQuery,
    callback_data: JoinChoice,
    store: Store,
    clock: Clock,
    person: Person,
    i18n: I18n,
) -> None:
    """A side, then a role: join (re-checked: campaign open, side exists, not yet playing)."""
    campaign = await store.campaign(callback_data.c)
    if campaign is None or not isinstance(query.message, Message):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    refusal = await campaigns.join_refusal(store, campaign, person.user_id, callback_data.s)
    if refusal is not None:
        await query.answer(refusal_text(refusal, campaign), show_alert=True)
        return
    sides = {side.id: side for side in await store.sides(campaign.id)}
    side = sides.get(callback_data.s)
    if side is None:
        await query.answer(_("That side is gone; send the join link again."), show_alert=True)
        return
    if not callback_data.r:
        rows = [
            [
                InlineKeyboardButton(
                    text=_("Strategist: gives the side's orders"),
                    callback_data=JoinChoice(
                        c=campaign.id, s=side.id, r=Role.STRATEGIST.value
                    ).pack(),
                )
            ],
            [
                InlineKeyboardButton(
                    text=_("Tactician: plays the side's battles"),
                    callback_data=JoinChoice(
                        c=campaign.id, s=side.id, r=Role.TACTICIAN.value
                    ).pack(),
                )
            ],
        ]
        await query.answer()
        await query.message.edit_text(
            _("{side}: which role?").format(side=side.name),
            reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
        )
        return
    role = Role(callback_data.r) if callback_data.r in {"strategist", "tactician"} else None
    if role is None:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    now = clock.now()
    with i18n.use_locale(campaign.language):
        notice = _("{name} joined {side} as {role}.").format(
            name=person.display_name, side=side.name, role=role_name(role)
        )
    notices = [campaigns.group_notice(campaign, notice, now)]
    if campaign.phase is not Phase.SETUP:
        notices += await _gm_notices(store, i18n, campaign, person, side.name, role, now)
    outcome, _member = await campaigns.join_side(
        store, campaign, person.user_id, person.display_name, side.id, role, now, notices
    )
    if outcome is campaigns.JoinOutcome.APPROVAL_NEEDED:
        outcome = await campaigns.ask_to_join(store, campaign, person.user_id, side.id, role, now)
        if outcome is campaigns.JoinOutcome.ASKED:
            await query.answer()
            await query.message.edit_text(
                _(
                    "Your request to play {side} as {role} in «{title}» is with the GM. I will "
                    "tell you here once it is decided; until then you see nothing of the side."
                ).format(side=side.name, role=role_name(role), title=campaign.title)
            )
            return
    if outcome is not campaigns.JoinOutcome.JOINED:
        await query.answer(refusal_text(outcome, campaign), show_alert=True)
        return
    await query.answer()
    await query.message.edit_text(
        _("You play {side} as {role} in «{title}». I will write here when you are needed.").format(
            side=side.name, role=role_name(role), title=campaign.title
        )
    )


async def _gm_notices(
    store: Store,
    i18n: I18n,
    campaign: Campaign,
    joiner: Person,
    side_name: str,
    role: Role,
    now: datetime,
) -> list[NewOutboxMessage]:
    """After setup a side's plans exist: each GM hears of a new player in private, with the way
    to remove them if they should not play (queued with the join)."""
    gms = [m for m in await store.members(campaign.id) if m.is_gm and m.user_id != joiner.user_id]
    people = await store.people([gm.user_id for gm in gms])
    stamp = now.strftime("%Y%m%dT%H%M%S%f")
    notices: list[NewOutboxMessage] = []
    for gm in gms:
        known = people.get(gm.user_id)
        if known is None or not known.can_receive_private:
            continue
        with i18n.use_locale(known.language or language_of(known.telegram_language)):
            text = _(
                "{name} joined {side} as {role} in «{title}» and now sees that side's plans. "
                "If they should not play, remove them: /gm in the group, then Members."
            ).format(
                name=joiner.display_name, side=side_name, role=role_name(role), title=campaign.title
            )
        key = f"joined:{joiner.user_id}:{stamp}"
        notices.append(private_post(campaign, gm.user_id, "text", key, text=text))
    return notices


async def verdict_pressed(
    query: CallbackQuery,
    callback_data: JoinVerdict,
    store: Store,
    clock: Clock,
    person: Person,
    i18n: I18n,
) -> None:
    """A GM approves or refuses a join request (re-checked: the presser is a GM of that
    campaign, the request still waits)."""
    campaign = await store.campaign(callback_data.c)
    gm = None if campaign is None else await store.member(campaign.id, person.user_id)
    if campaign is None or gm is None or not gm.is_gm:
        await query.answer(_("Only the campaign's GMs decide who joins."), show_alert=True)
        return
    if callback_data.a not in ("y", "n") or not isinstance(query.message, Message):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    approve = callback_data.a == "y"
    now = clock.now()
    request = await store.join_request(campaign.id, callback_data.u)
    notice = None
    if approve and request is not None and request.side_id is not None and request.role:
        sides = {side.id: side.name for side in await store.sides(campaign.id)}
        with i18n.use_locale(campaign.language):
            notice = _("{name} joined {side} as {role} (approved by the GM).").format(
                name=request.display_name,
                side=sides.get(request.side_id, request.side_id),
                role=role_name(request.role),
            )
    decision, settled = await campaigns.decide_join(
        store, campaign, person.user_id, callback_data.u, approve, now, notice
    )
    name = settled.display_name if settled is not None else "?"
    match decision:
        case campaigns.JoinDecision.APPROVED:
            text = _("Approved: {name} now plays in «{title}». The group is told.")
        case campaigns.JoinDecision.REFUSED:
            text = _("Refused: {name} does not join «{title}». They are told.")
        case campaigns.JoinDecision.CANNOT_JOIN:
            text = _(
                "{name} cannot join «{title}» as asked (the side is gone, or they play already); "
                "the request is closed and they are told."
            )
        case _:
            text = _(
                "This request is no longer waiting (another GM decided it, or it was withdrawn)."
            )
    await query.answer()
    await query.message.edit_text(text.format(name=name, title=campaign.title))


def build() -> Router:
    """This module's router: it sets its own chat filters (it serves both kinds of chat)."""
    router = Router(name=__name__)
    router.message.register(join_command, Command("join"), GROUPS)
    router.callback_query.register(join_pressed, JoinPress.filter(), GROUPS)
    router.message.register(
        start_join,
        CommandStart(deep_link=True, magic=F.args.regexp(JOIN_PAYLOAD)),
        PRIVATE,
    )
    router.callback_query.register(choice_pressed, JoinChoice.filter(), PRIVATE)
    router.callback_query.register(verdict_pressed, JoinVerdict.filter(), PRIVATE)
    return router
