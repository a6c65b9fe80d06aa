"""Deployment, turn 0 (RULES.md 3.1): placement checks, the documented default, the first state."""

from __future__ import annotations

import pytest

from rules import (
    DeploymentError,
    Game,
    OrderRule,
    Ruleset,
    builtin_map,
    check_deployment,
    default_deployment,
    deployed_state,
)

PLANET = Game.create(builtin_map("planet-5"))


def rules_of(game: Game, placement: dict[str, int]) -> list[tuple[OrderRule, dict[str, str | int]]]:
    return [(p.rule, p.params) for p in check_deployment(game, placement)]


@pytest.mark.parametrize(
    "placement",
    [{"1": 4, "2": 3, "3": 3}, {"4": 8, "5": 1, "1": 1}, {"2": 1, "3": 1, "5": 8}],
)
def test_valid_placement(placement: dict[str, int]) -> None:
    assert check_deployment(PLANET, placement) == []


def test_wrong_total() -> None:
    assert rules_of(PLANET, {"1": 4, "2": 3, "3": 4}) == [
        (OrderRule.DEPLOY_WRONG_TOTAL, {"total": 11, "required": 10})
    ]
    assert rules_of(PLANET, {"1": 1, "2": 1, "3": 1}) == [
        (OrderRule.DEPLOY_WRONG_TOTAL, {"total": 3, "required": 10})
    ]


def test_wrong_sector_count() -> None:
    assert rules_of(PLANET, {"1": 5, "2": 5}) == [
        (OrderRule.DEPLOY_WRONG_SECTOR_COUNT, {"sectors": 2, "required": 3})
    ]
    assert rules_of(PLANET, {"1": 4, "2": 2, "3": 2, "4": 2}) == [
        (OrderRule.DEPLOY_WRONG_SECTOR_COUNT, {"sectors": 4, "required": 3})
    ]


def test_empty_sector() -> None:
    assert rules_of(PLANET, {"1": 5, "2": 5, "3": 0}) == [
        (OrderRule.DEPLOY_SECTOR_EMPTY, {"sector": "3", "count": 0})
    ]


def test_negative_sector_is_empty_too() -> None:
    problems = rules_of(PLANET, {"1": 6, "2": 5, "3": -1})
    assert problems == [(OrderRule.DEPLOY_SECTOR_EMPTY, {"sector": "3", "count": -1})]


def test_unknown_sector() -> None:
    assert rules_of(PLANET, {"1": 4, "2": 3, "9": 3}) == [
        (OrderRule.DEPLOY_UNKNOWN_SECTOR, {"sector": "9"})
    ]


def test_several_problems_at_once() -> None:
    assert rules_of(PLANET, {"9": 2, "1": 0}) == [
        (OrderRule.DEPLOY_UNKNOWN_SECTOR, {"sector": "9"}),
        (OrderRule.DEPLOY_SECTOR_EMPTY, {"sector": "1", "count": 0}),
        (OrderRule.DEPLOY_WRONG_SECTOR_COUNT, {"sectors": 2, "required": 3}),
        (OrderRule.DEPLOY_WRONG_TOTAL, {"total": 2, "required": 10}),
    ]


def test_custom_ruleset_changes_the_requirements() -> None:
    game = Game.create(builtin_map("planet-5"), Ruleset(start_armies=6, start_sectors=2))
    assert check_deployment(game, {"1": 3, "5": 3}) == []
    assert rules_of(game, {"1": 4, "2": 3, "3": 3}) == [
        (OrderRule.DEPLOY_WRONG_SECTOR_COUNT, {"sectors": 3, "required": 2}),
        (OrderRule.DEPLOY_WRONG_TOTAL, {"total": 10, "required": 6}),
    ]


def test_default_deployment_on_an_empty_map_takes_the_first_sectors() -> None:
    placement = default_deployment(PLANET, {})
    assert placement == {"1": 4, "2": 3, "3": 3}
    assert list(placement) == ["1", "2", "3"]
    assert check_deployment(PLANET, placement) == []


def test_default_deployment_picks_the_least_occupied_sectors() -> None:
    others = {"red": {"1": 4, "2": 3, "3": 3}, "blue": {"2": 1, "4": 8, "5": 1}}
    # enemy armies: 1 -> 4, 2 -> 4, 3 -> 3, 4 -> 8, 5 -> 1
    placement = default_deployment(PLANET, others)
    assert list(placement.items()) == [("1", 4), ("3", 3), ("5", 3)]


def test_default_deployment_ties_go_by_map_order() -> None:
    others = {"red": {"1": 2, "3": 2, "5": 6}}
    # enemy armies: 1 -> 2, 2 -> 0, 3 -> 2, 4 -> 0, 5 -> 6: 2 and 4, then 1 before 3
    assert default_deployment(PLANET, others) == {"1": 4, "2": 3, "4": 3}


def test_default_deployment_is_deterministic() -> None:
    others = {"red": {"4": 3, "2": 3, "1": 4}, "blue": {"5": 2, "3": 3, "1": 5}}
    first = default_deployment(PLANET, others)
    reordered = {"blue": others["blue"], "red": others["red"]}
    for again in (default_deployment(PLANET, others), default_deployment(PLANET, reordered)):
        assert list(again.items()) == list(first.items())
    assert first == {"2": 4, "3": 3, "5": 3}


def test_default_deployment_with_custom_numbers() -> None:
    game = Game.create(builtin_map("planet-5"), Ruleset(start_armies=11, start_sectors=4))
    placement = default_deployment(game, {"red": {"3": 5}})
    assert placement == {"1": 3, "2": 3, "4": 3, "5": 2}
    assert check_deployment(game, placement) == []

    two = Game.create(builtin_map("planet-5"), Ruleset(start_armies=7, start_sectors=2))
    assert default_deployment(two, {"red": {"1": 1, "2": 1}}) == {"3": 4, "4": 3}


def test_deployed_state_starts_turn_1_in_map_order() -> None:
    state = deployed_state(
        PLANET, {"blue": {"5": 2, "3": 5, "1": 3}, "red": {"4": 3, "1": 4, "2": 3}}
    )
    assert state.turn == 1
    assert state.sides() == ("blue", "red")
    assert list(state.armies["blue"].items()) == [("1", 3), ("3", 5), ("5", 2)]
    assert list(state.armies["red"].items()) == [("1", 4), ("2", 3), ("4", 3)]
    assert state.modules == {}


def test_deployed_state_raises_naming_the_side() -> None:
    placements = {"red": {"1": 4, "2": 3, "3": 3}, "blue": {"1": 4, "2": 3}}
    with pytest.raises(DeploymentError, match="blue") as raised:
        deployed_state(PLANET, placements)
    assert raised.value.side == "blue"
    assert [p.rule for p in raised.value.problems] == [
        OrderRule.DEPLOY_WRONG_SECTOR_COUNT,
        OrderRule.DEPLOY_WRONG_TOTAL,
    ]
    assert "deploy_wrong_total" in str(raised.value)
