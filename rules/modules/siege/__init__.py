"""Rule module ``siege`` ("Midnight Siege", seed 000; MODULES.md S1-S10).

The bot uses :class:`SiegeModule` through ``rules.modules.BUILTIN_MODULES``, builds orders with
:func:`assault`, :func:`guard`, :func:`steer` and :func:`play_card`, reads the module's state
with :func:`load`, checks reward claims with :func:`check_claim`, and applies a GM's card
effects with :func:`apply_adjustment`.
"""

from rules.modules.siege.adjust import (
    Adjustment,
    AdjustmentError,
    AdjustmentProblem,
    AdjustmentProblemCode,
    ArmyChange,
    VpChange,
    apply_adjustment,
)
from rules.modules.siege.module import SiegeModule, describe_rule, start_tokens, tokens_at_start
from rules.modules.siege.orders import SiegeRule, assault, guard, play_card, steer
from rules.modules.siege.plan import PlannedAssault, PlayedCard, SiegePlan
from rules.modules.siege.resolve import AssaultOutcome, CardOutcome, SiegeReport
from rules.modules.siege.rewards import (
    CHOSEN_WITHOUT_VARIANTS,
    ClaimCheck,
    ClaimProblem,
    ClaimProblemCode,
    check_claim,
    choices_to_make,
    valid_choice,
)
from rules.modules.siege.settings import (
    DEFAULT_REWARDS,
    DEFAULT_WEATHER_STATES,
    CardText,
    RewardItem,
    RewardVariant,
    SiegeSettings,
    TokenSpec,
    WeatherState,
)
from rules.modules.siege.state import NAME, SiegeState, Token, load

__all__ = [
    "CHOSEN_WITHOUT_VARIANTS",
    "DEFAULT_REWARDS",
    "DEFAULT_WEATHER_STATES",
    "NAME",
    "Adjustment",
    "AdjustmentError",
    "AdjustmentProblem",
    "AdjustmentProblemCode",
    "ArmyChange",
    "AssaultOutcome",
    "CardOutcome",
    "CardText",
    "ClaimCheck",
    "ClaimProblem",
    "ClaimProblemCode",
    "PlannedAssault",
    "PlayedCard",
    "RewardItem",
    "RewardVariant",
    "SiegeModule",
    "SiegePlan",
    "SiegeReport",
    "SiegeRule",
    "SiegeSettings",
    "SiegeState",
    "Token",
    "TokenSpec",
    "VpChange",
    "WeatherState",
    "apply_adjustment",
    "assault",
    "check_claim",
    "choices_to_make",
    "describe_rule",
    "guard",
    "load",
    "play_card",
    "start_tokens",
    "steer",
    "tokens_at_start",
    "valid_choice",
]
