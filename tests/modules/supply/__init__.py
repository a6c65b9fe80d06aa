"""Supply, a fourth rule module written only in the tests (issue 35): at resolution, right
after the capture check (RULES.md 3.4, step 3), a side loses one army in each sector where it
has armies but does not hold it (fewer than ``capture_min_armies`` there, or an opponent there
too): its outposts are out of supply. Replenishment (step 4) follows as usual.

``rules_side`` is its rules side (:class:`SupplyModule`: a resolution step, the report's notes
and the same list as its state), ``bot_side`` its bot side (:class:`SupplyBotModule`: the
wizard's screen, the Monday summary's lines, the map's marks, ``/map``'s caption, the orders
desk's line). :func:`registered` adds both to the registries, where a
built-in module is listed, and takes them out again."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import rules.modules
from bot.modules import BOT_MODULES
from tests.modules.supply.bot_side import SupplyBotModule
from tests.modules.supply.rules_side import NAME, SupplyModule


@contextmanager
def registered() -> Iterator[None]:
    """Supply in the rules registry (``rules.modules.BUILTIN_MODULES``) and the bot's
    (:data:`bot.modules.BOT_MODULES`) while the block runs, last in both."""
    before = rules.modules.BUILTIN_MODULES
    rules.modules.BUILTIN_MODULES = (*before, SupplyModule())
    BOT_MODULES[NAME] = SupplyBotModule()
    try:
        yield
    finally:
        rules.modules.BUILTIN_MODULES = before
        del BOT_MODULES[NAME]


__all__ = ["NAME", "SupplyBotModule", "SupplyModule", "registered"]
