"""``siege``, "Midnight Siege" (seed 000; MODULES.md S): fortification and occult tokens
assaulted by strength plus a die, guards joining within range as chains of table battles,
occult cards, an eight-state weather track and victory points for rewards."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue

from rules.battles import Battle, BattlePlan, PlanWork
from rules.dice import Dice
from rules.game import CoreOrder, DeploymentChoice, Game, RulesModule, Step, StepHook
from rules.maps import CampaignMap, MapProblem, MapProblemCode
from rules.modules.siege import legal, plan, resolve, validate
from rules.modules.siege.orders import SiegeRule, module_order
from rules.modules.siege.settings import (
    DEFAULT_STRENGTH,
    TOKEN_KINDS,
    WEATHER_STATES,
    SiegeSettings,
    TokenSpec,
)
from rules.modules.siege.state import NAME, SiegeState, Token, load_in, upgrade
from rules.orders import ModuleOrder, Rejection, SideOrders
from rules.state import CampaignState, SideId


class SiegeModule(RulesModule):
    """The ``siege`` rule module."""

    name = NAME
    Settings = SiegeSettings
    uses_dice = True

    def check_map(self, game: Game) -> Sequence[MapProblem]:
        settings = validate.settings_of(game)
        problems: list[MapProblem] = []

        def bad(detail: str, sector: str | None = None, other: str | None = None) -> None:
            problems.append(
                MapProblem(
                    code=MapProblemCode.MODULE_RULE,
                    sector=sector,
                    other=other,
                    detail=f"{NAME}: {detail}",
                )
            )

        for sector in settings.weather_control or ():
            if sector not in game.map.by_id:
                bad(f"weather_control names sector {sector}, which is not on the map", sector)
        replaceable = {feature.id for feature in game.map.features_of(*TOKEN_KINDS)}
        seen = {feature.id for feature in game.map.features} - replaceable
        for spec in settings.tokens:
            if spec.sector not in game.map.by_id:
                bad(
                    f"token {spec.id} stands in sector {spec.sector}, not on the map",
                    spec.sector,
                    spec.id,
                )
            if spec.id in seen:
                bad(f"token id {spec.id} is used twice", other=spec.id)
            seen.add(spec.id)
        replaced = {spec.id for spec in settings.tokens}
        for feature in game.map.features_of(*TOKEN_KINDS):
            if feature.id in replaced:
                continue
            if feature.strength is not None and feature.strength < 1:
                bad(f"token {feature.id} needs a strength of at least 1", other=feature.id)
        return problems

    def initial_state(self, game: Game, choice: JsonValue = None) -> JsonValue:
        weather = choice.get("weather") if isinstance(choice, dict) else None
        return SiegeState(
            weather=weather if isinstance(weather, int) else None,
            tokens=tokens_at_start(game),
            vp={},
        ).as_json()

    def pending_choice(self, game: Game, state: CampaignState) -> DeploymentChoice | None:
        if load_in(game, state).weather is not None:
            return None
        sides = state.sides()
        return DeploymentChoice(
            module=NAME,
            key="weather",
            side=sides[-1] if sides else None,
            options=tuple(range(WEATHER_STATES)),
        )

    def check_choice(self, game: Game, sides: Sequence[SideId], choice: JsonValue) -> str | None:
        if not isinstance(choice, dict) or set(choice) != {"weather"}:
            return 'the choice is {"weather": 0..7}'
        weather = choice["weather"]
        if isinstance(weather, bool) or not isinstance(weather, int):
            return "the weather is a state number, 0 to 7"
        if not 0 <= weather < WEATHER_STATES:
            return f"there is no weather state {weather}: 0 to 7"
        return None

    def upgrade(self, data: JsonValue) -> JsonValue:
        return upgrade(data)

    def begin_turn(self, game: Game, state: CampaignState, dice: Dice) -> JsonValue:
        return state.modules.get(NAME)

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

    def check_core_order(
        self,
        game: Game,
        state: CampaignState,
        side: SideId,
        order: CoreOrder,
        current: SideOrders,
    ) -> Rejection | None:
        return validate.check_core_order(game, state, side, order, current)

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
        return "siege takes no data with a battle result"

    def hooks(self) -> Sequence[StepHook]:
        return (
            StepHook(anchor=Step.LOSSES, when="before", run=resolve.before_losses),
            StepHook(anchor=Step.LOSSES, when="after", run=resolve.after_losses),
        )

    def describe_rejection(self, rejection: Rejection) -> str | None:
        return describe_rule(rejection.params)


def tokens_at_start(game: Game) -> tuple[Token, ...]:
    """The tokens at deployment: the map's features (a GM's token with a feature's id stands in
    its place instead: the wizard's strength and starting holder), then the GM's placed tokens."""
    return start_tokens(game.map, game.settings_of(NAME, SiegeSettings))


def start_tokens(campaign_map: CampaignMap, settings: SiegeSettings) -> tuple[Token, ...]:
    """:func:`tokens_at_start` of a map and siege settings (before a game is built)."""
    specs = {spec.id: spec for spec in settings.tokens}
    tokens = [
        _from_spec(specs.pop(feature.id))
        if feature.id in specs
        else Token(
            id=feature.id,
            kind="fortification" if feature.kind == "fortification" else "occult",
            sector=feature.sector,
            strength=max(1, feature.strength if feature.strength is not None else DEFAULT_STRENGTH),
            name=feature.name,
            names=dict(feature.names),
            controller=feature.owner if feature.kind == "occult" else None,
        )
        for feature in campaign_map.features_of(*TOKEN_KINDS)
    ]
    tokens.extend(_from_spec(spec) for spec in specs.values())
    return tuple(tokens)


def _from_spec(spec: TokenSpec) -> Token:
    return Token(
        id=spec.id,
        kind=spec.kind,
        sector=spec.sector,
        strength=spec.strength,
        name=spec.name,
        names=dict(spec.names),
        controller=spec.owner if spec.kind == "occult" else None,
    )


def describe_rule(params: dict[str, str | int]) -> str:
    """English text for a siege rejection's parameters (the bot words them itself)."""
    p = params
    token, sector, source = p.get("token"), p.get("sector"), p.get("from")
    texts = {
        SiegeRule.BAD_ORDER: f"not a siege order: {p.get('detail')}",
        SiegeRule.NOT_A_STORMER: "only stormers assault tokens",
        SiegeRule.NOT_A_DEFENDER: "only defenders guard tokens",
        SiegeRule.UNKNOWN_TOKEN: f"there is no standing token {token}",
        SiegeRule.TOKEN_NOT_IN_SECTOR: (
            f"token {token} stands in sector {p.get('token_sector')}, not in {sector}"
        ),
        SiegeRule.OWN_TOKEN: f"this side already controls {token}",
        SiegeRule.NO_FORCE: f"no armies of this side in sector {sector} at the start of the turn",
        SiegeRule.SECTOR_HAS_ORDER: (
            f"sector {sector} already has an order (a move, attacks, an assault or a steer): "
            "give it a new one to replace it"
        ),
        SiegeRule.BAD_REWARD: f"{token} is an occult token: its reward is control, not weather",
        SiegeRule.OUT_OF_RANGE: (
            f"sector {source} is {p.get('distance')} steps from {token}: "
            f"guards stand at most {p.get('range')} away"
        ),
        SiegeRule.GUARD_FROM_MOVING: f"armies move out of sector {source}, which guards {token}",
        SiegeRule.GUARD_FROM_STEERING: (
            f"the force in sector {source} steers the weather, so it cannot guard {token}"
        ),
        SiegeRule.SECOND_GUARD: f"this side already guards {token}",
        SiegeRule.GUARD_OWN_ASSAULT: f"this side assaults {token}: it cannot also guard it",
        SiegeRule.NOT_WEATHER_CONTROL: f"sector {sector} does not control the weather",
        SiegeRule.STEER_LIMIT: f"at most {p.get('limit')} weather steps a turn",
        SiegeRule.NOT_YOUR_CARD: f"this side does not hold the card of {token}",
        SiegeRule.CARD_TAPPED: f"the card of {token} is tapped until the end of the turn",
        SiegeRule.SECOND_CARD_IN_WINDOW: (
            f"one card per window: {p.get('token')} is already played {p.get('window')}"
        ),
        SiegeRule.WRONG_WINDOW: f"only cards played {p.get('window')} can be given now",
    }
    rule = str(p.get("rule", ""))
    known = {member.value: member for member in SiegeRule}
    return texts[known[rule]] if rule in known else rule
