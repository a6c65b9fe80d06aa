"""Reproducible, auditable randomness (MODULES.md G4): every value is drawn from a seed by label.

The bot makes two seeds per turn (``secrets.token_hex(16)``) when the orders window opens and
posts their SHA-256 (:func:`commitment`) before any order exists. The rules core never makes a
seed: it only draws from the seeds it is given, so a turn stays a pure function of its inputs.

* ``draw(seed, label, n) = 1 + int.from_bytes(SHA-256(UTF-8(seed + "|" + label))[0:8], "big")
  mod n``; the seed string is used as text, not decoded from hex.
* ``shuffle(seed, X, L)``: Fisher-Yates from the end; for ``i = len(L)-1`` down to 1,
  ``j = draw(seed, X + "/" + str(i), i + 1) - 1``, swap ``L[i]`` and ``L[j]``.

``roll`` serves public randomness (dice, lots), revealed in the Monday summary; ``deal`` serves
hidden information and is revealed when the campaign finishes. :class:`Dice` records every draw
as a :class:`Roll` and refuses a label used twice in a turn.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

SeedKind = Literal["roll", "deal"]
T = TypeVar("T")


def draw(seed: str, label: str, n: int) -> int:
    """A value from 1 to ``n`` for ``label`` under ``seed`` (G4)."""
    if n < 1:
        raise ValueError(f"cannot draw from {n} values")
    digest = hashlib.sha256(f"{seed}|{label}".encode()).digest()
    return 1 + int.from_bytes(digest[:8], "big") % n


def shuffle(seed: str, label: str, items: Sequence[T]) -> list[T]:
    """``items`` in the order of the G4 Fisher-Yates shuffle under ``label``."""
    shuffled = list(items)
    for i in range(len(shuffled) - 1, 0, -1):
        j = draw(seed, f"{label}/{i}", i + 1) - 1
        shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
    return shuffled


def commitment(seed: str) -> str:
    """The SHA-256 of ``seed`` (hex), posted before any order exists."""
    return hashlib.sha256(seed.encode()).hexdigest()


class Roll(BaseModel):
    """One value drawn: its label, the number of values it was drawn from, the value, the seed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str = Field(min_length=1)
    sides: int = Field(ge=1)
    value: int = Field(ge=1)
    seed: SeedKind = "roll"

    def as_json(self) -> dict[str, str | int]:
        """``label``, ``sides``, ``value``, plus ``seed`` only for the deal seed."""
        data: dict[str, str | int] = {"label": self.label, "sides": self.sides, "value": self.value}
        if self.seed != "roll":
            data["seed"] = self.seed
        return data

    def verify(self, seed: str) -> bool:
        """Whether ``seed`` gives this value for this label."""
        return draw(seed, self.label, self.sides) == self.value


class TurnSeeds(BaseModel):
    """A turn's two seeds; ``None`` where a seed was not made or is not revealed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    roll: str | None = Field(default=None, min_length=1)
    deal: str | None = Field(default=None, min_length=1)


class SeedMissingError(ValueError):
    """A draw needs a seed the caller did not give (or that is not revealed yet)."""

    def __init__(self, kind: SeedKind, label: str) -> None:
        self.kind = kind
        self.label = label
        super().__init__(f"the {kind} seed is needed to draw {label!r}")


class DuplicateLabelError(ValueError):
    """A label was drawn twice in one turn: a rule module numbered its draws wrongly."""


class Dice:
    """The draws of one turn, in the order made. Shared by the plan and the resolution."""

    def __init__(self, seeds: TurnSeeds | None = None, rolls: Sequence[Roll] = ()) -> None:
        self.seeds = seeds or TurnSeeds()
        self.rolls: list[Roll] = list(rolls)
        self._labels = {roll.label for roll in self.rolls}

    def roll(self, label: str, sides: int, seed: SeedKind = "roll") -> int:
        """Draw one value from 1 to ``sides`` and record it."""
        value = self.seeds.roll if seed == "roll" else self.seeds.deal
        if value is None:
            raise SeedMissingError(seed, label)
        if label in self._labels:
            raise DuplicateLabelError(label)
        result = draw(value, label, sides)
        self._labels.add(label)
        self.rolls.append(Roll(label=label, sides=sides, value=result, seed=seed))
        return result

    def shuffle(self, label: str, items: Sequence[T], seed: SeedKind = "roll") -> list[T]:
        """:func:`shuffle` of ``items``, each of its draws recorded."""
        shuffled = list(items)
        for i in range(len(shuffled) - 1, 0, -1):
            j = self.roll(f"{label}/{i}", i + 1, seed) - 1
            shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
        return shuffled
