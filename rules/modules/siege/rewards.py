"""Claiming rewards with siege VP when the campaign finishes (MODULES.md S8).

A side claims any multiset of price-list items (an item may be claimed twice) whose prices sum
to at most its VP; unclaimed VP lapse. Where an item says "or" (or which abilities), the GM
chooses after the claim: the claim names items, never variants.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from rules.modules.siege.settings import SiegeSettings


class ClaimProblemCode(StrEnum):
    """Why a claim cannot be granted."""

    UNKNOWN_REWARD = "unknown_reward"  # item: the id given
    OVER_BUDGET = "over_budget"  # total, vp


class ClaimProblem(BaseModel):
    """One problem of a claim, with its details."""

    model_config = ConfigDict(frozen=True)

    code: ClaimProblemCode
    item: str | None = None
    total: int | None = None
    vp: int | None = None


class ClaimCheck(BaseModel):
    """A claim checked: its items' total price and every problem found (none: it stands)."""

    model_config = ConfigDict(frozen=True)

    total: int
    problems: tuple[ClaimProblem, ...]

    @property
    def ok(self) -> bool:
        """Whether the claim may be granted."""
        return not self.problems


def check_claim(settings: SiegeSettings, vp: int, items: Sequence[str]) -> ClaimCheck:
    """Check a claim of the reward items ``items`` (ids, repeats allowed) against ``vp``."""
    prices = {item.id: item.price for item in settings.rewards}
    problems = [
        ClaimProblem(code=ClaimProblemCode.UNKNOWN_REWARD, item=item)
        for item in items
        if item not in prices
    ]
    total = sum(prices.get(item, 0) for item in items)
    if total > vp:
        problems.append(ClaimProblem(code=ClaimProblemCode.OVER_BUDGET, total=total, vp=vp))
    return ClaimCheck(total=total, problems=tuple(problems))
