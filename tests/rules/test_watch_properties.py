"""Invariants of module ``watch`` on random heroes, hands, moves, duel steps and seeds."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from rules import (
    CampaignState,
    Game,
    ModuleOrder,
    Ruleset,
    SideOrders,
    TurnSeeds,
    builtin_map,
    enter_order,
    legal_orders,
    plan_battles,
    resolve_turn,
    start_turn,
    validate_late_order,
    validate_order,
)
from rules.modules import BUILTIN_MODULES
from rules.modules.watch import (
    DEFAULT_SPELL_DECK,
    duel_step,
    hero_move,
    load,
    step_options,
)
from rules.modules.watch.legal import legal_late_options

MAP = builtin_map("night-demo")
SECTORS = MAP.sector_ids()
SIDES = ("day", "night", "grey")
HERO_IDS = tuple(f"h{n}" for n in range(6))


def watch_game(hand_size: int = 3, deck: tuple[str, ...] = DEFAULT_SPELL_DECK) -> Game:
    ruleset = Ruleset.with_overrides(
        {
            "modules": ["watch"],
            "module_settings": {"watch": {"hand_size": hand_size, "spell_deck": list(deck)}},
        }
    )
    return Game.create(MAP, ruleset, BUILTIN_MODULES)


GAMES = {size: watch_game(size) for size in (0, 1, 3, 5)}
cards = st.sampled_from(sorted(set(DEFAULT_SPELL_DECK)))
seeds = st.builds(
    lambda roll, deal: TurnSeeds(roll=roll, deal=deal),
    st.text("0123456789abcdef", min_size=4, max_size=16),
    st.text("0123456789abcdef", min_size=4, max_size=16),
)


def _begun(state: CampaignState, turn: int) -> CampaignState:
    """``state`` whose watch state last began turn ``turn``."""
    watch = load(state.modules["watch"]).model_copy(update={"begun": turn})
    return state.model_copy(update={"modules": {"watch": watch.as_json()}})


@st.composite
def positions(draw: st.DrawFn, hand_size: int = 3) -> CampaignState:
    """Two or three sides with armies; up to six heroes, some dead, some entering later, with
    hands of up to ``hand_size`` cards; an NPC marker or none."""
    sides = draw(st.sampled_from([SIDES[:2], SIDES]))
    armies = {
        side: {
            sector: draw(st.integers(1, 4))
            for sector in draw(st.lists(st.sampled_from(SECTORS), min_size=1, max_size=2))
        }
        for side in sides
    }
    turn = draw(st.integers(1, 4))
    heroes = []
    offset = draw(st.integers(0, 2))
    for index, hero_id in enumerate(
        draw(st.lists(st.sampled_from(HERO_IDS), min_size=2, max_size=6, unique=True))
    ):
        alive = draw(st.integers(0, 7)) > 0
        heroes.append(
            {
                "id": hero_id,
                "side": sides[(index + offset) % len(sides)],
                "name": hero_id.upper(),
                "initiative": draw(st.integers(0, 5)),
                "sector": draw(st.sampled_from(("metro", "metro", "metro", "entrance", *SECTORS))),
                "wounds": draw(st.integers(0, 3)) + (0 if alive else 4),
                "hand": [] if not alive else draw(st.lists(cards, max_size=hand_size)),
                "alive": alive,
                "enters_turn": draw(st.sampled_from((1, 1, 1, turn, turn + 1))),
            }
        )
    npc = draw(st.one_of(st.none(), st.sampled_from(SECTORS)))
    return CampaignState(
        turn=turn,
        armies=armies,
        modules={
            "watch": {
                "v": 1,
                "heroes": heroes,
                "npc": None if npc is None else {"name": "Егор", "sector": npc},
                "begun": turn,
            }
        },
    )


def _given_orders(draw: st.DrawFn, state: CampaignState) -> dict[str, SideOrders]:
    """Any hero moves, legal or not: known and unknown heroes, any destination."""
    orders: dict[str, SideOrders] = {}
    for side in state.sides():
        moves = draw(
            st.lists(
                st.builds(
                    hero_move, st.sampled_from((*HERO_IDS, "egor")), st.sampled_from(SECTORS)
                ),
                max_size=5,
            )
        )
        orders[side] = SideOrders(extra=tuple(moves))
    return orders


def _given_late(draw: st.DrawFn, state: CampaignState) -> dict[str, tuple[ModuleOrder, ...]]:
    """Duel steps, legal or not: mostly each hero's own cards on heroes that started beside it,
    some with cards it does not hold or on heroes elsewhere."""
    heroes = load(state.modules["watch"]).heroes
    ids = [hero.id for hero in heroes]
    late: dict[str, tuple[ModuleOrder, ...]] = {}
    for side in state.sides():
        steps = []
        for hero in heroes:
            if hero.side != side or not draw(st.integers(0, 3)):
                continue
            held = list(hero.hand) or ["A1"]
            laid = draw(st.lists(st.one_of(st.sampled_from(held), cards), max_size=3))
            near = [other.id for other in heroes if other.sector == hero.sector]
            targets = st.one_of(st.sampled_from(near), st.sampled_from(near), st.sampled_from(ids))
            steps.append(duel_step(hero.id, [(card, draw(targets)) for card in laid]))
        late[side] = tuple(steps)
    return late


@st.composite
def turns(draw: st.DrawFn) -> tuple[CampaignState, dict[str, SideOrders], Any, TurnSeeds]:
    """A position, any hero moves, and duel steps: most built from the list's step options
    (legal), some drawn at random (mostly refused)."""
    state = draw(positions())
    orders = _given_orders(draw, state)
    turn_seeds = draw(seeds)
    late = _given_late(draw, state)
    plan = plan_battles(GAMES[3], state, orders, turn_seeds)
    for side in state.sides():
        legal: list[ModuleOrder] = []
        for hero in load(state.modules["watch"]).heroes:
            choices = step_options(GAMES[3], state, plan, side, hero.id)
            if choices is None or not draw(st.integers(0, 4)):
                continue
            laid = (
                draw(st.lists(st.sampled_from(range(len(choices.hand))), unique=True))
                if choices.hand
                else []
            )
            legal.append(
                duel_step(
                    hero.id,
                    [(choices.hand[i], draw(st.sampled_from(choices.targets))) for i in laid],
                )
            )
        late[side] = (*legal, *late[side])
    return state, orders, late, turn_seeds


@settings(max_examples=150, deadline=None)
@given(turns())
def test_heroes_move_only_along_edges_one_step_a_turn(turn: Any) -> None:
    state, orders, late, turn_seeds = turn
    game = GAMES[3]
    resolution = resolve_turn(game, state, orders, (), turn_seeds, late)
    before = {hero.id: hero for hero in load(state.modules["watch"]).heroes}
    for hero in load(resolution.state.modules["watch"]).heroes:
        was = before[hero.id]
        if was.in_play(state.turn):
            assert hero.sector == was.sector or MAP.adjacent(was.sector, hero.sector)
        else:
            assert hero.sector == was.sector


@settings(max_examples=150, deadline=None)
@given(turns())
def test_wounds_only_grow_and_the_dead_stay_dead(turn: Any) -> None:
    state, orders, late, turn_seeds = turn
    game = GAMES[3]
    resolution = resolve_turn(game, state, orders, (), turn_seeds, late)
    event("wounded" if resolution.report.modules["watch"]["wounds"] else "unhurt")  # type: ignore[index,call-overload]
    before = {hero.id: hero for hero in load(state.modules["watch"]).heroes}
    after = load(resolution.state.modules["watch"]).heroes
    assert [hero.id for hero in after] == list(before)
    for hero in after:
        was = before[hero.id]
        assert hero.wounds >= was.wounds
        assert was.alive or not hero.alive
        assert hero.alive or not hero.hand
        assert Counter(hero.hand) <= Counter(was.hand)
        if hero.wounds >= 4:
            assert not hero.alive


@settings(max_examples=100, deadline=None)
@given(turns())
def test_same_inputs_and_seeds_give_the_same_turn(turn: Any) -> None:
    state, orders, late, turn_seeds = turn
    game = GAMES[3]
    first = resolve_turn(game, state, orders, (), turn_seeds, late)
    again = resolve_turn(watch_game(3), state, orders, (), turn_seeds, late)
    assert first == again
    began = _begun(state, 0)
    assert start_turn(game, began, turn_seeds) == start_turn(watch_game(3), began, turn_seeds)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([0, 1, 3, 5]), st.data())
def test_hands_are_dealt_from_the_deck_and_never_exceed_hand_size(
    hand_size: int, data: st.DataObject
) -> None:
    state = data.draw(positions(hand_size=hand_size))
    state = _begun(state, state.turn - 1)
    game = GAMES[hand_size]
    started = start_turn(game, state, data.draw(seeds))
    before = {hero.id: hero for hero in load(state.modules["watch"]).heroes}
    dealt: Counter[str] = Counter()
    missing = 0
    for hero in load(started.state.modules["watch"]).heroes:
        was = before[hero.id]
        assert hero.hand[: len(was.hand)] == was.hand
        if not was.in_play(state.turn):
            assert hero.hand == was.hand
            continue
        assert len(hero.hand) == max(hand_size, len(was.hand))
        missing += max(0, hand_size - len(was.hand))
        dealt.update(hero.hand[len(was.hand) :])
    copies = max(1, math.ceil(missing / len(DEFAULT_SPELL_DECK)))
    deck = Counter({card: count * copies for card, count in Counter(DEFAULT_SPELL_DECK).items()})
    assert dealt <= deck
    assert all(roll.seed == "deal" for roll in started.rolls)


@settings(max_examples=150, deadline=None)
@given(positions(), st.data())
def test_legal_options_are_never_refused(state: CampaignState, data: st.DataObject) -> None:
    game = GAMES[3]
    current = {side: SideOrders() for side in state.sides()}
    for _ in range(3):
        side = data.draw(st.sampled_from(state.sides()))
        options = legal_orders(game, state, side, current[side]).modules["watch"]
        for option in options:
            assert validate_order(game, state, side, option, current[side]) is None
        if not options:
            continue
        chosen = data.draw(st.sampled_from(options))
        current[side], rejection = enter_order(game, state, side, current[side], chosen)
        assert rejection is None
    plan = plan_battles(game, state, current, TurnSeeds(roll="r", deal="d"))
    given: dict[str, tuple[ModuleOrder, ...]] = dict.fromkeys(state.sides(), ())
    for side in state.sides():
        for option in legal_late_options(game, state, plan, side, given[side]):
            assert validate_late_order(game, state, plan, side, option, given[side]) is None
        for hero in load(state.modules["watch"]).heroes:
            choices = step_options(game, state, plan, side, hero.id, given[side])
            if choices is None:
                continue
            laid = (
                data.draw(st.lists(st.sampled_from(range(len(choices.hand))), unique=True))
                if choices.hand
                else []
            )
            plays = [
                (choices.hand[index], data.draw(st.sampled_from(choices.targets))) for index in laid
            ]
            step = duel_step(hero.id, plays)
            assert validate_late_order(game, state, plan, side, step, given[side]) is None
            given[side] = (*given[side], step)
    resolve_turn(game, state, current, (), TurnSeeds(roll="r", deal="d"), given)


@settings(max_examples=80, deadline=None)
@given(turns())
def test_without_heroes_the_core_turn_is_unchanged(turn: Any) -> None:
    state, _, _, turn_seeds = turn
    empty = {"v": 1, "heroes": [], "npc": None, "begun": state.turn}
    with_watch = state.model_copy(update={"modules": {"watch": empty}})
    core = resolve_turn(Game.create(MAP), state.model_copy(update={"modules": {}}), {})
    watched = resolve_turn(GAMES[3], with_watch, {}, (), turn_seeds)
    assert watched.state.armies == core.state.armies
    assert watched.report.battles == core.report.battles
    assert (watched.report.winner, watched.report.captured) == (
        core.report.winner,
        core.report.captured,
    )
