"""Invariants of module ``siege`` on random games, tokens, orders, results and seeds."""

from __future__ import annotations

from collections import Counter

from hypothesis import event, given, settings
from hypothesis import strategies as st

from rules import (
    BattleStatus,
    CampaignState,
    Game,
    SideOrders,
    TurnResolution,
    TurnSeeds,
    battle_sides,
    enter_order,
    legal_late_orders,
    legal_orders,
    plan_battles,
    resolve_turn,
    validate_late_order,
    validate_order,
)
from rules.modules.siege import SiegePlan, SiegeSettings, load
from tests.rules.siege_strategies import (
    any_siege_order_sets,
    any_siege_orders,
    chain_results,
    late_orders,
    siege_turns,
    valid_siege_order_sets,
    valid_siege_orders,
)


def _expected_losses(
    game: Game, resolution: TurnResolution, plan_json: object
) -> Counter[tuple[str, str]]:
    """What the clauses say each side loses where: RULES 3.4 per played battle (in its loss
    sectors, the chain's defender from the results) and the failed-assault loss (S5.1)."""
    report = resolution.report
    losses = game.ruleset.losses
    results = {result.battle: result for result in report.results}
    sides = battle_sides(report.battles, results, final=True)
    expected: Counter[tuple[str, str]] = Counter()
    for battle in report.battles:
        status = sides[battle.id]
        if status.status is not BattleStatus.PLAYABLE or battle.id in report.unreported:
            continue
        result = results[battle.id]
        attacker, defender = status.attacker, status.defender or battle.defender
        amount = losses.for_outcome(result.outcome)
        if result.winner is None:
            losers = [attacker, defender]
        else:
            losers = [defender if result.winner == attacker else attacker]
        for side in losers:
            expected[(battle.loss_sector(side), side)] += amount
    listed = SiegePlan.model_validate(plan_json)
    loss = game.settings_of("siege", SiegeSettings).assault_loss
    fallen: set[str] = set()
    for planned in listed.assaults:
        if planned.guards:
            if (
                all(
                    sides[link.battle].status is BattleStatus.PLAYABLE
                    and link.battle in results
                    and results[link.battle].winner == planned.side
                    for link in planned.guards
                )
                and planned.kind == "fortification"
            ):
                fallen.add(planned.token)
            continue
        if planned.falls:
            if planned.kind == "fortification":
                fallen.add(planned.token)
            continue
        if planned.token not in fallen or planned.kind != "fortification":
            expected[(planned.sector, planned.side)] += loss
    return expected


