"""Posts of no-shows (issue 23), worded when sent.

* ``no_show_repeated``: to a side's strategists and the GMs, the side gave no orders and last
  turn's were entered again: what was kept is the side's orders; each dropped one with its rule.
* ``orders_reopened``: to the group, a GM reopened one side's orders until a short deadline (no
  contents); to that side's strategists in private, the same with what to do.

Private posts check at send time that the recipient is on the side concerned or a GM of the
campaign: a side's orders never go to anyone else.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from aiogram.utils.i18n import gettext as _
from pydantic import TypeAdapter, ValidationError

from bot.handlers.private import screens
from bot.posts import Post, PostContext, Renderer
from bot.services.orders import side_names
from bot.services.turns import game_for
from bot.services.vacations import away_of_sides
from bot.texts.core import away_lines, describe_order, describe_rejection
from bot.texts.moments import format_moment
from rules import Attack, Move, Reinforce, Rejection
from storage import Campaign, OutboxMessage

_REJECTIONS = TypeAdapter(list[Rejection])


def _text(message: OutboxMessage, key: str) -> str | None:
    value = message.payload.get(key)
    return value if isinstance(value, str) else None


async def _campaign(context: PostContext, message: OutboxMessage) -> Campaign | None:
    campaign_id = message.payload.get("campaign_id")
    if not isinstance(campaign_id, int):
        return None
    return await context.store.campaign(campaign_id)


async def _side_or_gm(context: PostContext, campaign: Campaign, user_id: int, side: str) -> bool:
    """True when ``user_id`` plays ``side`` or is a GM of ``campaign`` now."""
    member = await context.store.member(campaign.id, user_id)
    return member is not None and (member.is_gm or member.side_id == side)


async def render_no_show_repeated(context: PostContext, message: OutboxMessage) -> Post | None:
    """Last turn's orders entered for a side that gave none: the kept ones, the dropped ones."""
    campaign = await _campaign(context, message)
    side = _text(message, "side")
    turn = message.payload.get("turn")
    if campaign is None or side is None or not isinstance(turn, int):
        return None
    if not await _side_or_gm(context, campaign, message.chat_id, side):
        return None
    record = await context.store.orders(campaign.id, turn, side)
    try:
        dropped = _REJECTIONS.validate_python(message.payload.get("dropped", []))
    except ValidationError:
        dropped = []
    names = await side_names(context.store, campaign.id)
    campaign_map = game_for(campaign).map
    language = screens.language()
    lines = [
        _(
            "«{title}», turn {turn}: side «{side}» gave no orders by the deadline, so by the "
            "campaign's rule last turn's orders were entered again, each checked against this "
            "turn."
        ).format(title=campaign.title, turn=turn, side=names.get(side, side))
    ]
    kept: list[Move | Attack | Reinforce] = []
    if record is not None:
        kept += [*record.orders.moves, *record.orders.attacks]
        if record.orders.reinforce is not None:
            kept.append(Reinforce(sector=record.orders.reinforce))
    lines += [f"✓ {describe_order(order, campaign_map, names, language)}" for order in kept]
    for rejection in dropped:
        reason = describe_rejection(rejection, campaign_map, names, language)
        if rejection.order is None:
            lines.append(f"✗ {reason}")
        else:
            order = describe_order(rejection.order, campaign_map, names, language)
            lines.append(f"✗ {order}: {reason}")
    lines.append(
        _(
            "A sector without a valid order fortifies; a missing reinforcement goes to the "
            "smallest sector."
        )
    )
    day = message.not_before.astimezone(ZoneInfo(campaign.time_zone)).date()
    lines += away_lines(await away_of_sides(context.store, campaign, [side], day), language)
    return Post(text="\n".join(lines))


async def render_orders_reopened(context: PostContext, message: OutboxMessage) -> Post | None:
    """A GM reopened one side's orders: the group hears which side and until when; the side's
    strategists are told what to do."""
    campaign = await _campaign(context, message)
    side = _text(message, "side")
    deadline = _text(message, "deadline")
    if campaign is None or side is None or deadline is None:
        return None
    names = await side_names(context.store, campaign.id)
    language = screens.language()
    until = format_moment(datetime.fromisoformat(deadline), campaign.time_zone, language)
    name = names.get(side, side)
    if message.chat_id < 0:
        return Post(
            text=_(
                "The GM reopened the orders of side «{side}» until {deadline}. The other sides' "
                "orders stay as they were given."
            ).format(side=name, deadline=until)
        )
    if not await _side_or_gm(context, campaign, message.chat_id, side):
        return None
    return Post(
        text=_(
            "«{title}»: the GM reopened your side's orders until {deadline}. Give or change "
            "them with /orders; then the orders close and the turn goes on."
        ).format(title=campaign.title, deadline=until)
    )


RENDERERS: dict[str, Renderer] = {
    "no_show_repeated": render_no_show_repeated,
    "orders_reopened": render_orders_reopened,
}
