"""The built-in rule modules (RULES.md section 5, MODULES.md): each is a package here, and the
core never names one. Callers hand :data:`BUILTIN_MODULES` to :meth:`rules.Game.create`."""

from rules.game import RulesModule
from rules.modules.contact import ContactModule
from rules.modules.siege import SiegeModule
from rules.modules.watch import WatchModule

BUILTIN_MODULES: tuple[RulesModule, ...] = (SiegeModule(), ContactModule(), WatchModule())

__all__ = ["BUILTIN_MODULES"]
