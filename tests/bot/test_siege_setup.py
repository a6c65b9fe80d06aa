"""The siege settings the wizard writes: switching keeps the settings, tokens get free ids,
typed cards and rewards are checked line by line, a new map drops what no longer fits."""

from __future__ import annotations

from typing import Any

import pytest

from bot.modules.siege import setup as siege_setup
from bot.services import setup_map
from rules import CampaignMap, Sector, builtin_map
from rules.maps import Feature
from storage import Campaign


def _campaign(overrides: dict[str, Any]) -> Campaign:
    return Campaign.model_validate(
        {
            "id": 1,
            "chat_id": -1,
            "title": "T",
            "time_zone": "UTC",
            "map": "planet-5",
            "ruleset_overrides": overrides,
            "status": "setup",
            "phase": "setup",
            "turn": 0,
            "created_by": 1,
            "thread_id": 0,
            "schedule": {},
            "unreported_policy": "draw",
            "created_at": "2026-03-01T00:00:00+00:00",
            "updated_at": "2026-03-01T00:00:00+00:00",
        }
    )


def test_switching_off_and_on_keeps_the_settings() -> None:
    on = siege_setup.switched({"sectors_to_win": 4}, True)
    placed = siege_setup.with_token(_campaign(on), "fortification", "2")
    off = siege_setup.switched(placed, False)
    assert not siege_setup.is_on(off)
    assert siege_setup.gm_tokens(off) == [{"id": "F1", "kind": "fortification", "sector": "2"}]
    assert siege_setup.is_on(siege_setup.switched(off, True))
    assert off["sectors_to_win"] == 4


def test_tokens_take_the_next_free_id_and_leave_with_their_card() -> None:
    overrides = siege_setup.switched({}, True)
    for sector in ("2", "3"):
        overrides = siege_setup.with_token(_campaign(overrides), "occult", sector)
    overrides = siege_setup.with_cards(overrides, "O1: a\nO2 weather: b", "en")
    overrides = siege_setup.without_token(overrides, "O1")
    overrides = siege_setup.with_token(_campaign(overrides), "occult", "4")
    assert [t["id"] for t in siege_setup.gm_tokens(overrides)] == ["O2", "O1"]
    assert set(siege_setup.settings(overrides)["cards"]) == {"O2"}
    assert setup_map.problem(_campaign(overrides), overrides) is None


@pytest.mark.parametrize(
    ("text", "line"),
    [("O1 a", 1), ("O1: fine\nO2 wind: no", 2), ("O1:   ", 1), ("   \n", 0)],
)
def test_a_bad_card_line_is_named(text: str, line: int) -> None:
    with pytest.raises(siege_setup.SiegeInputError) as refused:
        siege_setup.with_cards(siege_setup.switched({}, True), text, "en")
    assert refused.value.line == line


def test_russian_cards_and_rewards_keep_their_language() -> None:
    overrides = siege_setup.with_cards(siege_setup.switched({}, True), "O1 погода: Ветер", "ru")
    overrides = siege_setup.with_rewards(overrides, "3 Пешка", "ru")
    cards = siege_setup.settings(overrides)["cards"]
    assert cards["O1"] == {"text": "Ветер", "texts": {"ru": "Ветер"}, "effect": "weather_step"}
    rewards = siege_setup.settings(overrides)["rewards"]
    assert rewards == [{"id": "r1", "price": 3, "text": "Пешка", "texts": {"ru": "Пешка"}}]
    with pytest.raises(siege_setup.SiegeInputError):
        siege_setup.with_rewards(overrides, "0 Nothing", "en")
    assert "rewards" not in siege_setup.settings(
        siege_setup.with_rewards(overrides, "по умолчанию", "ru")
    )


def test_typed_rewards_list_what_the_gm_chooses_between() -> None:
    overrides = siege_setup.with_rewards(
        siege_setup.switched({}, True), "4 Конь или точка | Конь | Точка способности\n8 Ладья", "ru"
    )
    knight, rook = siege_setup.settings(overrides)["rewards"]
    assert knight["variants"] == [
        {"text": "Конь", "texts": {"ru": "Конь"}},
        {"text": "Точка способности", "texts": {"ru": "Точка способности"}},
    ]
    assert "variants" not in rook
    for bad in ("4 Knight | ", "\n".join(f"{n} Item" for n in range(1, 32))):
        with pytest.raises(siege_setup.SiegeInputError):
            siege_setup.with_rewards(overrides, bad, "en")


