"""``/history`` and ``/stats``, in the group and in private.

``/history`` shows a campaign's resolved turns as buttons; a tap sends that turn's map and
summary to the chat (in private with the orders the reader may see), and «Summary» the end post
of a finished campaign. In the group the chat's campaigns are offered, in private the person's.
``/stats`` counts a person's battles over the group's campaigns (in private: over all of theirs);
in the group, a reply to someone's message asks for that person's.
"""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.callbacks import ButtonInt
from bot.clock import Clock
from bot.posts.history import DEPLOYMENT, tally_words
from bot.services.posting import group_post, private_post
from bot.services.records import player_stats, summary_post
from bot.texts import role_name
from storage import Campaign, CampaignStatus, Person, Store
from storage.names import clean_name

SCREEN, SUMMARY = -1, -2
"""``t`` of a press that shows a campaign's list of turns, or asks for its end summary."""
TURNS_PER_ROW = 4
OTHER_CAMPAIGNS = 6


class HistoryPress(CallbackData, prefix="hs"):
    """A history button: campaign ``c``, turn ``t`` (0: deployment; ``SCREEN``, ``SUMMARY``)."""

    c: ButtonInt
    t: ButtonInt


async def _chat_campaigns(store: Store, chat_id: int, private: bool) -> list[Campaign]:
    """The campaigns a chat may browse, newest first: the group's own, or the person's."""
    if private:
        found = [m.campaign for m in await store.memberships(chat_id)]
    else:
        found = await store.campaigns_in_chat(chat_id)
    return sorted((c for c in found if c.turn >= 1), key=lambda c: c.id, reverse=True)


def _may_browse(campaign: Campaign, campaigns: list[Campaign]) -> bool:
    return any(c.id == campaign.id for c in campaigns)


async def _resolved_turns(store: Store, campaign: Campaign) -> list[int]:
    return [
        turn for turn in range(1, campaign.turn + 1) if await store.resolutions(campaign.id, turn)
    ]


async def history_screen(
    store: Store, campaign: Campaign, campaigns: list[Campaign]
) -> tuple[str, InlineKeyboardMarkup]:
    """The campaign's history as buttons, and the chat's other campaigns."""
    turns = await _resolved_turns(store, campaign)
    deployed = await store.turn_start(campaign.id, 1) is not None
    lines = [_("«{title}»: the history.").format(title=campaign.title)]
    if not turns:
        lines.append(_("No turn has been resolved yet: the first map comes on the first Monday."))
    else:
        lines.append(
            _(
                "{n} turn resolved. Tap a turn for its map and what happened.",
                "{n} turns resolved. Tap a turn for its map and what happened.",
                len(turns),
            ).format(n=len(turns))
        )
    buttons: list[InlineKeyboardButton] = []
    if deployed:
        buttons.append(_button(_("Deployment"), campaign.id, DEPLOYMENT))
    buttons += [_button(_("Turn {n}").format(n=turn), campaign.id, turn) for turn in turns]
    rows = [buttons[i : i + TURNS_PER_ROW] for i in range(0, len(buttons), TURNS_PER_ROW)]
    if campaign.status is CampaignStatus.FINISHED:
        rows.append([_button(_("🏁 Summary"), campaign.id, SUMMARY)])
    others = [c for c in campaigns if c.id != campaign.id][:OTHER_CAMPAIGNS]
    if others:
        lines.append(_("Other campaigns: tap one to see its history."))
        rows += [[_button(f"📜 {c.title[:40]}", c.id, SCREEN)] for c in others]
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)


def _button(text: str, campaign_id: int, turn: int) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=HistoryPress(c=campaign_id, t=turn).pack())


def _no_history() -> str:
    return _(
        "There is no history here yet: it starts when a campaign's first turn begins. "
        "/calendar shows when that is."
    )


async def history_command(message: Message, store: Store, person: Person) -> None:
    """``/history``: the newest campaign's turns, as buttons."""
    private = message.chat.type == "private"
    campaigns = await _chat_campaigns(store, message.chat.id, private)
    if not campaigns:
        await message.answer(_no_history())
        return
    chosen = campaigns[0]
    if private and person.current_campaign_id is not None:
        chosen = next((c for c in campaigns if c.id == person.current_campaign_id), chosen)
    text, keyboard = await history_screen(store, chosen, campaigns)
    await message.answer(text, reply_markup=keyboard)


