"""Module ``contact``: the core relaxations it relies on (A2.6, A2.7), its state, map check,
result data and rule texts. Its turns are case files (cases/modules/contact/)."""

from __future__ import annotations

import pytest

from rules import (
    Battle,
    BattleResult,
    CampaignState,
    Game,
    ModuleConflictError,
    ModuleStateError,
    Move,
    OrderRule,
    Outcome,
    Ruleset,
    SideOrders,
    StepHook,
    TurnSeeds,
    enter_order,
    legal_orders,
    plan_battles,
    resolve_turn,
    validate_order,
)
from rules.edits import EditError, EditProblemCode, StateEdit, apply_edit
from rules.game import RulesModule, Step
from rules.maps import MapError, parse_map
from rules.modules import BUILTIN_MODULES
from rules.modules.contact import (
    ContactPlan,
    ContactReport,
    ContactRule,
    DefencesSet,
    defences_edit,
    describe_rule,
    load,
    retreat_to,
    transport,
    turn_order,
    yield_sector,
)
from tests.rules.contact_day_demo import DAY_DEMO, contact_game, day_demo, example_a_state

SEEDS = TurnSeeds(roll="9f2c4e7a1b3d5f6081a2c3e4f5061728")


def test_several_moves_from_one_sector_only_with_contact() -> None:
    state = CampaignState(turn=1, armies={"party": {"pb": 5}, "bees": {"hb": 2}})
    first = SideOrders(moves=(Move(source="pb", to="ph", count=2),))
    second = Move(source="pb", to="hb", count=2)
    core = Game.create(day_demo())
    refused = validate_order(core, state, "party", second, first)
    assert refused is not None
    assert refused.rule is OrderRule.SECOND_MOVE_FROM_SECTOR
    game = contact_game()
    contact_state = state.model_copy(update={"modules": {"contact": {"v": 1}}})
    assert validate_order(game, contact_state, "party", second, first) is None
    too_many = Move(source="pb", to="hb", count=3)
    refused = validate_order(game, contact_state, "party", too_many, first)
    assert refused is not None
    assert refused.params["max"] == 2
    move = legal_orders(game, contact_state, "party", first).for_sector("pb")
    assert move is not None
    assert move.move is not None
    assert move.move.max_count == 2


def test_a_transport_counts_against_the_armies_that_must_stay() -> None:
    game = contact_game()
    state = example_a_state(game)
    current = SideOrders(extra=(transport("bb", ["ph", "hb"], 4),))
    refused = validate_order(game, state, "bikers", Move(source="bb", to="ps", count=1), current)
    assert refused is not None
    assert refused.rule is OrderRule.MOVE_COUNT_OUT_OF_RANGE


def test_a_move_out_of_a_shared_sector_is_bound_by_combat() -> None:
    game = contact_game()
    state = CampaignState(
        turn=1, armies={"party": {"ph": 3}, "bees": {"ph": 2}}, modules={"contact": {"v": 1}}
    )
    refused = validate_order(game, state, "party", Move(source="ph", to="pb", count=1))
    assert refused is not None
    assert refused.params["rule"] == ContactRule.BOUND_BY_COMBAT.value
    options = legal_orders(game, state, "party").for_sector("ph")
    assert options is not None
    assert options.move is None


class _Arrivals(RulesModule):
    name = "other"

    def hooks(self) -> tuple[StepHook, ...]:
        return (StepHook(anchor=Step.ARRIVALS, when="instead", run=lambda work: None),)


def test_contact_and_another_arrivals_replacement_are_refused_together() -> None:
    ruleset = Ruleset(modules=("contact", "other"))
    with pytest.raises(ModuleConflictError):
        Game.create(day_demo(), ruleset, (*BUILTIN_MODULES, _Arrivals()))


def test_the_turn_order_rotates() -> None:
    state = CampaignState(turn=5, armies={"a": {"bb": 1}, "b": {"ph": 1}, "c": {"hb": 1}})
    assert turn_order(state) == ("b", "c", "a")


