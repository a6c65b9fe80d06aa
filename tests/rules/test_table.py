"""Seed 002's helpers: dice asked for at the table, and the score-margin table."""

import pytest
from pydantic import ValidationError

from rules.dice import draw
from rules.ruleset import Outcome
from rules.table import (
    DiceExpression,
    DiceExpressionError,
    DiceProblemCode,
    ScoreMargins,
    outcome_for_margin,
    outcome_for_scores,
    parse_dice,
    roll_table_dice,
    table_roll_label,
)

K = "9f2c4e7a1b3d5f6081a2c3e4f5061728"


@pytest.mark.parametrize(
    ("text", "count", "faces"),
    [
        ("2d6", 2, 6),
        (" 2D6 ", 2, 6),
        ("d20", 1, 20),
        ("2д6", 2, 6),
        ("3к6", 3, 6),
        ("20d100", 20, 100),
        ("1 d 2", 1, 2),
    ],
)
def test_parse_dice(text: str, count: int, faces: int) -> None:
    assert parse_dice(text) == DiceExpression(count=count, faces=faces)


@pytest.mark.parametrize(
    ("text", "code", "params"),
    [
        ("", DiceProblemCode.NOT_AN_EXPRESSION, {}),
        ("2d", DiceProblemCode.NOT_AN_EXPRESSION, {}),
        ("2d6+1", DiceProblemCode.NOT_AN_EXPRESSION, {}),
        ("two dice", DiceProblemCode.NOT_AN_EXPRESSION, {}),
        ("0d6", DiceProblemCode.NO_DICE, {}),
        ("21d6", DiceProblemCode.TOO_MANY_DICE, {"max": 20}),
        ("2d1", DiceProblemCode.TOO_FEW_FACES, {"min": 2}),
        ("2d101", DiceProblemCode.TOO_MANY_FACES, {"max": 100}),
        (" " * 4000 + "2d6x", DiceProblemCode.NOT_AN_EXPRESSION, {}),  # not read for seconds
        ("2d6" + " " * 4000 + "x", DiceProblemCode.NOT_AN_EXPRESSION, {}),
    ],
)
def test_parse_dice_refuses(text: str, code: DiceProblemCode, params: dict[str, int]) -> None:
    with pytest.raises(DiceExpressionError) as refused:
        parse_dice(text)
    assert (refused.value.code, refused.value.params) == (code, params)


def test_labels_name_the_turn_context_roll_and_die() -> None:
    assert table_roll_label(3, None, 1, 2) == "t3/roll/group/1/2"
    assert table_roll_label(3, 7, 2, 1) == "t3/roll/7/2/1"


def test_table_dice_are_drawn_by_label() -> None:
    rolled = roll_table_dice(K, 3, 7, 2, parse_dice("3d6"))
    assert [roll.label for roll in rolled.dice] == [
        "t3/roll/7/2/1",
        "t3/roll/7/2/2",
        "t3/roll/7/2/3",
    ]
    assert [roll.value for roll in rolled.dice] == [draw(K, roll.label, 6) for roll in rolled.dice]
    assert rolled.total == sum(roll.value for roll in rolled.dice)
    assert all(roll.sides == 6 for roll in rolled.dice)
    again = roll_table_dice(K, 3, 7, 3, parse_dice("3d6"))
    assert {r.label for r in rolled.dice}.isdisjoint({r.label for r in again.dice})
    with pytest.raises(ValueError, match="from 1"):
        roll_table_dice(K, 3, None, 0, parse_dice("d6"))


@pytest.mark.parametrize(
    ("margin", "outcome"),
    [
        (0, Outcome.DRAW),
        (1, Outcome.SOLID),
        (-4, Outcome.SOLID),
        (5, Outcome.CRUSHING),
        (9, Outcome.CRUSHING),
        (-10, Outcome.SLAUGHTER),
        (250, Outcome.SLAUGHTER),
    ],
)
def test_default_margins(margin: int, outcome: Outcome) -> None:
    assert outcome_for_margin(ScoreMargins(), margin) is outcome


def test_a_campaign_sets_its_own_margins() -> None:
    margins = ScoreMargins(solid=3, crushing=3, slaughter=20)
    assert outcome_for_margin(margins, 2) is Outcome.DRAW
    assert outcome_for_margin(margins, 3) is Outcome.CRUSHING
    assert outcome_for_margin(margins, 20) is Outcome.SLAUGHTER
    with pytest.raises(ValidationError, match="must not decrease"):
        ScoreMargins(solid=5, crushing=4)
    with pytest.raises(ValidationError):
        ScoreMargins(solid=0)


def test_scores_name_the_winner() -> None:
    margins = ScoreMargins()
    assert outcome_for_scores(margins, {"red": 12, "blue": 6}) == (Outcome.CRUSHING, "red")
    assert outcome_for_scores(margins, {"red": 6, "blue": 7}) == (Outcome.SOLID, "blue")
    assert outcome_for_scores(margins, {"red": 6, "blue": 6}) == (Outcome.DRAW, None)
    with pytest.raises(ValueError, match="two sides"):
        outcome_for_scores(margins, {"red": 1})