def _check_turn(
    game: Game, state: CampaignState, resolution: TurnResolution, plan_json: object
) -> None:
    report, final = resolution.report, resolution.state
    declared = Counter[tuple[str, str]]()
    for casualty in report.casualties:
        assert 0 <= casualty.lost <= casualty.declared
        declared[(casualty.sector, casualty.side)] += casualty.declared
    assert +declared == +_expected_losses(game, resolution, plan_json)
    for side in state.sides():
        lost = sum(c.lost for c in report.casualties if c.side == side)
        gained = sum(g.armies for g in report.gains if g.side == side)
        assert final.total(side) == state.total(side) - lost + gained, side
    assert {gain.reason for gain in report.gains} <= {"replenishment", "reinforcement"}
    labels = [roll.label for roll in report.rolls]
    assert len(labels) == len(set(labels))
    assert all(label.startswith(f"t{state.turn}/siege/") for label in labels)
    before, after = load(state.modules["siege"]), load(final.modules["siege"])
    assert after.weather is not None
    assert 0 <= after.weather <= 7
    assert {t.id for t in after.tokens} <= {t.id for t in before.tokens}
    assert {t.id for t in before.tokens if t.kind == "occult"} <= {t.id for t in after.tokens}
    assert all(token.ready for token in after.tokens)
    settings_ = game.settings_of("siege", SiegeSettings)
    for side, points in after.vp.items():
        assert points >= before.vp.get(side, 0)
        if points > before.vp.get(side, 0):
            assert settings_.has_role(side, "stormer")


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_armies_change_only_by_the_losses_and_gains_the_clauses_give(data: st.DataObject) -> None:
    game, state, seeds = data.draw(siege_turns())
    valid = data.draw(st.booleans())
    orders = data.draw(
        valid_siege_order_sets(game, state) if valid else any_siege_order_sets(game, state)
    )
    plan = plan_battles(game, state, orders, seeds)
    results = data.draw(chain_results(plan.battles))
    late = data.draw(late_orders(plan, state))
    resolution = resolve_turn(game, state, orders, results, seeds, late)
    assert resolution.report.rolls[: len(plan.rolls)] == plan.rolls
    assert all(roll.verify(str(seeds.roll)) for roll in resolution.report.rolls)
    event(f"chain battles: {any(battle.module for battle in plan.battles)}")
    event(f"failed-assault losses: {bool(resolution.report.module_losses)}")
    event(f"late orders accepted: {bool(resolution.report.late)}")
    event(f"unplayed chain battles: {bool(resolution.report.unplayed)}")
    _check_turn(game, state, resolution, plan.modules["siege"])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_same_inputs_and_seeds_give_the_same_turn(data: st.DataObject) -> None:
    game, state, seeds = data.draw(siege_turns())
    orders = data.draw(any_siege_order_sets(game, state))
    plan = plan_battles(game, state, orders, seeds)
    assert plan_battles(game, state, orders, TurnSeeds(roll=seeds.roll)) == plan
    results = data.draw(chain_results(plan.battles))
    late = data.draw(late_orders(plan, state))
    first = resolve_turn(game, state, orders, results, seeds, late)
    again = resolve_turn(game, state, orders, list(reversed(results)), seeds, late)
    assert again == first
    assert first.state.model_dump_json() == again.state.model_dump_json()


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_legal_options_never_offer_what_validation_refuses(data: st.DataObject) -> None:
    game, state, _ = data.draw(siege_turns())
    side = data.draw(st.sampled_from(state.sides()))
    current = data.draw(valid_siege_orders(game, state, side))
    offered = legal_orders(game, state, side, current).modules["siege"]
    for order in offered:
        assert validate_order(game, state, side, order, current) is None, order
        _, rejection = enter_order(game, state, side, current, order)
        assert rejection is None
    for _ in range(10):
        candidate = data.draw(any_siege_orders(game, state, side))
        accepted = validate_order(game, state, side, candidate, current) is None
        if candidate.data.get("window") == "after":
            assert not accepted
        else:
            assert accepted == (candidate in offered), candidate


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_late_options_are_exactly_the_late_orders_accepted(data: st.DataObject) -> None:
    game, state, seeds = data.draw(siege_turns())
    orders = data.draw(valid_siege_order_sets(game, state))
    plan = plan_battles(game, state, orders, seeds)
    side = data.draw(st.sampled_from(state.sides()))
    offered = legal_late_orders(game, state, plan, side)["siege"]
    for _ in range(6):
        candidate = data.draw(any_siege_orders(game, state, side))
        accepted = validate_late_order(game, state, plan, side, candidate) is None
        assert accepted == (candidate in offered), candidate


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_an_empty_order_set_changes_no_token(data: st.DataObject) -> None:
    game, state, seeds = data.draw(siege_turns())
    resolution = resolve_turn(
        game, state, {side: SideOrders() for side in state.sides()}, (), seeds
    )
    before, after = load(state.modules["siege"]), load(resolution.state.modules["siege"])
    assert [(t.id, t.controller) for t in after.tokens] == [
        (t.id, t.controller) for t in before.tokens
    ]
    assert (after.weather, after.vp) == (before.weather, before.vp)
    assert resolution.report.rolls == ()
