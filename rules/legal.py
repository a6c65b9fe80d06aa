"""Every order a side may give now: the bot builds its buttons from this listing.

The listing is computed against the side's ``current`` orders exactly as
:func:`rules.validation.validate_order` checks them, so an order is in the listing if and only if
validation accepts it (a property test holds the two together). To offer "change this sector's
order", list against ``current.without_sector(sector)``, as :func:`rules.validation.enter_order`
validates a move; for "add an attack", against ``current.without_move(sector)``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rules.game import Game
from rules.maps import SectorId
from rules.orders import SideOrders
from rules.state import CampaignState, SideId


class MoveOption(BaseModel):
    """Armies may leave for any of ``destinations``, between ``min_count`` and ``max_count``."""

    model_config = ConfigDict(frozen=True)

    destinations: tuple[SectorId, ...]
    min_count: int
    max_count: int


class AttackOption(BaseModel):
    """``remaining`` more attacks may be declared here (``limit`` in all) on any of ``targets``."""

    model_config = ConfigDict(frozen=True)

    targets: tuple[SideId, ...]
    limit: int
    declared: int
    remaining: int


class SectorOptions(BaseModel):
    """What the side may order in one of its sectors; ``move``/``attack`` are ``None`` if barred."""

    model_config = ConfigDict(frozen=True)

    sector: SectorId
    armies: int
    move: MoveOption | None
    attack: AttackOption | None
    fortify: bool = True


class LegalOrders(BaseModel):
    """The side's options in each of its sectors (map order) and its reinforcement choices."""

    model_config = ConfigDict(frozen=True)

    side: SideId
    sectors: tuple[SectorOptions, ...]
    reinforce: tuple[SectorId, ...]

    def for_sector(self, sector: SectorId) -> SectorOptions | None:
        """Options in ``sector``, or ``None`` if the side has no armies there."""
        return next((options for options in self.sectors if options.sector == sector), None)


def legal_orders(
    game: Game, state: CampaignState, side: SideId, current: SideOrders | None = None
) -> LegalOrders:
    """Every order ``side`` may add to ``current`` in ``state``."""
    current = current or SideOrders()
    holdings = state.armies.get(side, {})
    sectors: list[SectorOptions] = []
    for sector in game.map.sectors:
        armies = holdings.get(sector.id, 0)
        if armies == 0:
            continue
        sectors.append(
            SectorOptions(
                sector=sector.id,
                armies=armies,
                move=_move_option(game, sector.id, armies, current),
                attack=_attack_option(game, state, side, sector.id, armies, current),
            )
        )
    return LegalOrders(
        side=side,
        sectors=tuple(sectors),
        reinforce=tuple(options.sector for options in sectors),
    )


def _move_option(
    game: Game, sector: SectorId, armies: int, current: SideOrders
) -> MoveOption | None:
    if armies < 2 or current.move_from(sector) is not None or current.attacks_in(sector):
        return None
    destinations = tuple(
        other.id for other in game.map.sectors if game.map.adjacent(sector, other.id)
    )
    if not destinations:
        return None
    return MoveOption(destinations=destinations, min_count=1, max_count=armies - 1)


def _attack_option(
    game: Game,
    state: CampaignState,
    side: SideId,
    sector: SectorId,
    armies: int,
    current: SideOrders,
) -> AttackOption | None:
    if current.move_from(sector) is not None:
        return None
    targets = tuple(other for other in state.occupants(sector) if other != side)
    limit = game.ruleset.attack_limit(armies)
    declared = len(current.attacks_in(sector))
    if not targets or declared >= limit:
        return None
    return AttackOption(targets=targets, limit=limit, declared=declared, remaining=limit - declared)
