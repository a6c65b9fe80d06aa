"""The built-in rule modules (RULES.md section 5, MODULES.md): each is a package here, and the
core never names one. Callers hand :data:`BUILTIN_MODULES` to :meth:`rules.Game.create`."""

from rules.game import RulesModule
from rules.modules.contact import ContactModule
from rules.modules.siege import SiegeModule
from rules.modules.watch import WatchModule

BUILTIN_MODULES: tuple[RulesModule, ...] = (SiegeModule(), ContactModule(), WatchModule())


def module_maps() -> dict[str, str]:
    """Maps made for a registered module (map name: module), shipped like the core's and usable
    by any campaign (``night-demo``: the Watches' hub map); read from :data:`BUILTIN_MODULES`
    when called, so a module registered later (one the tests add) is in it."""
    return {shipped: module.name for module in BUILTIN_MODULES for shipped in module.maps}


__all__ = ["BUILTIN_MODULES", "module_maps"]
