"""Strategium's rules core: a pure adjudicator of the planetary campaign (RULES.md).

No Telegram, no database, no clock: every function here is a pure function of its arguments.
"""

from rules.battles import Battle, BattlePlan, BattleResult, plan_battles
from rules.deployment import (
    DeploymentError,
    DeploymentProblem,
    check_deployment,
    default_deployment,
    deployed_state,
)
from rules.game import Game, RulesModule, StateOffMapError, Step, StepHook, UnknownModuleError
from rules.legal import AttackOption, LegalOrders, MoveOption, SectorOptions, legal_orders
from rules.maps import (
    BUILTIN_MAPS,
    CampaignMap,
    MapError,
    MapProblem,
    MapProblemCode,
    Sector,
    builtin_map,
    load_map_file,
    parse_map,
    parse_map_toml,
)
from rules.orders import (
    Attack,
    Fortify,
    ModuleOrder,
    Move,
    Order,
    OrderRule,
    Reinforce,
    Rejection,
    SideOrders,
)
from rules.resolution import (
    ResultsError,
    TurnReport,
    TurnResolution,
    TurnWork,
    check_results,
    resolve_turn,
)
from rules.ruleset import FocLimits, Outcome, Ruleset
from rules.state import CampaignState, SideId
from rules.validation import accept_orders, enter_order, validate_order

__all__ = [
    "BUILTIN_MAPS",
    "Attack",
    "AttackOption",
    "Battle",
    "BattlePlan",
    "BattleResult",
    "CampaignMap",
    "CampaignState",
    "DeploymentError",
    "DeploymentProblem",
    "FocLimits",
    "Fortify",
    "Game",
    "LegalOrders",
    "MapError",
    "MapProblem",
    "MapProblemCode",
    "ModuleOrder",
    "Move",
    "MoveOption",
    "Order",
    "OrderRule",
    "Outcome",
    "Reinforce",
    "Rejection",
    "ResultsError",
    "RulesModule",
    "Ruleset",
    "Sector",
    "SectorOptions",
    "SideId",
    "SideOrders",
    "StateOffMapError",
    "Step",
    "StepHook",
    "TurnReport",
    "TurnResolution",
    "TurnWork",
    "UnknownModuleError",
    "accept_orders",
    "builtin_map",
    "check_deployment",
    "check_results",
    "default_deployment",
    "deployed_state",
    "enter_order",
    "legal_orders",
    "load_map_file",
    "parse_map",
    "parse_map_toml",
    "plan_battles",
    "resolve_turn",
    "validate_order",
]
