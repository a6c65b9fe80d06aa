"""Rule module ``contact`` (moving into contact, seed 001; MODULES.md C1-C12).

The bot uses :class:`ContactModule` through ``rules.modules.BUILTIN_MODULES``, builds orders
with :func:`transport`, :func:`yield_sector` and :func:`retreat_to` (moves are the core's, several
from one sector), puts the GM's repair of defences in an edit with :func:`defences_edit`, reads
the battle list's :class:`ContactPlan`, the summary's :class:`ContactReport` and the module's
state with :func:`load`.
"""

from rules.modules.contact.adjust import DefencesEdit, DefencesSet, defences_edit
from rules.modules.contact.module import ContactModule, describe_rule
from rules.modules.contact.orders import ContactRule, retreat_to, transport, yield_sector
from rules.modules.contact.plan import (
    Chain,
    ContactPlan,
    DeckState,
    GroupMove,
    Retreat,
    Ruin,
    ZombieFight,
    turn_order,
)
from rules.modules.contact.resolve import ContactReport, RuinOutcome, Unopposed, VpGain
from rules.modules.contact.settings import DEFAULT_ZOMBIE_DECK, ContactSettings
from rules.modules.contact.state import NAME, ContactState, Defences, load

__all__ = [
    "DEFAULT_ZOMBIE_DECK",
    "NAME",
    "Chain",
    "ContactModule",
    "ContactPlan",
    "ContactReport",
    "ContactRule",
    "ContactSettings",
    "ContactState",
    "DeckState",
    "Defences",
    "DefencesEdit",
    "DefencesSet",
    "GroupMove",
    "Retreat",
    "Ruin",
    "RuinOutcome",
    "Unopposed",
    "VpGain",
    "ZombieFight",
    "defences_edit",
    "describe_rule",
    "load",
    "retreat_to",
    "transport",
    "turn_order",
    "yield_sector",
]
