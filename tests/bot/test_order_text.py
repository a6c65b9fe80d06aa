"""Text orders: both languages, names, endings, keyboard layout, and what is refused."""

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.order_text import (
    MAX_LINES,
    LineProblem,
    ParsedLine,
    Vocabulary,
    parse_line,
    parse_orders_text,
)
from rules import (
    Attack,
    CampaignState,
    Fortify,
    Game,
    Move,
    Reinforce,
    SideOrders,
    builtin_map,
    enter_order,
    legal_orders,
)

PLANET = builtin_map("planet-5")
SIDES = {
    "red": ["Красные", "Red Army"],
    "blue": ["Синие", "Blue"],
    "de": ["Dark Eldar", "Тёмные эльдары"],
}
VOCABULARY = Vocabulary.build(PLANET, SIDES)


@pytest.mark.parametrize(
    ("text", "orders"),
    [
        ("2 -> 1 x2", (Move(source="2", to="1", count=2),)),
        ("2→1 х2", (Move(source="2", to="1", count=2),)),
        ("2 > 1 2", (Move(source="2", to="1", count=2),)),
        ("move 2 from 2 to 1", (Move(source="2", to="1", count=2),)),
        ("переместить 2 из 2 в 1", (Move(source="2", to="1", count=2),)),
        ("move west to equator x3", (Move(source="2", to="1", count=3),)),
        ("attack blue in 1", (Attack(sector="1", target="blue"),)),
        ("ATTACK Blue In 1", (Attack(sector="1", target="blue"),)),
        ("атака синие 1", (Attack(sector="1", target="blue"),)),
        ("атака синих в 1", (Attack(sector="1", target="blue"),)),
        ("attack 1 blue", (Attack(sector="1", target="blue"),)),
        ("attack blue in 1 x2", (Attack(sector="1", target="blue"),) * 2),
        ("attack dark eldar north pole x2", (Attack(sector="4", target="de"),) * 2),
        ("атаковать тёмных эльдаров на северном полюсе", (Attack(sector="4", target="de"),)),
        ("fortify 4", (Fortify(sector="4"),)),
        ("укрепить северный полюс", (Fortify(sector="4"),)),
        ("reinforce 4", (Reinforce(sector="4"),)),
        ("подкрепление 4", (Reinforce(sector="4"),)),
        ("подкрепление на экватор", (Reinforce(sector="1"),)),
        ("fnfrf cbybt 1", (Attack(sector="1", target="blue"),)),
        ("пщ 2 акщь 2 ещ 1", (Move(source="2", to="1", count=2),)),
    ],
)
def test_lines_read_as_orders(text: str, orders: tuple[object, ...]) -> None:
    line = parse_line(text, VOCABULARY)
    assert (line.orders, line.problem) == (orders, None)


@pytest.mark.parametrize(
    ("text", "problem", "word"),
    [
        ("hello there", LineProblem.NOT_UNDERSTOOD, None),
        ("attack green in 1", LineProblem.UNKNOWN_SIDE, "green"),
        ("move 2 -> 9 x1", LineProblem.UNKNOWN_SECTOR, "9"),
        ("подкрепление на север", LineProblem.UNKNOWN_SECTOR, "север"),
        ("2 -> 1", LineProblem.MISSING_COUNT, None),
        ("move 0 from 2 to 1", LineProblem.BAD_COUNT, "0"),
        ("attack blue in 1 x50", LineProblem.BAD_COUNT, "50"),
        ("fortify " + "x" * 200, LineProblem.TOO_LONG, None),
    ],
)
def test_refused_lines_name_the_problem(text: str, problem: LineProblem, word: str | None) -> None:
    line = parse_line(text, VOCABULARY)
    assert (line.orders, line.problem, line.word) == ((), problem, word)


