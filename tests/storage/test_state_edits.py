"""A GM's direct edits of the state (issue 23): checked by the rules, stored with the turn's
other adjustments, audited, undone; a side added or retired with its edit; a correction of the
turn before applies the edits again."""

from __future__ import annotations

import pytest

from bot.services.state_edits import (
    EditOutcome,
    add_side,
    edit_state,
    undo_last_edit,
)
from bot.services.turns import apply_adjustments
from rules import Attack, CampaignState, Game, Ruleset, SideOrders, builtin_map
from rules.edits import ArmySet, EditError, EditProblemCode, StateEdit, apply_edit, holder_changes
from storage import AuditAction, Phase, Role, Store, WriteOutcome
from tests.storage.campaign_script import GM, at, deploy, new_campaign, strategist

GAME = Game.create(builtin_map("planet-5"), Ruleset())


def _set(side: str, sector: str, count: int, reason: str = "miscounted") -> StateEdit:
    return StateEdit(armies=(ArmySet(side=side, sector=sector, count=count),), reason=reason)


async def test_an_edit_sets_armies_is_audited_posted_and_undone(store: Store) -> None:
    campaign = await new_campaign(store)
    before = await deploy(store, campaign.id)
    campaign = await store.campaign(campaign.id) or campaign
    result = await edit_state(store, campaign, _set("red", "2", 6), GM, at(1))
    assert result.outcome is EditOutcome.APPLIED
    assert result.edit_id is not None
    after = await store.turn_start(campaign.id, 1)
    assert after is not None
    assert after.armies["red"]["2"] == 6
    assert after.armies["blue"] == before.armies["blue"]
    entry = [e for e in await store.audit_log(campaign.id) if e.action is AuditAction.STATE_EDITED]
    assert [(e.actor, e.reason) for e in entry] == [(GM, "miscounted")]
    kinds = [m.kind for m in await store.outbox_messages(campaign.id)]
    assert "state_edited" in kinds
    assert "status_board" in kinds
    undone = await undo_last_edit(store, campaign, GM, at(1, 1))
    assert undone.outcome is EditOutcome.APPLIED
    assert await store.turn_start(campaign.id, 1) == before
    assert await store.adjustments(campaign.id, 1) == []
    actions = [e.action for e in await store.audit_log(campaign.id)]
    assert AuditAction.STATE_EDIT_UNDONE in actions
    assert "state_edit_undone" in [m.kind for m in await store.outbox_messages(campaign.id)]
    again = await undo_last_edit(store, campaign, GM, at(1, 2))
    assert again.outcome is EditOutcome.NOTHING


async def test_a_refused_edit_changes_nothing(store: Store) -> None:
    campaign = await new_campaign(store)
    before = await deploy(store, campaign.id)
    campaign = await store.campaign(campaign.id) or campaign
    refused = await edit_state(store, campaign, _set("red", "9", 2), GM, at(1))
    assert refused.outcome is EditOutcome.REFUSED
    assert [p.code for p in refused.problems] == [EditProblemCode.UNKNOWN_SECTOR]
    same = await edit_state(store, campaign, _set("red", "1", 4), GM, at(1))
    assert [p.code for p in same.problems] == [EditProblemCode.NO_CHANGE]
    too_many = await edit_state(store, campaign, _set("red", "1", 100), GM, at(1))
    assert [p.code for p in too_many.problems] == [EditProblemCode.ARMIES_OUT_OF_RANGE]
    assert await store.turn_start(campaign.id, 1) == before
    assert await store.adjustments(campaign.id, 1) == []


