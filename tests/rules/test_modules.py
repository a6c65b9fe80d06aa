"""The extension point of RULES.md section 5, exercised by a test-only "supply" module.

The module keeps ``{"supply": {side: n}}`` in the state, adds an order kind
``ModuleOrder(module="supply", data={"sector": ...})`` (refused when the side has no armies
there, or when the side already gave one this turn) and, after the orbital reinforcement step,
adds one army in the ordered sector and counts it in its state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

from rules import (
    Attack,
    BattleResult,
    CampaignState,
    Game,
    ModuleOrder,
    Move,
    OrderRule,
    Outcome,
    Rejection,
    Ruleset,
    RulesModule,
    SideId,
    SideOrders,
    Step,
    StepHook,
    TurnWork,
    UnknownModuleError,
    accept_orders,
    builtin_map,
    deployed_state,
    enter_order,
    plan_battles,
    resolve_turn,
    validate_order,
)
from tests.rules.strategies import battle_results, order_sets, states

SUPPLY = "supply"


class SupplyModule(RulesModule):
    """One extra army a turn where a side asks for supply (test only)."""

    name = SUPPLY

    def initial_state(self, game: Game, choice: JsonValue = None) -> JsonValue:
        return {}

    def validate_order(
        self,
        game: Game,
        state: CampaignState,
        side: SideId,
        order: ModuleOrder,
        current: SideOrders,
    ) -> Rejection | None:
        sector = order.data.get("sector")
        if not isinstance(sector, str) or state.armies_of(side, sector) == 0:
            return Rejection(
                side=side,
                order=order,
                rule=OrderRule.MODULE_RULE,
                params={"module": SUPPLY, "rule": "no_armies_in_sector", "sector": str(sector)},
            )
        if any(given.module == SUPPLY for given in current.extra):
            return Rejection(
                side=side,
                order=order,
                rule=OrderRule.MODULE_RULE,
                params={"module": SUPPLY, "rule": "one_supply_per_turn"},
            )
        return None

    def hooks(self) -> Sequence[StepHook]:
        return (StepHook(anchor=Step.REINFORCEMENT, when="after", run=self._supply),)

    def _supply(self, work: TurnWork) -> None:
        counts = work.modules.get(SUPPLY)
        supplied: dict[str, JsonValue] = dict(counts) if isinstance(counts, dict) else {}
        for side in work.start.sides():
            for order in work.accepted[side].extra:
                sector = order.data.get("sector")
                if order.module != SUPPLY or not isinstance(sector, str):
                    continue
                if work.armies[side].get(sector, 0) == 0:
                    continue
                work.add(side, sector, 1, SUPPLY)
                before = supplied.get(side, 0)
                supplied[side] = (before if isinstance(before, int) else 0) + 1
        work.modules[SUPPLY] = supplied
        work.log.append(f"supply: {supplied}")


PLANET = builtin_map("planet-5")
WITH_SUPPLY = Ruleset(modules=(SUPPLY,))
START = CampaignState(
    turn=3,
    armies={"red": {"1": 4, "2": 3, "4": 3}, "blue": {"1": 3, "3": 5, "5": 2}},
    modules={SUPPLY: {"red": 2}},
)


def supply(sector: Any) -> ModuleOrder:
    return ModuleOrder(module=SUPPLY, data={"sector": sector})


@pytest.fixture
def game() -> Game:
    return Game.create(PLANET, WITH_SUPPLY, available=[SupplyModule()])


def test_create_takes_the_modules_the_ruleset_names(game: Game) -> None:
    assert [module.name for module in game.modules] == [SUPPLY]
    assert game.module(SUPPLY) is game.modules[0]
    assert game.module("weather") is None
    hooks = game.hooks(Step.REINFORCEMENT, "after")
    assert [hook.anchor for hook in hooks] == [Step.REINFORCEMENT]
    assert game.hooks(Step.REINFORCEMENT, "before") == []
    assert game.hooks(Step.LOSSES, "after") == []


def test_create_ignores_available_modules_the_ruleset_does_not_name() -> None:
    game = Game.create(PLANET, Ruleset(), available=[SupplyModule()])
    assert game.modules == ()


def test_create_refuses_a_module_without_implementation() -> None:
    with pytest.raises(UnknownModuleError, match="weather"):
        Game.create(PLANET, Ruleset(modules=(SUPPLY, "weather")), available=[SupplyModule()])
    with pytest.raises(UnknownModuleError, match=SUPPLY):
        Game.create(PLANET, WITH_SUPPLY)


def test_deployment_starts_the_module_state(game: Game) -> None:
    state = deployed_state(game, {"red": {"1": 4, "2": 3, "4": 3}})
    assert state.modules == {SUPPLY: {}}


def test_module_order_is_validated_by_the_module(game: Game) -> None:
    assert validate_order(game, START, "red", supply("2")) is None
    refused = validate_order(game, START, "red", supply("3"))
    assert refused is not None
    assert refused.rule is OrderRule.MODULE_RULE
    assert refused.params["module"] == SUPPLY
    assert refused.params["rule"] == "no_armies_in_sector"
    bad_data = validate_order(game, START, "red", ModuleOrder(module=SUPPLY, data={}))
    assert bad_data is not None
    assert bad_data.rule is OrderRule.MODULE_RULE


def test_core_checks_come_before_the_module(game: Game) -> None:
    out = validate_order(game, START, "green", supply("1"))
    assert out is not None
    assert out.rule is OrderRule.SIDE_NOT_IN_PLAY
    unknown = validate_order(game, START, "red", ModuleOrder(module="weather", data={}))
    assert unknown is not None
    assert unknown.rule is OrderRule.UNKNOWN_MODULE
    assert unknown.params == {"module": "weather"}


def test_enter_order_with_a_module_order(game: Game) -> None:
    current = SideOrders(moves=(Move(source="2", to="1", count=2),), reinforce="4")
    after, rejection = enter_order(game, START, "red", current, supply("4"))
    assert rejection is None
    assert after == current.model_copy(update={"extra": (supply("4"),)})

    again, second = enter_order(game, START, "red", after, supply("1"))
    assert second is not None
    assert second.params["rule"] == "one_supply_per_turn"
    assert again == after

    refused_after, refused = enter_order(game, START, "red", current, supply("5"))
    assert refused is not None
    assert refused.rule is OrderRule.MODULE_RULE
    assert refused_after == current


def test_accept_orders_keeps_the_first_module_order(game: Game) -> None:
    orders = SideOrders(extra=(supply("3"), supply("2"), supply("1")))
    accepted, rejected = accept_orders(game, START, "red", orders)
    assert accepted.extra == (supply("2"),)
    assert [r.params["rule"] for r in rejected] == ["no_armies_in_sector", "one_supply_per_turn"]


def test_resolution_runs_the_hook_and_carries_the_module_state(game: Game) -> None:
    orders = {
        "red": SideOrders(
            moves=(Move(source="2", to="1", count=2),),
            attacks=(Attack(sector="1", target="blue"), Attack(sector="1", target="blue")),
            reinforce="4",
            extra=(supply("2"),),
        ),
        "blue": SideOrders(
            moves=(Move(source="3", to="2", count=3),), reinforce="3", extra=(supply("5"),)
        ),
    }
    results = [
        BattleResult(battle=1, outcome=Outcome.CRUSHING, winner="red"),
        BattleResult(battle=2, outcome=Outcome.BLOODY_DRAW),
    ]
    resolution = resolve_turn(game, START, orders, results)
    report = resolution.report
    assert report.rejected == ()
    supply_gains = [(g.side, g.sector, g.armies) for g in report.gains if g.reason == SUPPLY]
    assert supply_gains == [("red", "2", 1), ("blue", "5", 1)]
    assert [g.reason for g in report.gains][-2:] == [SUPPLY, SUPPLY]
    assert resolution.state.modules == {SUPPLY: {"red": 3, "blue": 1}}
    # RULES.md section 4's result, plus one army in red's sector 2 and blue's sector 5.
    assert resolution.state.armies == {
        "red": {"1": 6, "2": 3, "4": 5},
        "blue": {"2": 3, "3": 4, "5": 4},
    }
    assert START.modules == {SUPPLY: {"red": 2}}
    assert any(line.startswith("supply:") for line in report.log)
    assert report.log[-1].startswith("6. Victory")


def test_core_without_the_module_refuses_its_orders() -> None:
    core = Game.create(PLANET)
    refused = validate_order(core, START, "red", supply("2"))
    assert refused is not None
    assert refused.rule is OrderRule.UNKNOWN_MODULE
    assert refused.params == {"module": SUPPLY}

    resolution = resolve_turn(core, START, {"red": SideOrders(extra=(supply("2"),))})
    assert [(r.side, r.rule) for r in resolution.report.rejected] == [
        ("red", OrderRule.UNKNOWN_MODULE)
    ]
    gains = resolution.report.gains
    assert gains, "the turn's gains (the reinforcements) are there to look at"
    assert [gain for gain in gains if gain.reason == SUPPLY] == []
    assert resolution.state.modules == START.modules


@settings(max_examples=60)
@given(st.data())
def test_conservation_holds_with_the_module_gain(data: st.DataObject) -> None:
    game = Game.create(PLANET, WITH_SUPPLY, available=[SupplyModule()])
    state = data.draw(states(game))
    orders = dict(data.draw(order_sets(game, state)))
    for side in state.sides():
        sector = data.draw(st.sampled_from([*state.armies[side], "nowhere"]))
        side_orders = orders.get(side, SideOrders())
        orders[side] = side_orders.model_copy(update={"extra": (supply(sector),)})
    plan = plan_battles(game, state, orders)
    results = data.draw(battle_results(plan.battles))

    resolution = resolve_turn(game, state, orders, results)
    report = resolution.report
    assert len(state.sides()) >= 2, "the states strategy gives two sides or more"
    for side in state.sides():
        lost = sum(c.lost for c in report.casualties if c.side == side)
        gained = sum(g.armies for g in report.gains if g.side == side)
        assert resolution.state.total(side) == state.total(side) - lost + gained, side
    supplied = {
        side
        for side in state.sides()
        if plan.accepted[side].extra and resolution.state.total(side) > 0
    }
    assert {g.side for g in report.gains if g.reason == SUPPLY} <= supplied
    counts = resolution.state.modules[SUPPLY]
    assert isinstance(counts, dict)
    assert sum(1 for g in report.gains if g.reason == SUPPLY) == sum(
        n for n in counts.values() if isinstance(n, int)
    )
