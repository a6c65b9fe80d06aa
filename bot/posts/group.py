"""Group posts of the campaign itself: the pinned status board, edited in place.

The board says which sides are ready, saved or silent and who still has to finish joining;
it never says what anyone ordered (a test checks).
"""

from __future__ import annotations

from datetime import datetime

from aiogram.utils.i18n import gettext as _

from bot.posts import Post, PostContext, Renderer
from bot.posts.turns import deadline_of, deadline_words, passed_deadline_line
from bot.services.campaigns import PALETTE, Board, Readiness, board
from bot.services.window import orders_opening, undone_back
from bot.texts.core import held_words, phase_name
from bot.texts.moments import format_moment
from rules.colours import Rgb, nearest, parse_hex
from storage import Campaign, CampaignStatus, OutboxMessage, OutboxState, Phase, Store

COLOUR_MARKS: dict[str, Rgb] = {
    "🟧": (0xFF, 0x98, 0x00),
    "🩵": (0x64, 0xD0, 0xFF),
    "🟩": (0x7C, 0xB3, 0x42),
    "🟨": (0xFF, 0xCC, 0x32),
    "🟦": (0x19, 0x76, 0xD2),
    "🟥": (0xF4, 0x43, 0x36),
    "🟪": (0xAB, 0x47, 0xBC),
    "⬛": (0x42, 0x42, 0x42),
}
"""The coloured marks a side's name may carry, with the colour Noto Color Emoji draws each in
(the middle of its glyph): the eight squares of the colours the safe palette has, and the light
blue heart for sky blue, which has no square (🟦 is blue's). Brown and white squares are left
out: no side colour is brown or white."""


def colour_name(key: str) -> str:
    """A palette colour's name."""
    names = {
        "orange": _("orange"),
        "sky": _("sky blue"),
        "green": _("bluish green"),
        "yellow": _("yellow"),
        "blue": _("blue"),
        "vermillion": _("vermillion"),
        "purple": _("reddish purple"),
        "black": _("black"),
    }
    return names.get(key, key)


def colour_mark(hex_colour: str) -> str:
    """The mark nearest to a side's colour, shown beside its name (a cue, never the only one):
    the map's, the chart's and the Mini App's colour, since they all draw the stored one."""
    try:
        colour = parse_hex(hex_colour)
    except ValueError:
        return "▪️"
    return nearest(colour, COLOUR_MARKS)


def position_line(campaign: Campaign) -> str:
    """ "Turn 2, orders" (or the phase alone before turn 1), "paused" when it is."""
    if campaign.turn >= 1 and campaign.phase is not Phase.FINISHED:
        line = _("Turn {turn}: {phase}").format(
            turn=campaign.turn, phase=phase_name(campaign.phase)
        )
    else:
        line = phase_name(campaign.phase).capitalize()
    if campaign.status is CampaignStatus.PAUSED:
        line += " " + _("(paused)")
    elif campaign.status is CampaignStatus.FINISHED:
        line = _("The campaign is over.")
    return line


async def deadline_line(
    store: Store, campaign: Campaign, language: str, at: datetime | None = None
) -> str | None:
    """ "Deadline: Thu 5 Mar, 23:59 (Moscow, UTC+3)." in the campaign's time zone, after "Orders
    open ..." when the orders window opens after ``at``; once it has passed with its step
    blocked, that it passed and what the campaign waits for; ``None`` outside the phases that
    have one, or while paused (the schedule moves it on resume)."""
    if campaign.status is CampaignStatus.PAUSED or campaign.phase in (Phase.SETUP, Phase.FINISHED):
        return None
    deadline = await deadline_of(store, campaign, campaign.turn, campaign.phase)
    returned = await undone_back(store, campaign)
    line = deadline_words(campaign, campaign.phase, deadline, language, returned)
    if deadline is None:
        return line
    passed = (
        None if at is None else await passed_deadline_line(store, campaign, deadline, at, language)
    )
    if passed is not None:
        return passed
    opening = None if at is None else await orders_opening(store, campaign, at)
    if opening is None:
        return line
    opens = _("Orders open {moment}.").format(
        moment=format_moment(opening, campaign.time_zone, language)
    )
    return f"{opens} {line}"