async def history_press(
    query: CallbackQuery, callback_data: HistoryPress, store: Store, clock: Clock
) -> None:
    """A history button: show a campaign's turns, or send a turn's map or the end summary."""
    if query.message is None:
        await query.answer()
        return
    chat_id = query.message.chat.id
    private = query.message.chat.type == "private"
    campaign = await store.campaign(callback_data.c)
    campaigns = await _chat_campaigns(store, chat_id, private)
    if campaign is None or not _may_browse(campaign, campaigns):
        await query.answer(
            _("That history is not this chat's: send /history here for its own."),
            show_alert=True,
        )
        return
    turn, now = callback_data.t, clock.now()
    if turn == SCREEN:
        text, keyboard = await history_screen(store, campaign, campaigns)
        if isinstance(query.message, Message):
            await query.message.edit_text(text, reply_markup=keyboard)
        await query.answer()
        return
    if turn == SUMMARY:
        if campaign.status is not CampaignStatus.FINISHED:
            await query.answer(_("The campaign is not over yet."), show_alert=True)
            return
        key = f"asked:{chat_id}:{query.id}"
        post = summary_post(campaign, key) if not private else None
        await store.enqueue(
            post or private_post(campaign, chat_id, "campaign_summary", f"summary:{key}"), now
        )
        await query.answer(_("The summary is on its way."))
        return
    known = (
        await store.turn_start(campaign.id, 1) is not None
        if turn == DEPLOYMENT
        else turn >= 1 and bool(await store.resolutions(campaign.id, turn))
    )
    if not known:
        await query.answer(_("That turn has not been resolved yet."), show_alert=True)
        return
    key = f"history:{chat_id}:{query.id}"
    if private:
        post = private_post(campaign, chat_id, "history_turn", key, turn=turn)
    else:
        post = group_post(campaign, "history_turn", key, turn=turn)
    await store.enqueue(post, now)
    await query.answer(_("The map is on its way."))


async def stats_command(message: Message, store: Store, person: Person) -> None:
    """``/stats``: a person's record over the chat's campaigns (their own, or the replied-to
    person's in the group)."""
    private = message.chat.type == "private"
    user_id, name = person.user_id, person.display_name
    replied = message.reply_to_message
    # In a forum topic every message "replies" to the topic's first one: that is no question.
    topic_root = replied is not None and replied.message_id == message.message_thread_id
    asked = None if replied is None or private or topic_root else replied.from_user
    if asked is not None and not asked.is_bot:
        known = await store.person(asked.id)
        user_id, name = asked.id, known.display_name if known else clean_name(asked.full_name)
    campaigns = await _chat_campaigns(store, message.chat.id, private)
    stats = await player_stats(store, user_id, reversed(campaigns))
    if not stats.campaigns:
        none = (
            _("{name}: no campaign played in this group yet.")
            if not private
            else _("{name}: no campaign played yet.")
        )
        await message.answer(none.format(name=name))
        return
    title = (
        _("{name}: the record in this group's campaigns:")
        if not private
        else _("{name}: the record in every campaign:")
    )
    lines = [title.format(name=name)]
    for campaign, side_id, tally, won in stats.campaigns:
        member = await store.member(campaign.id, user_id)
        sides = {side.id: side.name for side in await store.sides(campaign.id)}
        roles = ", ".join(sorted(role_name(role) for role in member.roles)) if member else ""
        if side_id is not None:
            seat = _("side «{side}», {roles}").format(side=sides.get(side_id, side_id), roles=roles)
        else:
            seat = roles
        line = f"• «{campaign.title}» ({seat}): {tally_words(tally)}"
        if won:
            line += "; " + _("the side won the campaign")
        lines.append(line)
    total = stats.total
    lines.append(
        _(
            "In all: {n} campaign, {won} won; battles: {tally}.",
            "In all: {n} campaigns, {won} won; battles: {tally}.",
            len(stats.campaigns),
        ).format(n=len(stats.campaigns), won=stats.won, tally=tally_words(total))
    )
    lines.append(_("A battle counts for a player who reported, confirmed or disputed its result."))
    await message.answer("\n".join(lines))


def build() -> Router:
    """This module's router: it serves the group and the private chat."""
    router = Router(name=__name__)
    router.message.register(history_command, Command("history"))
    router.message.register(stats_command, Command("stats"))
    router.callback_query.register(history_press, HistoryPress.filter(), F.message)
    return router