def test_the_initial_state_copies_the_maps_defences() -> None:
    game = contact_game()
    state = load(example_a_state(game).modules["contact"])
    hive = state.defences_in("hb")
    assert hive is not None
    assert (hive.owner, hive.level, hive.ruined) == ("bees", 1, False)
    post = state.defences_in("ps")
    assert post is not None
    assert post.level == 2


def test_a_newer_or_missing_state_version_is_refused() -> None:
    with pytest.raises(ModuleStateError):
        load({"v": 99})
    with pytest.raises(ModuleStateError):
        load(None)


def test_the_map_may_not_hold_two_defences_in_a_sector_or_a_level_3() -> None:
    data = dict(DAY_DEMO)
    data["features"] = [
        {"id": "a", "kind": "defences", "sector": "bb", "level": 1},
        {"id": "b", "kind": "defences", "sector": "bb", "level": 1},
        {"id": "c", "kind": "defences", "sector": "ph", "level": 3},
    ]
    with pytest.raises(MapError) as refused:
        Game.create(parse_map(data), Ruleset(modules=("contact",)), BUILTIN_MODULES)
    assert len(refused.value.problems) == 2


def test_warlord_data_must_name_sides_of_the_battle() -> None:
    game = contact_game()
    plan = plan_battles(
        game,
        example_a_state(game),
        {
            "bikers": SideOrders(extra=(transport("bb", ["ph", "hb"], 4),)),
            "party": SideOrders(
                moves=(Move(source="pb", to="ph", count=2), Move(source="pb", to="hb", count=2))
            ),
        },
        SEEDS,
    )
    module = game.module("contact")
    assert module is not None
    second: Battle = plan.battles[1]
    assert module.check_result(second, {"warlord_slain": ["bikers"]}) is None
    assert module.check_result(second, {"warlord_slain": ["nobody"]}) is not None
    assert module.check_result(second, {"warlord_slain": ["party", "party"]}) is not None
    assert module.check_result(second, {"heroes": 1}) is not None
    contact = ContactPlan.model_validate(plan.modules["contact"])
    assert [chain.battles for chain in contact.chains] == [(1, 2)]


@pytest.mark.parametrize("rule", list(ContactRule))
def test_every_rule_has_a_text(rule: ContactRule) -> None:
    text = describe_rule({"module": "contact", "rule": rule.value})
    assert text
    assert text != rule.value


def test_a_move_is_added_after_the_sectors_moves_with_contact() -> None:
    state = CampaignState(
        turn=1, armies={"party": {"pb": 5}, "bees": {"hb": 2}}, modules={"contact": {"v": 1}}
    )
    game = contact_game()
    first, refused = enter_order(
        game, state, "party", SideOrders(), Move(source="pb", to="ph", count=2)
    )
    assert refused is None
    both, refused = enter_order(game, state, "party", first, Move(source="pb", to="hb", count=2))
    assert refused is None
    assert [(m.to, m.count) for m in both.moves] == [("ph", 2), ("hb", 2)]
    core = Game.create(day_demo())
    plain = state.model_copy(update={"modules": {}})
    one, _ = enter_order(core, plain, "party", first, Move(source="pb", to="hb", count=2))
    assert [(m.to, m.count) for m in one.moves] == [("hb", 2)]


def test_the_gm_sets_defences_over_the_maps() -> None:
    game = contact_game(
        defences=[
            {"sector": "ps", "level": 0},
            {"sector": "ph", "level": 2, "owner": "party"},
            {"sector": "bb", "level": 2, "owner": "bikers"},
        ]
    )
    module = game.module("contact")
    assert module is not None
    state = load(module.initial_state(game))
    assert [(d.sector, d.owner, d.level) for d in state.defences] == [
        ("hb", "bees", 1),
        ("pb", "party", 1),
        ("ph", "party", 2),
        ("bb", "bikers", 2),
    ]
    assert len({d.id for d in state.defences}) == 4