def board_text(current: Board, deadline: str | None = None) -> str:
    """The board in words: position and deadline, sides with their players, readiness (never
    their orders) and the sectors they hold, and joins still to finish."""
    campaign = current.campaign
    marks = {
        Readiness.READY: "✅ " + _("ready"),
        Readiness.SAVED: "✏️ " + _("saved, not marked ready"),
        Readiness.SILENT: "💤 " + _("nothing yet"),
    }
    lines = [campaign.title, position_line(campaign)]
    if deadline is not None:
        lines.append(deadline)
    lines.append("")
    if not current.sides:
        lines.append(_("No sides yet."))
    for line in current.sides:
        players = ", ".join(line.players) or _("no players yet")
        text = f"{colour_mark(line.side.colour)} {line.side.name} ({players})"
        state = [] if line.readiness is None else [marks[line.readiness]]
        if line.held is not None:
            state.append(held_words(line.held, line.need))
        if state:
            text += ": " + "; ".join(state)
        lines.append(text)
    if current.battles is not None:
        lines.append("")
        lines.append(
            _("Battle results in: {done} of {total}.").format(
                done=current.results_in, total=current.battles
            )
        )
        names = {line.side.id: line.side.name for line in current.sides}
        for battle, side in current.awaiting_answer:
            lines.append(
                _("Battle {id}: reported by side «{side}», not disputed: it stands.").format(
                    id=battle, side=names.get(side or "", "?")
                )
                if side is not None
                else _("Battle {id}: reported, not disputed: it stands.").format(id=battle)
            )
        if current.disputed:
            lines.append(
                "⚠️ "
                + _(
                    "Disputed, the GM decides: battle {ids}.",
                    "Disputed, the GM decides: battles {ids}.",
                    len(current.disputed),
                ).format(ids=", ".join(map(str, current.disputed)))
            )
    if current.must_open_private:
        lines.append("")
        lines.append(
            _("Still to open a private chat with me (tap Join, then Start): {names}").format(
                names=", ".join(current.must_open_private)
            )
        )
    if current.awaiting_gm:
        names = {line.side.id: line.side.name for line in current.sides}
        lines.append(
            _("Waiting for the GM's approval to join: {names}").format(
                names=", ".join(
                    f"{name} (→ {names.get(side, side)})" for name, side in current.awaiting_gm
                )
            )
        )
    if current.choosing_side:
        lines.append(
            _("Still choosing a side in the private chat: {names}").format(
                names=", ".join(current.choosing_side)
            )
        )
    return "\n".join(lines)


async def render_status_board(context: PostContext, message: OutboxMessage) -> Post | None:
    """The pinned board, edited in place; ``None`` while a newer board post waits (one edit per
    burst) or when the campaign is gone."""
    campaign_id = message.payload.get("campaign_id")
    if not isinstance(campaign_id, int):
        return None
    campaign = await context.store.campaign(campaign_id)
    if campaign is None:
        return None
    waiting = (OutboxState.PENDING, OutboxState.SENDING)
    # A newer refresh will show it all, unless it is held for later (the Friday list's). A
    # refresh is rendered when sent, so one older than a step's posts would show the campaign
    # ahead of them (turn 2 on the board before turn 1's map reached the group): it is skipped
    # for the newer one the step queued after its posts, also when it is being tried again.
    # Only a board never known to be sent is not skipped on a retry: Telegram may have taken
    # it (a crash before it was marked sent), and only sending it again tells its message id.
    if message.attempts <= 1 or campaign.status_message_id is not None:
        for other in await context.store.unsent_outbox_messages(campaign_id, "status_board"):
            held = other.not_before > max(other.created_at, message.not_before)
            newer = other.id > message.id
            if newer and other.state in waiting and not held:
                return None
    store = context.store

    async def remember(message_id: int) -> None:
        await store.set_status_message(campaign_id, message_id)

    deadline = await deadline_line(store, campaign, context.i18n.current_locale, message.not_before)
    # A post is rendered when it is sent, at or after its ``not_before``; a battle list held
    # until later than that is not public yet (one that came due would have gone out first,
    # as the chat's older message).
    current = await board(store, campaign, message.not_before)
    return Post(
        text=board_text(current, deadline),
        pin=True,
        edit_message_id=campaign.status_message_id,
        on_sent=remember,
    )


RENDERERS: dict[str, Renderer] = {"status_board": render_status_board}

__all__ = ["PALETTE", "RENDERERS", "board_text", "colour_mark", "colour_name"]
