"""Who still has to deploy: one definition for the GM panel and the phase machine.

A side has deployed when its placement is confirmed (``ready``). The +/- screen saves every
change as an unconfirmed draft, so a draft is "not deployed": turn 1 waits for it, and the GM
may place the side (which replaces the draft).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from storage import PlacementRecord, Side
from storage.models import SideId


def sides_to_place(
    sides: Sequence[Side], placements: Mapping[SideId, PlacementRecord]
) -> list[Side]:
    """The sides, in order, with no placement or only an unconfirmed draft."""
    return [
        side for side in sides if (record := placements.get(side.id)) is None or not record.ready
    ]
