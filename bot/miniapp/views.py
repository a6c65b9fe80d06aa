"""What the Mini App's API answers, as JSON-ready dicts, worded in the current language.

Every function takes a :class:`~bot.services.orders.Seat` found by the caller and asks the same
services the chat screens ask, so the app shows exactly what the person may see in chat: their
own side's orders (never another side's), the map as ``/map`` draws it, the board as the group
sees it, their battles as ``/battles`` lists them. Writes go through
:func:`~bot.services.orders.enter_orders`, :func:`~bot.services.orders.set_ready` and
:func:`~bot.services.orders.report_result`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from aiogram.utils.i18n import gettext as _

from bot.handlers.private import screens
from bot.handlers.private.orders import seat_map_view
from bot.posts.group import board_text, deadline_line
from bot.services.campaigns import board
from bot.services.orders import (
    EntryResult,
    Refusal,
    ResultWrite,
    Seat,
    battles_public_at,
    enter_orders,
    is_active,
    open_battles,
    open_desk,
    report_result,
    seat_in,
    set_ready,
    side_names,
)
from bot.services.turns import game_for
from bot.services.window import current_deadline, orders_opening
from bot.texts.core import armies as army_words
from bot.texts.core import describe_battle, describe_rejection, foc_legend
from bot.texts.moments import format_moment
from bot.texts.sectors import sector_label
from rules import Attack, Fortify, Move, Outcome, Reinforce
from rules.svg import map_svg
from storage import Phase, Role, Store
from storage.models import UserId

Json = dict[str, Any]

ORDER_KINDS = ("move", "attack", "fortify", "reinforce")


class MalformedRequestError(ValueError):
    """A request the app would never send (a field missing or of the wrong kind)."""


@dataclass(frozen=True)
class Answer:
    """A write's outcome: ``ok`` or refused, what to tell the person, and the HTTP status."""

    ok: bool
    message: str
    status: int = 200


REFUSAL_STATUS = {
    Refusal.NOT_MEMBER: 403,
    Refusal.NO_SIDE: 403,
    Refusal.NOT_STRATEGIST: 403,
    Refusal.NOT_PARTICIPANT: 403,
    Refusal.NOT_OPPONENT: 403,
    Refusal.NOT_GM: 403,
}
"""Refusals about who is asking; every other refusal is about the moment (409)."""


def refused(refusal: Refusal, seat: Seat, opens_at: datetime | None = None) -> Answer:
    """A refusal in the words the chat uses."""
    words = screens.refusal_words(refusal, seat.campaign, opens_at=opens_at)
    return Answer(False, words, REFUSAL_STATUS.get(refusal, 409))


async def campaigns(store: Store, user_id: UserId) -> list[Json]:
    """The person's campaigns still being played: title, turn, phase, side and role."""
    listed: list[Json] = []
    for membership in await store.memberships(user_id):
        campaign, member = membership.campaign, membership.member
        if not is_active(campaign):
            continue
        names = await side_names(store, campaign.id)
        listed.append(
            {
                "id": campaign.id,
                "title": campaign.title,
                "position": screens.phase_words(campaign),
                "side": names.get(member.side_id, "") if member.side_id else None,
                "gm": member.is_gm,
                "strategist": Role.STRATEGIST in member.roles,
            }
        )
    return listed


async def view(store: Store, seat: Seat, now: datetime) -> Json:
    """Everything the app's screen shows for this seat now."""
    fresh = await seat_in(store, seat.member.user_id, seat.campaign.id) or seat
    campaign = fresh.campaign
    language = screens.language()
    deadline = await current_deadline(store, campaign)
    seen = await seat_map_view(store, fresh, now)
    return {
        "campaign": {
            "id": campaign.id,
            "title": campaign.title,
            "turn": campaign.turn,
            "phase": campaign.phase.value,
            "position": screens.phase_words(campaign),
            "deadline": deadline.isoformat() if deadline is not None else None,
            "deadline_at": (
                format_moment(deadline, campaign.time_zone, language)
                if deadline is not None
                else None
            ),
            "now": now.isoformat(),
            "deadline_words": await deadline_line(store, campaign, language, now),
            "gm": fresh.is_gm,
        },
        "map": map_svg(seen[0]) if seen is not None else None,
        "orders": await orders(store, fresh, now),
        "board": await board_view(store, fresh, now),
        "battles": await battles(store, fresh, now),
    }


