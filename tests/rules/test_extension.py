"""The extension point of MODULES.md A2, exercised by a test-only module, "arena", that uses
every hook: settings, a map check, a deployment choice, a versioned state with an upgrade,
begin_turn drawing from the deal seed, a sector-claiming order, a core-order check, a plan that
rolls a die and adds a chain (after + condition, defender_from, loss sectors, FOC armies), late
orders, result data, a loss before the losses step, a replaced step and a victory hook.

An arena order ``{"sector": s}`` makes, in sector s: #k the orderer attacks the first other side
there; #k+1 the second other side attacks whoever won #k (its defender on a draw); #k+2, only if
the orderer won #k, the orderer attacks the first side again, losses falling in the arena
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from rules import (
    Attack,
    Battle,
    BattlePlan,
    BattleResult,
    BattleStatus,
    CampaignState,
    DeploymentChoice,
    DeploymentChoiceError,
    Dice,
    Feature,
    Fortify,
    Game,
    MapError,
    MapProblem,
    MapProblemCode,
    ModuleConflictError,
    ModuleContractError,
    ModuleOrder,
    ModuleSettingsError,
    ModuleStateError,
    Move,
    OrderRule,
    Outcome,
    Rejection,
    ResultProblemCode,
    ResultsError,
    Ruleset,
    RulesModule,
    SeedsRequiredError,
    SideId,
    SideOrders,
    Step,
    StepHook,
    TurnSeeds,
    TurnWork,
    accept_late_orders,
    battle_sides,
    builtin_map,
    check_results,
    deployed_state,
    draw,
    enter_order,
    legal_late_orders,
    legal_orders,
    plan_battles,
    resolve_turn,
    start_turn,
    validate_order,
)
from rules.battles import PlanWork
from rules.game import CoreOrder

ARENA = "arena"
K = "9f2c4e7a1b3d5f6081a2c3e4f5061728"
SEEDS = TurnSeeds(roll=K, deal="deal-seed")


class ArenaSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    toll: int = 1
    protected: SideId | None = None


def arena(sector: str) -> ModuleOrder:
    return ModuleOrder(module=ARENA, data={"sector": sector}, sector=sector, claims_sector=True)


def _state_of(state: CampaignState) -> dict[str, Any]:
    data = state.modules.get(ARENA)
    assert isinstance(data, dict)
    return data


class ArenaModule(RulesModule):
    """The test-only module described above."""

    name = ARENA
    Settings = ArenaSettings
    uses_dice = True

    def check_map(self, game: Game) -> Sequence[MapProblem]:
        return [
            MapProblem(code=MapProblemCode.MODULE_RULE, other=f.id, detail="arena: no strength")
            for f in game.map.features_of("arena")
            if f.strength is None
        ]

    def initial_state(self, game: Game, choice: JsonValue = None) -> JsonValue:
        champion = choice.get("champion") if isinstance(choice, dict) else None
        return {"v": 2, "champion": champion, "omen": None}

    def pending_choice(self, game: Game, state: CampaignState) -> DeploymentChoice | None:
        if _state_of(state)["champion"] is not None:
            return None
        return DeploymentChoice(
            module=ARENA, key="champion", side=state.sides()[0], options=state.sides()
        )

    def check_choice(self, game: Game, sides: Sequence[SideId], choice: JsonValue) -> str | None:
        if not isinstance(choice, dict) or choice.get("champion") not in sides:
            return "the champion is one of the sides"
        return None

    def upgrade(self, data: JsonValue) -> JsonValue:
        if isinstance(data, dict) and data.get("v") == 1:
            return {"v": 2, "champion": data["champ"], "omen": None}
        if isinstance(data, dict) and data.get("v") == 2:
            return data
        raise ModuleStateError("arena: unknown state")

    def begin_turn(self, game: Game, state: CampaignState, dice: Dice) -> JsonValue:
        omen = dice.roll(f"t{state.turn}/{ARENA}/omen", 6, seed="deal")
        return {**_state_of(state), "omen": omen}

    def parse_order(self, data: dict[str, JsonValue]) -> ModuleOrder:
        sector = data.get("sector")
        return arena(sector) if isinstance(sector, str) else ModuleOrder(module=ARENA, data=data)

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
            return _refuse(side, order, "no_armies")
        if current.module_order_in(sector) is not None or current.attacks_in(sector):
            return _refuse(side, order, "sector_taken")
        if current.move_from(sector) is not None:
            return _refuse(side, order, "sector_taken")
        return None

    def check_core_order(
        self,
        game: Game,
        state: CampaignState,
        side: SideId,
        order: CoreOrder,
        current: SideOrders,
    ) -> Rejection | None:
        protected = game.settings_of(ARENA, ArenaSettings).protected
        if isinstance(order, Attack) and order.target == protected:
            return _refuse(side, order, "protected")
        return None

    def legal_options(
        self, game: Game, state: CampaignState, side: SideId, current: SideOrders
    ) -> tuple[ModuleOrder, ...]:
        candidates = (arena(sector) for sector in state.armies.get(side, {}))
        return tuple(
            order
            for order in candidates
            if self.validate_order(game, state, side, order, current) is None
        )

    def plan(self, work: PlanWork) -> None:
        shown: list[JsonValue] = []
        for side in work.state.sides():
            for order in work.accepted[side].extra:
                sector = str(order.sector)
                others = [s for s in work.state.occupants(sector) if s != side]
                roll = work.dice.roll(f"t{work.state.turn}/{ARENA}/{sector}/{side}", 6)
                shown.append({"sector": sector, "side": side, "roll": roll})
                if len(others) < 2:
                    continue
                armies = {s: work.state.armies_of(s, sector) for s in (side, *others[:2])}
                first = work.add_battle(
                    sector=sector,
                    attacker=side,
                    defender=others[0],
                    armies={side: armies[side], others[0]: armies[others[0]]},
                    module=ARENA,
                    kind="duel",
                    foc_armies={others[0]: armies[others[0]] + roll},
                )
                work.add_battle(
                    sector=sector,
                    attacker=others[1],
                    defender=others[0],
                    armies={others[1]: armies[others[1]], others[0]: armies[others[0]]},
                    module=ARENA,
                    kind="challenge",
                    defender_from=first.id,
                )
                work.add_battle(
                    sector=sector,
                    attacker=side,
                    defender=others[0],
                    armies={side: armies[side], others[0]: armies[others[0]]},
                    module=ARENA,
                    kind="rematch",
                    after=first.id,
                    condition="attacker_won",
                    loss_sectors={others[0]: next(iter(work.state.armies[others[0]]))},
                )
        work.modules[ARENA] = shown

    def validate_late_order(
        self,
        game: Game,
        state: CampaignState,
        plan: BattlePlan,
        side: SideId,
        order: ModuleOrder,
        current: tuple[ModuleOrder, ...],
    ) -> Rejection | None:
        if order.data.get("cheer") not in {battle.id for battle in plan.battles}:
            return _refuse(side, order, "no_such_battle")
        if current:
            return _refuse(side, order, "one_cheer")
        return None

    def legal_late_options(
        self,
        game: Game,
        state: CampaignState,
        plan: BattlePlan,
        side: SideId,
        current: tuple[ModuleOrder, ...],
    ) -> tuple[ModuleOrder, ...]:
        if current:
            return ()
        return tuple(ModuleOrder(module=ARENA, data={"cheer": b.id}) for b in plan.battles)

    def check_result(self, battle: Battle, data: JsonValue) -> str | None:
        if not isinstance(data, dict) or not isinstance(data.get("note"), str):
            return "a note, please"
        return None

    def hooks(self) -> Sequence[StepHook]:
        return (
            StepHook(anchor=Step.LOSSES, when="before", run=self._toll),
            StepHook(anchor=Step.REPLENISHMENT, when="instead", run=self._no_replenishment),
            StepHook(anchor=Step.VICTORY, when="after", run=self._champion_wins),
        )

    def _toll(self, work: TurnWork) -> None:
        toll = work.game.settings_of(ARENA, ArenaSettings).toll
        for side in work.start.sides():
            for order in work.accepted[side].extra:
                work.lose(side, str(order.sector), toll, "arena toll")
        work.notes[ARENA] = {"tolls": toll}

    def _no_replenishment(self, work: TurnWork) -> None:
        work.log.append("4. Replenishment: none in an arena campaign.")

    def _champion_wins(self, work: TurnWork) -> None:
        champion = work.modules[ARENA]
        assert isinstance(champion, dict)
        if work.winner is None and champion["champion"] in work.sides_on_map():
            work.winner, work.victory, work.game_over = champion["champion"], "arena", True


def _refuse(side: SideId, order: ModuleOrder | CoreOrder, rule: str) -> Rejection:
    return Rejection(
        side=side, order=order, rule=OrderRule.MODULE_RULE, params={"module": ARENA, "rule": rule}
    )


PLANET = builtin_map("planet-5")
ARENA_RULES = Ruleset(modules=(ARENA,))
START = CampaignState(
    turn=2,
    armies={
        "red": {"1": 4, "2": 3},
        "blue": {"1": 3, "3": 5},
        "green": {"1": 2, "4": 2},
    },
    modules={ARENA: {"v": 2, "champion": "green", "omen": None}},
)


def arena_game(**settings: Any) -> Game:
    ruleset = Ruleset(modules=(ARENA,), module_settings={ARENA: settings} if settings else {})
    return Game.create(PLANET, ruleset, [ArenaModule()])


# ---- settings, map, conflicts -------------------------------------------------------------------


def test_settings_are_validated_by_the_module_model() -> None:
    game = arena_game(toll=2)
    assert game.settings_of(ARENA, ArenaSettings) == ArenaSettings(toll=2)
    assert arena_game().settings_of(ARENA, ArenaSettings) == ArenaSettings()
    with pytest.raises(ModuleSettingsError, match=r"module_settings\.arena: wager"):
        arena_game(wager=3)
    with pytest.raises(ModuleContractError):
        game.settings_of(ARENA, Ruleset)


def test_the_ruleset_keeps_settings_only_for_enabled_modules() -> None:
    with pytest.raises(ValidationError, match="not enabled"):
        Ruleset(module_settings={ARENA: {"toll": 2}})
    with pytest.raises(ValidationError, match="named twice"):
        Ruleset(modules=(ARENA, ARENA))
    assert Ruleset(modules=(ARENA,), module_settings={ARENA: {"toll": 2}}).overrides() == {
        "modules": [ARENA],
        "module_settings": {ARENA: {"toll": 2}},
    }
    assert Ruleset().overrides() == {}


def test_the_module_checks_the_map() -> None:
    with_features = PLANET.model_copy(
        update={
            "features": (
                Feature(id="A1", kind="arena", sector="1"),
                Feature(id="A2", kind="arena", sector="2", strength=3),
                Feature(id="X1", kind="other", sector="3"),
            )
        }
    )
    with pytest.raises(MapError) as refused:
        Game.create(with_features, ARENA_RULES, [ArenaModule()])
    assert [(p.code, p.other) for p in refused.value.problems] == [
        (MapProblemCode.MODULE_RULE, "A1")
    ]
    assert Game.create(with_features, Ruleset(), [ArenaModule()]).modules == ()


class _Replacer(RulesModule):
    name = "replacer"

    def hooks(self) -> Sequence[StepHook]:
        return (StepHook(anchor=Step.REPLENISHMENT, when="instead", run=lambda work: None),)


def test_two_modules_cannot_replace_one_step() -> None:
    with pytest.raises(ModuleConflictError, match="replenishment"):
        Game.create(PLANET, Ruleset(modules=(ARENA, "replacer")), [ArenaModule(), _Replacer()])


# ---- deployment, versions, turn start -----------------------------------------------------------

PLACEMENTS = {
    "red": {"1": 4, "2": 3, "4": 3},
    "blue": {"1": 3, "3": 5, "5": 2},
}


def test_deployment_waits_for_the_module_choice() -> None:
    game = arena_game()
    pending = deployed_state(game, PLACEMENTS)
    assert pending.modules == {ARENA: {"v": 2, "champion": None, "omen": None}}
    assert game.pending_choices(pending) == (
        DeploymentChoice(module=ARENA, key="champion", side="red", options=("red", "blue")),
    )
    with pytest.raises(ModuleStateError, match=r"arena\.champion"):
        start_turn(game, pending, SEEDS)
    with pytest.raises(ModuleStateError, match=r"arena\.champion"):
        plan_battles(game, pending, {}, SEEDS)
    chosen = deployed_state(game, PLACEMENTS, {ARENA: {"champion": "blue"}})
    assert chosen.armies == pending.armies
    assert game.pending_choices(chosen) == ()


def test_a_bad_choice_is_refused() -> None:
    game = arena_game()
    with pytest.raises(DeploymentChoiceError, match="one of the sides"):
        deployed_state(game, PLACEMENTS, {ARENA: {"champion": "green"}})
    with pytest.raises(DeploymentChoiceError, match="not an enabled module"):
        deployed_state(game, PLACEMENTS, {"siege": {"weather": 1}})
    with pytest.raises(DeploymentChoiceError, match="no deployment choice"):
        deployed_state(
            Game.create(PLANET, Ruleset(modules=("replacer",)), [_Replacer()]),
            PLACEMENTS,
            {"replacer": 1},
        )


def test_start_turn_upgrades_the_state_and_draws_from_the_deal_seed() -> None:
    game = arena_game()
    old = START.model_copy(update={"modules": {ARENA: {"v": 1, "champ": "green"}}})
    started = start_turn(game, old, SEEDS)
    omen = draw("deal-seed", "t2/arena/omen", 6)
    assert started.state.modules == {ARENA: {"v": 2, "champion": "green", "omen": omen}}
    assert [(r.label, r.seed, r.value) for r in started.rolls] == [("t2/arena/omen", "deal", omen)]
    assert started.state.armies == START.armies
    assert game.upgraded(old).modules[ARENA] == {"v": 2, "champion": "green", "omen": None}
    assert game.upgraded(START) is START


def test_start_turn_without_modules_changes_nothing() -> None:
    started = start_turn(Game.create(PLANET), START)
    assert (started.state, started.rolls) == (START, ())


def test_an_unknown_state_version_is_refused() -> None:
    broken = START.model_copy(update={"modules": {ARENA: {"v": 9}}})
    with pytest.raises(ModuleStateError):
        plan_battles(arena_game(), broken, {}, SEEDS)


# ---- orders that claim a sector -----------------------------------------------------------------


def test_a_claiming_order_is_the_sectors_order() -> None:
    orders = SideOrders(extra=(arena("1"),))
    assert not orders.is_fortifying("1")
    assert orders.is_fortifying("2")
    assert orders.module_order_in("1") == arena("1")
    assert orders.without_sector("1").extra == ()
    assert orders.without_move("1").extra == ()
    assert orders.without_sector("2").extra == (arena("1"),)
    assert orders.with_order(Fortify(sector="1")).extra == ()
    unclaimed = ModuleOrder(module=ARENA, data={"sector": "1"}, sector="1")
    assert SideOrders(extra=(unclaimed,)).is_fortifying("1")
    assert orders.without_extra(arena("1")) == SideOrders()


def test_core_orders_in_a_claimed_sector_are_refused() -> None:
    game = arena_game()
    current = SideOrders(extra=(arena("1"),))
    move = validate_order(game, START, "red", Move(source="1", to="2", count=1), current)
    attack = validate_order(game, START, "red", Attack(sector="1", target="blue"), current)
    for refused in (move, attack):
        assert refused is not None
        assert refused.rule is OrderRule.SECTOR_HAS_MODULE_ORDER
        assert refused.params == {"sector": "1", "module": ARENA}


def test_entering_orders_replaces_the_sectors_order() -> None:
    game = arena_game()
    moving = SideOrders(moves=(Move(source="1", to="3", count=2),))
    claimed, refused = enter_order(game, START, "red", moving, arena("1"))
    assert refused is None
    assert claimed == SideOrders(extra=(arena("1"),))
    attacking, refused = enter_order(game, START, "red", claimed, Attack(sector="1", target="blue"))
    assert refused is None
    assert attacking == SideOrders(attacks=(Attack(sector="1", target="blue"),))
    moved, refused = enter_order(game, START, "red", claimed, Move(source="1", to="2", count=1))
    assert refused is None
    assert moved == SideOrders(moves=(Move(source="1", to="2", count=1),))


def test_legal_orders_follow_the_claim_and_the_core_order_check() -> None:
    game = arena_game(protected="green")
    listing = legal_orders(game, START, "red", SideOrders(extra=(arena("1"),)))
    one = listing.for_sector("1")
    assert one is not None
    assert (one.move, one.attack) == (None, None)
    assert listing.modules == {ARENA: (arena("2"),)}
    free = legal_orders(game, START, "red").for_sector("1")
    assert free is not None
    assert free.attack is not None
    assert free.attack.targets == ("blue",)
    refused = validate_order(game, START, "red", Attack(sector="1", target="green"))
    assert refused is not None
    assert refused.params["rule"] == "protected"
    assert legal_orders(Game.create(PLANET), START, "red").modules == {}


# ---- the plan -----------------------------------------------------------------------------------

ORDERS = {
    "red": SideOrders(extra=(arena("1"),)),
    "blue": SideOrders(attacks=(Attack(sector="1", target="green"),)),
}


def test_the_plan_needs_the_seed_when_a_module_draws() -> None:
    with pytest.raises(SeedsRequiredError, match="arena"):
        plan_battles(arena_game(), START, ORDERS)
    with pytest.raises(SeedsRequiredError):
        plan_battles(arena_game(), START, ORDERS, TurnSeeds(deal="only-deal"))


def test_module_battles_come_after_core_battles() -> None:
    plan = plan_battles(arena_game(), START, ORDERS, SEEDS)
    assert plan.rejected == ()
    assert [(b.id, b.attacker, b.defender, b.kind) for b in plan.battles] == [
        (1, "blue", "green", None),
        (2, "red", "blue", "duel"),
        (3, "green", "blue", "challenge"),
        (4, "red", "blue", "rematch"),
    ]
    roll = draw(K, "t2/arena/1/red", 6)
    assert [(r.label, r.value) for r in plan.rolls] == [("t2/arena/1/red", roll)]
    assert plan.modules == {ARENA: [{"sector": "1", "side": "red", "roll": roll}]}
    duel, challenge, rematch = plan.battles[1:]
    assert duel.foc_armies == {"blue": 3 + roll}
    assert duel.foc["blue"] == Ruleset().foc_for(3 + roll)
    assert challenge.defender_from == 2
    assert (rematch.after, rematch.condition, rematch.loss_sectors) == (
        2,
        "attacker_won",
        {"blue": "1"},
    )
    assert plan.battles[0].as_json().keys() == {
        "id", "sector", "attacker", "defender", "armies", "fortified", "foc",
    }  # fmt: skip
    assert rematch.as_json()["after"] == 2
    assert "defender_from" not in rematch.as_json()
    assert challenge.as_json()["defender_from"] == 2


def test_a_plan_without_modules_has_no_rolls() -> None:
    plan = plan_battles(Game.create(PLANET), START, {"red": ORDERS["blue"]})
    assert (plan.rolls, plan.modules) == ((), {})


# ---- chains and results -------------------------------------------------------------------------


def _result(battle: int, outcome: Outcome, winner: str | None = None) -> BattleResult:
    return BattleResult(battle=battle, outcome=outcome, winner=winner)


def test_battle_sides_follow_the_chain() -> None:
    battles = plan_battles(arena_game(), START, ORDERS, SEEDS).battles
    waiting = battle_sides(battles, {})
    assert [waiting[i].status for i in (1, 2, 3, 4)] == [
        BattleStatus.PLAYABLE,
        BattleStatus.PLAYABLE,
        BattleStatus.WAITING,
        BattleStatus.WAITING,
    ]
    assert waiting[3].defender is None
    assert waiting[3].participants() == ("green",)
    won = battle_sides(battles, {2: _result(2, Outcome.SOLID, "red")})
    assert (won[3].status, won[3].defender) == (BattleStatus.PLAYABLE, "red")
    assert won[4].status is BattleStatus.PLAYABLE
    lost = battle_sides(battles, {2: _result(2, Outcome.SOLID, "blue")})
    assert (lost[3].defender, lost[4].status) == ("blue", BattleStatus.NOT_PLAYED)
    drawn = battle_sides(battles, {2: _result(2, Outcome.DRAW)})
    assert (drawn[3].defender, drawn[4].status) == ("blue", BattleStatus.NOT_PLAYED)
    final = battle_sides(battles, {}, final=True)
    assert (final[3].defender, final[4].status) == ("blue", BattleStatus.NOT_PLAYED)


def _worn_chain(defender_armies: int) -> list[Battle]:
    """Sector 1: blue defends against red, then green, then yellow, each winner (or drawn
    defender) defending the next battle, counted down by the default losses."""
    losses = Ruleset().losses
    counts = {"blue": defender_armies, "red": 2, "green": 2, "yellow": 2}
    return [
        Battle(
            id=number,
            sector="1",
            attacker=attacker,
            defender="blue",
            armies=counts,
            fortified=None,
            foc={},
            points=1000,
            module="m",
            kind="chain",
            defender_from=number - 1 if number > 1 else None,
            chain_losses=losses if number > 1 else None,
        )
        for number, attacker in enumerate(("red", "green", "yellow"), start=1)
    ]


def test_a_chain_defender_worn_out_by_draws_defends_no_more() -> None:
    two = _worn_chain(2)
    once = battle_sides(two, {1: _result(1, Outcome.BLOODY_DRAW)})
    assert (once[2].status, once[2].defender, once[2].unopposed) == (
        BattleStatus.PLAYABLE,
        "blue",
        False,
    )
    twice = battle_sides(
        two, {1: _result(1, Outcome.BLOODY_DRAW), 2: _result(2, Outcome.BLOODY_DRAW)}
    )
    assert (twice[3].status, twice[3].unopposed, twice[3].defender) == (
        BattleStatus.NOT_PLAYED,
        True,
        "blue",
    )
    quiet = battle_sides(two, {1: _result(1, Outcome.DRAW), 2: _result(2, Outcome.BLOODY_DRAW)})
    assert quiet[3].status is BattleStatus.PLAYABLE
    one = _worn_chain(1)
    gone = battle_sides(one, {1: _result(1, Outcome.BLOODY_DRAW)})
    assert (gone[2].status, gone[2].unopposed) == (BattleStatus.NOT_PLAYED, True)
    assert (gone[3].status, gone[3].defender) == (BattleStatus.PLAYABLE, "green")
    winner = battle_sides(one, {1: _result(1, Outcome.SOLID, "red")})
    assert (winner[2].status, winner[2].defender) == (BattleStatus.PLAYABLE, "red")
    unreported = battle_sides(one, {}, final=True)
    assert (unreported[2].status, unreported[2].defender) == (BattleStatus.PLAYABLE, "blue")
    with pytest.raises(ResultsError) as refused:
        check_results(one, [_result(1, Outcome.BLOODY_DRAW), _result(2, Outcome.DRAW)])
    assert [p.code for p in refused.value.problems] == [ResultProblemCode.BATTLE_NOT_PLAYED]
    without = [battle.model_copy(update={"chain_losses": None}) for battle in one]
    assert battle_sides(without, {1: _result(1, Outcome.BLOODY_DRAW)})[2].status is (
        BattleStatus.PLAYABLE
    )
    with pytest.raises(ValidationError):
        Battle.model_validate({**one[1].model_dump(), "id": 1, "defender_from": None})


def test_results_are_checked_against_the_chain_and_the_module() -> None:
    game = arena_game()
    battles = plan_battles(game, START, ORDERS, SEEDS).battles
    with pytest.raises(ResultsError) as refused:
        check_results(
            battles,
            [
                _result(2, Outcome.SOLID, "blue"),
                _result(3, Outcome.SOLID, "red"),
                _result(4, Outcome.DRAW),
                BattleResult(battle=1, outcome=Outcome.DRAW, modules={ARENA: {"note": 3}}),
            ],
            game,
        )
    assert [(p.code, p.battle, p.side) for p in refused.value.problems] == [
        (ResultProblemCode.WINNER_NOT_IN_BATTLE, 3, "red"),
        (ResultProblemCode.BATTLE_NOT_PLAYED, 4, None),
        (ResultProblemCode.MODULE_RESULT, 1, None),
    ]
    assert refused.value.problems[2].detail == "arena: a note, please"
    with pytest.raises(ResultsError) as unknown:
        check_results(battles, [BattleResult(battle=1, outcome=Outcome.DRAW, modules={"x": 1})])
    assert unknown.value.problems[0].code is ResultProblemCode.UNKNOWN_MODULE
    check_results(
        battles,
        [BattleResult(battle=1, outcome=Outcome.DRAW, modules={ARENA: {"note": "fine"}})],
        game,
    )


# ---- resolution ---------------------------------------------------------------------------------


def test_resolution_runs_every_hook() -> None:
    game = arena_game(toll=1)
    results = [
        _result(1, Outcome.SOLID, "blue"),
        _result(2, Outcome.CRUSHING, "red"),
        _result(3, Outcome.SOLID, "green"),
        _result(4, Outcome.SLAUGHTER, "red"),
    ]
    late = {
        "red": [ModuleOrder(module=ARENA, data={"cheer": 2})],
        "blue": [ModuleOrder(module=ARENA, data={"cheer": 9})],
        "ghost": [ModuleOrder(module=ARENA, data={"cheer": 2})],
    }
    resolution = resolve_turn(game, START, ORDERS, results, SEEDS, late)
    report = resolution.report
    assert report.unplayed == ()
    assert report.late == {"red": (ModuleOrder(module=ARENA, data={"cheer": 2}),)}
    assert [(r.side, r.rule, r.params.get("rule")) for r in report.late_rejected] == [
        ("blue", OrderRule.MODULE_RULE, "no_such_battle"),
        ("ghost", OrderRule.SIDE_NOT_IN_PLAY, None),
    ]
    # blue loses 2 in 1 (#2) and 3 in 1 (#4's loss sector is blue's first sector, 1); red 1 toll
    # in 1 and 1 for #3 (green beat red, the winner of #2, in 1); green 1 for #1.
    casualties = {(c.sector, c.side): (c.declared, c.lost) for c in report.casualties}
    assert casualties == {
        ("1", "green"): (1, 1),
        ("1", "blue"): (5, 3),
        ("1", "red"): (2, 2),
    }
    assert [(m.side, m.sector, m.armies, m.reason) for m in report.module_losses] == [
        ("red", "1", 1, "arena toll")
    ]
    assert "arena toll: red -1 in 1" in report.log[0]
    assert report.log[3] == "4. Replenishment: none in an arena campaign."
    assert all(gain.reason != Step.REPLENISHMENT.value for gain in report.gains)
    assert (report.winner, report.victory, report.game_over) == ("green", "arena", True)
    assert report.modules == {ARENA: {"tolls": 1}}
    assert [r.label for r in report.rolls] == ["t2/arena/1/red"]
    assert resolution.state.modules == START.modules


def test_unplayed_chain_battles_cost_nothing() -> None:
    results = [_result(2, Outcome.SOLID, "blue")]
    report = resolve_turn(arena_game(toll=0), START, ORDERS, results, SEEDS).report
    assert report.unplayed == (4,)
    assert report.unreported == (1, 3)
    assert [r.battle for r in report.results] == [1, 2, 3]
    assert "battle 4 in 1: not played" in report.log[0]
    assert ("1", "red") in {(c.sector, c.side) for c in report.casualties}


def test_late_orders_are_listed_and_checked() -> None:
    game = arena_game()
    plan = plan_battles(game, START, ORDERS, SEEDS)
    options = legal_late_orders(game, START, plan, "red")
    assert options == {
        ARENA: tuple(ModuleOrder(module=ARENA, data={"cheer": i}) for i in range(1, 5))
    }
    kept, refused = accept_late_orders(game, START, plan, "red", options[ARENA][:2])
    assert kept == options[ARENA][:1]
    assert refused[0].params["rule"] == "one_cheer"
    assert legal_late_orders(game, START, plan, "red", kept) == {ARENA: ()}
    assert legal_late_orders(game, START, plan, "ghost") == {ARENA: ()}
    unknown, why = accept_late_orders(
        game, START, plan, "red", (ModuleOrder(module="siege", data={}),)
    )
    assert unknown == ()
    assert why[0].rule is OrderRule.UNKNOWN_MODULE


class _Usurper(RulesModule):
    name = "usurper"

    def hooks(self) -> Sequence[StepHook]:
        return (StepHook(anchor=Step.VICTORY, when="after", run=self._crown),)

    def _crown(self, work: TurnWork) -> None:
        work.winner = work.start.sides()[-1]


def test_a_victory_hook_may_not_overrule_the_core() -> None:
    game = Game.create(PLANET, Ruleset(modules=("usurper",), sectors_to_win=1), [_Usurper()])
    state = CampaignState(turn=1, armies={"red": {"1": 4}, "blue": {"2": 3}})
    with pytest.raises(ModuleContractError, match="winner the core named"):
        resolve_turn(game, state, {})
    lone = CampaignState(turn=1, armies={"red": {"1": 1}, "blue": {"1": 1}})
    crowned = resolve_turn(
        Game.create(PLANET, Ruleset(modules=("usurper",)), [_Usurper()]), lone, {}
    )
    assert crowned.report.winner == "blue"


class _Thief(RulesModule):
    name = "thief"

    def hooks(self) -> Sequence[StepHook]:
        return (StepHook(anchor=Step.ARRIVALS, when="after", run=self._steal),)

    def _steal(self, work: TurnWork) -> None:
        work.lose("red", "1", 5, "thief")
        work.lose("red", "1", 1, "thief")


def test_a_loss_after_the_losses_step_applies_at_once() -> None:
    game = Game.create(PLANET, Ruleset(modules=("thief",)), [_Thief()])
    state = CampaignState(turn=1, armies={"red": {"1": 3, "2": 1}, "blue": {"3": 3}})
    report = resolve_turn(game, state, {}).report
    assert [(c.side, c.declared, c.lost) for c in report.casualties] == [
        ("red", 5, 3),
        ("red", 1, 0),
    ]
    with pytest.raises(ModuleContractError):
        resolve_turn(
            Game.create(PLANET, Ruleset(modules=("thief",)), [_Thief()]),
            CampaignState(turn=1, armies={"blue": {"3": 3}, "green": {"4": 1}}),
            {},
        )
