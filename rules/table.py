"""Two helpers for the table (MODULES.md "002", both decisions, neither in seed 002).

* ``/roll 2d6``: dice asked for at the table are drawn by the engine from the turn's roll seed,
  die ``i`` (from 1) of the ``k``-th roll (from 1) of a context under
  ``t<T>/roll/<battle or "group">/<k>/<i>``, so no label repeats and anyone can recompute
  the values once the seed is revealed. Up to 20 dice of 2 to 100 faces.
* The score-margin table: for a tactical game that ends on points, the margin between the two
  sides' scores suggests the outcome (by default 0 a draw, 1 or more a solid victory, 5 a
  crushing one, 10 a slaughter); each campaign may set its own thresholds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.dice import Roll, draw
from rules.ruleset import Outcome
from rules.state import SideId

MAX_DICE = 20
MAX_FACES = 100
MIN_FACES = 2

_EXPRESSION = re.compile(r"(\d*)\s*[dDдДкК]\s*(\d+)")
"""``NdM`` with ``d`` in Latin or Russian (``д``, or ``к`` for "кубик", as Russian players
write it); ``N`` may be left out for one die."""


class DiceExpression(BaseModel):
    """``count`` dice of ``faces`` faces."""

    model_config = ConfigDict(frozen=True)

    count: int = Field(ge=1, le=MAX_DICE)
    faces: int = Field(ge=MIN_FACES, le=MAX_FACES)

    def __str__(self) -> str:
        return f"{self.count}d{self.faces}"


class DiceProblemCode(StrEnum):
    """Why a dice expression is refused (``params``: ``max`` or ``min`` where named)."""

    NOT_AN_EXPRESSION = "not_an_expression"
    NO_DICE = "no_dice"
    TOO_MANY_DICE = "too_many_dice"  # max
    TOO_FEW_FACES = "too_few_faces"  # min
    TOO_MANY_FACES = "too_many_faces"  # max


class DiceExpressionError(ValueError):
    """A dice expression that cannot be rolled: ``code`` and ``params`` say why."""

    def __init__(self, code: DiceProblemCode, text: str, **params: int) -> None:
        self.code = code
        self.text = text
        self.params = params
        super().__init__(f"{text!r}: {code.value}")


def parse_dice(text: str) -> DiceExpression:
    """The dice in ``text`` (``2d6``, ``d20``, ``3к6``); raises :class:`DiceExpressionError`."""
    typed = text.strip()
    # Short and stripped before matching: no typed text keeps the matcher busy.
    found = _EXPRESSION.fullmatch(typed) if len(typed) <= 20 else None
    if found is None:
        raise DiceExpressionError(DiceProblemCode.NOT_AN_EXPRESSION, text)
    count = int(found.group(1)) if found.group(1) else 1
    faces = int(found.group(2))
    if count < 1:
        raise DiceExpressionError(DiceProblemCode.NO_DICE, text)
    if count > MAX_DICE:
        raise DiceExpressionError(DiceProblemCode.TOO_MANY_DICE, text, max=MAX_DICE)
    if faces < MIN_FACES:
        raise DiceExpressionError(DiceProblemCode.TOO_FEW_FACES, text, min=MIN_FACES)
    if faces > MAX_FACES:
        raise DiceExpressionError(DiceProblemCode.TOO_MANY_FACES, text, max=MAX_FACES)
    return DiceExpression(count=count, faces=faces)


def table_roll_label(turn: int, context: int | None, k: int, i: int) -> str:
    """The label of die ``i`` of the ``k``-th roll in ``context`` (a battle id, or ``None`` for
    the group)."""
    where = "group" if context is None else str(context)
    return f"t{turn}/roll/{where}/{k}/{i}"


class TableRoll(BaseModel):
    """Dice rolled at the table: the expression, its context and every die with its label."""

    model_config = ConfigDict(frozen=True)

    expression: DiceExpression
    context: int | None
    k: int
    dice: tuple[Roll, ...]

    @property
    def total(self) -> int:
        """The sum of the dice."""
        return sum(roll.value for roll in self.dice)


def roll_table_dice(
    seed: str, turn: int, context: int | None, k: int, expression: DiceExpression
) -> TableRoll:
    """Roll ``expression`` as the ``k``-th roll (from 1) of ``context`` in ``turn``."""
    if k < 1:
        raise ValueError("rolls of a context are counted from 1")
    dice = tuple(
        Roll(label=label, sides=expression.faces, value=draw(seed, label, expression.faces))
        for label in (table_roll_label(turn, context, k, i) for i in range(1, expression.count + 1))
    )
    return TableRoll(expression=expression, context=context, k=k, dice=dice)


class ScoreMargins(BaseModel):
    """The campaign's score-margin table: the least margin for each victory (a smaller margin is
    a draw; the GM may still record a bloody draw)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    solid: int = Field(default=1, ge=1, le=100_000)
    crushing: int = Field(default=5, ge=1, le=100_000)
    slaughter: int = Field(default=10, ge=1, le=100_000)

    @model_validator(mode="after")
    def _ascending(self) -> Self:
        if not self.solid <= self.crushing <= self.slaughter:
            raise ValueError("margins must not decrease: solid <= crushing <= slaughter")
        return self


def outcome_for_margin(margins: ScoreMargins, margin: int) -> Outcome:
    """The outcome a score margin suggests (its size counts, not its sign)."""
    size = abs(margin)
    if size >= margins.slaughter:
        return Outcome.SLAUGHTER
    if size >= margins.crushing:
        return Outcome.CRUSHING
    if size >= margins.solid:
        return Outcome.SOLID
    return Outcome.DRAW


def outcome_for_scores(
    margins: ScoreMargins, scores: Mapping[SideId, int]
) -> tuple[Outcome, SideId | None]:
    """The outcome and winner two sides' final scores suggest."""
    if len(scores) != 2:
        raise ValueError("a battle's scores name exactly two sides")
    (first, a), (second, b) = scores.items()
    outcome = outcome_for_margin(margins, a - b)
    if not outcome.has_winner:
        return outcome, None
    return outcome, first if a > b else second
