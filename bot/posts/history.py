"""Posts of the campaign's history: one resolved turn's map and summary (``/history``), and the
summary post when a campaign ends (sides' and players' battles, the chart of sectors held).

Only resolved turns are shown, so nothing here is secret; a side's own orders of a turn are
added in its players' private chats (all sides' orders for a GM), as they were resolved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from aiogram.utils.i18n import gettext as _

from bot.modules import BOT_MODULES
from bot.posts import Post, PostContext, Renderer
from bot.posts.turns import _campaign, _int, _map_of, _names, _picture
from bot.screens.charts import ChartSide, ChartWords, held_chart
from bot.screens.map_views import side_views
from bot.services.orders import result_sources
from bot.services.records import CampaignRecord, Tally, campaign_record
from bot.services.turns import game_for
from bot.texts import core as texts
from rules.render import side_tags
from storage import Campaign, CampaignStatus, OutboxMessage, Side

DEPLOYMENT = 0
"""``turn`` of the history post that shows the armies as deployed."""


def tally_words(tally: Tally) -> str:
    """ "3 wins, 1 draw, 2 losses" (every count through plural forms); the draws counted
    without a result are said: "3 wins, 2 draws (1 without a result), 0 losses"."""
    wins = _("{n} win", "{n} wins", tally.wins).format(n=tally.wins)
    draws = _("{n} draw", "{n} draws", tally.draws).format(n=tally.draws)
    if tally.unreported:
        draws += " " + _("({n} without a result)").format(n=tally.unreported)
    losses = _("{n} loss", "{n} losses", tally.losses).format(n=tally.losses)
    return f"{wins}, {draws}, {losses}"


async def _orders_lines(
    context: PostContext, campaign: Campaign, turn: int, chat_id: int, names: Mapping[str, str]
) -> list[str]:
    """The orders of ``turn`` as resolved that the person in ``chat_id`` may read: their own
    side's, or every side's for a GM; nothing for anyone else."""
    member = await context.store.member(campaign.id, chat_id)
    if member is None:
        return []
    resolutions = await context.store.resolutions(campaign.id, turn)
    if not resolutions:
        return []
    resolution = resolutions[-1]
    if member.side_id is not None:
        shown = [member.side_id]
    elif member.is_gm:
        shown = list(resolution.state.sides())
    else:
        return []
    campaign_map = _map_of(campaign)
    language = context.i18n.current_locale
    lines: list[str] = []
    for side in shown:
        holdings = resolution.state.armies.get(side, {})
        if not holdings:
            continue
        orders = resolution.orders.get(side)
        lines.append(_("Orders of side «{side}» this turn:").format(side=names.get(side, side)))
        if orders is None:
            lines.append(_("none given: every sector fortified"))
            continue
        groups = next(
            (
                found
                for name, module in BOT_MODULES.items()
                if name in resolution.state.modules
                and (found := module.ordered_groups(orders)) is not None
            ),
            None,
        )
        lines += texts.describe_orders(
            orders, holdings, campaign_map, names, language, groups=groups
        )
    return lines


async def render_history_turn(context: PostContext, message: OutboxMessage) -> Post | None:
    """One turn of the history: the map after it and what happened (``turn`` 0: the armies as
    deployed); in private, with the orders the reader may see."""
    campaign = await _campaign(context, message)
    turn = _int(message, "turn")
    if campaign is None or turn is None or turn < 0:
        return None
    sides = await context.store.sides(campaign.id)
    names = _names(sides)
    if turn == DEPLOYMENT:
        state = await context.store.turn_start(campaign.id, 1)
        if state is None:
            return None
        text = _("«{title}»: the armies as deployed, before turn 1.").format(title=campaign.title)
        return Post(text=text, photo=await _picture(context, campaign, state, sides))
    resolutions = await context.store.resolutions(campaign.id, turn)
    if not resolutions:
        return None
    resolution = resolutions[-1]
    report = resolution.report
    lines = [_("«{title}», from the history:").format(title=campaign.title)]
    lines += texts.describe_report(
        report,
        _map_of(campaign),
        names,
        context.i18n.current_locale,
        await result_sources(context.store, campaign.id, turn),
    )
    if message.chat_id > 0:
        lines += await _orders_lines(context, campaign, turn, message.chat_id, names)
    photo = await _picture(context, campaign, resolution.state_after, sides, week=True)
    return Post(text="\n".join(lines), photo=photo)


def _ending(record: CampaignRecord, names: Mapping[str, str]) -> str:
    title, n = record.campaign.title, record.turns
    if record.winner is not None:
        return _(
            "«{title}» is over after {n} turn: side «{side}» wins the campaign.",
            "«{title}» is over after {n} turns: side «{side}» wins the campaign.",
            n,
        ).format(title=title, n=n, side=names.get(record.winner, record.winner))
    last = record.reports[-1] if record.reports else None
    if last is not None and last.game_over:
        return _(
            "«{title}» is over after {n} turn, without a winner: no side has armies left.",
            "«{title}» is over after {n} turns, without a winner: no side has armies left.",
            n,
        ).format(title=title, n=n)
    if n == 0:
        return _("«{title}» is over: the GM ended it before its first turn was resolved.").format(
            title=title
        )
    return _(
        "«{title}» is over after {n} turn: the GM ended it before any side won.",
        "«{title}» is over after {n} turns: the GM ended it before any side won.",
        n,
    ).format(title=title, n=n)


def summary_text(record: CampaignRecord, sides: list[Side], goal: int) -> str:
    """The end-of-campaign summary's words (``goal``: the captured sectors that win)."""
    names = _names(sides)
    lines = [_ending(record, names)]
    lines.append(
        _("{n} battle was played.", "{n} battles were played.", record.battles).format(
            n=record.battles
        )
    )
    if record.unreported:
        lines.append(
            _(
                "Of them, {n} had no result and was counted as a draw without losses.",
                "Of them, {n} had no result and were counted as draws without losses.",
                record.unreported,
            ).format(n=record.unreported)
        )
    lines.append("")
    lines.append(_("Sides (battles won, drawn and lost):"))
    for side in sides:
        tally = record.sides.get(side.id, Tally())
        held = record.held.get(side.id, ())
        sectors = texts.held_words(held[-1] if held else 0, goal)
        lines.append(f"• «{side.name}»: {tally_words(tally)}; {sectors}")
    if record.players:
        lines.append("")
        lines.append(_("Players (the battles whose result they reported or answered):"))
        for player in record.players:
            played = names.get(player.side_id, player.side_id)
            lines.append(f"• {player.name} («{played}»): {tally_words(player.tally)}")
    return "\n".join(lines)


