"""Invariants of module ``contact`` on random positions, orders, results and seeds."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import (
    BattleResult,
    BattleStatus,
    CampaignState,
    Game,
    Move,
    Outcome,
    SideOrders,
    TurnSeeds,
    battle_sides,
    legal_orders,
    plan_battles,
    resolve_turn,
    validate_order,
)
from rules.modules.contact import ContactPlan, load
from tests.rules.contact_day_demo import SIDES, contact_game

GAME = contact_game()
SECTORS = GAME.map.sector_ids()


@st.composite
def positions(draw: st.DrawFn) -> CampaignState:
    """Two or three sides on day-demo, shared sectors, exhaustion, ruined and owned defences."""
    sides = draw(st.sampled_from([SIDES, SIDES[:2], (SIDES[2], SIDES[0])]))
    armies: dict[str, dict[str, int]] = {}
    for side in sides:
        held = draw(st.lists(st.sampled_from(SECTORS), min_size=1, max_size=3, unique=True))
        armies[side] = {sector: draw(st.integers(1, 7)) for sector in held}
    exhausted = {
        side: {sector: draw(st.integers(0, count)) for sector, count in held.items()}
        for side, held in armies.items()
        if draw(st.booleans())
    }
    defences = [
        {
            "id": f"d-{sector}",
            "sector": sector,
            "owner": draw(st.sampled_from([None, *sides])),
            "level": draw(st.sampled_from([1, 2])),
            "ruined": draw(st.booleans()),
        }
        for sector in SECTORS
        if draw(st.booleans())
    ]
    return CampaignState(
        turn=draw(st.integers(1, 9)),
        armies=armies,
        modules={
            "contact": {
                "v": 1,
                "defences": defences,
                "exhausted": exhausted,
                "vp": {side: draw(st.integers(0, 5)) for side in sides},
            }
        },
    )


@st.composite
def valid_orders(draw: st.DrawFn, game: Game, state: CampaignState) -> dict[str, SideOrders]:
    """Orders picked one at a time from the engine's own listing."""
    orders: dict[str, SideOrders] = {}
    for side in state.sides():
        current = SideOrders()
        for _ in range(draw(st.integers(0, 5))):
            legal = legal_orders(game, state, side, current)
            choices: list[Any] = list(legal.modules.get("contact", ()))
            for options in legal.sectors:
                if options.move is not None:
                    for to in options.move.destinations:
                        choices.append(
                            Move(source=options.sector, to=to, count=options.move.min_count)
                        )
                        choices.append(
                            Move(source=options.sector, to=to, count=options.move.max_count)
                        )
            if not choices:
                break
            order = draw(st.sampled_from(choices))
            assert validate_order(game, state, side, order, current) is None
            current = current.with_order(order)
        orders[side] = current
    return orders


seeds = st.text(alphabet="0123456789abcdef", min_size=8, max_size=32).map(
    lambda roll: TurnSeeds(roll=roll)
)


@st.composite
def results_for(draw: st.DrawFn, game: Game, state: CampaignState, orders: Any, seed: Any) -> Any:
    """Results battle by battle, each naming a side that fights it, some with a slain warlord."""
    plan = plan_battles(game, state, orders, seed)
    given: dict[int, BattleResult] = {}
    for battle in plan.battles:
        sides = battle_sides(plan.battles, given)[battle.id]
        if sides.status is not BattleStatus.PLAYABLE or draw(st.integers(0, 5)) == 0:
            continue
        outcome = draw(st.sampled_from(list(Outcome)))
        winner = draw(st.sampled_from(sides.participants())) if outcome.has_winner else None
        extra: dict[str, Any] = {}
        if draw(st.booleans()):
            extra = {"contact": {"warlord_slain": [draw(st.sampled_from(sides.participants()))]}}
        given[battle.id] = BattleResult(
            battle=battle.id, outcome=outcome, winner=winner, modules=extra
        )
    return plan, list(given.values())


