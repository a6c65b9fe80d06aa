"""Text orders: both languages, nouns and verbs, names, endings, keyboard layout, the bot's
own lines, and what is refused (with the word at fault)."""

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.texts.orders import (
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
    parse_map,
)

PLANET = builtin_map("planet-5")
SIDES = {
    "red": ["Красные", "Red Army"],
    "blue": ["Синие", "Blue"],
    "de": ["Dark Eldar", "Тёмные эльдары"],
}
VOCABULARY = Vocabulary.build(PLANET, SIDES)


MOVE_2_TO_1 = (Move(source="2", to="1", count=3),)


@pytest.mark.parametrize(
    ("text", "orders"),
    [
        ("2 -> 1 x2", (Move(source="2", to="1", count=2),)),
        ("2→1 х2", (Move(source="2", to="1", count=2),)),
        ("2 > 1 2", (Move(source="2", to="1", count=2),)),
        ("move 2 from 2 to 1", (Move(source="2", to="1", count=2),)),
        ("переместить 2 из 2 в 1", (Move(source="2", to="1", count=2),)),
        ("move west to equator x3", MOVE_2_TO_1),
        # the seed's nouns and the verbs in imperative and infinitive, «N армии/армий»
        ("переместить 3 армии из 2 в 1", MOVE_2_TO_1),
        ("перемести 3 армии из 2 в 1", MOVE_2_TO_1),
        ("перемещение 3 армий из 2 в 1", MOVE_2_TO_1),
        ("Перемещение: 3 армии из Запада в Экватор", MOVE_2_TO_1),
        ("3 армии из 2 в 1", MOVE_2_TO_1),
        ("из 2 в 1 3 армии", MOVE_2_TO_1),
        ("перемести с Запада на Экватор х3", MOVE_2_TO_1),
        ("переместить 1 армию из 2 в 1", (Move(source="2", to="1", count=1),)),
        ("move 3 armies from 2 West to 1 Equator", MOVE_2_TO_1),
        ("ПЕРЕМЕСТИТЬ 3 АРМИИ ИЗ 2 В 1", MOVE_2_TO_1),
        ("attack blue in 1", (Attack(sector="1", target="blue"),)),
        ("ATTACK Blue In 1", (Attack(sector="1", target="blue"),)),
        ("атака синие 1", (Attack(sector="1", target="blue"),)),
        ("атака синих в 1", (Attack(sector="1", target="blue"),)),
        ("атака на синих в 1", (Attack(sector="1", target="blue"),)),
        ("атакуй синих на экваторе", (Attack(sector="1", target="blue"),)),
        ("атаковать синих в секторе 1", (Attack(sector="1", target="blue"),)),
        ("атака против стороны «Синие» в 1", (Attack(sector="1", target="blue"),)),
        ("атака на Red Army в 2 Запад", (Attack(sector="2", target="red"),)),
        ("attack 1 blue", (Attack(sector="1", target="blue"),)),
        ("attack on blue in 1 Equator", (Attack(sector="1", target="blue"),)),
        ("attack blue in 1 x2", (Attack(sector="1", target="blue"),) * 2),
        ("2 атаки на синих в 1", (Attack(sector="1", target="blue"),) * 2),
        ("атака на синих в 1 2 раза", (Attack(sector="1", target="blue"),) * 2),
        ("attack dark eldar north pole x2", (Attack(sector="4", target="de"),) * 2),
        ("атаковать тёмных эльдаров на северном полюсе", (Attack(sector="4", target="de"),)),
        ("атаковать темных эльдаров на cеверном полюсе", None),
        ("attack de in 4", (Attack(sector="4", target="de"),)),
        ("fortify 4", (Fortify(sector="4"),)),
        ("укрепить северный полюс", (Fortify(sector="4"),)),
        ("укрепи 4", (Fortify(sector="4"),)),
        ("укрепление в 4", (Fortify(sector="4"),)),
        ("укрепиться в 4 Северный полюс", (Fortify(sector="4"),)),
        ("hold North Pole", (Fortify(sector="4"),)),
        ("reinforce 4", (Reinforce(sector="4"),)),
        ("reinforcement to 4", (Reinforce(sector="4"),)),
        ("orbital reinforcement to 4 North Pole", (Reinforce(sector="4"),)),
        ("подкрепление 4", (Reinforce(sector="4"),)),
        ("подкрепление на экватор", (Reinforce(sector="1"),)),
        ("подкрепление с орбиты в 4", (Reinforce(sector="4"),)),
        ("подкрепить северный полюс", (Reinforce(sector="4"),)),
        ("подкрепи 4", (Reinforce(sector="4"),)),
        ("с орбиты в 4", (Reinforce(sector="4"),)),
        ("Подкрепление: 4 Северный полюс", (Reinforce(sector="4"),)),
        # the review screen's lines and the echo's mark
        ("2 West (3 armies): fortify", (Fortify(sector="2"),)),
        ("2 Запад (3 армии): переместить 2 армии из 2 Запад в 1 Экватор", None),
        (
            "1 Экватор (6 армий): атака на Синие в 1 Экватор ×2; атака на Red Army в 1 Экватор",
            (
                Fortify(sector="1"),
                *(Attack(sector="1", target="blue"),) * 2,
                Attack(sector="1", target="red"),
            ),
        ),
        ("✓ укрепиться в 2 Запад", (Fortify(sector="2"),)),
        ("fortify 1; reinforce 4", (Fortify(sector="1"), Reinforce(sector="4"))),
        # the other keyboard layout
        ("fnfrf cbybt 1", (Attack(sector="1", target="blue"),)),
        ("пщ 2 акщь 2 ещ 1", (Move(source="2", to="1", count=2),)),
    ],
)
def test_lines_read_as_orders(text: str, orders: tuple[object, ...] | None) -> None:
    line = parse_line(text, VOCABULARY)
    if orders is None:  # the same as its neighbour above, written another way
        assert line.problem is None, line
        return
    assert (line.orders, line.problem) == (orders, None)


