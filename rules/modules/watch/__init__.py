"""Rule module ``watch`` ("Night Watch", seed 003; MODULES.md W1-W9).

The bot uses :class:`WatchModule` through ``rules.modules.BUILTIN_MODULES``, builds orders with
:func:`hero_move` and :func:`duel_step`, reads the state with :func:`load` and shows it only
through :func:`public_view` (hands are secret), orders heroes with :func:`initiative_order`,
reads the list's duels with :func:`duels_of`, offers step choices from :func:`step_options`,
and applies the GM's changes with :func:`move_npc`, :func:`add_hero` and :func:`adjust_card`.
"""

from rules.modules.watch.adjust import (
    WatchAdjustCode,
    WatchAdjustmentError,
    WatchChange,
    add_hero,
    adjust_card,
    apply_change,
    earliest_entry,
    move_npc,
    npc_destinations,
    played_cards,
)
from rules.modules.watch.deal import deal_label
from rules.modules.watch.legal import StepOptions, step_options
from rules.modules.watch.module import WatchModule, describe_rule, hero_side_problems
from rules.modules.watch.orders import WatchRule, duel_step, hero_move, without_hero_move
from rules.modules.watch.plan import Duel, duel_at, duels_of, positions_of
from rules.modules.watch.settings import (
    DEFAULT_NPC_NAME,
    DEFAULT_SPELL_DECK,
    HeroSpec,
    NpcSpec,
    WatchSettings,
)
from rules.modules.watch.state import (
    NAME,
    Card,
    CardModifier,
    Hero,
    Npc,
    WatchState,
    hand_of,
    initiative_order,
    load,
    parse_card,
    public_view,
)

__all__ = [
    "DEFAULT_NPC_NAME",
    "DEFAULT_SPELL_DECK",
    "NAME",
    "Card",
    "CardModifier",
    "Duel",
    "Hero",
    "HeroSpec",
    "Npc",
    "NpcSpec",
    "StepOptions",
    "WatchAdjustCode",
    "WatchAdjustmentError",
    "WatchChange",
    "WatchModule",
    "WatchRule",
    "WatchSettings",
    "WatchState",
    "add_hero",
    "adjust_card",
    "apply_change",
    "deal_label",
    "describe_rule",
    "duel_at",
    "duel_step",
    "duels_of",
    "earliest_entry",
    "hand_of",
    "hero_move",
    "hero_side_problems",
    "initiative_order",
    "load",
    "move_npc",
    "npc_destinations",
    "parse_card",
    "played_cards",
    "positions_of",
    "public_view",
    "step_options",
    "without_hero_move",
]