async def summary_chart(record: CampaignRecord, sides: list[Side], goal: int) -> bytes:
    """The chart of sectors held after deployment and after each turn."""
    points = (_("Start"), *(str(turn) for turn in range(1, record.turns + 1)))
    words = ChartWords(
        title=_("Sectors held, turn by turn"),
        points=points,
        goal=_("{n} to win", "{n} to win", goal).format(n=goal),
    )
    tags = side_tags(side_views(sides))
    lines = [
        ChartSide(
            name=side.name,
            colour=side.colour,
            held=record.held.get(side.id, ()),
            tag=tags[side.id],
        )
        for side in sides
    ]
    return await asyncio.to_thread(held_chart, lines, words, goal)


async def render_campaign_summary(context: PostContext, message: OutboxMessage) -> Post | None:
    """The campaign's end in numbers, with the chart; nothing while it is not over (a
    correction or an undo may have reopened it)."""
    campaign = await _campaign(context, message)
    if campaign is None or campaign.status is not CampaignStatus.FINISHED:
        return None
    record = await campaign_record(context.store, campaign)
    sides = await context.store.sides(campaign.id)
    if record.turns == 0:
        return Post(text=_ending(record, _names(sides)))
    goal = game_for(campaign).ruleset.sectors_to_win
    chart = await summary_chart(record, sides, goal)
    return Post(text=summary_text(record, sides, goal), photo=chart)


RENDERERS: dict[str, Renderer] = {
    "history_turn": render_history_turn,
    "campaign_summary": render_campaign_summary,
}
