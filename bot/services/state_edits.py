"""A GM edits the state directly (issue 23): armies of a side in a sector, a side added
mid-campaign with its deployment, a side retired; and undoes the last edit.

Edits are made while the orders are open (the battle list is built from the turn's start), go
through the rules core (:mod:`rules.edits`) and are stored with the other adjustments of the
turn's start, so a correction of the turn before applies them again. Each one is audited,
announced in the group with the GM's reason and a redrawn map; the strategists whose orders
the edit made illegal are told privately (the orders stay, to be changed; what is still illegal
at the deadline is dropped with the battle list, as always).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pydantic import JsonValue

from bot.services.campaigns import MAX_SIDES, new_side_colour
from bot.services.posting import board_post, group_post, private_post
from bot.services.turns import game_for
from rules import CampaignState, Game, accept_orders
from rules.edits import ArmySet, EditError, EditProblem, StateEdit, apply_edit
from storage import Campaign, CampaignStatus, NewOutboxMessage, NewSide, Phase, Role, Store
from storage.models import SideId, StateAdjustmentRecord, UserId, WriteOutcome
from storage.names import clean_name


class EditOutcome(StrEnum):
    """What an edit or its undo did."""

    APPLIED = "applied"
    REFUSED = "refused"  # the rules refuse it: ``problems`` say why
    CLOSED = "closed"  # the orders are not open (or the campaign moved on meanwhile)
    CHANGED = "changed"  # the state changed since it was read: read it again
    NAME_TAKEN = "name_taken"  # a new side's name is another side's
    BAD_NAME = "bad_name"
    TOO_MANY = "too_many"  # no colour left for one more side
    NOTHING = "nothing"  # no edit to undo


@dataclass(frozen=True)
class EditResult:
    """The outcome, every problem when refused, and the edit's id when applied."""

    outcome: EditOutcome
    problems: tuple[EditProblem, ...] = ()
    edit_id: int | None = None


def may_edit(campaign: Campaign) -> bool:
    """Whether a GM may edit the state now: a running campaign with its orders open."""
    return (
        campaign.phase is Phase.ORDERS
        and campaign.turn >= 1
        and campaign.status is not CampaignStatus.FINISHED
    )


def edited_sides(edit: StateEdit) -> set[SideId]:
    """The sides an edit touches."""
    return {change.side for change in edit.armies} | ({edit.retire} if edit.retire else set())


async def _order_notices(
    store: Store, campaign: Campaign, state: CampaignState, key: str
) -> list[NewOutboxMessage]:
    """A private notice to each strategist whose side's orders ``state`` makes illegal."""
    game = game_for(campaign)
    given = await store.orders_for_turn(campaign.id, campaign.turn)
    hit = {
        side
        for side, record in given.items()
        if side in state.armies and accept_orders(game, state, side, record.orders)[1]
    }
    return [
        private_post(
            campaign,
            member.user_id,
            "orders_after_edit",
            f"{key}:orders",
            turn=campaign.turn,
            side=member.side_id,
        )
        for member in await store.members(campaign.id)
        if member.side_id in hit and Role.STRATEGIST in member.roles
    ]


async def write_edit(
    store: Store,
    campaign: Campaign,
    adjustment: dict[str, JsonValue],
    change: Callable[[Game, CampaignState], CampaignState],
    actor: UserId,
    now: datetime,
    *,
    new_side: NewSide | None = None,
    retire: SideId | None = None,
    tell_strategists: bool = True,
) -> EditResult:
    """The one way a GM's edit of the turn's start is written: ``change`` (the rules' check,
    which raises its own refusal) applied to the current start, kept as ``adjustment`` for the
    undo and a correction, audited, announced with the map; with ``tell_strategists``, each
    strategist whose orders it made illegal is told. The caller has checked that ``actor`` is
    a GM and catches ``change``'s refusal."""
    if not may_edit(campaign):
        return EditResult(EditOutcome.CLOSED)
    current = await store.turn_start(campaign.id, campaign.turn)
    if current is None:
        return EditResult(EditOutcome.CLOSED)
    game = game_for(campaign)
    changed = change(game, game.upgraded(current))
    notices = (
        await _order_notices(store, campaign, changed, f"turn:{campaign.turn}:edit")
        if tell_strategists
        else []
    )

    def posts(edit_id: int) -> list[NewOutboxMessage]:
        key = f"turn:{campaign.turn}:edit:{edit_id}"
        return [
            group_post(
                campaign,
                "state_edited",
                key,
                edit=edit_id,
                added=None if new_side is None else new_side.id,
            ),
            board_post(campaign, key),
            *(_keyed(notice, key) for notice in notices),
        ]

    outcome, edit_id = await store.edit_turn_start(
        campaign.id,
        campaign.turn,
        current,
        changed,
        adjustment,
        actor,
        now,
        new_side=new_side,
        retire=retire,
        outbox=posts,
    )
    return edit_result(outcome, edit_id)


