"""Supply's rules side: one resolution step after the capture check, reported in the notes as
``{"cut_off": [{"side": ..., "sector": ...}, ...]}`` (one army lost in each). The same list is
its state at the start of the next turn (``{"v": 1, "cut_off": [...]}``, nothing secret), where
the bot's map reads it: a map's marks come from the state (``BotModule.map_marks``)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue

from rules.game import RulesModule, Step, StepHook
from rules.resolution import TurnWork

NAME = "supply"


def out_of_supply(work: TurnWork) -> None:
    """Each side loses one army in every sector where it has armies it does not hold (the
    capture check just ran: ``work.captured``)."""
    cut_off: list[tuple[str, str]] = []
    for side, sectors in work.armies.items():
        held = set(work.captured.get(side, ()))
        for sector in work.game.map.sector_ids():
            if sectors.get(sector, 0) > 0 and sector not in held:
                work.lose(side, sector, 1, NAME)
                cut_off.append((side, sector))
    notes: list[JsonValue] = [{"side": side, "sector": sector} for side, sector in cut_off]
    work.notes[NAME] = {"cut_off": notes}
    work.modules[NAME] = {"v": 1, "cut_off": list(notes)}
    work.log.append(
        "3a. Supply: "
        + ("; ".join(f"{side} loses 1 in {sector}" for side, sector in cut_off) or "none")
        + "."
    )


class SupplyModule(RulesModule):
    """Supply behind the rules' extension point: no settings, no orders; its state is what the
    last resolution cost (none before the first)."""

    name = NAME

    def hooks(self) -> Sequence[StepHook]:
        return (StepHook(Step.CAPTURE, "after", out_of_supply),)