def test_ambiguous_name_is_refused_not_guessed() -> None:
    vocabulary = Vocabulary.build(PLANET, {"a": ["Синие"], "b": ["Синий"]})
    line = parse_line("атака синих 1", vocabulary)
    assert (line.orders, line.problem) == ((), LineProblem.AMBIGUOUS)


def test_each_line_stands_alone() -> None:
    lines = parse_orders_text("2 -> 1 x2\n\nattack green in 1\nreinforce 4\n", VOCABULARY)
    assert [(line.number, line.problem) for line in lines] == [
        (1, None),
        (3, LineProblem.UNKNOWN_SIDE),
        (4, None),
    ]
    assert lines[2].orders == (Reinforce(sector="4"),)


def test_too_many_lines_are_refused_not_dropped() -> None:
    lines = parse_orders_text("fortify 1\n" * (MAX_LINES + 2), VOCABULARY)
    assert len(lines) == MAX_LINES + 2
    assert [line.problem for line in lines[-2:]] == [LineProblem.TOO_MANY_LINES] * 2


@example("attack blue in 1\n2 -> 1 x2\nfortify 3\nreinforce 4")  # every kind of order
@example("")
@given(st.text(max_size=300))
def test_any_text_parses_without_raising(text: str) -> None:
    lines = parse_orders_text(text, VOCABULARY)
    assert len(lines) == sum(1 for line in text.splitlines() if line.strip()), "one per line"
    for line in lines:
        assert isinstance(line, ParsedLine)
        assert (line.problem is None) == bool(line.orders)
        for order in line.orders:
            assert order.sector in PLANET.by_id
            if isinstance(order, Move):
                assert order.to in PLANET.by_id
            if isinstance(order, Attack):
                assert order.target in SIDES


STATE = CampaignState(
    turn=2,
    armies={
        "red": {"1": 4, "2": 3, "4": 3},
        "blue": {"1": 3, "3": 5, "5": 2},
        "de": {"1": 1, "4": 6},
    },
)
GAME = Game.create(PLANET)


def _spellings(sector: str, language: str) -> list[str]:
    found = PLANET.by_id[sector]
    return [sector, found.display_name(language)]


@given(st.data())
def test_orders_written_from_the_legal_listing_read_back_and_are_accepted(
    data: st.DataObject,
) -> None:
    side = data.draw(st.sampled_from(sorted(STATE.armies)))
    listing = legal_orders(GAME, STATE, side)
    options = data.draw(st.sampled_from(listing.sectors))
    language = data.draw(st.sampled_from(["en", "ru"]))
    place = data.draw(st.sampled_from(_spellings(options.sector, language)))
    choices: list[tuple[str, object]] = [
        (
            f"fortify {place}" if language == "en" else f"укрепить {place}",
            Fortify(sector=options.sector),
        ),
        (
            f"reinforce {place}" if language == "en" else f"подкрепление {place}",
            Reinforce(sector=options.sector),
        ),
    ]
    if options.move is not None:
        to = data.draw(st.sampled_from(options.move.destinations))
        count = data.draw(st.integers(options.move.min_count, options.move.max_count))
        to_name = data.draw(st.sampled_from(_spellings(to, language)))
        text = (
            f"move {count} from {place} to {to_name}"
            if language == "en"
            else f"переместить {count} из {place} в {to_name}"
        )
        choices.append((text, Move(source=options.sector, to=to, count=count)))
    if options.attack is not None:
        target = data.draw(st.sampled_from(options.attack.targets))
        target_name = data.draw(st.sampled_from([target, *SIDES[target]]))
        text = (
            f"attack {target_name} in {place}"
            if language == "en"
            else f"атака {target_name} в {place}"
        )
        choices.append((text, Attack(sector=options.sector, target=target)))
    text, expected = data.draw(st.sampled_from(choices))
    line = parse_line(text, VOCABULARY)
    assert line.orders == (expected,), text
    _, rejection = enter_order(GAME, STATE, side, SideOrders(), line.orders[0])
    assert rejection is None