async def orders(store: Store, seat: Seat, now: datetime) -> Json | None:
    """The seat's side's orders this turn (``None`` without a side or outside the orders)."""
    if seat.side is None:
        return None
    opened = await open_desk(store, seat, closed=True)
    if opened.desk is None:
        return None
    desk = opened.desk
    names = await side_names(store, desk.campaign.id)
    opening = await orders_opening(store, desk.campaign, now)
    editable = seat.gives_orders and desk.campaign.phase is Phase.ORDERS and opening is None
    language = screens.language()
    listing = desk.listing()
    editor = None
    if desk.updated_by is not None:
        member = await store.member(desk.campaign.id, desk.updated_by)
        editor = member.display_name if member else None
    return {
        "side": names.get(desk.side, desk.side),
        "status": screens.status_line(desk, editor),
        "turn": desk.turn,
        "edits": desk.edits,
        "ready": desk.ready,
        "editable": editable,
        "opens": screens.not_open_yet_words(desk.campaign, opening) if opening else None,
        "lines": screens.orders_lines(desk, names),
        "sectors": [
            {
                "id": options.sector,
                "label": sector_label(desk.game.map, options.sector, language),
                "armies": options.armies,
            }
            for options in listing.sectors
        ],
        "reinforce": desk.orders.reinforce,
    }


async def sector(store: Store, seat: Seat, sector_id: str) -> Answer | Json:
    """What a tap on ``sector_id`` offers: its orders now and every order it may be given."""
    opened = await open_desk(store, seat)
    if opened.desk is None:
        return refused(opened.refusal or Refusal.WRONG_PHASE, seat)
    desk = opened.desk
    names = await side_names(store, desk.campaign.id)
    map_ = desk.game.map
    language = screens.language()
    if sector_id not in map_.by_id:
        raise MalformedRequestError(f"no sector {sector_id!r}")
    label = sector_label(map_, sector_id, language)
    armies = desk.holdings.get(sector_id, 0)
    found: Json = {
        "sector": sector_id,
        "label": label,
        "heading": _("{sector}: {armies} at the start of the turn.").format(
            sector=label, armies=army_words(armies)
        ),
        "armies": armies,
        "lines": [line for line in screens.orders_lines(desk, names) if line.startswith(label)],
        "moves": [],
        "attacks": [],
        "withdraw": False,
        "reinforce": False,
        "editable": seat.gives_orders,
    }
    if armies == 0 or not seat.gives_orders:
        return found
    change = desk.change_options(sector_id)
    if change is not None and change.move is not None:
        found["moves"] = [
            {
                "to": to,
                "label": sector_label(map_, to, language),
                "min": change.move.min_count,
                "max": change.move.max_count,
            }
            for to in change.move.destinations
        ]
    adding = desk.attack_options(sector_id)
    if adding is not None and adding.attack is not None:
        found["attacks"] = [
            {"target": target, "name": names.get(target, target)}
            for target in adding.attack.targets
        ]
    found["withdraw"] = not desk.orders.is_fortifying(sector_id)
    found["reinforce"] = (
        sector_id in desk.listing().reinforce and desk.orders.reinforce != sector_id
    )
    return found


def order_from(body: Json) -> Move | Attack | Fortify | Reinforce:
    """The order a request names (``MalformedRequestError`` when it names none)."""
    raw = body.get("order")
    if not isinstance(raw, dict):
        raise MalformedRequestError("order missing")
    kind, sector_id = raw.get("kind"), raw.get("sector")
    if kind not in ORDER_KINDS or not isinstance(sector_id, str):
        raise MalformedRequestError("order kind or sector missing")
    try:
        match kind:
            case "move":
                return Move(source=sector_id, to=raw.get("to"), count=raw.get("count"))
            case "attack":
                return Attack(sector=sector_id, target=raw.get("target"))
            case "fortify":
                return Fortify(sector=sector_id)
            case _:
                return Reinforce(sector=sector_id)
    except ValueError:
        # Not the validation's own words: they quote the values, which are an order.
        raise MalformedRequestError("order fields are not valid") from None


LARGEST = 2**53
"""The largest number a request may carry (as buttons: Telegram's ids fit in 53 bits); a
larger one would overflow the database's integers."""


