"""The rule modules' storage, as ``rules/modules/`` holds their rules: what every module keeps
(:mod:`storage.modules.shared`: turn seeds, table rolls, a turn start's adjustments) and each
module's own records in ``storage/modules/<name>.py`` (its records, its part of the
:class:`~storage.Store` protocol and the mixin that implements it).

This is the registry, the one place in storage that names the modules: the rest of storage
imports from here, and :mod:`storage.repository` composes the store from the protocols and
mixins listed here. A module's tables come with the numbered migrations (``docs/storage.md``
lists which module owns which).
"""

from storage.modules.shared import (
    ModuleRecords,
    ModuleStore,
    adjustment_record,
    seeds_record,
    table_roll_record,
)
from storage.modules.siege import RewardClaimRecord, RewardRecords, RewardStore
from storage.modules.watch import (
    DuelCloser,
    DuelMode,
    DuelPlay,
    DuelRecords,
    DuelStep,
    DuelStepState,
    DuelStore,
    NewDuelStep,
)

__all__ = [
    "DuelCloser",
    "DuelMode",
    "DuelPlay",
    "DuelRecords",
    "DuelStep",
    "DuelStepState",
    "DuelStore",
    "ModuleRecords",
    "ModuleStore",
    "NewDuelStep",
    "RewardClaimRecord",
    "RewardRecords",
    "RewardStore",
    "adjustment_record",
    "seeds_record",
    "table_roll_record",
]
