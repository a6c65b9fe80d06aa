"""Deployment, turn 0 (RULES.md 3.1): placement checks, the documented default, the first state."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import (
    CampaignState,
    DeploymentError,
    Game,
    OrderRule,
    Ruleset,
    SideOrders,
    builtin_map,
    captures_at_once,
    check_deployment,
    default_deployment,
    deployed_state,
    resolve_turn,
)
from tests.rules.strategies import maps, valid_order_sets

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


# ---- the most a side can capture at the first resolution -----------------------------------

NIGHT = builtin_map("night-demo")


def test_on_the_night_map_both_sides_capture_three_sectors_at_once() -> None:
    """Issue 30: two sides deploying over three locations each of night-demo's six hold every
    location with 3+ armies and no opponent, so both capture three sectors at the first
    resolution; only equal army totals keep the core's victory from ending the campaign
    before any duel matters. :func:`captures_at_once` says so before anyone deploys."""
    game = Game.create(NIGHT)
    assert captures_at_once(game.ruleset, NIGHT) == 3 == game.ruleset.sectors_to_win
    state = deployed_state(
        game,
        {
            "light": {"metro": 3, "hairdresser": 3, "cafe": 4},
            "dark": {"entrance": 3, "apartment": 3, "roof": 4},
        },
    )
    tied = resolve_turn(game, state, {})
    assert {side: len(held) for side, held in tied.report.captured.items()} == {
        "light": 3,
        "dark": 3,
    }
    assert tied.report.winner is None  # equal armies: the tie-break, nothing else
    uneven = deployed_state(
        game,
        {
            "light": {"metro": 3, "hairdresser": 3, "cafe": 4},
            "dark": {"entrance": 1, "apartment": 1, "roof": 8},
        },
    )
    ended = resolve_turn(game, uneven, {})
    assert (ended.report.winner, ended.report.victory) == ("light", "sectors")


@pytest.mark.parametrize(
    ("campaign_map", "overrides", "most"),
    [
        ("planet-5", {}, 2),  # the opponents' three sectors leave two: the rules' own map is safe
        ("night-demo", {}, 3),
        ("night-demo", {"capture_min_armies": 4}, 2),  # 4 + 4 + 1 of 10
        ("night-demo", {"start_sectors": 2}, 3),  # 4 free sectors; a move reaches the third
        ("night-demo", {"start_armies": 12, "start_sectors": 2}, 4),  # 3 x 4 with two moves
        ("night-demo", {"start_sectors": 6}, 0),  # the opponents stand everywhere
    ],
)
def test_the_most_a_side_captures_at_once(
    campaign_map: str, overrides: dict[str, int], most: int
) -> None:
    assert captures_at_once(Ruleset.with_overrides(overrides), builtin_map(campaign_map)) == most


@st.composite
def _placements(draw: st.DrawFn, game: Game) -> dict[str, int]:
    """A valid deployment: ``start_sectors`` distinct sectors, at least one army in each."""
    rules = game.ruleset
    sectors = draw(
        st.lists(
            st.sampled_from(game.map.sector_ids()),
            min_size=rules.start_sectors,
            max_size=rules.start_sectors,
            unique=True,
        )
    )
    cuts = sorted(
        draw(
            st.lists(
                st.integers(min_value=1, max_value=rules.start_armies - 1),
                min_size=len(sectors) - 1,
                max_size=len(sectors) - 1,
                unique=True,
            )
        )
    )
    bounds = [0, *cuts, rules.start_armies]
    return {sector: bounds[i + 1] - bounds[i] for i, sector in enumerate(sectors)}


@st.composite
def _first_turns(draw: st.DrawFn) -> tuple[Game, CampaignState, dict[str, SideOrders]]:
    campaign_map = draw(maps)
    count = len(campaign_map.sectors)
    start_sectors = draw(st.integers(min_value=1, max_value=min(count, 3)))
    ruleset = Ruleset.with_overrides(
        {
            "start_sectors": start_sectors,
            "start_armies": draw(st.integers(min_value=max(start_sectors, 2), max_value=14)),
            "capture_min_armies": draw(st.integers(min_value=1, max_value=5)),
        }
    )
    game = Game.create(campaign_map, ruleset)
    sides = draw(st.integers(min_value=2, max_value=3))
    state = deployed_state(game, {f"s{n}": draw(_placements(game)) for n in range(sides)})
    return game, state, draw(valid_order_sets(game, state))


@settings(max_examples=200, deadline=None)
@given(first=_first_turns())
def test_no_side_captures_more_at_the_first_resolution_without_a_battle_won(
    first: tuple[Game, CampaignState, dict[str, SideOrders]],
) -> None:
    """Any deployments and any valid first orders, every battle unreported (a draw without
    losses): no side holds more captured sectors than :func:`captures_at_once`, so a goal
    above it cannot end the campaign at the first resolution."""
    game, state, orders = first
    report = resolve_turn(game, state, orders).report
    most = captures_at_once(game.ruleset, game.map)
    assert all(len(held) <= most for held in report.captured.values()), (report.captured, most)