def test_a_new_map_drops_tokens_and_sectors_not_on_it() -> None:
    overrides = siege_setup.switched({}, True)
    campaign = _campaign(overrides)
    overrides = siege_setup.with_token(campaign, "fortification", "2")
    overrides = siege_setup.with_token(_campaign(overrides), "occult", "5")
    overrides = siege_setup.with_weather_control(_campaign(overrides), "5")
    overrides = siege_setup.with_weather_control(_campaign(overrides), "1")
    small = CampaignMap(
        id="pair",
        name="Pair",
        sectors=(
            Sector(id="1", name="A", neighbours=("2",), x=0.2, y=0.5),
            Sector(id="2", name="B", neighbours=("1",), x=0.8, y=0.5),
        ),
    )
    fitted = siege_setup.fitted(overrides, small)
    assert [t["id"] for t in siege_setup.gm_tokens(fitted)] == ["F1"]
    assert siege_setup.settings(fitted)["weather_control"] == ["1"]


def _on_map(overrides: dict[str, Any]) -> Campaign:
    """A campaign on planet-5 with the map's own F1 (sector 2) and O1 (sector 5, Red's)."""
    features = builtin_map("planet-5").model_copy(
        update={
            "features": (
                Feature(id="F1", kind="fortification", sector="2"),
                Feature(id="O1", kind="occult", sector="5", strength=8, owner="red"),
            )
        }
    )
    return _campaign(overrides).model_copy(update={"map": features})


def test_a_map_token_changed_stands_in_its_place_until_it_says_what_the_map_says() -> None:
    campaign = _on_map(siege_setup.switched({}, True))
    stronger = siege_setup.with_strength(campaign, "F1", 12)
    assert stronger is not None
    assert siege_setup.gm_tokens(stronger) == [
        {"id": "F1", "kind": "fortification", "sector": "2", "strength": 12}
    ]
    assert (
        siege_setup.placed_tokens(campaign.model_copy(update={"ruleset_overrides": stronger})) == []
    )
    back = siege_setup.with_strength(
        campaign.model_copy(update={"ruleset_overrides": stronger}), "F1", 10
    )
    assert back is not None
    assert siege_setup.gm_tokens(back) == []
    nobody = siege_setup.with_holder(campaign, "O1", None)
    assert nobody is not None
    held = campaign.model_copy(update={"ruleset_overrides": nobody})
    assert [(t.id, t.controller) for t in siege_setup.start_of(held)] == [
        ("F1", None),
        ("O1", None),
    ]
    assert siege_setup.with_holder(campaign, "F1", "red") is None  # only occult tokens are held
    assert siege_setup.with_strength(campaign, "F1", 0) is None
    assert siege_setup.with_strength(campaign, "F9", 5) is None
    # A side removed holds nothing any more.
    blue = siege_setup.with_holder(campaign, "O1", "blue")
    assert blue is not None
    fitted = siege_setup.fitted(blue, builtin_map("planet-5"), ["red"])
    assert all("owner" not in token for token in siege_setup.gm_tokens(fitted))


@pytest.mark.parametrize("language", ["en", "ru"])
def test_weather_states_are_typed_in_the_campaigns_language(language: str) -> None:
    overrides = siege_setup.with_weather_state({}, 2, "Storm:  −1 to shooting", language)
    [state] = [siege_setup.weather_states(overrides)[2]]
    assert state["name"] == "Storm"
    assert state.get("names", {}).get(language, state["name"]) == "Storm"
    assert state.get("texts", {}).get(language, state.get("text")) == "−1 to shooting"
    renamed_only = siege_setup.with_weather_state(overrides, 2, ": −2 to shooting", language)
    assert siege_setup.weather_states(renamed_only)[2]["name"] == "Storm"
    restored = siege_setup.with_weather_state(overrides, 2, "-", language)
    assert "weather_states" not in siege_setup.settings(restored)
    eight = "\n".join(f"{n}. State {n}: effect {n}" for n in range(1, 9))
    states = siege_setup.weather_states(siege_setup.with_weather_states({}, eight, language))
    assert [s["name"] for s in states] == [f"State {n}" for n in range(1, 9)]
    with pytest.raises(siege_setup.SiegeInputError) as seven:
        siege_setup.with_weather_states({}, "\n".join(eight.splitlines()[:7]), language)
    assert seven.value.line == 0
    with pytest.raises(siege_setup.SiegeInputError) as long_name:
        siege_setup.with_weather_state({}, 0, "x" * 65 + ": y", language)
    assert long_name.value.line == 0
