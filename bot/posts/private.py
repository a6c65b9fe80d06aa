"""Private posts of the orders and results screens, worded when sent.

* ``orders_changed``: to a side's other strategists, "orders changed by X" with the whole set as
  it is when sent (notices are debounced: see ``bot.services.orders.orders_notice``).
* ``battle_result``: to the other side of a battle, a result reported (with Confirm / Dispute),
  confirmed or disputed.
* ``orders_dropped``: to a side's strategists, the side's orders the battle list dropped
  because the rules refuse them now (each with the rule), held like the list itself.

Each renderer checks again, at send time, that the recipient is still on the side concerned:
a side's orders never go to anyone else.
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot.handlers.private import screens
from bot.posts import Post, PostContext, Renderer
from bot.services.orders import Seat, open_battles, open_desk, seat_in, side_names
from bot.services.turns import game_for
from bot.texts import describe_battle, describe_order, describe_rejection
from storage import OutboxMessage, Phase


def _ints(message: OutboxMessage, *keys: str) -> tuple[int, ...] | None:
    values = [message.payload.get(key) for key in keys]
    if not all(isinstance(value, int) for value in values):
        return None
    return tuple(int(value) for value in values if isinstance(value, int))


async def render_orders_changed(context: PostContext, message: OutboxMessage) -> Post | None:
    """The side's orders as now recorded, to one of its strategists; nothing if the turn moved
    on or the recipient is no longer on the side."""
    ids = _ints(message, "campaign_id", "turn")
    side = message.payload.get("side")
    if ids is None or not isinstance(side, str):
        return None
    campaign_id, turn = ids
    seat = await seat_in(context.store, message.chat_id, campaign_id)
    if seat is None or seat.side != side:
        return None
    campaign = seat.campaign
    if (campaign.turn, campaign.phase) != (turn, Phase.ORDERS):
        return None
    opened = await open_desk(context.store, seat)
    desk = opened.desk
    if desk is None or desk.updated_by == message.chat_id:
        return None
    names = await side_names(context.store, campaign.id)
    editor_member = (
        None
        if desk.updated_by is None
        else await context.store.member(campaign.id, desk.updated_by)
    )
    editor = editor_member.display_name if editor_member else None
    heading = _("Your side's orders were changed by {name}. Now recorded:").format(
        name=editor or "?"
    )
    body = screens.orders_text(desk, names, names.get(side, side), editor)
    return Post(text=heading + "\n\n" + body + "\n\n" + _("/orders opens the screen."))


async def render_battle_result(context: PostContext, message: OutboxMessage) -> Post | None:
    """A battle's result as it stands, with Confirm / Dispute while the recipient may answer."""
    ids = _ints(message, "campaign_id", "turn", "battle")
    if ids is None:
        return None
    campaign_id, turn, battle_id = ids
    seat: Seat | None = await seat_in(context.store, message.chat_id, campaign_id)
    if seat is None:
        return None
    # Rendered when sent, at or after ``not_before``: the list is public by then or not at all.
    desk = await open_battles(context.store, seat, message.not_before)
    if desk is None or desk.campaign.turn != turn:
        return None
    battle = next((b for b in desk.battles if b.id == battle_id), None)
    if battle is None:
        return None
    names = await side_names(context.store, campaign_id)
    report = desk.reports.get(battle.id)
    lines = [
        *describe_battle(battle, game_for(desk.campaign).map, names, screens.language()),
        screens.report_status(report, names),
    ]
    keyboard = None
    reported = report.reported if report is not None else None
    reporter_side = desk.reporters.get(battle.id)
    if (
        report is not None
        and reported is not None
        and report.override is None
        and report.confirmed_by is None
        and report.disputed_by is None
        and seat.side is not None
        and seat.side != reporter_side
    ):
        lines.append(_("Is this right? Confirm it, or dispute it for the GM to decide."))
        keyboard = InlineKeyboardMarkup(
            inline_keyboard=[
                screens.answer_buttons(campaign_id, turn, battle, reported.outcome, reported.winner)
            ]
        )
    return Post(text="\n".join(lines), keyboard=keyboard)


async def render_orders_dropped(context: PostContext, message: OutboxMessage) -> Post | None:
    """The side's orders the battle list dropped, each with the rule it breaks; only to a
    member of that side, and only while that list is the turn's."""
    ids = _ints(message, "campaign_id", "turn")
    side = message.payload.get("side")
    if ids is None or not isinstance(side, str):
        return None
    campaign_id, turn = ids
    seat = await seat_in(context.store, message.chat_id, campaign_id)
    if seat is None or seat.side != side:
        return None
    listed = await context.store.battle_list(campaign_id, turn)
    if listed is None:
        return None
    dropped = [rejection for rejection in listed.rejected if rejection.side == side]
    if not dropped:
        return None
    names = await side_names(context.store, campaign_id)
    campaign_map = game_for(seat.campaign).map
    language = screens.language()
    lines = [
        _(
            "«{title}», turn {turn}: when the battle list was built, these orders of {side} "
            "were dropped, because the rules refuse them now:"
        ).format(title=seat.campaign.title, turn=turn, side=names.get(side, side))
    ]
    for rejection in dropped:
        reason = describe_rejection(rejection, campaign_map, names, language)
        order = rejection.order
        if order is None:
            lines.append(f"✗ {reason}")
        else:
            lines.append(f"✗ {describe_order(order, campaign_map, names, language)}: {reason}")
    lines.append(
        _(
            "A sector without a valid order fortifies; a missing reinforcement goes to your "
            "smallest sector."
        )
    )
    return Post(text="\n".join(lines))


RENDERERS: dict[str, Renderer] = {
    "orders_changed": render_orders_changed,
    "battle_result": render_battle_result,
    "orders_dropped": render_orders_dropped,
}
