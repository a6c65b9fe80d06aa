"""The ruleset: RULES.md's numbers as parameters, the FOC table, overrides."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from pydantic import ValidationError

from rules import FocLimits, Outcome, Ruleset, overrides_in_force
from tests.rules.strategies import ruleset_overrides

DEFAULT = Ruleset()


def test_defaults_are_the_planetary_campaign() -> None:
    assert (DEFAULT.start_armies, DEFAULT.start_sectors) == (10, 3)
    assert DEFAULT.armies_per_attack == 3
    assert DEFAULT.capture_min_armies == 3
    assert DEFAULT.sectors_to_win == 3
    assert DEFAULT.battle_points == 1000
    assert (DEFAULT.replenishment, DEFAULT.reinforcement) == (1, 1)
    assert DEFAULT.modules == ()
    assert DEFAULT.overrides() == {}


@pytest.mark.parametrize(
    ("armies", "attacks"),
    [(0, 0), (1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (6, 2), (7, 3), (9, 3), (10, 4)],
)
def test_attack_limit_is_ceil_of_a_third(armies: int, attacks: int) -> None:
    assert DEFAULT.attack_limit(armies) == attacks


@pytest.mark.parametrize(
    ("per", "armies", "attacks"),
    [(1, 0, 0), (1, 1, 1), (1, 5, 5), (2, 1, 1), (2, 2, 1), (2, 3, 2), (4, 4, 1), (4, 5, 2)],
)
def test_attack_limit_with_custom_armies_per_attack(per: int, armies: int, attacks: int) -> None:
    assert Ruleset(armies_per_attack=per).attack_limit(armies) == attacks


def test_attack_limit_below_zero_is_zero() -> None:
    assert DEFAULT.attack_limit(-2) == 0


def limits(hq: int, slots: int, total: int | None = None) -> dict[str, Any]:
    shape: dict[str, Any] = {
        "hq": hq,
        "troops": [2, 6],
        "elite": slots,
        "fast_attack": slots,
        "heavy_support": slots,
    }
    if total is not None:
        shape["elite_fa_hs_total"] = total
    return shape


@pytest.mark.parametrize(
    ("armies", "expected"),
    [
        (1, limits(1, 1, total=1)),
        (2, limits(1, 1)),
        (3, limits(1, 2)),
        (4, limits(2, 2)),
        (5, limits(2, 3)),
        (6, limits(2, 3)),
        (12, limits(2, 3)),
        (100, limits(2, 3)),
    ],
)
def test_foc_for_every_row_and_beyond(armies: int, expected: dict[str, Any]) -> None:
    assert DEFAULT.foc_for(armies).as_json() == expected


def test_foc_for_below_one_uses_the_first_row() -> None:
    assert DEFAULT.foc_for(0) == DEFAULT.foc_for(1)


def test_foc_as_json_has_the_cap_only_on_the_one_army_row() -> None:
    with_cap = [n for n in range(1, 8) if "elite_fa_hs_total" in DEFAULT.foc_for(n).as_json()]
    assert with_cap == [1]
    assert DEFAULT.foc_for(1).as_json()["elite_fa_hs_total"] == 1
    for n in range(1, 8):
        assert list(DEFAULT.foc_for(n).as_json())[:5] == [
            "hq",
            "troops",
            "elite",
            "fast_attack",
            "heavy_support",
        ]
    plain = FocLimits(hq=1, troops=(2, 6), elite=0, fast_attack=0, heavy_support=0)
    assert "elite_fa_hs_total" not in plain.as_json()


def test_losses_per_outcome() -> None:
    assert {o: DEFAULT.losses.for_outcome(o) for o in Outcome} == {
        Outcome.DRAW: 0,
        Outcome.BLOODY_DRAW: 1,
        Outcome.SOLID: 1,
        Outcome.CRUSHING: 2,
        Outcome.SLAUGHTER: 3,
    }
    assert [o for o in Outcome if o.has_winner] == [
        Outcome.SOLID,
        Outcome.CRUSHING,
        Outcome.SLAUGHTER,
    ]


def test_overrides_hold_only_what_differs() -> None:
    ruleset = Ruleset.with_overrides({"capture_min_armies": 4, "losses": {"slaughter": 4}})
    assert ruleset.capture_min_armies == 4
    assert ruleset.losses.slaughter == 4
    assert ruleset.losses.crushing == 2
    assert ruleset.overrides() == {"capture_min_armies": 4, "losses": {"slaughter": 4}}
    assert Ruleset.with_overrides({"armies_per_attack": 3}).overrides() == {}


def test_overrides_round_trip_a_custom_foc_table() -> None:
    table = [
        {"armies": 1, "limits": limits(1, 0)},
        {"armies": 3, "limits": limits(2, 4, total=6)},
    ]
    ruleset = Ruleset.with_overrides({"foc_table": table, "modules": ["supply"]})
    assert ruleset.foc_for(2).as_json() == limits(1, 0)
    assert ruleset.foc_for(9).as_json() == limits(2, 4, total=6)
    assert Ruleset.with_overrides(ruleset.overrides()) == ruleset
    assert ruleset.overrides()["modules"] == ["supply"]


@settings(max_examples=75)  # that reach the end; the others are checked up to it
@given(ruleset_overrides())
def test_overrides_round_trip(overrides: dict[str, Any]) -> None:
    ruleset = Ruleset.with_overrides(overrides)
    assert Ruleset.with_overrides(ruleset.overrides()) == ruleset
    # The rest compares each override: a run without any would prove nothing (Hypothesis fails
    # the test when too few examples have one).
    assume(ruleset.overrides())
    for key, value in ruleset.overrides().items():
        if key != "losses":
            assert overrides[key] == value


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({"start_armies": 2, "start_sectors": 3}, id="armies<sectors"),
        pytest.param({"foc_table": []}, id="empty-foc"),
        pytest.param({"foc_table": [{"armies": 2, "limits": limits(1, 1)}]}, id="foc-not-from-1"),
        pytest.param(
            {
                "foc_table": [
                    {"armies": 1, "limits": limits(1, 1)},
                    {"armies": 4, "limits": limits(2, 2)},
                    {"armies": 3, "limits": limits(2, 2)},
                ]
            },
            id="foc-unsorted",
        ),
        pytest.param(
            {
                "foc_table": [
                    {"armies": 1, "limits": limits(1, 1)},
                    {"armies": 1, "limits": limits(2, 2)},
                ]
            },
            id="foc-repeated-row",
        ),
        pytest.param({"armies_per_attack": 0}, id="armies_per_attack=0"),
        pytest.param({"capture_min_armies": 0}, id="capture_min_armies=0"),
        pytest.param({"losses": {"solid": -1}}, id="negative-loss"),
        pytest.param({"victory_points": 5}, id="unknown-key"),
        pytest.param({"losses": {"rout": 4}}, id="unknown-outcome"),
    ],
)
def test_invalid_rulesets_are_refused(overrides: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Ruleset.with_overrides(overrides)


def test_ruleset_is_immutable() -> None:
    with pytest.raises(ValidationError):
        DEFAULT.armies_per_attack = 2  # type: ignore[misc]


def test_the_settings_of_a_module_not_enabled_are_not_in_force() -> None:
    """A setup tool keeps a switched-off module's settings for switching it back on; the game
    is built without them (the ruleset itself still refuses them, to catch a stray name)."""
    parked = {
        "sectors_to_win": 4,
        "modules": ["siege"],
        "module_settings": {"siege": {"tokens": []}, "watch": {"hand_size": 2}},
    }
    with pytest.raises(ValidationError, match="watch not enabled"):
        Ruleset.with_overrides(parked)
    assert overrides_in_force(parked) == {
        "sectors_to_win": 4,
        "modules": ["siege"],
        "module_settings": {"siege": {"tokens": []}},
    }
    assert overrides_in_force({"module_settings": {"watch": {}}}) == {}
    assert overrides_in_force({"sectors_to_win": 4}) == {"sectors_to_win": 4}
    assert Ruleset.with_overrides(overrides_in_force(parked)).sectors_to_win == 4