def whole(value: object) -> int | None:
    """``value`` as a whole number a request may carry (not a bool, at most 2**53 either way),
    else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > LARGEST:
        return None
    return value


def expected_turn(body: Json) -> int:
    """The turn the page was showing when the person tapped."""
    turn = whole(body.get("turn"))
    if turn is None:
        raise MalformedRequestError("turn missing")
    return turn


async def give(store: Store, seat: Seat, body: Json, now: datetime) -> Answer:
    """Give one order (a fortify withdraws the sector's order), as a button in chat does."""
    order = order_from(body)
    result: EntryResult = await enter_orders(store, seat, [[order]], now, expected_turn(body))
    if result.desk is None:
        return refused(result.refusal or Refusal.STALE, seat, result.opens_at)
    rejection = result.lines[0].rejection if result.lines else None
    names = await side_names(store, seat.campaign.id)
    if rejection is not None:
        words = describe_rejection(rejection, result.desk.game.map, names, screens.language())
        return Answer(False, words, 409)
    return Answer(True, screens.change_toast(order, result.desk, names))


async def ready(store: Store, seat: Seat, body: Json, now: datetime) -> Answer:
    """Confirm the side's orders as last seen (``edits``), or take the confirmation back."""
    wanted = body.get("ready")
    seen = whole(body.get("edits"))
    if not isinstance(wanted, bool) or seen is None:
        raise MalformedRequestError("ready or edits missing")
    result = await set_ready(
        store, seat, expected_turn(body), wanted, now, seen_edits=seen if wanted else None
    )
    if result.refusal is not None or result.desk is None:
        return refused(result.refusal or Refusal.STALE, seat, result.opens_at)
    return Answer(True, _("Ready: your orders are confirmed.") if wanted else _("Back to draft."))


async def board_view(store: Store, seat: Seat, now: datetime) -> Json:
    """The status board as the group sees it: readiness only, never orders."""
    campaign = await store.campaign(seat.campaign.id) or seat.campaign
    current = await board(store, campaign, now)
    deadline = await deadline_line(store, campaign, screens.language(), now)
    return {
        "text": board_text(current, deadline),
        "sides": [
            {
                "name": line.side.name,
                "colour": line.side.colour,
                "players": list(line.players),
                "readiness": line.readiness.value if line.readiness else None,
            }
            for line in current.sides
        ],
    }


async def battles(store: Store, seat: Seat, now: datetime) -> Json:
    """The person's battles of the Friday list, with what they may report; before the list is
    public, only when it will be."""
    public_at = await battles_public_at(store, seat, now)
    desk = await open_battles(store, seat, now)
    campaign = await store.campaign(seat.campaign.id) or seat.campaign
    if desk is None:
        return {
            "listed": False,
            "public_at": (
                format_moment(public_at, campaign.time_zone, screens.language())
                if public_at is not None
                else None
            ),
            "battles": [],
        }
    names = await side_names(store, campaign.id)
    map_ = game_for(campaign).map
    listed: list[Json] = []
    for battle in desk.battles:
        report = desk.reports.get(battle.id)
        fighting = seat.side if seat.side in battle.participants() else None
        may_report = (
            fighting is not None
            and desk.playable(battle)
            and (report is None or (report.override is None and report.confirmed_by is None))
        )
        choices: list[Json] = []
        if may_report:
            for outcome in Outcome:
                winners = battle.participants() if outcome.has_winner else (None,)
                for winner in winners:
                    choices.append(
                        {
                            "outcome": outcome.value,
                            "winner": winner,
                            "label": screens.result_words(outcome, winner, names),
                        }
                    )
        listed.append(
            {
                "id": battle.id,
                "defender": battle.defender,
                "lines": [
                    *describe_battle(
                        battle, map_, names, screens.language(), desk.status.get(battle.id)
                    ),
                    *screens.chain_status(desk, battle, names),
                    screens.report_status(
                        report, names, desk.reporters.get(battle.id), desk.disputers.get(battle.id)
                    ),
                ],
                "choices": choices,
            }
        )
    return {
        "listed": True,
        "public_at": None,
        "battles": listed,
        "turn": campaign.turn,
        "legend": foc_legend(battle for battle in desk.battles if desk.playable(battle)),
    }


async def report(store: Store, seat: Seat, body: Json, now: datetime) -> Answer:
    """Report a battle's result (the other side reporting the same confirms it, a different
    one disputes it), as the result buttons in chat do."""
    battle = whole(body.get("battle"))
    outcome_word = body.get("outcome")
    winner = body.get("winner")
    if (
        battle is None
        or not isinstance(outcome_word, str)  # a list or an object is not hashable
        or outcome_word not in {o.value for o in Outcome}
    ):
        raise MalformedRequestError("battle or outcome missing")
    if winner is not None and not isinstance(winner, str):
        raise MalformedRequestError("winner is not a side")
    defender = body.get("defender")
    if defender is not None and not isinstance(defender, str):
        raise MalformedRequestError("defender is not a side")
    outcome = Outcome(outcome_word)
    written: ResultWrite = await report_result(
        store, seat, expected_turn(body), battle, outcome, winner, now, defender=defender
    )
    if written.refusal is not None:
        return refused(written.refusal, seat)
    names = await side_names(store, seat.campaign.id)
    return Answer(
        True,
        _("Result saved: {result}.").format(result=screens.result_words(outcome, winner, names)),
    )