async def test_an_edit_is_refused_once_the_orders_are_closed(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    campaign = await store.campaign(campaign.id) or campaign
    moved = await store.transition(
        campaign.id, 1, campaign.phase, 1, Phase.BATTLES, GM, "list", at(1)
    )
    assert moved.applied
    closed = await store.campaign(campaign.id) or campaign
    result = await edit_state(store, closed, _set("red", "2", 6), GM, at(1, 1))
    assert result.outcome is EditOutcome.CLOSED
    # A stale campaign read before the list: storage's compare-and-set refuses it too.
    stale = await edit_state(store, campaign, _set("red", "2", 6), GM, at(1, 1))
    assert stale.outcome is EditOutcome.CLOSED


async def test_undo_waits_for_a_later_change_to_go_first(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    campaign = await store.campaign(campaign.id) or campaign
    first = await edit_state(store, campaign, _set("red", "2", 6), GM, at(1))
    second = await edit_state(store, campaign, _set("blue", "3", 1), GM, at(1, 1))
    assert first.edit_id is not None
    assert second.outcome is EditOutcome.APPLIED
    late = await store.undo_state_edit(campaign.id, first.edit_id, GM, at(1, 2))
    assert late is WriteOutcome.CONFLICT
    assert (await undo_last_edit(store, campaign, GM, at(1, 3))).outcome is EditOutcome.APPLIED
    assert (await undo_last_edit(store, campaign, GM, at(1, 4))).outcome is EditOutcome.APPLIED
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    assert state.armies["red"]["2"] == 3


async def test_retiring_a_side_clears_its_armies_and_seats_and_the_undo_restores_them(
    store: Store,
) -> None:
    campaign = await new_campaign(store)
    before = await deploy(store, campaign.id)
    campaign = await store.campaign(campaign.id) or campaign
    attack = SideOrders(attacks=(Attack(sector="3", target="green"),))
    await store.save_orders(campaign.id, 1, "blue", attack, True, strategist("blue"), at(1))
    retired = await edit_state(
        store, campaign, StateEdit(retire="green", reason="left the club"), GM, at(1, 1)
    )
    assert retired.outcome is EditOutcome.APPLIED
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    assert "green" not in state.armies
    sides = {side.id: side for side in await store.sides(campaign.id)}
    assert sides["green"].retired
    players = {m.user_id: m for m in await store.members(campaign.id)}
    assert players[401].side_id is None
    assert not players[401].roles & {Role.STRATEGIST}
    # Blue's attack on green is no longer allowed: its strategist is told in private.
    orders = [m for m in await store.outbox_messages(campaign.id) if m.kind == "orders_after_edit"]
    assert [m.chat_id for m in orders] == [strategist("blue")]
    undone = await undo_last_edit(store, campaign, GM, at(1, 2))
    assert undone.outcome is EditOutcome.APPLIED
    assert await store.turn_start(campaign.id, 1) == before
    sides = {side.id: side for side in await store.sides(campaign.id)}
    assert not sides["green"].retired
    players = {m.user_id: m for m in await store.members(campaign.id)}
    assert players[401].side_id == "green"
    assert players[401].roles >= {Role.STRATEGIST, Role.TACTICIAN}


async def test_a_side_added_mid_campaign_gets_the_armies_the_gm_placed(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    campaign = await store.campaign(campaign.id) or campaign
    taken = await add_side(store, campaign, "red legion", {"4": 2}, "late", GM, at(1))
    assert taken.outcome is EditOutcome.NAME_TAKEN
    added = await add_side(store, campaign, "Black Fleet", {"4": 2, "5": 3}, "late", GM, at(1))
    assert added.outcome is EditOutcome.APPLIED
    new = next(side for side in await store.sides(campaign.id) if side.name == "Black Fleet")
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    assert state.armies[new.id] == {"4": 2, "5": 3}
    assert list(state.armies)[-1] == new.id
    post = next(m for m in await store.outbox_messages(campaign.id) if m.kind == "state_edited")
    assert post.payload["added"] == new.id
    await undo_last_edit(store, campaign, GM, at(1, 1))
    again = next(side for side in await store.sides(campaign.id) if side.id == new.id)
    assert again.retired


async def test_undoing_the_step_before_the_edits_takes_their_sides_back_too(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    campaign = await store.campaign(campaign.id) or campaign
    retire = StateEdit(retire="green", reason="left the club")
    assert (await edit_state(store, campaign, retire, GM, at(1))).outcome is EditOutcome.APPLIED
    added = await add_side(store, campaign, "Black Fleet", {"4": 2}, "late", GM, at(1, 1))
    assert added.outcome is EditOutcome.APPLIED
    assert campaign.phase is Phase.ORDERS
    undone = await store.undo_last_step(
        campaign.id, campaign.turn, campaign.phase, GM, "deployment again", at(1, 2)
    )
    assert undone.outcome.name == "APPLIED"
    sides = {side.id: side for side in await store.sides(campaign.id)}
    assert not sides["green"].retired
    assert [side.retired for side in sides.values() if side.name == "Black Fleet"] == [True]
    players = {m.user_id: m for m in await store.members(campaign.id)}
    assert players[401].side_id == "green"
    assert players[401].roles >= {Role.STRATEGIST, Role.TACTICIAN}


def test_a_correction_applies_the_edits_again() -> None:
    game = GAME
    state = CampaignState(turn=2, armies={"red": {"1": 4}, "blue": {"3": 2}})
    stored = [
        _set("red", "2", 3).model_dump(mode="json"),
        StateEdit(retire="blue", reason="left").model_dump(mode="json"),
    ]
    again, dropped = apply_adjustments(game, state, stored)
    assert (again.armies, dropped) == ({"red": {"1": 4, "2": 3}}, 0)


def test_holder_changes_name_the_sectors_whose_holder_would_change() -> None:
    game = GAME
    before = CampaignState(turn=1, armies={"red": {"1": 4}, "blue": {"1": 1, "3": 2}})
    after = apply_edit(game, before, _set("blue", "1", 0), ["red", "blue"])
    assert [(c.sector, c.before, c.after) for c in holder_changes(game, before, after)] == [
        ("1", None, "red")
    ]
    with pytest.raises(EditError) as refused:
        apply_edit(game, before, StateEdit(retire="green"), ["red", "blue"])
    assert refused.value.problems[0].code is EditProblemCode.UNKNOWN_SIDE
