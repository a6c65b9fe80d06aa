"""Private posts of the orders and results screens, worded when sent.

* ``orders_changed``: to a side's other strategists, "orders changed by X" with the whole set as
  it is when sent (notices are debounced: see ``bot.services.orders.orders_notice``).
* ``battle_result``: to the players of a battle's sides, its result as it stands after a report,
  a confirmation, a dispute or a GM's decision, with what they may do about it now.
* ``chain_battle``: to the players of a chain battle's sides, before and after the result of
  an earlier battle set or changed who defends it: the battle as it stands, with its buttons.
* ``dispute``: to each GM at once, a disputed battle with both accounts and the decision
  buttons.
* ``orders_dropped``: to a side's strategists, the side's orders the battle list dropped
  because the rules refuse them now (each with the rule), held like the list itself.

Each renderer checks again, at send time, that the recipient is still on the side concerned:
a side's orders never go to anyone else.
"""

from __future__ import annotations

from collections.abc import Callable

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot.handlers.private import screens
from bot.posts import Post, PostContext, Renderer
from bot.posts.turns import results_deadline
from bot.screens.callbacks import join_verdict_keyboard
from bot.services.orders import (
    BattleDesk,
    Seat,
    listed_battles,
    open_battles,
    open_desk,
    result_sources,
    seat_in,
    side_names,
)
from bot.services.records import fought_battles
from bot.services.turns import game_for
from bot.texts.core import (
    armies,
    describe_battle,
    describe_order,
    describe_rejection,
    result_source_words,
    result_words,
    role_name,
)
from bot.texts.sectors import sector_label
from rules import Battle, TurnReport
from storage import OutboxMessage, Phase, Role


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


async def _battle_desk(
    context: PostContext, message: OutboxMessage
) -> tuple[Seat, BattleDesk, Battle, dict[str, str]] | None:
    """The recipient's seat, their battles of the turn and the battle a result post is about;
    ``None`` if the turn moved on or the battle is not theirs (any more)."""
    ids = _ints(message, "campaign_id", "turn", "battle")
    if ids is None:
        return None
    campaign_id, turn, battle_id = ids
    seat = await seat_in(context.store, message.chat_id, campaign_id)
    if seat is None:
        return None
    # Rendered when sent, at or after ``not_before``: the list is public by then or not at all.
    desk = await open_battles(context.store, seat, message.not_before)
    if desk is None or desk.campaign.turn != turn:
        return None
    battle = next((b for b in desk.battles if b.id == battle_id), None)
    if battle is None:
        return None
    return seat, desk, battle, await side_names(context.store, campaign_id)


async def render_battle_result(context: PostContext, message: OutboxMessage) -> Post | None:
    """A battle's result as it stands, to a player of one of its sides, with what they may do
    about it now (confirm, dispute, accept the other account) and the deadline: a report
    nobody disputes by then stands."""
    found = await _battle_desk(context, message)
    if found is None:
        return None
    seat, desk, battle, names = found
    deadline = await results_deadline(context.store, desk.campaign, screens.language())
    heading = _("«{title}», turn {turn}, battle {id}:").format(
        title=desk.campaign.title, turn=desk.campaign.turn, id=battle.id
    )
    return _battle_post(seat, desk, battle, names, [heading], deadline)


def _battle_post(
    seat: Seat,
    desk: BattleDesk,
    battle: Battle,
    names: dict[str, str],
    heading: list[str],
    deadline: str | None,
) -> Post:
    """A battle as it stands after ``heading``: what it is, why a chain battle is not (yet)
    played, its result so far, and the buttons the recipient may press now."""
    status = desk.status.get(battle.id)
    lines = [
        *heading,
        *describe_battle(battle, game_for(desk.campaign).map, names, screens.language(), status),
        *screens.chain_status(desk, battle, names),
    ]
    if desk.playable(battle):
        lines.append(
            screens.report_status(
                desk.reports.get(battle.id),
                names,
                desk.reporters.get(battle.id),
                desk.disputers.get(battle.id),
                deadline,
            )
        )
    rows = screens.battle_buttons(desk, battle, seat.side, False, names)
    return Post(
        text="\n".join(lines), keyboard=InlineKeyboardMarkup(inline_keyboard=rows) if rows else None
    )


