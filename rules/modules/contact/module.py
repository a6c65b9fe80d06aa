"""``contact``, moving into contact (seed 001; MODULES.md C): groups move in rounds in a
rotating turn order, stop in the first hostile sector, fight zombies outside their ground and
meet in chains of table battles; losers retreat exhausted; defences are ruined; VP can win."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import JsonValue

from rules.battles import Battle, PlanWork
from rules.game import CoreOrder, Game, RulesModule, Step, StepHook
from rules.maps import MapProblem, MapProblemCode, SectorId
from rules.modules.contact import adjust, legal, plan, resolve, validate
from rules.modules.contact.orders import ContactRule, module_order
from rules.modules.contact.settings import DEFENCES_KIND, DEFENCES_LEVELS, ContactSettings
from rules.modules.contact.state import NAME, ContactState, Defences, upgrade
from rules.orders import ModuleOrder, Rejection, SideOrders
from rules.state import CampaignState, SideId


class ContactModule(RulesModule):
    """The ``contact`` rule module."""

    name = NAME
    Settings = ContactSettings
    uses_dice = True
    several_moves_per_sector = True

    def check_map(self, game: Game) -> Sequence[MapProblem]:
        problems: list[MapProblem] = []
        seen: set[SectorId] = set()
        for feature in game.map.features_of(DEFENCES_KIND):
            detail = None
            if feature.sector in seen:
                detail = f"sector {feature.sector} has defences twice"
            elif feature.level is not None and feature.level not in DEFENCES_LEVELS:
                detail = f"defences {feature.id}: level is 1 (barricade) or 2 (blockpost)"
            seen.add(feature.sector)
            if detail is not None:
                problems.append(
                    MapProblem(
                        code=MapProblemCode.MODULE_RULE,
                        sector=feature.sector,
                        other=feature.id,
                        detail=f"{NAME}: {detail}",
                    )
                )
        for spec in validate.settings_of(game).defences:
            if spec.sector not in game.map.by_id:
                problems.append(
                    MapProblem(
                        code=MapProblemCode.MODULE_RULE,
                        sector=spec.sector,
                        detail=f"{NAME}: defences set in sector {spec.sector}, not on the map",
                    )
                )
        return problems

    def initial_state(self, game: Game, choice: JsonValue = None) -> JsonValue:
        return ContactState(defences=initial_defences(game)).as_json()

    def upgrade(self, data: JsonValue) -> JsonValue:
        return upgrade(data)

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

    def departures(self, game: Game, side: SideId, orders: SideOrders) -> Mapping[SectorId, int]:
        return validate.departures(orders)

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

    def check_result(self, battle: Battle, data: JsonValue) -> str | None:
        if not isinstance(data, dict) or set(data) - {"warlord_slain"}:
            return 'contact takes {"warlord_slain": [side, ...]} with a result'
        slain = data.get("warlord_slain", [])
        if not isinstance(slain, list) or not all(isinstance(side, str) for side in slain):
            return "warlord_slain is a list of sides"
        if len(set(slain)) != len(slain):
            return "warlord_slain names a side twice"
        possible = set(battle.armies) | {battle.attacker, battle.defender}
        strangers = [str(side) for side in slain if side not in possible]
        if strangers:
            return f"warlord_slain: {', '.join(strangers)} did not fight in battle {battle.id}"
        return None

    def hooks(self) -> Sequence[StepHook]:
        return (
            StepHook(anchor=Step.LOSSES, when="before", run=resolve.place_groups),
            StepHook(anchor=Step.ARRIVALS, when="instead", run=resolve.after_battles),
            StepHook(anchor=Step.VICTORY, when="after", run=resolve.vp_victory),
        )

    def describe_rejection(self, rejection: Rejection) -> str | None:
        return describe_rule(rejection.params)

    def edit(
        self, game: Game, state: CampaignState, data: JsonValue, sides: Sequence[SideId]
    ) -> JsonValue:
        return adjust.apply_edit(game, state, data, sides)


def initial_defences(game: Game) -> tuple[Defences, ...]:
    """The defences at the start: the map's (file order), except in the sectors the GM set,
    then the GM's (level 0: none there)."""
    specs = validate.settings_of(game).defences
    replaced = {spec.sector for spec in specs}
    found = [
        Defences(
            id=feature.id,
            sector=feature.sector,
            owner=feature.owner,
            level=2 if feature.level == 2 else 1,
        )
        for feature in game.map.features_of(DEFENCES_KIND)
        if feature.sector not in replaced
    ]
    taken = {feature.id for feature in game.map.features}
    for spec in specs:
        if spec.level == 0:
            continue
        number = 1
        while f"D{number}" in taken:
            number += 1
        taken.add(f"D{number}")
        found.append(
            Defences(id=f"D{number}", sector=spec.sector, owner=spec.owner, level=spec.level)
        )
    return tuple(found)


def describe_rule(params: dict[str, str | int]) -> str:
    """English text for a contact rejection's parameters (the bot words them itself)."""
    p = params
    sector, to = p.get("sector"), p.get("to")
    texts = {
        ContactRule.BAD_ORDER: f"not a contact order: {p.get('detail')}",
        ContactRule.UNKNOWN_SECTOR: f"there is no sector {sector}",
        ContactRule.NO_FORCE: f"no armies of this side in sector {sector} at the start of the turn",
        ContactRule.BOUND_BY_COMBAT: (
            f"another side's armies stand in sector {sector}: armies there are bound by combat "
            "and cannot leave"
        ),
        ContactRule.PATH_NOT_ADJACENT: f"sector {to} is not next to {sector}",
        ContactRule.PATH_TOO_LONG: (
            f"a transport goes at most {p.get('range')} sectors, not {p.get('length')}"
        ),
        ContactRule.TRANSPORT_LIMIT: f"transports a turn: at most {p.get('limit')}",
        ContactRule.OVER_CAPACITY: (
            f"a transport carries at most {p.get('capacity')} armies, not {p.get('count')}"
        ),
        ContactRule.EXHAUSTED_TRANSPORT: (
            f"only {p.get('fresh')} armies in sector {sector} are fresh: exhausted armies "
            "move one sector only"
        ),
        ContactRule.MOVE_COUNT_OUT_OF_RANGE: (
            f"from sector {sector} you can send {p.get('min')} to {p.get('max')} armies "
            "(one army stays)"
        ),
        ContactRule.MOVE_AND_ATTACK_IN_SECTOR: (
            f"sector {sector} has attacks and a transport: give one or the other"
        ),
        ContactRule.SECTOR_HAS_ORDER: f"sector {sector} already has another module's order",
        ContactRule.SECOND_YIELD: f"sector {sector} is already yielded",
        ContactRule.RETREAT_NOT_ADJACENT: f"sector {to} is not next to {sector}",
        ContactRule.RETREAT_REPEATED: f"sector {to} is named twice",
        ContactRule.SECOND_RETREAT_TO: f"retreats from sector {sector} already have a choice",
    }
    rule = str(p.get("rule", ""))
    known = {member.value: member for member in ContactRule}
    return texts[known[rule]] if rule in known else rule
