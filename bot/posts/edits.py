"""Posts of a GM's direct edits of the state (issue 23).

* ``state_edited``: the group, what the GM changed and why, with the map redrawn;
* ``state_edit_undone``: the group, the GM took an edit back, with the map as it is again;
* ``orders_after_edit``: a strategist, their side's orders the state no longer allows (checked
  when sent, so a side that changed them meanwhile hears nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.modules import BOT_MODULES
from bot.modules.protocol import AdjustmentWords
from bot.posts import Post, PostContext, Renderer
from bot.screens.map_views import turn_map
from bot.services.orders import seat_in, side_names
from bot.services.turns import game_for
from bot.texts.core import describe_order, describe_rejection
from bot.texts.sectors import sector_label
from rules import CampaignState, accept_orders
from rules.edits import StateEdit, holder_changes
from rules.game import Game
from storage import Campaign, OutboxMessage, Side, StateAdjustmentRecord


def _int(message: OutboxMessage, key: str) -> int | None:
    value = message.payload.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def change_lines(
    game: Game,
    before: CampaignState,
    after: CampaignState,
    names: dict[str, str],
    language: str,
) -> list[str]:
    """One line a side and sector whose armies differ («Side «Red», 2 West: 3 → 5»), then who
    holds the sectors whose holder the change alters, on these armies (resolution counts the
    captures after the turn's moves and battles), and a line saying so."""
    lines: list[str] = []
    for side in dict.fromkeys([*before.armies, *after.armies]):
        for sector in game.map.sector_ids():
            old, new = before.armies_of(side, sector), after.armies_of(side, sector)
            if old != new:
                lines.append(
                    _("Side «{side}», {sector}: {old} → {new}").format(
                        side=names.get(side, side),
                        sector=sector_label(game.map, sector, language),
                        old=old,
                        new=new,
                    )
                )
    for module in BOT_MODULES.values():
        lines += module.state_edit_lines(game.map, before, after, names, language)
    changes = holder_changes(game, before, after)
    for change in changes:
        where = sector_label(game.map, change.sector, language)
        if change.after is None:
            lines.append(_("{sector}: nobody holds it on these armies.").format(sector=where))
        else:
            lines.append(
                _("{sector}: side «{side}» holds it on these armies.").format(
                    sector=where, side=names.get(change.after, change.after)
                )
            )
    if changes:
        lines.append(
            _("Captures are counted at the resolution, after the turn's moves and battles.")
        )
    return lines


def _side_lines(edit: StateEdit, added: Side | None, names: dict[str, str]) -> list[str]:
    lines = []
    if added is not None:
        lines.append(
            _("Side «{side}» joins the campaign; the GM placed its armies.").format(side=added.name)
        )
    if edit.retire is not None:
        side = names.get(edit.retire, edit.retire)
        lines.append(
            _(
                "Side «{side}» is retired: its armies left the map and its players no longer "
                "play it."
            ).format(side=side)
        )
    return lines


async def _record(
    context: PostContext, message: OutboxMessage
) -> tuple[Campaign, StateAdjustmentRecord, list[Side]] | None:
    edit_id = _int(message, "edit")
    if message.campaign_id is None or edit_id is None:
        return None
    campaign = await context.store.campaign(message.campaign_id)
    record = await context.store.state_edit(edit_id)
    if campaign is None or record is None or record.campaign_id != campaign.id:
        return None
    return campaign, record, await context.store.sides(campaign.id)


async def _map(
    context: PostContext, campaign: Campaign, state: CampaignState, sides: Sequence[Side]
) -> bytes:
    shown = [side for side in sides if not side.retired or side.id in state.armies]
    try:
        view = await turn_map(context.store, campaign, state, shown, campaign.title)
    except ValueError:
        # A retired side whose pieces a rule module keeps (a Watches hero, a siege token)
        # still stands on the map: its key stays (bench seed 60174: the post was lost).
        view = await turn_map(context.store, campaign, state, sides, campaign.title)
    return await context.maps.draw(view)


def _added(message: OutboxMessage, sides: Sequence[Side]) -> Side | None:
    added = message.payload.get("added")
    return next((side for side in sides if side.id == added), None)


def _module_adjustment(
    adjustment: Mapping[str, JsonValue],
    game: Game,
    names: dict[str, str],
    language: str,
    *,
    undone: bool,
) -> AdjustmentWords | None:
    """A module's own adjustment (a GM's change to its state) in the group's words, if the
    stored ``adjustment`` is one."""
    for module in BOT_MODULES.values():
        words = module.describe_adjustment(adjustment, game.map, names, language, undone=undone)
        if words is not None:
            return words
    return None


async def render_state_edited(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group: the GM edited the state (what changed, the reason, the map)."""
    found = await _record(context, message)
    if found is None:
        return None
    campaign, record, sides = found
    if record.before is None or record.after is None:
        return None
    game = game_for(campaign)
    names = {side.id: side.name for side in sides}
    language = context.i18n.current_locale
    module_edit = _module_adjustment(record.adjustment, game, names, language, undone=False)
    if module_edit is not None:
        lines = [
            _("✏️ The GM edited the state of turn {turn}.").format(turn=record.turn),
            _("Reason: {reason}").format(reason=module_edit.reason or "—"),
            *module_edit.lines,
        ]
        return Post(text="\n".join(lines), photo=await _map(context, campaign, record.after, sides))
    edit = StateEdit.model_validate(record.adjustment)
    lines = [
        _("✏️ The GM edited the state of turn {turn}.").format(turn=record.turn),
        _("Reason: {reason}").format(reason=edit.reason or "—"),
        *_side_lines(edit, _added(message, sides), names),
        *change_lines(game, record.before, record.after, names, language),
    ]
    return Post(text="\n".join(lines), photo=await _map(context, campaign, record.after, sides))


async def render_state_edit_undone(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group: the GM took an edit back (the map as it is again)."""
    found = await _record(context, message)
    if found is None:
        return None
    campaign, record, sides = found
    if record.before is None or record.after is None:
        return None
    game = game_for(campaign)
    names = {side.id: side.name for side in sides}
    language = context.i18n.current_locale
    module_edit = _module_adjustment(record.adjustment, game, names, language, undone=True)
    if module_edit is not None:
        lines = [
            _(
                "↩️ The GM undid the edit of turn {turn} («{reason}»): the state is as before it."
            ).format(turn=record.turn, reason=module_edit.reason or "—"),
            *module_edit.lines,
        ]
        return Post(
            text="\n".join(lines), photo=await _map(context, campaign, record.before, sides)
        )
    edit = StateEdit.model_validate(record.adjustment)
    lines = [
        _("↩️ The GM undid the edit of turn {turn} («{reason}»): the state is as before it.").format(
            turn=record.turn, reason=edit.reason or "—"
        ),
        *change_lines(game, record.after, record.before, names, language),
    ]
    if edit.retire is not None:
        lines.append(
            _("Side «{side}» plays again.").format(side=names.get(edit.retire, edit.retire))
        )
    return Post(text="\n".join(lines), photo=await _map(context, campaign, record.before, sides))


async def render_orders_after_edit(context: PostContext, message: OutboxMessage) -> Post | None:
    """A strategist: the GM's edit made some of their side's orders illegal; each with why.
    Nothing when the side's orders are all legal by the time it is sent."""
    turn, side = _int(message, "turn"), message.payload.get("side")
    if message.campaign_id is None or turn is None or not isinstance(side, str):
        return None
    seat = await seat_in(context.store, message.chat_id, message.campaign_id)
    if seat is None or seat.side != side or seat.campaign.turn != turn:
        return None
    state = await context.store.turn_start(seat.campaign.id, turn)
    record = (await context.store.orders_for_turn(seat.campaign.id, turn)).get(side)
    if state is None or record is None or side not in state.armies:
        return None
    game = game_for(seat.campaign)
    rejected = accept_orders(game, state, side, record.orders)[1]
    if not rejected:
        return None
    names = await side_names(context.store, seat.campaign.id)
    language = context.i18n.current_locale
    lines = [
        _(
            "«{title}», turn {turn}: the GM changed the armies on the map, and these orders of "
            "side «{side}» are not allowed any more:"
        ).format(title=seat.campaign.title, turn=turn, side=names.get(side, side))
    ]
    for rejection in rejected:
        reason = describe_rejection(rejection, game.map, names, language)
        if rejection.order is None:
            lines.append(f"✗ {reason}")
        else:
            order = describe_order(rejection.order, game.map, names, language)
            lines.append(f"✗ {order}: {reason}")
    lines.append(
        _(
            "Change them with /orders before the deadline; what is still not allowed then is "
            "dropped and its sector fortifies."
        )
    )
    return Post(text="\n".join(lines))


RENDERERS: dict[str, Renderer] = {
    "state_edited": render_state_edited,
    "state_edit_undone": render_state_edit_undone,
    "orders_after_edit": render_orders_after_edit,
}
