"""``/history`` and ``/stats``, in the group and in private.

``/history`` lists the chat's campaigns, newest first, five to a page (in the group: every
campaign the group has run; in private: the person's), each with its dates, resolved turns and
winner; a tap opens a campaign's resolved turns as buttons. A turn's button sends that turn's map
and summary to the chat (in private with the orders the reader may see), and «Summary» the end
post of a finished campaign. With one campaign only, ``/history`` opens it at once.
``/stats`` counts a person's battles over the group's campaigns (in private: over all of theirs);
in the group, a reply to someone's message asks for that person's.
"""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.editing import edit_in_place
from bot.handlers.filters import Awaited
from bot.posts.history import DEPLOYMENT, tally_words
from bot.runtime.clock import Clock
from bot.screens.callbacks import ButtonInt
from bot.services.posting import group_post, private_post
from bot.services.records import ArchiveEntry, archive_entry, player_stats, summary_post
from bot.texts.core import role_name
from bot.texts.moments import format_day
from storage import Campaign, CampaignStatus, Person, Store
from storage.names import clean_name

SCREEN, SUMMARY = -1, -2
"""``t`` of a press that shows a campaign's list of turns, or asks for its end summary."""
TURNS_PER_ROW = 4
PAGE_SIZE = 5
"""Campaigns on one page of the list: each is a line and a button, so five fit on a phone."""


class HistoryPress(CallbackData, prefix="hs"):
    """A history button: campaign ``c``, turn ``t`` (0: deployment; ``SCREEN``, ``SUMMARY``)."""

    c: ButtonInt
    t: ButtonInt


class HistoryList(CallbackData, prefix="hl"):
    """A page ``p`` (0: the newest campaigns) of the chat's list of campaigns."""

    p: ButtonInt


async def _chat_campaigns(store: Store, chat_id: int, private: bool) -> list[Campaign]:
    """The campaigns a chat may browse, newest first: the group's own, or the person's; each
    one that got to its first turn, or was finished (a finished one is in the archive even if
    it ended before its first turn)."""
    if private:
        found = [m.campaign for m in await store.memberships(chat_id)]
    else:
        found = await store.campaigns_in_chat(chat_id)
    kept = (c for c in found if c.turn >= 1 or c.status is CampaignStatus.FINISHED)
    return sorted(kept, key=lambda c: c.id, reverse=True)


def _may_browse(campaign: Campaign, campaigns: list[Campaign]) -> bool:
    return any(c.id == campaign.id for c in campaigns)


async def _resolved_turns(store: Store, campaign: Campaign) -> list[int]:
    return [
        turn for turn in range(1, campaign.turn + 1) if await store.resolutions(campaign.id, turn)
    ]