HIVE = parse_map(
    {
        "id": "hive",
        "name": "Hive",
        "sectors": [
            {
                "id": "c",
                "name": "Central Plain",
                "names": {"ru": "Центральная равнина"},
                "neighbours": ["ne", "np"],
                "x": 0.5,
                "y": 0.5,
            },
            {
                "id": "ne",
                "name": "North-East",
                "names": {"ru": "Северо-восток"},
                "neighbours": ["c", "np"],
                "x": 0.8,
                "y": 0.2,
            },
            {
                "id": "np",
                "name": "North Pole",
                "names": {"ru": "Северный полюс"},
                "neighbours": ["c", "ne"],
                "x": 0.5,
                "y": 0.1,
            },
        ],
    }
)
HIVE_WORDS = Vocabulary.build(
    HIVE, {"s1": ["Империум"], "s2": ["Орда Хаоса"], "s3": ["Орки на байках"]}
)


@pytest.mark.parametrize(
    ("text", "orders"),
    [
        ("переместить 3 армии из Северо-восток в Северный полюс", ("ne", "np", 3)),
        ("перемещение 2 армий с северо-востока на центральную равнину", ("ne", "c", 2)),
        ("перемести 2 армии из СЕВЕРО-ВОСТОКА в c", ("ne", "c", 2)),
        ("ne -> np x1", ("ne", "np", 1)),
        ("move 2 armies from North-East to Central Plain", ("ne", "c", 2)),
        ("move 2 armies from north east to c", ("ne", "c", 2)),
    ],
)
def test_hyphenated_and_multi_word_sector_names(text: str, orders: tuple[str, str, int]) -> None:
    source, to, count = orders
    line = parse_line(text, HIVE_WORDS)
    assert (line.orders, line.problem) == ((Move(source=source, to=to, count=count),), None)


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("атака на Орду Хаоса в Северо-восток", "s2"),
        ("атака на Орки на байках на Северо-востоке", "s3"),
        ("атаковать Империум в ne", "s1"),
        ("attack s3 in North-East", "s3"),
    ],
)
def test_multi_word_side_names_with_prepositions_inside(text: str, target: str) -> None:
    line = parse_line(text, HIVE_WORDS)
    assert (line.orders, line.problem) == ((Attack(sector="ne", target=target),), None)


@pytest.mark.parametrize(
    ("text", "problem", "word"),
    [
        ("hello there", LineProblem.NOT_UNDERSTOOD, "hello"),
        ("привет, переместить 3 армии из 2 в 1", LineProblem.NOT_UNDERSTOOD, "привет"),
        ("переместить 3 армии из 2 в 1 ¤", LineProblem.NOT_UNDERSTOOD, "¤"),
        ("атака синих", LineProblem.INCOMPLETE, "синих"),
        ("fortify", LineProblem.INCOMPLETE, "fortify"),
        ("attack green in 1", LineProblem.UNKNOWN_SIDE, "green"),
        ("move 2 -> 9 x1", LineProblem.UNKNOWN_SECTOR, "9"),
        ("подкрепление на север", LineProblem.UNKNOWN_SECTOR, "север"),
        ("2 -> 1", LineProblem.MISSING_COUNT, None),
        ("move 0 from 2 to 1", LineProblem.BAD_COUNT, "0"),
        ("attack blue in 1 x50", LineProblem.BAD_COUNT, "50"),
        ("move 2 from 2 to 1 x3", LineProblem.AMBIGUOUS, None),
        ("2 West (3 armies): fortify 1", LineProblem.AMBIGUOUS, None),
        ("fortify " + "x" * 200, LineProblem.TOO_LONG, None),
        ("fortify " + "1 " * 30, LineProblem.TOO_LONG, None),
        ("fortify 1;" * 13, LineProblem.TOO_LONG, None),
    ],
)
def test_refused_lines_name_the_problem(text: str, problem: LineProblem, word: str | None) -> None:
    line = parse_line(text, VOCABULARY)
    assert (line.orders, line.problem, line.word) == ((), problem, word)


def test_one_unreadable_order_refuses_the_whole_line() -> None:
    line = parse_line("fortify 1; attack green in 1", VOCABULARY)
    assert (line.orders, line.problem, line.word) == ((), LineProblem.UNKNOWN_SIDE, "green")


def test_long_names_allow_long_orders() -> None:
    long_side = "Легион " + " ".join(["очень"] * 8) + " длинного названия"
    vocabulary = Vocabulary.build(PLANET, {"s1": [long_side], "s2": ["Орки"]})
    text = f"1 Экватор (9 армий): атака на {long_side} в 1 Экватор ×3; атака на Орки в 1 Экватор"
    line = parse_line(text, vocabulary)
    assert line.problem is None
    assert line.orders[1:] == (
        *(Attack(sector="1", target="s1"),) * 3,
        Attack(sector="1", target="s2"),
    )


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