class _NoEdits(RulesModule):
    name = "other"


def test_a_modules_part_of_an_edit_goes_to_the_module_that_takes_it() -> None:
    """The core hands ``StateEdit.modules[name]`` to that module: contact repairs defences,
    a module not played or taking no edits, or a repair that is not one, is refused."""
    game = Game.create(
        day_demo(), Ruleset(modules=("contact", "other")), (*BUILTIN_MODULES, _NoEdits())
    )
    state = example_a_state(game)
    sides = ["bikers", "party", "bees"]
    repair = defences_edit(DefencesSet(sector="ps", level=1, owner="bikers", ruined=True))
    edited = apply_edit(game, state, StateEdit(modules=repair), sides)
    post = load(edited.modules["contact"]).defences_in("ps")
    assert post is not None
    assert (post.level, post.owner, post.ruined) == (1, "bikers", True)
    assert edited.armies == state.armies
    refused = {
        "siege": {"weather": 1},
        "other": {},
        "contact": {"defences": "all of them"},
    }
    with pytest.raises(EditError) as error:
        apply_edit(game, state, StateEdit(modules=refused), sides)
    assert [(p.code, p.params) for p in error.value.problems] == [
        (EditProblemCode.MODULE_RULE, {"module": "siege", "rule": "not_played"}),
        (EditProblemCode.MODULE_RULE, {"module": "other", "rule": "no_edits"}),
        (EditProblemCode.MODULE_RULE, {"module": "contact", "rule": "bad_edit"}),
    ]


def test_gm_defences_must_name_sectors_of_the_map() -> None:
    with pytest.raises(MapError):
        contact_game(defences=[{"sector": "nowhere", "level": 1}])


def test_a_retreat_preference_with_no_sectors_forgets_the_standing_one() -> None:
    game = contact_game()
    standing = {"v": 1, "retreat_to": {"party": {"pb": ["ph", "hb"], "ph": ["bb"]}}}
    state = CampaignState(
        turn=1, armies={"party": {"pb": 5, "ph": 2}}, modules={"contact": standing}
    )
    forget = retreat_to("pb", ())
    assert validate_order(game, state, "party", forget) is None
    orders = {"party": SideOrders(extra=(forget,))}
    after = resolve_turn(game, state, orders, (), SEEDS).state
    assert load(after.modules["contact"]).retreat_to == {"party": {"ph": ("bb",)}}
    forget_all = SideOrders(extra=(forget, retreat_to("ph", [])))
    after = resolve_turn(game, state, {"party": forget_all}, (), SEEDS).state
    assert load(after.modules["contact"]).retreat_to == {}


def _yielding_hive(exhausted: dict[str, int]) -> CampaignState:
    return CampaignState(
        turn=1,
        armies={"bikers": {"bb": 5}, "bees": {"ps": 2, "hb": 2}, "party": {"pb": 5}},
        modules={
            "contact": {
                **load_initial(contact_game()),
                "exhausted": {"bees": exhausted},
            }
        },
    )


def load_initial(game: Game) -> dict[str, object]:
    module = game.module("contact")
    assert module is not None
    found = module.initial_state(game)
    assert isinstance(found, dict)
    return dict(found)


