"""Hypothesis strategies for games with module ``siege``: settings, tokens, orders (valid ones
from the engine's own listing, or anything a player might send), chain-respecting results and
late orders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from rules import (
    Attack,
    Battle,
    BattlePlan,
    BattleResult,
    BattleStatus,
    CampaignState,
    Game,
    ModuleOrder,
    Move,
    Outcome,
    Ruleset,
    SideOrders,
    TurnSeeds,
    battle_sides,
    enter_order,
    legal_orders,
)
from rules.modules import BUILTIN_MODULES
from rules.modules.siege import assault, guard, load, play_card, steer
from tests.rules.strategies import NOWHERE, any_side_orders, maps, states

TOKEN_IDS = ("F1", "F2", "F3", "O1", "O2", "O3")


@st.composite
def siege_settings(
    draw: st.DrawFn, sector_ids: Sequence[str], sides: Sequence[str]
) -> dict[str, Any]:
    """Overrides of siege's settings (roles, ranges, limits, weather control, card effects)."""
    roles = {
        side: draw(st.sampled_from([["stormer"], ["defender"], ["stormer", "defender"]]))
        for side in sides
        if draw(st.booleans())
    }
    return draw(
        st.fixed_dictionaries(
            {
                "weather_control": st.lists(st.sampled_from(list(sector_ids)), unique=True),
                "roles": st.just(roles),
            },
            optional={
                "strength_per_army": st.integers(min_value=1, max_value=3),
                "die": st.sampled_from([2, 6, 20]),
                "assault_loss": st.integers(min_value=0, max_value=2),
                "guard_range": st.integers(min_value=0, max_value=3),
                "weather_steps_per_turn": st.integers(min_value=0, max_value=3),
                "cards": st.dictionaries(
                    st.sampled_from(TOKEN_IDS),
                    st.sampled_from([{"effect": "weather_step"}, {"text": "GM's card"}]),
                ),
            },
        )
    )


@st.composite
def siege_tokens(draw: st.DrawFn, sector_ids: Sequence[str], sides: Sequence[str]) -> list[Any]:
    """0 to 6 tokens, fortifications and occult ones, some occult ones controlled."""
    chosen = draw(
        st.lists(st.sampled_from(TOKEN_IDS), unique=True, min_size=1, max_size=len(TOKEN_IDS))
    )
    tokens: list[Any] = []
    for token_id in chosen:
        token: dict[str, Any] = {
            "id": token_id,
            "kind": "fortification" if token_id.startswith("F") else "occult",
            "sector": draw(st.sampled_from(list(sector_ids))),
            "strength": draw(st.integers(min_value=1, max_value=30)),
        }
        if token["kind"] == "occult":
            controller = draw(st.sampled_from([None, *sides, *sides]))
            if controller is not None:
                token["controller"] = controller
            if not draw(st.integers(min_value=0, max_value=4)):
                token["ready"] = False
        tokens.append(token)
    return tokens


@st.composite
def siege_turns(draw: st.DrawFn) -> tuple[Game, CampaignState, TurnSeeds]:
    """A siege game, a turn-start state with siege state, and the turn's seeds."""
    campaign_map = draw(maps)
    probe = Game.create(campaign_map)
    state = draw(states(probe))
    sector_ids = campaign_map.sector_ids()
    settings = draw(siege_settings(sector_ids, state.sides()))
    game = Game.create(
        campaign_map,
        Ruleset(modules=("siege",), module_settings={"siege": settings}),
        BUILTIN_MODULES,
    )
    siege = {
        "v": 1,
        "weather": draw(st.integers(min_value=0, max_value=7)),
        "tokens": draw(siege_tokens(sector_ids, state.sides())),
        "vp": draw(st.dictionaries(st.sampled_from(state.sides()), st.integers(0, 20))),
    }
    seeds = TurnSeeds(roll=draw(st.text(alphabet="0123456789abcdef", min_size=8, max_size=32)))
    return game, state.model_copy(update={"modules": {"siege": siege}}), seeds


