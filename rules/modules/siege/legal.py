"""Every ``siege`` order a side may give now (the bot's buttons): candidates are built from the
state and kept only when :mod:`rules.modules.siege.validate` accepts them, so the listing and
validation cannot disagree."""

from __future__ import annotations

from typing import Literal

from rules.battles import BattlePlan
from rules.game import Game
from rules.modules.siege.orders import assault, guard, play_card, steer
from rules.modules.siege.state import load_in
from rules.modules.siege.validate import (
    settings_of,
    validate_late_order,
    validate_order,
    weather_control,
)
from rules.orders import ModuleOrder, SideOrders
from rules.state import CampaignState, SideId


def legal_options(
    game: Game, state: CampaignState, side: SideId, current: SideOrders
) -> tuple[ModuleOrder, ...]:
    """Assaults (sector map order, tokens in state order, ``vp`` before ``weather``), guards,
    steers and "before" cards ``side`` may add to ``current``."""
    if side not in state.armies:
        return ()
    siege = load_in(game, state)
    held = [sector for sector in game.map.sector_ids() if state.armies_of(side, sector) > 0]
    candidates: list[ModuleOrder] = []
    for sector in held:
        for token in siege.tokens:
            if token.sector != sector:
                continue
            rewards: tuple[Literal["vp", "weather"], ...] = (
                ("vp", "weather") if token.kind == "fortification" else ("vp",)
            )
            candidates.extend(assault(sector, token.id, reward) for reward in rewards)
    reach = settings_of(game).guard_range
    for token in siege.tokens:
        candidates.extend(
            guard(token.id, sector)
            for sector in held
            if game.map.distance(sector, token.sector) <= reach
        )
    candidates.extend(steer(sector) for sector in weather_control(game) if sector in held)
    candidates.extend(
        play_card(token.id, "before") for token in siege.tokens if token.controller == side
    )
    return tuple(
        order for order in candidates if validate_order(game, state, side, order, current) is None
    )


def legal_late_options(
    game: Game,
    state: CampaignState,
    plan: BattlePlan,
    side: SideId,
    current: tuple[ModuleOrder, ...],
) -> tuple[ModuleOrder, ...]:
    """The "after" cards ``side`` may play now."""
    if side not in state.armies:
        return ()
    siege = load_in(game, state)
    candidates = [
        play_card(token.id, "after") for token in siege.tokens if token.controller == side
    ]
    return tuple(
        order
        for order in candidates
        if validate_late_order(game, state, plan, side, order, current) is None
    )
