"""Every order a side may give now: the bot builds its buttons from this listing.

The listing is computed against the side's ``current`` orders exactly as
:func:`rules.validation.validate_order` checks them, so an order is in the listing if and only if
validation accepts it (a property test holds the two together). To offer "change this sector's
order", list against ``current.without_sector(sector)``, as :func:`rules.validation.enter_order`
validates a move; for "add an attack", against ``current.without_move(sector)``.

Rule modules add their own orders (``LegalOrders.modules``, from each module's
``legal_options``) and may withdraw core options they would refuse (``check_core_order``): a
move destination or an attack target is listed only if no module refuses it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from rules.fields import unset
from rules.game import Game
from rules.maps import SectorId
from rules.orders import Attack, ModuleOrder, Move, Reinforce, SideOrders
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
    """The side's options in each of its sectors (map order) and its reinforcement choices.

    ``modules`` lists, by enabled module, every module order the side may add now.
    """

    model_config = ConfigDict(frozen=True)

    side: SideId
    sectors: tuple[SectorOptions, ...]
    reinforce: tuple[SectorId, ...]
    modules: dict[str, tuple[ModuleOrder, ...]] = Field(default_factory=dict, exclude_if=unset)

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
                move=_move_option(game, state, side, sector.id, armies, current),
                attack=_attack_option(game, state, side, sector.id, armies, current),
            )
        )
    if not game.modules:
        return LegalOrders(
            side=side,
            sectors=tuple(sectors),
            reinforce=tuple(options.sector for options in sectors),
        )
    return LegalOrders(
        side=side,
        sectors=tuple(sectors),
        reinforce=tuple(
            options.sector
            for options in sectors
            if _modules_allow(game, state, side, Reinforce(sector=options.sector), current)
        ),
        modules={
            module.name: module.legal_options(game, state, side, current) for module in game.modules
        },
    )


def _modules_allow(
    game: Game,
    state: CampaignState,
    side: SideId,
    order: Move | Attack | Reinforce,
    current: SideOrders,
) -> bool:
    return all(
        module.check_core_order(game, state, side, order, current) is None
        for module in game.modules
    )


def _move_option(
    game: Game,
    state: CampaignState,
    side: SideId,
    sector: SectorId,
    armies: int,
    current: SideOrders,
) -> MoveOption | None:
    several = game.several_moves()
    most = armies - 1 - (game.moving_out(side, current, sector) if several else 0)
    if (
        most < 1
        or (current.move_from(sector) is not None and not several)
        or current.attacks_in(sector)
        or current.module_order_in(sector) is not None
    ):
        return None
    destinations = tuple(
        other.id
        for other in game.map.sectors
        if game.map.adjacent(sector, other.id)
        and _modules_allow(game, state, side, Move(source=sector, to=other.id, count=1), current)
    )
    if not destinations:
        return None
    return MoveOption(destinations=destinations, min_count=1, max_count=most)


def _attack_option(
    game: Game,
    state: CampaignState,
    side: SideId,
    sector: SectorId,
    armies: int,
    current: SideOrders,
) -> AttackOption | None:
    if current.move_from(sector) is not None or current.module_order_in(sector) is not None:
        return None
    targets = tuple(
        other
        for other in state.occupants(sector)
        if other != side
        and (
            not game.modules
            or _modules_allow(game, state, side, Attack(sector=sector, target=other), current)
        )
    )
    limit = game.ruleset.attack_limit(armies)
    declared = len(current.attacks_in(sector))
    if not targets or declared >= limit:
        return None
    return AttackOption(targets=targets, limit=limit, declared=declared, remaining=limit - declared)