@st.composite
def any_siege_orders(draw: st.DrawFn, game: Game, state: CampaignState, side: str) -> ModuleOrder:
    """A siege order that may or may not be legal (tokens on the board and the side's own
    sectors weighted up, so that most orders could be meant)."""
    standing = load(state.modules["siege"]).tokens
    own = list(state.armies.get(side, {}))
    token = draw(st.sampled_from([*(t.id for t in standing)] * 3 + [*TOKEN_IDS, "Z9"]))
    placed = next((t.sector for t in standing if t.id == token), None)
    sectors = own * 2 + [*game.map.sector_ids(), NOWHERE] + ([placed] * 4 if placed else [])
    sector = draw(st.sampled_from(sectors))
    return draw(
        st.sampled_from(
            [
                assault(sector, token, "vp"),
                assault(sector, token, "weather"),
                guard(token, draw(st.sampled_from(own * 3 + sectors))),
                steer(sector),
                play_card(token, "before"),
                play_card(token, "after"),
            ]
        )
    )


@st.composite
def any_siege_order_sets(
    draw: st.DrawFn, game: Game, state: CampaignState
) -> dict[str, SideOrders]:
    """Core and siege orders of most sides, valid or not."""
    orders: dict[str, SideOrders] = {}
    for side in state.sides():
        core = draw(any_side_orders(game, state, side)) if draw(st.booleans()) else SideOrders()
        extra = draw(st.lists(any_siege_orders(game, state, side), max_size=6))
        orders[side] = core.model_copy(update={"extra": tuple(extra)})
    return orders


@st.composite
def valid_siege_orders(draw: st.DrawFn, game: Game, state: CampaignState, side: str) -> SideOrders:
    """One side's orders entered one at a time, each taken from the engine's listing."""
    current = SideOrders()
    for _ in range(draw(st.integers(min_value=0, max_value=8))):
        listing = legal_orders(game, state, side, current)
        choices: list[Any] = list(listing.modules.get("siege", ()))
        for options in listing.sectors:
            if options.attack is not None:
                choices.append(("attack", options.sector, options.attack.targets))
            if options.move is not None:
                choices.append(("move", options.sector, options.move))
        if not choices:
            break
        module_choices = [c for c in choices if isinstance(c, ModuleOrder)]
        prefer_module = draw(st.integers(min_value=0, max_value=2)) > 0
        if module_choices and prefer_module:
            choices = list(module_choices)
        choice = draw(st.sampled_from(choices))
        if isinstance(choice, ModuleOrder):
            order: Any = choice
        elif choice[0] == "attack":
            order = Attack(sector=choice[1], target=draw(st.sampled_from(choice[2])))
        else:
            option = choice[2]
            order = Move(
                source=choice[1],
                to=draw(st.sampled_from(option.destinations)),
                count=draw(st.integers(option.min_count, option.max_count)),
            )
        current, rejection = enter_order(game, state, side, current, order)
        if rejection is not None:
            raise AssertionError(f"the listing offered a refused order: {rejection}")
    return current


@st.composite
def valid_siege_order_sets(
    draw: st.DrawFn, game: Game, state: CampaignState
) -> dict[str, SideOrders]:
    """Valid orders for every side in play."""
    return {side: draw(valid_siege_orders(game, state, side)) for side in state.sides()}


@st.composite
def chain_results(draw: st.DrawFn, battles: Sequence[Battle]) -> list[BattleResult]:
    """Results for some playable battles, battle by battle, so a chain is followed."""
    results: dict[int, BattleResult] = {}
    for battle in sorted(battles, key=lambda b: b.id):
        status = battle_sides(battles, results)[battle.id]
        if status.status is not BattleStatus.PLAYABLE or not draw(st.integers(0, 5)):
            continue
        outcome = draw(st.sampled_from(Outcome))
        winner = draw(st.sampled_from(status.participants())) if outcome.has_winner else None
        results[battle.id] = BattleResult(battle=battle.id, outcome=outcome, winner=winner)
    return list(results.values())


@st.composite
def late_orders(
    draw: st.DrawFn, plan: BattlePlan, state: CampaignState
) -> dict[str, list[ModuleOrder]]:
    """After-cards (mostly of the side's own tokens, and a few wrong orders) some sides give
    after the list."""
    del plan
    tokens = load(state.modules["siege"]).tokens
    late: dict[str, list[ModuleOrder]] = {}
    for side in state.sides():
        own = [t.id for t in tokens if t.controller == side]
        if not own and not draw(st.booleans()):
            continue
        pool = [play_card(token, "after") for token in [*own * 4, *TOKEN_IDS]]
        pool += [play_card("O1", "before"), steer("1")]
        late[side] = draw(st.lists(st.sampled_from(pool), max_size=3))
    return late