async def edit_state(
    store: Store,
    campaign: Campaign,
    edit: StateEdit,
    actor: UserId,
    now: datetime,
    *,
    new_side: NewSide | None = None,
) -> EditResult:
    """Apply ``edit`` to the current turn's start (with ``new_side`` added first, or the side
    ``edit.retire`` retired): checked by the rules, audited, announced with a map. The caller
    has checked that ``actor`` is a GM."""
    if not may_edit(campaign):
        return EditResult(EditOutcome.CLOSED)
    playing = [side.id for side in await store.sides(campaign.id) if not side.retired]
    if new_side is not None:
        playing.append(new_side.id)
    try:
        return await write_edit(
            store,
            campaign,
            edit.model_dump(mode="json"),
            lambda game, state: apply_edit(game, state, edit, playing),
            actor,
            now,
            new_side=new_side,
            retire=edit.retire,
        )
    except EditError as refused:
        return EditResult(EditOutcome.REFUSED, tuple(refused.problems))


def _keyed(message: NewOutboxMessage, key: str) -> NewOutboxMessage:
    """``message`` deduplicated under the edit's own key (its id is known only when stored)."""
    dedup = f"campaign:{message.campaign_id}:{key}:orders:{message.chat_id}"
    return message.model_copy(update={"dedup_key": dedup})


def edit_result(outcome: WriteOutcome, edit_id: int | None = None) -> EditResult:
    """What a stored edit's ``outcome`` means to the GM."""
    match outcome:
        case WriteOutcome.SAVED:
            return EditResult(EditOutcome.APPLIED, edit_id=edit_id)
        case WriteOutcome.CONFLICT:
            return EditResult(EditOutcome.CHANGED)
        case _:
            return EditResult(EditOutcome.CLOSED)


async def add_side(
    store: Store,
    campaign: Campaign,
    name: str,
    placement: dict[str, int],
    reason: str,
    actor: UserId,
    now: datetime,
) -> EditResult:
    """Add side ``name`` mid-campaign with the armies the GM placed (``placement``: sector to
    armies), one edit: its undo retires the side again."""
    name = clean_name(name)
    if not 1 <= len(name) <= 64:
        return EditResult(EditOutcome.BAD_NAME)
    sides = await store.sides(campaign.id)
    if any(side.name.casefold() == name.casefold() for side in sides):
        return EditResult(EditOutcome.NAME_TAKEN)
    colour = new_side_colour(name, sides)
    if len(sides) >= MAX_SIDES or colour is None:
        return EditResult(EditOutcome.TOO_MANY)
    used = {side.id for side in sides}
    side_id = next(f"s{n}" for n in range(1, MAX_SIDES * 4) if f"s{n}" not in used)
    edit = StateEdit(
        armies=tuple(
            ArmySet(side=side_id, sector=sector, count=count) for sector, count in placement.items()
        ),
        reason=reason,
    )
    new_side = NewSide(id=side_id, name=name, colour=colour.hex)
    return await edit_state(store, campaign, edit, actor, now, new_side=new_side)


def undoable(edits: list[StateAdjustmentRecord]) -> StateAdjustmentRecord | None:
    """The edit a GM's undo takes back: the last one of the turn still in force."""
    mine = [record for record in edits if record.after is not None]
    return mine[-1] if mine else None


async def undo_last_edit(
    store: Store, campaign: Campaign, actor: UserId, now: datetime, expected: int | None = None
) -> EditResult:
    """Take back the turn's last edit still in force: its start goes back to the state before
    it (a retired side comes back with its players, an added side is retired again); audited,
    announced with a map. ``expected`` is the edit the GM was asked about: when another one is
    last now (a second tap undid it already), nothing is undone (``CHANGED``)."""
    if not may_edit(campaign):
        return EditResult(EditOutcome.CLOSED)
    last = undoable(await store.adjustments(campaign.id, campaign.turn))
    if last is None or last.before is None:
        return EditResult(EditOutcome.NOTHING)
    if expected is not None and last.id != expected:
        return EditResult(EditOutcome.CHANGED)
    key = f"turn:{campaign.turn}:edit:{last.id}:undone"
    notices = [
        _keyed(notice, key) for notice in await _order_notices(store, campaign, last.before, key)
    ]
    outcome = await store.undo_state_edit(
        campaign.id,
        last.id,
        actor,
        now,
        [
            group_post(campaign, "state_edit_undone", key, edit=last.id),
            board_post(campaign, key),
            *notices,
        ],
    )
    return edit_result(outcome, last.id)
