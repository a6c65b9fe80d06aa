"""``watch``, "Night Watch" (seed 003; MODULES.md W): heroes (Others) of the sides move one
location a turn through the hub, meet in duels of spell cards laid in initiative order, take
wounds and die; an NPC marker moved by the GM; hands dealt each turn from the deal seed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from pydantic import JsonValue

from rules.battles import Battle, BattlePlan, PlanWork
from rules.dice import Dice
from rules.game import Game, RulesModule, Step, StepHook
from rules.maps import MapProblem, MapProblemCode
from rules.modules.watch import deal, legal, plan, resolve, validate
from rules.modules.watch.orders import WatchRule, module_order
from rules.modules.watch.settings import WatchSettings
from rules.modules.watch.state import NAME, Hero, Npc, WatchState, public_view, upgrade
from rules.orders import ModuleOrder, Rejection, SideOrders
from rules.state import CampaignState, SideId

if TYPE_CHECKING:
    from rules.render import MapFigures


class WatchModule(RulesModule):
    """The ``watch`` rule module."""

    name = NAME
    Settings = WatchSettings
    uses_dice = True
    maps = ("night-demo",)

    def public_state(self, data: JsonValue, side: SideId | None) -> JsonValue:
        return public_view(data, side)

    def check_map(self, game: Game) -> Sequence[MapProblem]:
        settings = validate.settings_of(game)
        problems: list[MapProblem] = []
        for hero in settings.heroes:
            if hero.start not in game.map.by_id:
                problems.append(
                    MapProblem(
                        code=MapProblemCode.MODULE_RULE,
                        sector=hero.start,
                        other=hero.id,
                        detail=f"{NAME}: hero {hero.id} starts in {hero.start}, not on the map",
                    )
                )
        if settings.npc is not None and settings.npc.start not in game.map.by_id:
            problems.append(
                MapProblem(
                    code=MapProblemCode.MODULE_RULE,
                    sector=settings.npc.start,
                    detail=f"{NAME}: the NPC starts in {settings.npc.start}, not on the map",
                )
            )
        return problems

    def initial_state(self, game: Game, choice: JsonValue = None) -> JsonValue:
        settings = validate.settings_of(game)
        return WatchState(
            heroes=tuple(Hero.from_spec(spec) for spec in settings.heroes),
            npc=None if settings.npc is None else Npc.from_spec(settings.npc),
        ).as_json()

    def upgrade(self, data: JsonValue) -> JsonValue:
        return upgrade(data)

    def begin_turn(self, game: Game, state: CampaignState, dice: Dice) -> JsonValue:
        return deal.begin_turn(game, state, dice).as_json()

    def parse_order(self, data: dict[str, JsonValue]) -> ModuleOrder:
        return module_order(data)

    def validate_order(
        self,
        game: Game,
        state: CampaignState,
        side: SideId,
        order: ModuleOrder,
        current: SideOrders,
    ) -> Rejection | None:
        return validate.validate_order(game, state, side, order, current)

    def legal_options(
        self, game: Game, state: CampaignState, side: SideId, current: SideOrders
    ) -> tuple[ModuleOrder, ...]:
        return legal.legal_options(game, state, side, current)

    def plan(self, work: PlanWork) -> None:
        plan.plan(work)

    def validate_late_order(
        self,
        game: Game,
        state: CampaignState,
        plan: BattlePlan,
        side: SideId,
        order: ModuleOrder,
        current: tuple[ModuleOrder, ...],
    ) -> Rejection | None:
        return validate.validate_late_order(game, state, plan, side, order, current)

    def legal_late_options(
        self,
        game: Game,
        state: CampaignState,
        plan: BattlePlan,
        side: SideId,
        current: tuple[ModuleOrder, ...],
    ) -> tuple[ModuleOrder, ...]:
        return legal.legal_late_options(game, state, plan, side, current)

    def check_result(self, battle: Battle, data: JsonValue) -> str | None:
        return "watch takes no data with a battle result"

    def hooks(self) -> Sequence[StepHook]:
        return (
            StepHook(anchor=Step.ARRIVALS, when="after", run=resolve.apply_duels),
            StepHook(anchor=Step.VICTORY, when="before", run=resolve.lose_heroes_of_sides_out),
            StepHook(anchor=Step.VICTORY, when="after", run=resolve.hero_victory),
        )

    def map_figures(
        self,
        game: Game,
        data: JsonValue,
        turn: int,
        *,
        plan: JsonValue = None,
        notes: JsonValue = None,
    ) -> MapFigures:
        wounds_to_kill = validate.settings_of(game).wounds_to_kill
        # Pillow only for pictures: the rules load without it.
        from rules.modules.watch.figures import killed_in, map_figures  # noqa: PLC0415

        return map_figures(data, turn, wounds_to_kill, plan=plan, killed=killed_in(notes))

    def describe_rejection(self, rejection: Rejection) -> str | None:
        return describe_rule(rejection.params)


def hero_side_problems(settings: WatchSettings, sides: Iterable[SideId]) -> list[str]:
    """Heroes listed for sides not among ``sides`` (the campaign's), as English texts; the
    setup checks this before deployment, since a game does not know its sides."""
    known = set(sides)
    return [
        f"hero {hero.id} is listed for side {hero.side}, which is not in the campaign"
        for hero in settings.heroes
        if hero.side not in known
    ]


def describe_rule(params: dict[str, str | int]) -> str:
    """English text for a watch rejection's parameters (the bot words them itself)."""
    p = params
    hero = p.get("hero")
    texts = {
        WatchRule.BAD_ORDER: f"not a watch order: {p.get('detail')}",
        WatchRule.UNKNOWN_HERO: f"there is no hero {hero}",
        WatchRule.NOT_YOUR_HERO: f"hero {hero} belongs to another side",
        WatchRule.HERO_DEAD: f"hero {hero} is dead",
        WatchRule.HERO_NOT_IN_PLAY: f"hero {hero} enters the game on turn {p.get('enters_turn')}",
        WatchRule.HERO_MOVE_NOT_ADJACENT: (
            f"hero {hero} stands in {p.get('sector')}: {p.get('to')} is not next to it "
            "(one location a turn, through the hub)"
        ),
        WatchRule.NOT_IN_DUEL: f"hero {hero} fights no duel this turn",
        WatchRule.CARD_NOT_IN_HAND: f"hero {hero} holds no (more) {p.get('card')}",
        WatchRule.TARGET_NOT_IN_SECTOR: (
            f"{p.get('target')} is not a hero of the duel in {p.get('sector')}"
        ),
        WatchRule.NOT_YOUR_STEP: f"it is not the step of hero {hero} yet",
        WatchRule.STEP_ALREADY_PLAYED: f"hero {hero} has played its step already",
    }
    rule = str(p.get("rule", ""))
    known = {member.value: member for member in WatchRule}
    return texts[known[rule]] if rule in known else rule
