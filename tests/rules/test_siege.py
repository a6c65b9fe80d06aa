"""Module ``siege`` (MODULES.md S1-S8), clause by clause; S9 and S10 are case files in
``cases/modules/siege/``."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import JsonValue, ValidationError

from rules import (
    Attack,
    BattleResult,
    CampaignState,
    DeploymentChoice,
    DeploymentChoiceError,
    Feature,
    Game,
    MapError,
    ModuleOrder,
    ModuleStateError,
    Move,
    OrderRule,
    Outcome,
    Rejection,
    Ruleset,
    SideOrders,
    TurnSeeds,
    accept_late_orders,
    builtin_map,
    deployed_state,
    enter_order,
    legal_late_orders,
    legal_orders,
    plan_battles,
    resolve_turn,
    validate_order,
)
from rules.modules import BUILTIN_MODULES
from rules.modules.siege import (
    CHOSEN_WITHOUT_VARIANTS,
    DEFAULT_REWARDS,
    Adjustment,
    AdjustmentError,
    AdjustmentProblemCode,
    ArmyChange,
    CardOutcome,
    ClaimProblemCode,
    SiegeReport,
    SiegeRule,
    SiegeSettings,
    VpChange,
    apply_adjustment,
    assault,
    check_claim,
    choices_to_make,
    describe_rule,
    guard,
    load,
    play_card,
    steer,
    valid_choice,
)

K = "9f2c4e7a1b3d5f6081a2c3e4f5061728"
SEEDS = TurnSeeds(roll=K)
PLANET = builtin_map("planet-5")


def siege_game(campaign_map: Any = PLANET, **settings: Any) -> Game:
    ruleset = Ruleset(modules=("siege",), module_settings={"siege": settings} if settings else {})
    return Game.create(campaign_map, ruleset, BUILTIN_MODULES)


def siege_state(
    armies: dict[str, dict[str, int]],
    tokens: list[dict[str, Any]],
    weather: int | None = 0,
    vp: dict[str, int] | None = None,
    turn: int = 2,
) -> CampaignState:
    return CampaignState(
        turn=turn,
        armies=armies,
        modules={"siege": {"v": 1, "weather": weather, "tokens": tokens, "vp": vp or {}}},
    )


TOKENS = [
    {"id": "F1", "kind": "fortification", "sector": "2", "strength": 10},
    {"id": "F3", "kind": "fortification", "sector": "3", "strength": 10},
    {"id": "O1", "kind": "occult", "sector": "5", "strength": 8, "controller": "blue"},
    {"id": "O4", "kind": "occult", "sector": "4", "strength": 6},
]
ARMIES = {"red": {"1": 3, "2": 4, "3": 2}, "blue": {"3": 3, "4": 2, "5": 4}}
STATE = siege_state(ARMIES, TOKENS)


def refusal(rejection: Rejection | None) -> tuple[str, dict[str, str | int]]:
    assert rejection is not None
    assert rejection.rule is OrderRule.MODULE_RULE
    params = dict(rejection.params)
    assert params.pop("module") == "siege"
    return str(params.pop("rule")), params


# ---- settings and map ---------------------------------------------------------------------------


def test_default_settings() -> None:
    settings = SiegeSettings()
    assert (settings.strength_per_army, settings.die, settings.assault_loss) == (2, 6, 1)
    assert (settings.guard_range, settings.weather_steps_per_turn) == (2, 3)
    assert settings.weather_control is None
    assert [state.name for state in settings.weather_states][:3] == ["North", "North-East", "East"]
    assert settings.weather_states[4].names == {"ru": "Юг"}
    assert [(item.id, item.price) for item in settings.rewards][:2] == [
        ("club", 1),
        ("simple_cheque", 2),
    ]
    assert [item.price for item in DEFAULT_REWARDS] == list(range(1, 11))
    assert all(item.texts["ru"] for item in DEFAULT_REWARDS)
    assert settings.has_role("anyone", "stormer")
    assert settings.has_role("anyone", "defender")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"weather_states": [{"name": "Calm"}]}, "exactly 8"),
        ({"rewards": [DEFAULT_REWARDS[0].model_dump()] * 2}, "used twice"),
        ({"roles": {"red": []}}, "roles.red"),
        ({"roles": {"red": ["stormer", "stormer"]}}, "roles.red"),
        ({"die": 1}, "die"),
        ({"tokens": [{"id": "F 1", "kind": "fortification", "sector": "1"}]}, "spaces"),
    ],
)
def test_bad_settings_are_refused(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        SiegeSettings.model_validate(settings)


def test_the_map_and_settings_are_checked_together() -> None:
    with_features = PLANET.model_copy(
        update={
            "features": (
                Feature(id="F1", kind="fortification", sector="2", strength=0),
                Feature(id="D1", kind="defences", sector="3"),
            )
        }
    )
    with pytest.raises(MapError) as refused:
        siege_game(
            with_features,
            weather_control=["9"],
            tokens=[
                {"id": "D1", "kind": "fortification", "sector": "1"},
                {"id": "O9", "kind": "occult", "sector": "nowhere"},
                {"id": "O9", "kind": "occult", "sector": "4"},
            ],
        )
    details = [problem.detail for problem in refused.value.problems]
    assert details == [
        "siege: weather_control names sector 9, which is not on the map",
        "siege: token id D1 is used twice",
        "siege: token O9 stands in sector nowhere, not on the map",
        "siege: token id O9 is used twice",
        "siege: token F1 needs a strength of at least 1",
    ]
    # The GM's token F1 stands in the map's F1's place: its strength is the GM's.
    mended = siege_game(
        with_features, tokens=[{"id": "F1", "kind": "fortification", "sector": "2", "strength": 12}]
    )
    assert [
        (t.id, t.strength) for t in load(deployed_state(mended, PLACEMENTS).modules["siege"]).tokens
    ] == [("F1", 12)]


def test_weather_control_defaults_to_the_maps_tagged_sectors() -> None:
    tagged = PLANET.model_copy(
        update={
            "sectors": tuple(
                s.model_copy(update={"tags": ("weather_control",)}) if s.id == "1" else s
                for s in PLANET.sectors
            )
        }
    )
    state = siege_state({"red": {"1": 2, "2": 2}}, [])
    assert validate_order(siege_game(tagged), state, "red", steer("1")) is None
    untagged = validate_order(siege_game(), state, "red", steer("1"))
    assert refusal(untagged) == ("not_weather_control", {"sector": "1"})
    assert validate_order(siege_game(weather_control=["2"]), state, "red", steer("2")) is None


# ---- deployment ---------------------------------------------------------------------------------

PLACEMENTS = {"red": {"1": 4, "2": 3, "4": 3}, "blue": {"1": 3, "3": 5, "5": 2}}


def test_tokens_come_from_the_map_then_the_gms_placement() -> None:
    with_features = PLANET.model_copy(
        update={
            "features": (
                Feature(id="F1", kind="fortification", sector="2"),
                Feature(id="O1", kind="occult", sector="5", name="Dark Market", strength=8),
                Feature(id="O2", kind="occult", sector="3", strength=8, owner="blue"),
                Feature(id="D1", kind="defences", sector="3", level=1),
            )
        }
    )
    game = siege_game(with_features, tokens=[{"id": "F9", "kind": "fortification", "sector": "4"}])
    state = deployed_state(game, PLACEMENTS)
    siege = load(state.modules["siege"])
    assert [(t.id, t.kind, t.sector, t.strength, t.controller) for t in siege.tokens] == [
        ("F1", "fortification", "2", 10, None),
        ("O1", "occult", "5", 8, None),
        ("O2", "occult", "3", 8, "blue"),
        ("F9", "fortification", "4", 10, None),
    ]
    assert siege.tokens[1].display_name("ru") == "Dark Market"
    # A GM's token with a map token's id replaces it where it stands (the wizard's strength and
    # starting holder), and its card is ready at turn 1.
    replaced = siege_game(
        with_features,
        tokens=[
            {"id": "F9", "kind": "fortification", "sector": "4"},
            {
                "id": "O1",
                "kind": "occult",
                "sector": "5",
                "name": "Dark Market",
                "strength": 6,
                "owner": "red",
            },
        ],
    )
    siege = load(deployed_state(replaced, PLACEMENTS).modules["siege"])
    assert [(t.id, t.strength, t.controller, t.ready) for t in siege.tokens] == [
        ("F1", 10, None, True),
        ("O1", 6, "red", True),
        ("O2", 8, "blue", True),
        ("F9", 10, None, True),
    ]
    assert (siege.weather, siege.vp) == (None, {})


def test_the_last_side_picks_the_starting_weather() -> None:
    game = siege_game()
    pending = deployed_state(game, PLACEMENTS)
    assert game.pending_choices(pending) == (
        DeploymentChoice(module="siege", key="weather", side="blue", options=tuple(range(8))),
    )
    chosen = deployed_state(game, PLACEMENTS, {"siege": {"weather": 5}})
    assert load(chosen.modules["siege"]).weather == 5
    assert game.pending_choices(chosen) == ()
    bad_choices: list[JsonValue] = [
        {"weather": 8},
        {"weather": True},
        {"weather": "5"},
        5,
        {"wind": 1},
    ]
    for bad in bad_choices:
        with pytest.raises(DeploymentChoiceError):
            deployed_state(game, PLACEMENTS, {"siege": bad})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (None, "no module state"),
        ({"weather": 1}, 'no version "v"'),
        ({"v": 2, "weather": 1, "tokens": []}, "newer"),
        ({"v": 1, "weather": 9, "tokens": []}, "weather"),
        ({"v": 1, "weather": 1, "tokens": [TOKENS[0], TOKENS[0]]}, "used twice"),
        ({"v": 1, "weather": 1, "tokens": [], "vp": {"red": -1}}, "negative"),
    ],
)
def test_bad_module_states_are_refused(data: Any, message: str) -> None:
    with pytest.raises(ModuleStateError, match=message):
        load(data)


# ---- orders (S3) --------------------------------------------------------------------------------


def test_orders_carry_their_sector() -> None:
    assert (assault("2", "F1").sector, assault("2", "F1").claims_sector) == ("2", True)
    assert (steer("1").sector, steer("1").claims_sector) == ("1", True)
    assert (guard("F1", "3").sector, guard("F1", "3").claims_sector) == ("3", False)
    assert (play_card("O1", "before").sector, play_card("O1", "after").claims_sector) == (
        None,
        False,
    )
    assert assault("2", "F1").data == {
        "order": "assault",
        "sector": "2",
        "token": "F1",
        "reward": "vp",
    }


@pytest.mark.parametrize(
    ("side", "order", "current", "rule", "params"),
    [
        ("red", assault("2", "F9"), SideOrders(), "unknown_token", {"token": "F9"}),
        (
            "red",
            assault("3", "F1"),
            SideOrders(),
            "token_not_in_sector",
            {"token": "F1", "sector": "3", "token_sector": "2"},
        ),
        ("blue", assault("5", "O1"), SideOrders(), "own_token", {"token": "O1"}),
        (
            "blue",
            assault("4", "O4", "weather"),
            SideOrders(),
            "bad_reward",
            {"token": "O4", "reward": "weather"},
        ),
        ("red", assault("4", "O4"), SideOrders(), "no_force", {"sector": "4"}),
        (
            "red",
            assault("2", "F1"),
            SideOrders(moves=(Move(source="2", to="1", count=1),)),
            "sector_has_order",
            {"sector": "2"},
        ),
        (
            "red",
            assault("3", "F3"),
            SideOrders(attacks=(Attack(sector="3", target="blue"),)),
            "sector_has_order",
            {"sector": "3"},
        ),
        (
            "red",
            assault("2", "F1"),
            SideOrders(extra=(guard("F1", "1"),)),
            "guard_own_assault",
            {"token": "F1"},
        ),
        ("red", guard("F1", "4"), SideOrders(), "no_force", {"sector": "4"}),
        ("red", guard("F1", "nowhere"), SideOrders(), "no_force", {"sector": "nowhere"}),
        (
            "blue",
            guard("F1", "5"),
            SideOrders(moves=(Move(source="5", to="1", count=1),)),
            "guard_from_moving",
            {"token": "F1", "from": "5"},
        ),
        (
            "red",
            guard("F1", "1"),
            SideOrders(extra=(guard("F1", "3"),)),
            "second_guard",
            {"token": "F1"},
        ),
        (
            "red",
            guard("F3", "3"),
            SideOrders(extra=(assault("3", "F3"),)),
            "guard_own_assault",
            {"token": "F3"},
        ),
        ("red", guard("Z", "1"), SideOrders(), "unknown_token", {"token": "Z"}),
        ("red", steer("2"), SideOrders(), "not_weather_control", {"sector": "2"}),
        ("blue", steer("1"), SideOrders(), "no_force", {"sector": "1"}),
        (
            "red",
            steer("1"),
            SideOrders(extra=(guard("F1", "1"),)),
            "guard_from_steering",
            {"token": "F1", "from": "1"},
        ),
        ("red", play_card("O1", "before"), SideOrders(), "not_your_card", {"token": "O1"}),
        ("red", play_card("F1", "before"), SideOrders(), "not_your_card", {"token": "F1"}),
        ("red", play_card("Z", "before"), SideOrders(), "unknown_token", {"token": "Z"}),
        ("blue", play_card("O1", "after"), SideOrders(), "wrong_window", {"window": "before"}),
    ],
)
def test_each_rule(
    side: str,
    order: ModuleOrder,
    current: SideOrders,
    rule: str,
    params: dict[str, str | int],
) -> None:
    game = siege_game(weather_control=["1"], guard_range=1)
    assert refusal(validate_order(game, STATE, side, order, current)) == (rule, params)


def test_roles_limit_who_assaults_and_guards() -> None:
    game = siege_game(roles={"red": ["stormer"], "blue": ["defender"]})
    assert refusal(validate_order(game, STATE, "red", guard("F1", "2"))) == ("not_a_defender", {})
    assert refusal(validate_order(game, STATE, "blue", assault("4", "O4"))) == (
        "not_a_stormer",
        {},
    )
    assert validate_order(game, STATE, "red", assault("2", "F1")) is None
    assert validate_order(game, STATE, "blue", guard("F1", "3")) is None


def test_a_guard_reaches_guard_range_sectors() -> None:
    state = siege_state(
        {"red": {"4": 2}}, [{"id": "O5", "kind": "occult", "sector": "5", "strength": 8}]
    )
    assert validate_order(siege_game(), state, "red", guard("O5", "4")) is None
    assert refusal(validate_order(siege_game(guard_range=1), state, "red", guard("O5", "4"))) == (
        "out_of_range",
        {"token": "O5", "from": "4", "distance": 2, "range": 1},
    )


def test_steers_are_limited_per_side() -> None:
    game = siege_game(weather_control=["1", "2", "3"], weather_steps_per_turn=2)
    current = SideOrders(extra=(steer("1"), steer("2")))
    assert refusal(validate_order(game, STATE, "red", steer("3"), current)) == (
        "steer_limit",
        {"limit": 2},
    )
    assert (
        refusal(validate_order(game, STATE, "red", steer("1"), SideOrders(extra=(steer("1"),))))[0]
        == "sector_has_order"
    )


def test_one_card_per_window_and_a_tapped_card() -> None:
    tokens = [
        {"id": "O1", "kind": "occult", "sector": "5", "strength": 8, "controller": "blue"},
        {
            "id": "O2",
            "kind": "occult",
            "sector": "4",
            "strength": 8,
            "controller": "blue",
            "ready": False,
        },
        {"id": "O3", "kind": "occult", "sector": "3", "strength": 6, "controller": "blue"},
    ]
    state = siege_state(ARMIES, tokens)
    game = siege_game()
    current = SideOrders(extra=(play_card("O1", "before"),))
    assert refusal(validate_order(game, state, "blue", play_card("O3", "before"), current)) == (
        "second_card_in_window",
        {"window": "before", "token": "O1"},
    )
    assert refusal(validate_order(game, state, "blue", play_card("O2", "before"))) == (
        "card_tapped",
        {"token": "O2"},
    )
    plan = plan_battles(game, state, {"blue": current}, SEEDS)
    late, refused = accept_late_orders(
        game,
        state,
        plan,
        "blue",
        (
            play_card("O1", "after"),
            play_card("O3", "after"),
            play_card("O2", "after"),
            assault("3", "F1"),
            play_card("O3", "before"),
        ),
    )
    assert late == (play_card("O3", "after"),)
    assert [refusal(r) for r in refused] == [
        ("card_tapped", {"token": "O1"}),
        ("card_tapped", {"token": "O2"}),
        ("wrong_window", {"window": "after"}),
        ("wrong_window", {"window": "after"}),
    ]
    assert legal_late_orders(game, state, plan, "blue") == {"siege": (play_card("O3", "after"),)}
    assert legal_late_orders(game, state, plan, "red") == {"siege": ()}


def test_malformed_orders_are_refused() -> None:
    game = siege_game()
    bare = ModuleOrder(module="siege", data={"order": "assault", "sector": "2", "token": "F1"})
    assert refusal(validate_order(game, STATE, "red", bare)) == (
        "bad_order",
        {"detail": "sector fields do not match the order's data"},
    )
    for data in ({"order": "assault", "sector": "2"}, {"order": 3}, {}):
        rule, _ = refusal(
            validate_order(game, STATE, "red", ModuleOrder(module="siege", data=data))
        )
        assert rule == "bad_order"


def test_a_guarded_sector_cannot_be_moved_out_of() -> None:
    game = siege_game()
    current = SideOrders(extra=(guard("F1", "1"),))
    refused = validate_order(game, STATE, "red", Move(source="1", to="4", count=1), current)
    assert refusal(refused) == ("guard_from_moving", {"token": "F1", "from": "1"})
    assert legal_orders(game, STATE, "red", current).for_sector("1") is not None
    one = legal_orders(game, STATE, "red", current).for_sector("1")
    assert one is not None
    assert one.move is None
    assert validate_order(game, STATE, "red", Attack(sector="3", target="blue"), current) is None


def test_entering_an_assault_or_a_steer_replaces_the_sectors_order() -> None:
    game = siege_game(weather_control=["3"])
    moving = SideOrders(moves=(Move(source="2", to="1", count=2),), reinforce="1")
    after, refused = enter_order(game, STATE, "red", moving, assault("2", "F1", "weather"))
    assert refused is None
    assert after == SideOrders(reinforce="1", extra=(assault("2", "F1", "weather"),))
    attacking = SideOrders(attacks=(Attack(sector="3", target="blue"),))
    steered, refused = enter_order(game, STATE, "red", attacking, steer("3"))
    assert refused is None
    assert steered == SideOrders(extra=(steer("3"),))
    back, refused = enter_order(game, STATE, "red", steered, Attack(sector="3", target="blue"))
    assert (back, refused) == (attacking, None)


def test_legal_options_list_every_order_validation_accepts() -> None:
    game = siege_game(weather_control=["1"])
    listing = legal_orders(game, STATE, "red").modules["siege"]
    assert listing == (
        assault("2", "F1", "vp"),
        assault("2", "F1", "weather"),
        assault("3", "F3", "vp"),
        assault("3", "F3", "weather"),
        *(guard(token, sector) for token in ("F1", "F3", "O1", "O4") for sector in "123"),
        steer("1"),
    )
    blue = legal_orders(game, STATE, "blue").modules["siege"]
    assert assault("5", "O1") not in blue
    assert assault("4", "O4") in blue
    assert play_card("O1", "before") in blue


# ---- resolution details (S5-S7) -----------------------------------------------------------------


def test_an_occult_token_ends_with_the_last_winner() -> None:
    state = siege_state(
        {"red": {"5": 5}, "green": {"5": 5}},
        [{"id": "O1", "kind": "occult", "sector": "5", "strength": 2}],
    )
    orders = {
        "red": SideOrders(extra=(assault("5", "O1"),)),
        "green": SideOrders(extra=(assault("5", "O1"),)),
    }
    resolution = resolve_turn(siege_game(), state, orders, seeds=SEEDS)
    siege = load(resolution.state.modules["siege"])
    assert siege.tokens[0].controller == "green"
    assert siege.tokens[0].ready
    report = SiegeReport.model_validate(resolution.report.modules["siege"])
    assert [a.verdict for a in report.assaults] == ["taken", "taken"]


def test_a_before_card_with_a_weather_effect_counts_towards_the_limit() -> None:
    state = siege_state(
        {"red": {"1": 3, "2": 5}},
        [
            {"id": "O1", "kind": "occult", "sector": "3", "strength": 8, "controller": "red"},
            {"id": "F1", "kind": "fortification", "sector": "2", "strength": 2},
        ],
        weather=7,
    )
    game = siege_game(
        weather_control=["1"],
        weather_steps_per_turn=2,
        cards={"O1": {"text": "Gust", "effect": "weather_step"}},
    )
    orders = {
        "red": SideOrders(
            extra=(steer("1"), play_card("O1", "before"), assault("2", "F1", "weather"))
        )
    }
    resolution = resolve_turn(game, state, orders, seeds=SEEDS)
    siege = load(resolution.state.modules["siege"])
    assert (siege.weather, siege.vp) == (1, {"red": 1})
    report = SiegeReport.model_validate(resolution.report.modules["siege"])
    assert report.cards == (
        CardOutcome(token="O1", side="red", window="before", void=False, weather_step=True),
    )
    assert report.assaults[0].reward == "weather_lost"


def test_same_seeds_same_rolls_other_seeds_other_rolls() -> None:
    state = siege_state({"red": {"2": 1}}, [TOKENS[0]])
    orders = {"red": SideOrders(extra=(assault("2", "F1"),))}
    game = siege_game()
    first = resolve_turn(game, state, orders, seeds=SEEDS)
    assert resolve_turn(game, state, orders, seeds=SEEDS) == first
    values = {
        resolve_turn(game, state, orders, seeds=TurnSeeds(roll=f"seed-{n}")).report.rolls[0].value
        for n in range(30)
    }
    assert len(values) > 1


def test_a_failed_assault_costs_the_stormer_in_the_assault_sector() -> None:
    state = siege_state({"red": {"2": 1, "1": 2}}, [TOKENS[0]])
    orders = {"red": SideOrders(extra=(assault("2", "F1"),))}
    report = resolve_turn(siege_game(assault_loss=2), state, orders, seeds=SEEDS).report
    assert [(c.sector, c.side, c.declared, c.lost) for c in report.casualties] == [
        ("2", "red", 2, 1)
    ]
    assert [(m.side, m.sector, m.armies) for m in report.module_losses] == [("red", "2", 2)]


def test_the_list_shows_the_weather_in_force() -> None:
    plan = plan_battles(siege_game(), siege_state(ARMIES, TOKENS, weather=4), {}, SEEDS)
    assert plan.modules == {"siege": {"weather": 4, "assaults": [], "cards_before": []}}
    assert plan.rolls == ()


def test_a_chain_result_must_follow_the_chain() -> None:
    state = siege_state({"red": {"2": 4}, "blue": {"1": 2}, "green": {"3": 2}}, [TOKENS[0]])
    orders = {
        "red": SideOrders(extra=(assault("2", "F1"),)),
        "blue": SideOrders(extra=(guard("F1", "1"),)),
        "green": SideOrders(extra=(guard("F1", "3"),)),
    }
    game = siege_game()
    results = [BattleResult(battle=1, outcome=Outcome.DRAW)]
    resolution = resolve_turn(game, state, orders, results, SEEDS)
    assert resolution.report.unplayed == (2,)
    assert load(resolution.state.modules["siege"]).token("F1") is not None


# ---- rewards (S8) and adjustments (S7) ----------------------------------------------------------


def test_reward_claims() -> None:
    settings = SiegeSettings()
    fourteen = check_claim(settings, 14, ["rook", "knight", "simple_cheque"])
    assert (fourteen.ok, fourteen.total) == (True, 14)
    assert check_claim(settings, 8, ["knight", "knight"]).ok
    assert check_claim(settings, 0, []).ok
    over = check_claim(settings, 13, ["rook", "knight", "simple_cheque"])
    assert [(p.code, p.total, p.vp) for p in over.problems] == [
        (ClaimProblemCode.OVER_BUDGET, 14, 13)
    ]
    unknown = check_claim(settings, 5, ["castle"])
    assert [(p.code, p.item) for p in unknown.problems] == [
        (ClaimProblemCode.UNKNOWN_REWARD, "castle")
    ]


def test_the_gm_chooses_where_an_item_says_or() -> None:
    settings = SiegeSettings()
    claim = ["rook", "simple_cheque", "magic_dot", "simple_cheque"]
    assert choices_to_make(settings, claim) == (1, 2, 3)
    assert valid_choice(settings, claim, 1, 2)
    assert not valid_choice(settings, claim, 1, 3)
    assert not valid_choice(settings, claim, 0, 0)  # a rook is a rook
    assert valid_choice(settings, claim, 2, CHOSEN_WITHOUT_VARIANTS)
    assert not valid_choice(settings, claim, 2, 0)
    assert not valid_choice(settings, claim, 9, 0)


def test_adjustments_apply_whole() -> None:
    game = siege_game()
    state = siege_state(ARMIES, TOKENS, weather=6, vp={"red": 2})
    adjusted = apply_adjustment(
        game,
        state,
        Adjustment(
            armies=(
                ArmyChange(side="red", sector="4", delta=2),
                ArmyChange(side="blue", sector="5", delta=-4),
                ArmyChange(side="blue", sector="4", delta=-1),
            ),
            vp=(VpChange(side="red", delta=-2), VpChange(side="blue", delta=1)),
            weather_steps=3,
            reason="O1: storm call",
        ),
    )
    assert adjusted.armies == {
        "red": {"1": 3, "2": 4, "3": 2, "4": 2},
        "blue": {"3": 3, "4": 1},
    }
    siege = load(adjusted.modules["siege"])
    assert (siege.weather, siege.vp) == (1, {"red": 0, "blue": 1})
    assert siege.tokens == load(state.modules["siege"]).tokens
    back = apply_adjustment(game, adjusted, Adjustment(weather_steps=-2))
    assert load(back.modules["siege"]).weather == 7


def test_an_adjustment_that_cannot_apply_is_refused_with_every_reason() -> None:
    game = siege_game()
    with pytest.raises(AdjustmentError) as refused:
        apply_adjustment(
            game,
            siege_state(ARMIES, TOKENS, weather=None),
            Adjustment(
                armies=(
                    ArmyChange(side="red", sector="9", delta=1),
                    ArmyChange(side="green", sector="1", delta=1),
                    ArmyChange(side="red", sector="1", delta=-4),
                ),
                vp=(VpChange(side="red", delta=-1),),
                weather_steps=1,
            ),
        )
    assert [p.code for p in refused.value.problems] == [
        AdjustmentProblemCode.UNKNOWN_SECTOR,
        AdjustmentProblemCode.SIDE_NOT_IN_PLAY,
        AdjustmentProblemCode.ARMIES_BELOW_ZERO,
        AdjustmentProblemCode.VP_BELOW_ZERO,
        AdjustmentProblemCode.WEATHER_NOT_CHOSEN,
    ]
    assert refused.value.problems[2].params == {
        "side": "red",
        "sector": "1",
        "have": 3,
        "delta": -4,
    }
    with pytest.raises(ValidationError):
        Adjustment(weather_steps=8)


def test_removing_a_sides_last_armies_puts_it_out() -> None:
    state = siege_state({"red": {"1": 1}, "blue": {"2": 2}}, [])
    adjusted = apply_adjustment(
        siege_game(), state, Adjustment(armies=(ArmyChange(side="red", sector="1", delta=-1),))
    )
    assert adjusted.armies == {"blue": {"2": 2}}


def test_every_rule_has_an_english_text() -> None:
    for rule in SiegeRule:
        text = describe_rule({"rule": rule.value, "token": "F1", "sector": "2", "from": "3"})
        assert text
        assert text != rule.value
    assert describe_rule({"rule": "something_else"}) == "something_else"
