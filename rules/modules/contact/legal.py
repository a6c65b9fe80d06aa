"""Every ``contact`` order a side may add now (MODULES.md C3), each accepted by validation."""

from __future__ import annotations

from rules.game import Game
from rules.maps import SectorId
from rules.modules.contact.orders import retreat_to, transport, yield_sector
from rules.modules.contact.validate import settings_of, validate_order
from rules.orders import ModuleOrder, SideOrders
from rules.state import CampaignState, SideId


def _paths(game: Game, source: SectorId, length: int) -> list[tuple[SectorId, ...]]:
    paths: list[tuple[SectorId, ...]] = []
    frontier: list[tuple[SectorId, ...]] = [()]
    for _ in range(length):
        grown: list[tuple[SectorId, ...]] = []
        for path in frontier:
            last = path[-1] if path else source
            for sector in game.map.sector_ids():
                if game.map.adjacent(last, sector):
                    grown.append((*path, sector))
        paths.extend(grown)
        frontier = grown
    return paths


def legal_options(
    game: Game, state: CampaignState, side: SideId, current: SideOrders
) -> tuple[ModuleOrder, ...]:
    """Transports (every path and count), yields and single-destination retreat preferences
    the side may add to ``current``; a longer preference list is checked when given."""
    settings = settings_of(game)
    found: list[ModuleOrder] = []
    holdings = state.armies.get(side, {})
    for sector in game.map.sector_ids():
        armies = holdings.get(sector, 0)
        if armies == 0:
            continue
        for path in _paths(game, sector, settings.transport_range):
            for count in range(1, min(armies - 1, settings.transport_capacity) + 1):
                found.append(transport(sector, path, count))
        found.append(yield_sector(sector))
    for sector in game.map.sector_ids():
        for other in game.map.sector_ids():
            if game.map.adjacent(sector, other):
                found.append(retreat_to(sector, (other,)))
    return tuple(
        order for order in found if validate_order(game, state, side, order, current) is None
    )