@pytest.mark.parametrize(
    ("exhausted", "bees_moves"),
    [
        ({"hb": 1}, ()),
        ({"ps": 2}, (Move(source="ps", to="hb", count=1),)),
    ],
    ids=["stayed", "joined"],
)
def test_a_yielding_forces_exhausted_armies_die_whether_they_stayed_or_joined(
    exhausted: dict[str, int], bees_moves: tuple[Move, ...]
) -> None:
    game = contact_game()
    bees = SideOrders(moves=bees_moves, extra=(yield_sector("hb"),))
    state = _yielding_hive(exhausted)
    orders = {
        "bikers": SideOrders(extra=(transport("bb", ["ph", "hb"], 4),)),
        "bees": bees,
        "party": SideOrders(moves=(Move(source="pb", to="hb", count=4),)),
    }
    plan = ContactPlan.model_validate(plan_battles(game, state, orders, SEEDS).modules["contact"])
    (retreat,) = plan.retreats
    strength = 2 + len(bees_moves)
    assert (retreat.reason, retreat.died, retreat.armies, retreat.to) == (
        "yield",
        1,
        strength - 1,
        "ps",
    )
    after = resolve_turn(game, state, orders, (), SEEDS)
    lost = [c for c in after.report.casualties if c.side == "bees"]
    assert [(c.sector, c.lost) for c in lost] == [("hb", 1)]


def test_the_attacker_standing_unopposed_defends_the_next_battle_of_the_chain() -> None:
    """Bees hold hb with 1 army; bikers, party and raiders arrive in that order. #1 is a bloody
    draw (bees wiped out, bikers back home), #2 is not played (party stands unopposed), #3 is
    raiders against party, who defends it: raiders win and hold the sector."""
    game = contact_game()
    armies = {"bikers": {"bb": 5}, "party": {"pb": 5}, "bees": {"hb": 1}, "raiders": {"ps": 5}}
    state = CampaignState(turn=1, armies=armies, modules={"contact": load_initial(game)})
    orders = {
        "bikers": SideOrders(extra=(transport("bb", ["ph", "hb"], 4),)),
        "party": SideOrders(moves=(Move(source="pb", to="hb", count=4),)),
        "raiders": SideOrders(moves=(Move(source="ps", to="hb", count=4),)),
    }
    listed = plan_battles(game, state, orders, SEEDS).battles
    assert [(b.attacker, b.defender_from) for b in listed] == [
        ("bikers", None),
        ("party", 1),
        ("raiders", 2),
    ]
    results = [
        BattleResult(battle=1, outcome=Outcome.BLOODY_DRAW),
        BattleResult(battle=3, outcome=Outcome.SOLID, winner="raiders"),
    ]
    turn = resolve_turn(game, state, orders, results, SEEDS)
    assert turn.report.unplayed == (2,)
    report = ContactReport.model_validate(turn.report.modules["contact"])
    assert [(u.battle, u.side, u.gone, u.before) for u in report.unopposed] == [
        (2, "party", "bees", 1)
    ]
    assert [(r.side, r.reason, r.armies, r.to) for r in report.retreats] == [
        ("bikers", "draw", 3, "bb"),
        ("party", "battle", 3, "pb"),
    ]
    assert [(r.sector, r.holder, r.vp) for r in report.ruined] == [("hb", "raiders", 1)]
    assert turn.state.armies == {
        "bikers": {"bb": 6},
        "party": {"pb": 6},
        "raiders": {"ps": 3, "hb": 4},
    }
    assert turn.report.captured["raiders"] == ("hb",)


def test_a_sector_whose_last_defender_a_draw_wiped_out_is_held_by_nobody() -> None:
    """Bees hold hb with 1 army; only bikers arrive; a bloody draw leaves hb empty: bikers go
    home, the barricade is ruined and nobody gains its VP."""
    game = contact_game()
    state = CampaignState(
        turn=1,
        armies={"bikers": {"bb": 5}, "bees": {"hb": 1}, "party": {"pb": 5}},
        modules={"contact": load_initial(game)},
    )
    orders = {"bikers": SideOrders(extra=(transport("bb", ["ph", "hb"], 4),))}
    turn = resolve_turn(
        game, state, orders, [BattleResult(battle=1, outcome=Outcome.BLOODY_DRAW)], SEEDS
    )
    report = ContactReport.model_validate(turn.report.modules["contact"])
    assert [(r.sector, r.holder, r.vp) for r in report.ruined] == [("hb", None, 0)]
    assert report.vp == {}
    assert "hb" not in turn.state.armies.get("bees", {})