async def render_chain_battle(context: PostContext, message: OutboxMessage) -> Post | None:
    """A chain battle whose sides the result of an earlier battle set or changed (MODULES.md
    C6: its defender is that battle's winner), to a player of a side it concerned before or
    concerns now: the battle as it stands when sent, and what they may do about it."""
    ids = _ints(message, "campaign_id", "turn", "battle")
    if ids is None:
        return None
    campaign_id, turn, battle_id = ids
    seat = await seat_in(context.store, message.chat_id, campaign_id)
    if seat is None or seat.side is None:
        return None
    desk = await open_battles(context.store, seat, message.not_before)
    if desk is None or desk.campaign.turn != turn:
        return None
    names = await side_names(context.store, campaign_id)
    campaign_map = game_for(desk.campaign).map
    language = screens.language()
    title = _("«{title}», turn {turn}:").format(title=desk.campaign.title, turn=turn)
    battle = next((b for b in desk.battles if b.id == battle_id), None)
    if battle is None:
        listed = await listed_battles(context.store, desk.campaign)
        fought = None if listed is None else listed.fought(battle_id)
        if fought is None or listed is None:
            return None
        return Post(
            text="\n".join(
                [
                    title,
                    _(
                        "Your side no longer plays battle {id}: the result of battle {before} "
                        "gives it to other sides."
                    ).format(id=battle_id, before=fought.defender_from),
                    *describe_battle(
                        fought, campaign_map, names, language, listed.standing.sides.get(battle_id)
                    ),
                ]
            )
        )
    status = desk.status.get(battle.id)
    if desk.playable(battle):
        heading = _(
            "Battle {id} now has its sides: {defender} defends it, as the result of battle "
            "{before} gives (each winner of the chain defends the next battle)."
        ).format(
            id=battle.id,
            defender=names.get(battle.defender, battle.defender),
            before=battle.defender_from,
        )
    elif status is not None and status.defender is None:
        heading = _(
            "Battle {id} waits again: the result of battle {before} is not settled."
        ).format(id=battle.id, before=battle.defender_from)
    else:
        heading = _("Battle {id} is not played after all.").format(id=battle.id)
    deadline = await results_deadline(context.store, desk.campaign, language)
    return _battle_post(seat, desk, battle, names, [title, heading], deadline)


async def render_dispute(context: PostContext, message: OutboxMessage) -> Post | None:
    """To a GM at once: a disputed battle with both accounts and one tap to decide; nothing if
    it was settled before this went out."""
    found = await _battle_desk(context, message)
    if found is None:
        return None
    seat, desk, battle, names = found
    report = desk.reports.get(battle.id)
    if not seat.is_gm or report is None or not report.disputed:
        return None
    text = "\n".join(
        [
            _("A result is disputed and waits for your decision."),
            screens.verdict_text(desk, battle, game_for(desk.campaign).map, names),
        ]
    )
    return Post(text=text, keyboard=screens.verdict_keyboard(desk, battle, names))


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


def _gain_lines(report: TurnReport, side: str, label: Callable[[str], str]) -> list[str]:
    """The side's gains of a resolved turn, each named by its step."""
    lines = []
    for gain in report.gains:
        if gain.side != side or not gain.armies:
            continue
        if gain.reason == "replenishment":
            line = _("Replenishment: {armies} in {sector}")
        elif gain.reason == "reinforcement":
            line = _("Orbital reinforcement: {armies} in {sector}")
        else:
            line = _("Gained: {armies} in {sector}")
        lines.append(line.format(armies=armies(gain.armies), sector=label(gain.sector)))
    return lines


async def render_turn_result(context: PostContext, message: OutboxMessage) -> Post | None:
    """A player's own summary of a resolved turn, in their language: their side's battles and
    how each result came about, its losses and gains, what it holds of what it needs to win,
    and the winner when the campaign ends. Only to a player still on that side."""
    ids = _ints(message, "campaign_id", "turn")
    side = message.payload.get("side")
    if ids is None or not isinstance(side, str):
        return None
    campaign_id, turn = ids
    seat = await seat_in(context.store, message.chat_id, campaign_id)
    resolved = await context.store.resolutions(campaign_id, turn)
    if seat is None or seat.side != side or not resolved:
        return None
    report = resolved[-1].report
    game = game_for(seat.campaign)
    names = await side_names(context.store, campaign_id)
    sources = await result_sources(context.store, campaign_id, turn)
    language = screens.language()

    def label(sector: str) -> str:
        return sector_label(game.map, sector, language)

    heading = (
        _("«{title}», turn {turn} (corrected by the GM): the summary for side «{side}».")
        if message.payload.get("corrected")
        else _("«{title}», turn {turn} resolved: the summary for side «{side}».")
    )
    lines = [heading.format(title=seat.campaign.title, turn=turn, side=names.get(side, side))]
    # The battles the side really fought: a chain's battle against whoever defended it, none
    # that was not played.
    for fought in fought_battles(report):
        if side not in fought.sides:
            continue
        battle = report.battles[fought.battle - 1]
        enemy = next((other for other in fought.sides if other != side), side)
        if fought.unreported:
            how = _("no result: counted as a draw without losses")
        else:
            how = result_words(fought.result, names) + result_source_words(
                sources.get(fought.battle), names
            )
        lines.append(
            _("Battle {id} in {sector} against side «{enemy}»: {how}").format(
                id=battle.id, sector=label(battle.sector), enemy=names.get(enemy, enemy), how=how
            )
        )
    losses = [c for c in report.casualties if c.side == side and c.lost]
    lines.extend(
        _("Lost: {armies} in {sector}").format(armies=armies(c.lost), sector=label(c.sector))
        for c in losses
    )
    if not losses:
        lines.append(_("No losses."))
    lines += _gain_lines(report, side, label)
    held = report.captured.get(side, ())
    needed = game.ruleset.sectors_to_win
    if held:
        lines.append(
            _("Held: {sectors} ({n} of {needed} needed to win).").format(
                sectors=", ".join(label(s) for s in held), n=len(held), needed=needed
            )
        )
    else:
        lines.append(_("Held: no sector yet (0 of {needed} needed to win).").format(needed=needed))
    after = resolved[-1].state_after
    if side in report.eliminated:
        lines.append(_("Your side has no armies left and is out."))
    else:
        lines.append(_("Armies now: {armies}.").format(armies=armies(after.total(side))))
    if report.winner == side:
        lines.append(_("Your side wins the campaign! Congratulations."))
    elif report.winner is not None:
        lines.append(
            _("The campaign is over: side «{side}» wins.").format(
                side=names.get(report.winner, report.winner)
            )
        )
    elif report.game_over:
        lines.append(_("The campaign is over without a winner: no side has armies left."))
    return Post(text="\n".join(lines))