def _page_count(campaigns: list[Campaign]) -> int:
    return max(1, -(-len(campaigns) // PAGE_SIZE))


def entry_words(entry: ArchiveEntry, winner_name: str | None, language: str) -> str:
    """One campaign in the list: «Title»: its dates, resolved turns, and how it ended."""
    campaign, n = entry.campaign, entry.turns
    start = format_day(entry.started, campaign.time_zone, language)
    if entry.ended is None:
        return _(
            "«{title}»: since {start}, running; {n} turn resolved.",
            "«{title}»: since {start}, running; {n} turns resolved.",
            n,
        ).format(title=campaign.title, start=start, n=n)
    end = format_day(entry.ended, campaign.time_zone, language)
    if winner_name is not None:
        return _(
            "«{title}»: {start} – {end}, {n} turn; the winner: side «{side}».",
            "«{title}»: {start} – {end}, {n} turns; the winner: side «{side}».",
            n,
        ).format(title=campaign.title, start=start, end=end, n=n, side=winner_name)
    return _(
        "«{title}»: {start} – {end}, {n} turn; no winner.",
        "«{title}»: {start} – {end}, {n} turns; no winner.",
        n,
    ).format(title=campaign.title, start=start, end=end, n=n)


async def list_screen(
    store: Store, campaigns: list[Campaign], page: int, private: bool
) -> tuple[str, InlineKeyboardMarkup]:
    """A page of the chat's campaigns, newest first: a line and a button for each, then the
    buttons to the newer and older pages."""
    pages = _page_count(campaigns)
    page = min(max(page, 0), pages - 1)
    shown = campaigns[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    n = len(campaigns)
    if private:
        heading = _(
            "Your {n} campaign, newest first:", "Your {n} campaigns, newest first:", n
        ).format(n=n)
    else:
        heading = _(
            "This group's {n} campaign, newest first:",
            "This group's {n} campaigns, newest first:",
            n,
        ).format(n=n)
    lines = [heading]
    language = get_i18n().current_locale
    rows: list[list[InlineKeyboardButton]] = []
    for campaign in shown:
        entry = await archive_entry(store, campaign)
        names = {side.id: side.name for side in await store.sides(campaign.id)}
        winner = None if entry.winner is None else names.get(entry.winner, entry.winner)
        lines.append("• " + entry_words(entry, winner, language))
        rows.append([_button(f"📜 {campaign.title[:40]}", campaign.id, SCREEN)])
    if pages > 1:
        lines.append(_("Page {page} of {pages}.").format(page=page + 1, pages=pages))
    lines.append(_("Tap a campaign for its turns, maps and summary."))
    paging: list[InlineKeyboardButton] = []
    if page > 0:
        paging.append(_list_button(_("◀ Newer"), page - 1))
    if page < pages - 1:
        paging.append(_list_button(_("Older ▶"), page + 1))
    if paging:
        rows.append(paging)
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)


async def history_screen(
    store: Store, campaign: Campaign, campaigns: list[Campaign]
) -> tuple[str, InlineKeyboardMarkup]:
    """The campaign's history as buttons, and the way back to the chat's list of campaigns."""
    turns = await _resolved_turns(store, campaign)
    deployed = await store.turn_start(campaign.id, 1) is not None
    finished = campaign.status is CampaignStatus.FINISHED
    lines = [_("«{title}»: the history.").format(title=campaign.title)]
    if not turns and finished:
        lines.append(_("It ended before its first turn was resolved."))
    elif not turns:
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
    if finished:
        rows.append([_button(_("🏁 Summary"), campaign.id, SUMMARY)])
    if len(campaigns) > 1:
        index = next((i for i, c in enumerate(campaigns) if c.id == campaign.id), 0)
        rows.append([_list_button(_("◀ All campaigns"), index // PAGE_SIZE)])
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)


def _button(text: str, campaign_id: int, turn: int) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=HistoryPress(c=campaign_id, t=turn).pack())


def _list_button(text: str, page: int) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=HistoryList(p=page).pack())


def _no_history() -> str:
    return _(
        "There is no history here yet: it starts when a campaign's first turn begins. "
        "/calendar shows when that is."
    )


async def history_command(message: Message, store: Store) -> None:
    """``/history``: the chat's campaigns, newest first (one campaign: its turns at once)."""
    private = message.chat.type == "private"
    campaigns = await _chat_campaigns(store, message.chat.id, private)
    if not campaigns:
        await message.answer(_no_history())
        return
    if len(campaigns) == 1:
        text, keyboard = await history_screen(store, campaigns[0], campaigns)
    else:
        text, keyboard = await list_screen(store, campaigns, 0, private)
    await message.answer(text, reply_markup=keyboard)


async def list_press(query: CallbackQuery, callback_data: HistoryList, store: Store) -> None:
    """A page button of the list: that page, in place (the chat's own campaigns only)."""
    if not isinstance(query.message, Message):
        await query.answer()
        return
    private = query.message.chat.type == "private"
    campaigns = await _chat_campaigns(store, query.message.chat.id, private)
    if not campaigns:
        await query.answer(_no_history(), show_alert=True)
        return
    text, keyboard = await list_screen(store, campaigns, callback_data.p, private)
    await edit_in_place(query.message, text, keyboard)
    await query.answer()


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
            await edit_in_place(query.message, text, keyboard)
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
    router.callback_query.register(history_press, HistoryPress.filter(), Awaited(F.message))
    router.callback_query.register(list_press, HistoryList.filter(), Awaited(F.message))
    return router