@st.composite
def turns(draw: st.DrawFn) -> tuple[CampaignState, dict[str, SideOrders], TurnSeeds, Any, Any]:
    state = draw(positions())
    orders = draw(valid_orders(GAME, state))
    seed = draw(seeds)
    plan, results = draw(results_for(GAME, state, orders, seed))
    return state, orders, seed, plan, results


@settings(max_examples=150, deadline=None)
@given(turns())
def test_armies_change_only_by_losses_and_gains(turn: Any) -> None:
    state, orders, seed, _, results = turn
    resolution = resolve_turn(GAME, state, orders, results, seed)
    report = resolution.report
    losses = GAME.ruleset.losses
    by_id = {result.battle: result for result in report.results}
    sides = battle_sides(report.battles, by_id, final=True)
    expected: Counter[str] = Counter()
    for battle in report.battles:
        if sides[battle.id].status is not BattleStatus.PLAYABLE or battle.id in report.unreported:
            continue
        result = by_id[battle.id]
        defender = sides[battle.id].defender or battle.defender
        amount = losses.for_outcome(result.outcome)
        losers = (
            [battle.attacker, defender]
            if result.winner is None
            else [defender if result.winner == battle.attacker else battle.attacker]
        )
        for side in losers:
            expected[side] += amount
    for loss in report.module_losses:
        expected[loss.side] += loss.armies
    declared: Counter[str] = Counter()
    for casualty in report.casualties:
        declared[casualty.side] += casualty.declared
    assert +declared == +expected
    for side in state.sides():
        lost = sum(c.lost for c in report.casualties if c.side == side)
        gained = sum(g.armies for g in report.gains if g.side == side)
        assert resolution.state.total(side) == state.total(side) - lost + gained
    exhausted = load(resolution.state.modules["contact"]).exhausted
    for side, counts in exhausted.items():
        for sector, count in counts.items():
            assert 0 < count <= resolution.state.armies_of(side, sector)


@settings(max_examples=100, deadline=None)
@given(turns())
def test_the_same_inputs_give_the_same_turn(turn: Any) -> None:
    state, orders, seed, _, results = turn
    first = resolve_turn(GAME, state, orders, results, seed)
    again = resolve_turn(GAME, state, orders, results, seed)
    assert first == again
    assert plan_battles(GAME, state, orders, seed) == plan_battles(GAME, state, orders, seed)


@settings(max_examples=150, deadline=None)
@given(turns())
def test_groups_never_pass_a_hostile_sector_and_chains_refer_back(turn: Any) -> None:
    state, _, _, plan, _ = turn
    contact = ContactPlan.model_validate(plan.modules["contact"])
    cstate = load(state.modules["contact"])
    for group in contact.groups:
        for sector in group.passed:
            assert not any(side != group.side for side in state.occupants(sector))
            defences = cstate.defences_in(sector)
            assert defences is None or not defences.intact_against(group.side)
    by_id = {battle.id: battle for battle in plan.battles}
    for chain in contact.chains:
        for earlier, later in zip(chain.battles, chain.battles[1:], strict=False):
            assert by_id[later].defender_from == earlier
            assert by_id[later].sector == by_id[earlier].sector == chain.sector
        if chain.battles:
            assert by_id[chain.battles[0]].defender_from is None


@settings(max_examples=100, deadline=None)
@given(positions(), st.data())
def test_legal_options_are_never_refused(state: CampaignState, data: st.DataObject) -> None:
    orders = data.draw(valid_orders(GAME, state))
    for side, current in orders.items():
        legal = legal_orders(GAME, state, side, current)
        for order in legal.modules["contact"]:
            assert validate_order(GAME, state, side, order, current) is None
        for options in legal.sectors:
            if options.move is None:
                continue
            for to in options.move.destinations:
                for count in (options.move.min_count, options.move.max_count):
                    move = Move(source=options.sector, to=to, count=count)
                    assert validate_order(GAME, state, side, move, current) is None
