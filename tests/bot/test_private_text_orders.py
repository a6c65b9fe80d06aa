"""Typed orders as the bot records them: random text never raises, and whatever the bot
accepts is a set of orders the rules engine accepts whole."""

from hypothesis import event, given, settings
from hypothesis import strategies as st

from bot.services.orders import LineOutcome, apply_lines
from bot.texts.orders import Vocabulary, parse_orders_text
from rules import (
    CampaignState,
    Game,
    SideOrders,
    accept_orders,
    builtin_map,
    enter_order,
    validate_order,
)

PLANET = builtin_map("planet-5")
GAME = Game.create(PLANET)
STATE = CampaignState(
    turn=3,
    armies={
        "red": {"1": 4, "2": 3, "4": 3},
        "blue": {"1": 3, "3": 5, "5": 2},
        "green": {"2": 4, "3": 1, "5": 7},
    },
)
SIDES = {"red": ["Красные", "Red Legion"], "blue": ["Синие"], "green": ["Green Horde"]}
VOCABULARY = Vocabulary.build(PLANET, SIDES)

WORDS = [
    *("move", "attack", "fortify", "reinforce", "атака", "укрепить", "подкрепление"),
    *("переместить", "from", "to", "in", "из", "в", "на", "->", "→", "x2", "х3", "*9", "x"),
    *("0", "1", "2", "3", "4", "5", "6", "9", "12"),
    *("equator", "west", "East", "north pole", "южный полюс", "экватор", "Запад"),
    *("red", "blue", "green", "синие", "синих", "красных", "Red Legion", "green horde"),
    *("fnfrf", "cbybt", ",", ";", "!"),
    *("перемещение", "перемести", "атакуй", "укрепление", "подкрепить", "армии", "армий"),
    *("с", "орбиты", "orbital", "2 Запад", "1 Equator", "(3 armies):", "(4 армии):", "✓", "×2"),
]
SECTOR = st.sampled_from(["1", "2", "3", "4", "5", "6", "equator", "West", "южный полюс", "севере"])
SIDE = st.sampled_from(["red", "blue", "green", "синих", "Red Legion", "green horde", "purple"])
COUNT = st.integers(0, 12).map(str)
ORDER_LINE = st.one_of(
    st.tuples(SECTOR, SECTOR, COUNT).map(lambda t: f"{t[0]} -> {t[1]} x{t[2]}"),
    st.tuples(COUNT, SECTOR, SECTOR).map(lambda t: f"move {t[0]} from {t[1]} to {t[2]}"),
    st.tuples(COUNT, SECTOR, SECTOR).map(lambda t: f"переместить {t[0]} из {t[1]} в {t[2]}"),
    st.tuples(COUNT, SECTOR, SECTOR).map(lambda t: f"перемещение {t[0]} армий из {t[1]} в {t[2]}"),
    st.tuples(SIDE, SECTOR, COUNT).map(lambda t: f"атака на {t[0]} в {t[1]} ×{t[2]}"),
    st.tuples(SECTOR, SIDE, SECTOR).map(lambda t: f"{t[0]} (4 армии): атака на {t[1]} в {t[2]}"),
    SECTOR.map("подкрепление с орбиты в {}".format),
    st.tuples(SIDE, SECTOR).map(lambda t: f"attack {t[0]} in {t[1]}"),
    st.tuples(SIDE, SECTOR, COUNT).map(lambda t: f"атака {t[0]} {t[1]} x{t[2]}"),
    SECTOR.map("fortify {}".format),
    SECTOR.map("подкрепление {}".format),
)
LINE = st.one_of(ORDER_LINE, st.lists(st.sampled_from(WORDS), min_size=1, max_size=7).map(" ".join))
TEXT = st.one_of(
    st.text(max_size=200),
    st.lists(LINE, min_size=1, max_size=8).map("\n".join),
)


def _accepts_only_what_the_engine_accepts(
    side: str, current: SideOrders, text: str
) -> list[LineOutcome]:
    """Parse and apply ``text`` over ``current``; check the result against the engine, replay
    every accepted line, and return the outcomes."""
    parsed = parse_orders_text(text, VOCABULARY)
    readable = [line.orders for line in parsed if line.problem is None]
    orders, outcomes = apply_lines(GAME, STATE, side, current, readable)

    assert len(outcomes) == len(readable)
    accepted, rejected = accept_orders(GAME, STATE, side, orders)
    assert rejected == []
    assert accepted == orders  # nothing dropped, the reinforcement sector included
    replay = current
    for outcome in outcomes:
        for order in outcome.orders if outcome.accepted else ():
            replay, rejection = enter_order(GAME, STATE, side, replay, order)
            assert rejection is None, order
    assert replay == orders
    for outcome in outcomes:
        if not outcome.accepted:
            assert outcome.rejection is not None
            assert outcome.rejection.order in outcome.orders
    event("a line accepted" if any(o.accepted and o.orders for o in outcomes) else "none")
    return outcomes


@settings(max_examples=100, deadline=None)
@given(side=st.sampled_from(sorted(STATE.armies)), text=TEXT, start=st.integers(0, 3))
def test_accepted_text_is_always_an_order_set_the_engine_accepts(
    side: str, text: str, start: int
) -> None:
    current = SideOrders()
    earlier = ["fortify 1", "2 -> 1 x2", "attack blue in 1\nreinforce 2", ""][start]
    for line in parse_orders_text(earlier, VOCABULARY):
        current, _ = apply_lines(GAME, STATE, side, current, [line.orders])
    _accepts_only_what_the_engine_accepts(side, current, text)


@settings(max_examples=40, deadline=None)
@given(side=st.sampled_from(sorted(STATE.armies)), text=TEXT)
def test_a_text_led_by_a_valid_order_is_accepted_and_replays(side: str, text: str) -> None:
    """The same property where every example has an accepted line (a valid order first), so
    the replay is never vacuous, with no ``assume`` filtering examples out."""
    home = min(STATE.armies[side])
    outcomes = _accepts_only_what_the_engine_accepts(side, SideOrders(), f"fortify {home}\n{text}")
    assert outcomes[0].accepted
    assert outcomes[0].orders


def test_a_refused_line_leaves_earlier_orders_alone() -> None:
    parsed = parse_orders_text("2 -> 1 x2\nattack blue in 1\nattack blue in 1 x5", VOCABULARY)
    orders, outcomes = apply_lines(GAME, STATE, "red", SideOrders(), [p.orders for p in parsed])
    assert [o.accepted for o in outcomes] == [True, True, False]
    assert len(orders.attacks) == 1
    assert validate_order(GAME, STATE, "red", orders.attacks[0]) is None
