"""Map data for rule modules: sector tags, ``[[features]]``, ``distance()`` (MODULES.md A2.12)."""

import pytest

from rules import MapError, MapProblemCode, builtin_map, parse_map_toml

CHAIN = """
id = "chain"
name = "Chain"

[[sectors]]
id = "a"
name = "A"
neighbours = ["b"]
x = 0.1
y = 0.5
tags = ["weather_control"]

[[sectors]]
id = "b"
name = "B"
neighbours = ["a", "c"]
x = 0.4
y = 0.5
tags = ["hub", "weather_control"]

[[sectors]]
id = "c"
name = "C"
neighbours = ["b", "d"]
x = 0.7
y = 0.5

[[sectors]]
id = "d"
name = "D"
neighbours = ["c"]
x = 0.9
y = 0.5
"""

FEATURES = """
[[features]]
id = "F1"
kind = "fortification"
sector = "c"
strength = 12

[[features]]
id = "O1"
kind = "occult"
sector = "d"
name = "Dark Market"
names = { ru = "Чёрный рынок" }
strength = 8
owner = "red"
text = "Draw a rumour."

[[features]]
id = "D1"
kind = "defences"
sector = "a"
owner = "blue"
level = 2
"""


def test_tags_and_features_are_read() -> None:
    chain = parse_map_toml(CHAIN + FEATURES)
    assert chain.tagged("weather_control") == ("a", "b")
    assert chain.tagged("hub") == ("b",)
    assert chain.by_id["c"].tags == ()
    assert [f.id for f in chain.features] == ["F1", "O1", "D1"]
    assert [f.id for f in chain.features_of("occult", "fortification")] == ["F1", "O1"]
    market = chain.features[1]
    assert (market.strength, market.owner, market.text) == (8, "red", "Draw a rumour.")
    assert market.display_name("ru") == "Чёрный рынок"
    assert market.display_name() == "Dark Market"
    assert chain.features[0].display_name("ru") == "F1"
    assert chain.features[2].level == 2


def test_a_map_without_features_has_none() -> None:
    assert builtin_map("planet-5").features == ()
    assert all(sector.tags == () for sector in builtin_map("planet-5").sectors)


def test_distance_counts_neighbour_steps() -> None:
    chain = parse_map_toml(CHAIN)
    assert chain.distance("a", "a") == 0
    assert chain.distance("a", "b") == 1
    assert chain.distance("a", "d") == 3
    assert chain.distance("d", "a") == 3
    planet = builtin_map("planet-5")
    assert planet.distance("4", "5") == 2
    assert planet.distance("2", "3") == 1
    with pytest.raises(KeyError):
        chain.distance("a", "z")


def test_features_are_checked() -> None:
    broken = FEATURES.replace('sector = "d"', 'sector = "nowhere"').replace('"D1"', '"F1"')
    with pytest.raises(MapError) as refused:
        parse_map_toml(CHAIN + broken)
    found = {(p.code, p.sector, p.other) for p in refused.value.problems}
    assert found == {
        (MapProblemCode.FEATURE_UNKNOWN_SECTOR, "nowhere", "O1"),
        (MapProblemCode.DUPLICATE_FEATURE_ID, None, "F1"),
    }
    assert "feature id F1 is used twice" in str(refused.value)
    assert "feature O1 stands in sector nowhere" in str(refused.value)


def test_a_feature_id_has_no_spaces() -> None:
    with pytest.raises(MapError) as refused:
        parse_map_toml(CHAIN + FEATURES.replace('id = "F1"', 'id = "F 1"'))
    assert refused.value.problems[0].code is MapProblemCode.SCHEMA
