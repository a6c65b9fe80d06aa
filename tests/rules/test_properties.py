"""Invariants of the rules core, checked on random states, rulesets, orders and results."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rules import (
    Attack,
    BattleResult,
    CampaignState,
    Fortify,
    Game,
    LegalOrders,
    ModuleOrder,
    Move,
    Outcome,
    Reinforce,
    ResultsError,
    SideOrders,
    StateOffMapError,
    TurnResolution,
    accept_orders,
    builtin_map,
    enter_order,
    legal_orders,
    plan_battles,
    resolve_turn,
    validate_order,
)
from rules.resolution import ResultProblemCode
from tests.rules.strategies import (
    GHOST,
    NOWHERE,
    SIDE_POOL,
    any_attacks,
    any_moves,
    any_side_orders,
    battle_results,
    games_and_states,
    order_sets,
    valid_order_sets,
)

AnyOrder = Move | Attack | Fortify | Reinforce | ModuleOrder


def _dump_inputs(
    state: CampaignState, orders: dict[str, SideOrders], results: list[BattleResult]
) -> Any:
    return copy.deepcopy(
        (
            state.model_dump(),
            {side: side_orders.model_dump() for side, side_orders in orders.items()},
            [result.model_dump() for result in results],
        )
    )


@st.composite
def turns(
    draw: st.DrawFn, *, valid: bool = False
) -> tuple[Game, CampaignState, dict[str, SideOrders], list[BattleResult]]:
    """A whole turn: game, state, orders (random or only valid ones) and results for its plan."""
    game, state = draw(games_and_states())
    orders = draw(valid_order_sets(game, state) if valid else order_sets(game, state))
    plan = plan_battles(game, state, orders)
    return game, state, orders, draw(battle_results(plan.battles))


def _check_conservation(state: CampaignState, resolution: TurnResolution) -> None:
    report, final = resolution.report, resolution.state
    assert len(state.sides()) >= 2, "the states strategy gives two sides or more"
    lost = Counter[tuple[str, str]]()
    for casualty in report.casualties:
        lost[casualty.side, casualty.sector] += casualty.lost
    gained = Counter[tuple[str, str]]()
    for gain in report.gains:
        gained[gain.side, gain.sector] += gain.armies
    moved = Counter[tuple[str, str]]()
    for arrival in report.arrivals:
        moved[arrival.side, arrival.source] -= arrival.count
        moved[arrival.side, arrival.to] += arrival.count
    for side in state.sides():
        side_lost = sum(n for (s, _), n in lost.items() if s == side)
        side_gained = sum(n for (s, _), n in gained.items() if s == side)
        assert sum(n for (s, _), n in moved.items() if s == side) == 0
        assert final.total(side) == state.total(side) - side_lost + side_gained, side
    sectors = {
        sector for sides in (state.armies, final.armies) for s in sides.values() for sector in s
    }
    sectors |= {sector for _, sector in (*lost, *gained, *moved)}
    for side in state.sides():
        for sector in sectors:
            key = (side, sector)
            expected = state.armies_of(side, sector) + moved[key] - lost[key] + gained[key]
            assert final.armies_of(side, sector) == expected, key
    assert set(final.sides()) <= set(state.sides())
    # Each record on its own, last: a turn without losses or moves proves nothing about them,
    # and Hypothesis fails the test when too few examples have both.
    assume(report.casualties and report.arrivals and report.gains)
    for casualty in report.casualties:
        assert 0 <= casualty.lost <= casualty.declared
    for gain in report.gains:
        assert gain.armies >= 0
    for arrival in report.arrivals:
        assert arrival.count >= 1


@settings(max_examples=25)  # that reach the end; the others are checked up to it
@given(turns())
def test_conservation_armies_change_only_by_losses_and_gains(
    turn: tuple[Game, CampaignState, dict[str, SideOrders], list[BattleResult]],
) -> None:
    game, state, orders, results = turn
    resolution = resolve_turn(game, state, orders, results)
    _check_conservation(state, resolution)
    accepted_moves = [
        (side, move.source, move.to, move.count)
        for side, side_orders in plan_battles(game, state, orders).accepted.items()
        for move in side_orders.moves
    ]
    arrivals = [(a.side, a.source, a.to, a.count) for a in resolution.report.arrivals]
    assert arrivals == accepted_moves


@settings(max_examples=100)
@given(turns())
def test_resolution_is_deterministic_and_leaves_its_inputs_alone(
    turn: tuple[Game, CampaignState, dict[str, SideOrders], list[BattleResult]],
) -> None:
    game, state, orders, results = turn
    before = _dump_inputs(state, orders, results)
    first = resolve_turn(game, state, orders, results)
    assert _dump_inputs(state, orders, results) == before
    second = resolve_turn(
        game, CampaignState.model_validate(before[0]), copy.deepcopy(orders), list(results)
    )
    assert first.model_dump() == second.model_dump()
    assert _dump_inputs(state, orders, results) == before


def _candidate_orders(game: Game, state: CampaignState, side: str) -> list[AnyOrder]:
    sector_ids = [*game.map.sector_ids(), NOWHERE]
    candidates: list[AnyOrder] = []
    for source in sector_ids:
        armies = state.armies_of(side, source)
        for to in sector_ids:
            candidates.extend(
                Move(source=source, to=to, count=count) for count in range(-1, armies + 2)
            )
        candidates.extend(
            Attack(sector=source, target=target) for target in (*SIDE_POOL, side, GHOST)
        )
        candidates.append(Reinforce(sector=source))
        candidates.append(Fortify(sector=source))
    return candidates


def _listed(listing: LegalOrders, order: AnyOrder) -> bool:
    match order:
        case Move():
            options = listing.for_sector(order.source)
            return (
                options is not None
                and options.move is not None
                and order.to in options.move.destinations
                and options.move.min_count <= order.count <= options.move.max_count
            )
        case Attack():
            options = listing.for_sector(order.sector)
            return (
                options is not None
                and options.attack is not None
                and order.target in options.attack.targets
                and options.attack.remaining > 0
            )
        case Reinforce():
            return order.sector in listing.reinforce
        case Fortify():
            options = listing.for_sector(order.sector)
            return options is not None and options.fortify
    raise AssertionError(f"unexpected order {order!r}")


@settings(max_examples=32)  # that reach the end; the others are checked up to it
@given(games_and_states(), st.data())
def test_legal_orders_agree_with_validation_exactly(
    game_state: tuple[Game, CampaignState], data: st.DataObject
) -> None:
    game, state = game_state
    outsiders = [side for side in (*SIDE_POOL, GHOST) if side not in state.armies]
    side = data.draw(st.sampled_from([*state.sides(), *state.sides(), *outsiders]))
    given_orders = data.draw(any_side_orders(game, state, side))
    current, _ = accept_orders(game, state, side, given_orders)
    listing = legal_orders(game, state, side, current)
    assert listing.side == side
    assert [(o.sector, o.armies) for o in listing.sectors] == [
        (s, state.armies_of(side, s)) for s in game.map.sector_ids() if state.armies_of(side, s)
    ]
    candidates = _candidate_orders(game, state, side)
    assert candidates, "every sector of the map gives candidate orders"
    for order in candidates:
        valid = validate_order(game, state, side, order, current) is None
        assert valid == _listed(listing, order), order
    # Last, the attack options: a side with none proves nothing about them (Hypothesis fails
    # the test when too few examples have some).
    attacks = [options for options in listing.sectors if options.attack is not None]
    assume(attacks)
    for options in attacks:
        assert options.attack is not None
        assert options.attack.limit == game.ruleset.attack_limit(options.armies)
        assert options.attack.declared == len(current.attacks_in(options.sector))
        assert options.attack.remaining == options.attack.limit - options.attack.declared


def _by_sector(orders: SideOrders, sectors: list[str]) -> dict[str, Any]:
    return {
        sector: (orders.move_from(sector), orders.attacks_in(sector))
        for sector in (*sectors, NOWHERE)
    }


@settings(max_examples=100)
@given(games_and_states(), st.data())
def test_enter_order_changes_only_the_orders_sector(
    game_state: tuple[Game, CampaignState], data: st.DataObject
) -> None:
    game, state = game_state
    side = data.draw(st.sampled_from(state.sides()))
    current, _ = accept_orders(game, state, side, data.draw(any_side_orders(game, state, side)))
    sectors = list(game.map.sector_ids())
    order: Move | Attack | Fortify | Reinforce = data.draw(
        st.one_of(
            any_moves(game, state, side),
            any_attacks(game, state, side),
            st.builds(Fortify, sector=st.sampled_from([*sectors, NOWHERE])),
            st.builds(Reinforce, sector=st.sampled_from([*sectors, NOWHERE])),
        )
    )
    after, rejection = enter_order(game, state, side, current, order)
    if rejection is not None:
        assert after == current
        assert rejection.side == side
        assert rejection.order == order
        return
    before_sectors, after_sectors = _by_sector(current, sectors), _by_sector(after, sectors)
    own = order.source if isinstance(order, Move) else order.sector
    for sector in (*sectors, NOWHERE):
        if sector != own or isinstance(order, Reinforce):
            assert after_sectors[sector] == before_sectors[sector], sector
    assert after.extra == current.extra
    if isinstance(order, Reinforce):
        assert after.reinforce == order.sector
    else:
        assert after.reinforce == current.reinforce
        match order:
            case Move():
                assert after_sectors[own] == (order, ())
            case Attack():
                assert after.move_from(own) is None
                assert after.attacks_in(own)[-1] == order
                assert after.attacks_in(own)[:-1] == current.attacks_in(own)
            case Fortify():
                assert after_sectors[own] == (None, ())
    accepted, rejected = accept_orders(game, state, side, after)
    assert rejected == []
    assert accepted == after


@settings(max_examples=45)  # that reach the end; the others are checked up to it
@given(turns(valid=True))
def test_valid_orders_resolve_without_rejections(
    turn: tuple[Game, CampaignState, dict[str, SideOrders], list[BattleResult]],
) -> None:
    game, state, orders, results = turn
    resolution = resolve_turn(game, state, orders, results)
    report, final = resolution.report, resolution.state
    assert report.rejected == ()
    assert final.turn == state.turn + 1
    assert report.turn == state.turn
    assert set(final.sides()).isdisjoint(report.eliminated)
    assert set(final.sides()) | set(report.eliminated) == set(state.sides())
    assert list(final.sides()) == [s for s in state.sides() if s in final.armies]
    assert set(report.unreported) == {b.id for b in report.battles} - {r.battle for r in results}
    assume(final.armies)  # a turn that ends every side leaves no armies to look at
    for side, sectors in final.armies.items():
        assert sectors, side
        assert [count for count in sectors.values() if count <= 0] == [], side
        assert list(sectors) == [s for s in game.map.sector_ids() if s in sectors]
    _check_conservation(state, resolution)


@settings(max_examples=40)  # that reach the end; the others are checked up to it
@given(games_and_states(), st.data())
def test_accept_orders_matches_replayed_validation(
    game_state: tuple[Game, CampaignState], data: st.DataObject
) -> None:
    game, state = game_state
    side = data.draw(st.sampled_from([*state.sides(), *SIDE_POOL, GHOST]))
    orders = data.draw(any_side_orders(game, state, side))
    accepted, rejected = accept_orders(game, state, side, orders)

    replayed = SideOrders()
    refusals = []
    given_orders: tuple[AnyOrder, ...] = (*orders.moves, *orders.attacks, *orders.extra)
    for order in given_orders:
        rejection = validate_order(game, state, side, order, replayed)
        if rejection is None:
            replayed = replayed.with_order(order)
        else:
            refusals.append(rejection)
    assert rejected == refusals
    assert accepted.moves == replayed.moves
    assert accepted.attacks == replayed.attacks
    assert accepted.extra == replayed.extra
    if accepted.reinforce is not None:
        assert accepted.reinforce == orders.reinforce
        assert validate_order(game, state, side, Reinforce(sector=accepted.reinforce)) is None
    elif orders.reinforce is not None:
        assert validate_order(game, state, side, Reinforce(sector=orders.reinforce)) is not None

    again, rejected_again = accept_orders(game, state, side, accepted)
    assert rejected_again == []
    assert again == accepted
    check = SideOrders()
    kept: tuple[AnyOrder, ...] = (*accepted.moves, *accepted.attacks)
    assume(kept)  # nothing kept, nothing to replay (Hypothesis fails if too few keep some)
    for order in kept:
        assert validate_order(game, state, side, order, check) is None
        check = check.with_order(order)


@settings(max_examples=70)  # that reach the end; the others are checked up to it
@given(games_and_states(), st.data())
def test_plan_battles_numbers_and_counts(
    game_state: tuple[Game, CampaignState], data: st.DataObject
) -> None:
    game, state = game_state
    orders = data.draw(order_sets(game, state))
    plan = plan_battles(game, state, orders)
    battles = plan.battles

    assert [battle.id for battle in battles] == list(range(1, len(battles) + 1))
    assert set(plan.accepted) == set(state.sides())
    declared = [
        (attack.sector, side, attack.target)
        for side in state.sides()
        for attack in plan.accepted[side].attacks
    ]
    assert len(battles) == len(declared)
    order = game.map.order
    sides = list(state.sides())
    assert [(b.sector, b.attacker, b.defender) for b in battles] == sorted(
        declared, key=lambda d: (order[d[0]], sides.index(d[1]))
    )
    rejected_sides = Counter(r.side for r in plan.rejected)
    assume(orders)  # no orders, nothing to count (Hypothesis fails if too few have some)
    for side, side_orders in orders.items():
        given_count = len(side_orders.moves) + len(side_orders.attacks) + len(side_orders.extra)
        kept = plan.accepted.get(side, SideOrders())
        kept_count = len(kept.moves) + len(kept.attacks) + len(kept.extra)
        assert rejected_sides[side] == given_count - kept_count, side
    assume(battles)  # and each battle on its own, last
    for battle in battles:
        assert battle.attacker != battle.defender
        assert set(battle.armies) == {battle.attacker, battle.defender}
        for side, count in battle.armies.items():
            move = plan.accepted[side].move_from(battle.sector)
            assert count == state.armies_of(side, battle.sector) - (move.count if move else 0)
            assert count >= 1
            assert battle.foc[side] == game.ruleset.foc_for(count)
        fortifying = plan.accepted[battle.defender].is_fortifying(battle.sector)
        assert battle.fortified == (battle.defender if fortifying else None)
        assert battle.points == game.ruleset.battle_points


@settings(max_examples=100)
@given(games_and_states(), st.data())
def test_results_that_do_not_fit_the_plan_are_refused(
    game_state: tuple[Game, CampaignState], data: st.DataObject
) -> None:
    game, state = game_state
    orders = data.draw(order_sets(game, state))
    battles = plan_battles(game, state, orders).battles
    results = data.draw(battle_results(battles))
    kind = data.draw(
        st.sampled_from(["unknown", "duplicate", "winner"] if battles else ["unknown"])
    )
    if kind == "unknown":
        bad = BattleResult(battle=len(battles) + data.draw(st.integers(1, 3)), outcome=Outcome.DRAW)
        expected = ResultProblemCode.UNKNOWN_BATTLE
    else:
        battle = data.draw(st.sampled_from(battles))
        if kind == "duplicate":
            bad = BattleResult(battle=battle.id, outcome=Outcome.BLOODY_DRAW)
            results = [r for r in results if r.battle != battle.id] + [bad]
            expected = ResultProblemCode.DUPLICATE_RESULT
        else:
            outsider = data.draw(
                st.sampled_from([s for s in (*SIDE_POOL, GHOST) if s not in battle.participants()])
            )
            bad = BattleResult(battle=battle.id, outcome=Outcome.SOLID, winner=outsider)
            results = [r for r in results if r.battle != battle.id]
            expected = ResultProblemCode.WINNER_NOT_IN_BATTLE
    given_results = [*results, bad]
    before = _dump_inputs(state, orders, given_results)
    with pytest.raises(ResultsError) as raised:
        resolve_turn(game, state, orders, given_results)
    assert [p.code for p in raised.value.problems] == [expected]
    assert raised.value.problems[0].battle == bad.battle
    assert _dump_inputs(state, orders, given_results) == before


def test_a_state_with_armies_off_the_map_is_refused_not_half_resolved() -> None:
    game = Game.create(builtin_map("planet-5"))
    state = CampaignState(turn=1, armies={"red": {"9": 3, "1": 2}, "blue": {"9": 4}})
    with pytest.raises(StateOffMapError) as raised:
        resolve_turn(game, state, {})
    assert raised.value.misplaced == [("red", "9"), ("blue", "9")]
