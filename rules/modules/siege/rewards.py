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


CHOSEN_WITHOUT_VARIANTS = -1
"""The GM's choice for an item with no variants listed (which abilities): made, as told."""


def choices_to_make(settings: SiegeSettings, items: Sequence[str]) -> tuple[int, ...]:
    """The places in a claim (indexes into ``items``) where the GM chooses after the claim."""
    by_id = {item.id: item for item in settings.rewards}
    return tuple(
        index
        for index, item in enumerate(items)
        if (found := by_id.get(item)) is not None and found.chosen_by_gm
    )


def valid_choice(settings: SiegeSettings, items: Sequence[str], index: int, variant: int) -> bool:
    """Whether ``variant`` (an index into the item's variants, or
    :data:`CHOSEN_WITHOUT_VARIANTS` for an item that lists none) is a choice the GM may make
    for place ``index`` of a claim of ``items``."""
    if index not in choices_to_make(settings, items):
        return False
    item = next(found for found in settings.rewards if found.id == items[index])
    if not item.variants:
        return variant == CHOSEN_WITHOUT_VARIANTS
    return 0 <= variant < len(item.variants)
