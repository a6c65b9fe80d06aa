"""Module ``watch`` (MODULES.md W): settings, state helpers, the deal, orders, the GM's changes.

Worked examples A and B are case files (``cases/modules/watch/``); these tests cover what the
bot calls directly."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from rules import (
    CampaignState,
    Game,
    MapError,
    ModuleStateError,
    Ruleset,
    SeedMissingError,
    SideOrders,
    TurnSeeds,
    builtin_map,
    deployed_state,
    enter_order,
    legal_late_orders,
    legal_orders,
    plan_battles,
    resolve_turn,
    start_turn,
)
from rules.modules import BUILTIN_MODULES
from rules.modules.watch import (
    HeroSpec,
    WatchAdjustCode,
    WatchAdjustmentError,
    WatchChange,
    WatchSettings,
    add_hero,
    adjust_card,
    apply_change,
    duel_at,
    duel_step,
    duels_of,
    earliest_entry,
    hero_move,
    hero_side_problems,
    initiative_order,
    load,
    move_npc,
    npc_destinations,
    parse_card,
    public_view,
    step_options,
    without_hero_move,
)
from rules.modules.watch.settings import MAX_HEROES

NIGHT = builtin_map("night-demo")
DEAL = "c0ffee00c0ffee00c0ffee00c0ffee00"
SEEDS = TurnSeeds(roll="9f2c4e7a1b3d5f6081a2c3e4f5061728", deal=DEAL)
HEROES: list[dict[str, Any]] = [
    {"id": "larisa", "side": "day", "name": "Лариса", "initiative": 2, "start": "hairdresser"},
    {"id": "andrey", "side": "night", "name": "Андрей", "initiative": 4, "start": "cafe"},
    {"id": "anton", "side": "night", "name": "Антон", "initiative": 7, "start": "metro"},
    {"id": "zavulon", "side": "day", "name": "Завулон", "initiative": 9, "start": "entrance"},
]
ARMIES = {"day": {"roof": 2}, "night": {"cafe": 2}}


def watch_game(**settings: Any) -> Game:
    merged = {"heroes": HEROES, "npc": {"start": "apartment"}, **settings}
    ruleset = Ruleset.with_overrides(
        {
            "modules": ["watch"],
            "module_settings": {"watch": merged},
            "start_armies": 2,
            "start_sectors": 1,
        }
    )
    return Game.create(NIGHT, ruleset, BUILTIN_MODULES)


def example_a() -> tuple[Game, CampaignState]:
    """Example A after its deal (turn 1, hands as W8 prints them)."""
    game = watch_game()
    return game, start_turn(game, deployed_state(game, ARMIES), SEEDS).state


# Settings and map


def test_night_demo_is_the_hub_map_of_w2() -> None:
    assert NIGHT.tagged("hub") == ("metro",)
    assert NIGHT.by_id["metro"].names["ru"] == "Метро"
    assert set(NIGHT.adjacency["metro"]) == {"hairdresser", "cafe", "entrance"}
    assert set(NIGHT.adjacency["apartment"]) == {"entrance"}
    assert set(NIGHT.adjacency["roof"]) == {"entrance"}
    # The seed: Egor goes from the hairdresser to his apartment in three moves.
    assert NIGHT.distance("hairdresser", "apartment") == 3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"heroes": [HEROES[0], HEROES[0]]}, "hero id larisa is used twice"),
        ({"spell_deck": ["A1", "X2"]}, "not a spell card: 'X2'"),
        ({"hand_size": 7}, "hand_size"),
        ({"duel_step_hours": 0}, "duel_step_hours"),
        ({"heroes": [{**HEROES[0], "id": "Лариса"}]}, "a hero id is 1-32"),
        ({"heroes": [{**HEROES[0], "initiative": 100}]}, "initiative"),
        ({"duel_mode": "blind"}, "duel_mode"),
    ],
)
def test_bad_settings_are_refused(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        WatchSettings.model_validate(change)


def test_a_hero_or_the_npc_off_the_map_is_refused() -> None:
    with pytest.raises(MapError, match="hero larisa starts in moon"):
        watch_game(heroes=[{**HEROES[0], "start": "moon"}])
    with pytest.raises(MapError, match="the NPC starts in moon"):
        watch_game(npc={"start": "moon"})


def test_heroes_of_sides_not_in_the_campaign_are_named() -> None:
    settings = WatchSettings.model_validate({"heroes": HEROES})
    assert hero_side_problems(settings, ["day", "night"]) == []
    assert hero_side_problems(settings, ["day"]) == [
        "hero andrey is listed for side night, which is not in the campaign",
        "hero anton is listed for side night, which is not in the campaign",
    ]


# State helpers


def test_deployment_copies_the_heroes_and_the_npc() -> None:
    game = watch_game()
    watch = load(deployed_state(game, ARMIES).modules["watch"])
    assert [(h.id, h.sector, h.wounds, h.hand, h.alive) for h in watch.heroes] == [
        ("larisa", "hairdresser", 0, (), True),
        ("andrey", "cafe", 0, (), True),
        ("anton", "metro", 0, (), True),
        ("zavulon", "entrance", 0, (), True),
    ]
    assert watch.npc is not None
    assert (watch.npc.name, watch.npc.sector, watch.begun) == ("Егор", "apartment", 0)


def test_public_view_shows_only_the_own_sides_hands() -> None:
    _, state = example_a()
    data = state.modules["watch"]
    kept = copy.deepcopy(data)
    day = public_view(data, "day")
    assert isinstance(day, dict)
    assert isinstance(day["heroes"], list)
    hands = {h["id"]: h.get("hand") for h in day["heroes"] if isinstance(h, dict)}
    assert hands == {
        "larisa": ["D1", "A4", "A2"],
        "andrey": None,
        "anton": None,
        "zavulon": ["D3", "A3", "D4"],
    }
    nobody = public_view(data, None)
    assert isinstance(nobody, dict)
    assert isinstance(nobody["heroes"], list)
    assert all("hand" not in hero for hero in nobody["heroes"] if isinstance(hero, dict))
    assert data == kept


def test_cards_and_initiative_order() -> None:
    assert (parse_card("A3").kind, parse_card("A3").power) == ("A", 3)
    assert str(parse_card("D12")) == "D12"
    for bad in ("B3", "A", "a3", "A-1", "A03"):
        with pytest.raises(ValueError, match="not a spell card"):
            parse_card(bad)
    specs = [HeroSpec.model_validate({**h, "initiative": 5}) for h in HEROES]
    assert [h.id for h in initiative_order(specs)] == ["andrey", "anton", "larisa", "zavulon"]


@pytest.mark.parametrize(
    ("data", "message"),
    [(None, "no module state"), ({"heroes": []}, 'no version "v"'), ({"v": 2}, "is newer")],
)
def test_a_broken_state_is_refused(data: Any, message: str) -> None:
    with pytest.raises(ModuleStateError, match=message):
        load(data)


# The deal


def test_a_turn_begins_once_and_needs_the_deal_seed_only_to_deal() -> None:
    game, state = example_a()
    again = start_turn(game, state, TurnSeeds())
    assert again.state == state
    assert again.rolls == ()
    with pytest.raises(SeedMissingError, match="t1/watch/deal"):
        start_turn(game, deployed_state(game, ARMIES), TurnSeeds(roll="r"))
    full = watch_game(hand_size=0)
    started = start_turn(full, deployed_state(full, ARMIES), TurnSeeds())
    assert started.rolls == ()
    assert load(started.state.modules["watch"]).begun == 1


def test_deal_rolls_are_drawn_from_the_deal_seed() -> None:
    game = watch_game()
    started = start_turn(game, deployed_state(game, ARMIES), SEEDS)
    assert len(started.rolls) == 11
    assert {roll.seed for roll in started.rolls} == {"deal"}
    assert all(roll.verify(DEAL) for roll in started.rolls)


# Orders


def test_legal_moves_are_the_locations_next_to_each_own_living_hero() -> None:
    game, state = example_a()
    day = legal_orders(game, state, "day", SideOrders()).modules["watch"]
    assert [(o.data["hero"], o.data["to"]) for o in day] == [
        ("larisa", "metro"),
        ("zavulon", "metro"),
        ("zavulon", "apartment"),
        ("zavulon", "roof"),
    ]


def test_the_last_move_of_a_hero_counts() -> None:
    game, state = example_a()
    orders = SideOrders()
    for to in ("apartment", "roof"):
        orders, rejection = enter_order(
            game, state, "day", without_hero_move(orders, "zavulon"), hero_move("zavulon", to)
        )
        assert rejection is None
    assert len(orders.extra) == 1
    plan = plan_battles(game, state, {"day": orders}, SEEDS)
    watch = plan.modules["watch"]
    assert isinstance(watch, dict)
    assert watch["moves"] == [{"hero": "zavulon", "from": "entrance", "to": "roof"}]


def test_step_options_and_late_options_of_example_a() -> None:
    game, state = example_a()
    orders = {
        "day": SideOrders(extra=(hero_move("larisa", "metro"),)),
        "night": SideOrders(extra=(hero_move("andrey", "metro"),)),
    }
    plan = plan_battles(game, state, orders, SEEDS)
    assert [(d.sector, d.steps) for d in duels_of(plan.modules)] == [
        ("metro", ("larisa", "andrey", "anton"))
    ]
    assert duel_at(plan.modules["watch"], "zavulon") is None
    options = step_options(game, state, plan, "day", "larisa")
    assert options is not None
    assert (options.hand, options.targets) == (("D1", "A4", "A2"), ("larisa", "andrey", "anton"))
    assert step_options(game, state, plan, "night", "larisa") is None
    assert step_options(game, state, plan, "day", "zavulon") is None
    late = legal_late_orders(game, state, plan, "day")["watch"]
    assert late[0] == duel_step("larisa")
    assert len(late) == 1 + 3 * 3
    taken = step_options(game, state, plan, "day", "larisa", (duel_step("larisa"),))
    assert taken is None


# The GM's changes


def test_the_gm_moves_egor_one_location_a_turn() -> None:
    game, state = example_a()
    moved = move_npc(game, state, "entrance")
    npc = load(moved.modules["watch"]).npc
    assert npc is not None
    assert npc.sector == "entrance"
    with pytest.raises(WatchAdjustmentError) as refused:
        move_npc(game, moved, "cafe")
    assert refused.value.code is WatchAdjustCode.NPC_MOVE_NOT_ADJACENT
    assert refused.value.params == {"sector": "entrance", "to": "cafe"}
    with pytest.raises(WatchAdjustmentError) as unknown:
        move_npc(game, state, "moon")
    assert unknown.value.code is WatchAdjustCode.UNKNOWN_SECTOR
    plain = watch_game(npc=None)
    with pytest.raises(WatchAdjustmentError) as none:
        move_npc(plain, deployed_state(plain, ARMIES), "metro")
    assert none.value.code is WatchAdjustCode.NO_NPC


def test_a_second_npc_move_of_a_turn_is_measured_from_the_turns_start() -> None:
    game, state = example_a()
    moved = move_npc(game, state, "entrance")
    assert npc_destinations(game, moved, "apartment") == ["apartment"]
    with pytest.raises(WatchAdjustmentError) as refused:
        move_npc(game, moved, "metro", "apartment")
    assert refused.value.code is WatchAdjustCode.NPC_MOVE_NOT_ADJACENT
    assert refused.value.params == {"sector": "apartment", "to": "metro"}
    back = apply_change(game, moved, WatchChange(change="npc", to="apartment", origin="apartment"))
    assert back == state
    with pytest.raises(WatchAdjustmentError):
        apply_change(game, moved, WatchChange(change="npc", to="roof", origin="apartment"))


def test_no_hero_is_added_past_the_most_a_campaign_lists() -> None:
    game, state = example_a()
    spec = {"side": "night", "initiative": 5, "start": "cafe", "enters_turn": 2}
    for n in range(len(HEROES), MAX_HEROES):
        added = HeroSpec.model_validate({**spec, "id": f"x{n}", "name": f"Иной {n}"})
        state = add_hero(game, state, added)
    assert len(load(state.modules["watch"]).heroes) == MAX_HEROES
    one_more = HeroSpec.model_validate({**spec, "id": "late", "name": "Поздний"})
    with pytest.raises(WatchAdjustmentError) as refused:
        add_hero(game, state, one_more)
    assert refused.value.code is WatchAdjustCode.TOO_MANY_HEROES
    assert refused.value.params == {"max": MAX_HEROES}


def test_a_hero_added_mid_campaign_enters_at_the_next_deal() -> None:
    game, state = example_a()
    assert earliest_entry(state) == 2
    spec = {"id": "svetlana", "side": "night", "name": "Светлана", "initiative": 5}
    early = HeroSpec.model_validate({**spec, "start": "cafe", "enters_turn": 1})
    with pytest.raises(WatchAdjustmentError) as refused:
        add_hero(game, state, early)
    assert refused.value.params == {"enters_turn": 1, "earliest": 2}
    for bad, code in (
        ({**spec, "id": "anton"}, WatchAdjustCode.HERO_ID_TAKEN),
        ({**spec, "side": "grey"}, WatchAdjustCode.SIDE_NOT_IN_PLAY),
        ({**spec, "start": "moon"}, WatchAdjustCode.UNKNOWN_SECTOR),
    ):
        with pytest.raises(WatchAdjustmentError) as problem:
            add_hero(
                game, state, HeroSpec.model_validate({"start": "cafe", **bad, "enters_turn": 2})
            )
        assert problem.value.code is code
    added = add_hero(
        game, state, HeroSpec.model_validate({**spec, "start": "cafe", "enters_turn": 2})
    )
    options = legal_orders(game, added, "night", SideOrders()).modules["watch"]
    assert "svetlana" not in {o.data["hero"] for o in options}
    after = resolve_turn(game, added, {}, (), SEEDS).state
    dealt = start_turn(game, after, TurnSeeds(roll="r2", deal="d2")).state
    svetlana = load(dealt.modules["watch"]).hero("svetlana")
    assert svetlana is not None
    assert (svetlana.sector, len(svetlana.hand)) == ("cafe", 3)


def test_the_gms_minus_one_token_lowers_a_laid_card_until_resolution() -> None:
    game, state = example_a()
    orders = {
        "day": SideOrders(extra=(hero_move("larisa", "metro"),)),
        "night": SideOrders(extra=(hero_move("andrey", "metro"),)),
    }
    late = {
        "day": (duel_step("larisa", [("A4", "andrey")]),),
        "night": (duel_step("andrey", [("D2", "andrey"), ("A1", "larisa")]),),
    }
    plain = resolve_turn(game, state, orders, (), SEEDS, late)
    assert plain.report.modules["watch"]["wounds"] == {"larisa": 1, "andrey": 2}  # type: ignore[index,call-overload]
    lowered = adjust_card(game, state, late, "andrey", 0, 1)
    lowered = adjust_card(game, lowered, late, "larisa", 0, 5)
    lowered = adjust_card(game, lowered, late, "larisa", 0, 0)
    assert [(m.hero, m.play, m.lowered_by) for m in load(lowered.modules["watch"]).modifiers] == [
        ("andrey", 0, 1)
    ]
    resolved = resolve_turn(game, lowered, orders, (), SEEDS, late)
    assert resolved.report.modules["watch"]["wounds"] == {"larisa": 1, "andrey": 3}  # type: ignore[index,call-overload]
    assert load(resolved.state.modules["watch"]).modifiers == ()
    for hero, play, amount, code in (
        ("egor", 0, 1, WatchAdjustCode.UNKNOWN_HERO),
        ("andrey", 2, 1, WatchAdjustCode.NO_SUCH_PLAY),
        ("anton", 0, 1, WatchAdjustCode.NO_SUCH_PLAY),
        ("andrey", 0, 100, WatchAdjustCode.LOWERED_OUT_OF_RANGE),
    ):
        with pytest.raises(WatchAdjustmentError) as refused:
            adjust_card(game, state, late, hero, play, amount)
        assert refused.value.code is code