async def render_campaign_ended(context: PostContext, message: OutboxMessage) -> Post | None:
    """To each player: the GM ended the campaign before anyone won."""
    ids = _ints(message, "campaign_id")
    if ids is None:
        return None
    campaign = await context.store.campaign(ids[0])
    if campaign is None:
        return None
    reason = message.payload.get("reason")
    if isinstance(reason, str) and reason:
        return Post(
            text=_(
                "«{title}» is over: the GM ended it. Reason: {reason}. Thank you for playing!"
            ).format(title=campaign.title, reason=reason)
        )
    return Post(
        text=_("«{title}» is over: the GM ended it. Thank you for playing!").format(
            title=campaign.title
        )
    )


async def render_join_request(context: PostContext, message: OutboxMessage) -> Post | None:
    """To a GM: someone asks to join a side, with one tap to approve or refuse; nothing if the
    request no longer waits or the recipient is no longer a GM."""
    ids = _ints(message, "campaign_id", "user")
    if ids is None:
        return None
    campaign_id, user_id = ids
    seat = await seat_in(context.store, message.chat_id, campaign_id)
    request = await context.store.join_request(campaign_id, user_id)
    if seat is None or not seat.is_gm or request is None or not request.awaits_gm:
        return None
    names = await side_names(context.store, campaign_id)
    role = role_name(request.role) if request.role is not None else "?"
    text = _(
        "«{title}»: {name} asks to play side «{side}» as {role}. Joining shows them that side's "
        "secret orders. Approve or refuse:"
    ).format(
        title=seat.campaign.title,
        name=request.display_name,
        side=names.get(request.side_id or "", "?"),
        role=role,
    )
    return Post(text=text, keyboard=join_verdict_keyboard(campaign_id, user_id))


def _join_words(message: OutboxMessage, names: dict[str, str]) -> tuple[str, str, str] | None:
    side, role, event = (message.payload.get(k) for k in ("side", "role", "event"))
    if (
        not isinstance(side, str)
        or not isinstance(event, str)
        or role not in ("strategist", "tactician")
    ):
        return None
    return names.get(side, side), role_name(Role(str(role))), event


async def render_join_news(context: PostContext, message: OutboxMessage) -> Post | None:
    """To a side's strategists: someone asked to join the side, or a GM approved or refused."""
    ids = _ints(message, "campaign_id")
    name = message.payload.get("name")
    if ids is None or not isinstance(name, str):
        return None
    seat = await seat_in(context.store, message.chat_id, ids[0])
    words = _join_words(message, await side_names(context.store, ids[0]))
    if seat is None or words is None or seat.side != message.payload.get("side"):
        return None
    side, role, event = words
    texts_by_event = {
        "asked": _("«{title}»: {name} asks to join your side as {role}; a GM decides."),
        "approved": _("«{title}»: a GM approved {name}, who now plays your side as {role}."),
        "refused": _("«{title}»: a GM refused {name}'s request to join your side."),
    }
    if event not in texts_by_event:
        return None
    return Post(
        text=texts_by_event[event].format(
            title=seat.campaign.title, name=name, role=role, side=side
        )
    )


async def render_join_answer(context: PostContext, message: OutboxMessage) -> Post | None:
    """To the person who asked to join: a GM approved or refused."""
    ids = _ints(message, "campaign_id")
    if ids is None:
        return None
    campaign = await context.store.campaign(ids[0])
    words = _join_words(message, await side_names(context.store, ids[0]))
    if campaign is None or words is None:
        return None
    side, role, event = words
    if event == "approved":
        text = _(
            "A GM approved: you play {side} as {role} in «{title}». I will write here when you "
            "are needed."
        )
    else:
        text = _(
            "A GM did not approve your request to play {side} in «{title}». Ask the GM if you "
            "think it should be otherwise."
        )
    return Post(text=text.format(side=side, role=role, title=campaign.title))


RENDERERS: dict[str, Renderer] = {
    "join_request": render_join_request,
    "join_news": render_join_news,
    "join_answer": render_join_answer,
    "campaign_ended": render_campaign_ended,
    "turn_result": render_turn_result,
    "orders_changed": render_orders_changed,
    "battle_result": render_battle_result,
    "chain_battle": render_chain_battle,
    "dispute": render_dispute,
    "orders_dropped": render_orders_dropped,
}
