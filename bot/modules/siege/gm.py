"""A GM carries out a siege card's effect (MODULES.md S7): an audited change of the current
turn's start (armies in a sector, siege VP, weather steps), typed one change a line.

Typed form, in English or Russian, a change a line and the reason on a line of its own::

    Red 2 -1            red loses an army in sector 2        Красные Запад +2
    VP Blue +2          blue gains 2 siege VP                ПО Синие -1
    weather +1          the weather turns a step clockwise   погода -1
    reason: Dark Market's card                               причина: карта Тёмного рынка

The change is checked by the rules (nothing below zero; refused as a whole) and replaces the
turn's start while the orders are open; it is kept, so a correction of the turn before applies
it again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.services.posting import board_post, group_post
from bot.services.turns import game_for
from bot.texts.orders import Vocabulary, normalise
from rules.modules.siege import (
    NAME as SIEGE,
)
from rules.modules.siege import (
    Adjustment,
    AdjustmentError,
    AdjustmentProblem,
    ArmyChange,
    VpChange,
    apply_adjustment,
)
from storage import AuditAction, Campaign, Phase, Store, WriteOutcome
from storage.models import UserId

MAX_LINES = 20
MAX_LINE = 200
"""The longest line of changes read (a reason may be longer): longer is refused unread."""
_DELTA = r"([-+−–]?\d{1,4})"
# Matched against stripped lines of at most MAX_LINE characters: no pattern starts or ends in
# spaces, so a line of thousands of spaces cannot make the matcher backtrack for seconds.
_REASON = re.compile(r"(reason|причина|#)\s*:?\s*(.*)", re.IGNORECASE)
_VP = re.compile(rf"(vp|по|очки)\s+(.+?)\s+{_DELTA}", re.IGNORECASE)
_WEATHER = re.compile(rf"(weather|погода)\s+{_DELTA}", re.IGNORECASE)
_ARMIES = re.compile(rf"(.+?)\s+{_DELTA}")


class AdjustmentInputError(ValueError):
    """A typed adjustment that cannot be read: ``line`` (1-based) and the words at fault."""

    def __init__(self, line: int, words: str) -> None:
        super().__init__(f"line {line}: {words}")
        self.line = line
        self.words = words


def _delta(text: str) -> int:
    return int(text.replace("−", "-").replace("–", "-"))


def _side_and_sector(text: str, vocabulary: Vocabulary) -> tuple[str, str] | None:
    """«Red 2», «Красные Северный полюс»: a side's name, then a sector's (any split)."""
    words = text.split()
    for cut in range(1, len(words)):
        side = vocabulary.sides.get(normalise(" ".join(words[:cut])))
        sector = vocabulary.sectors.get(normalise(" ".join(words[cut:])))
        if side is not None and sector is not None:
            return side, sector
    return None


def parse_adjustment(text: str, vocabulary: Vocabulary) -> Adjustment:
    """The adjustment typed in ``text``; raises :class:`AdjustmentInputError` for the first
    line that cannot be read (the rules check the result)."""
    armies: list[ArmyChange] = []
    vp: list[VpChange] = []
    weather = 0
    reason = ""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or len(lines) > MAX_LINES:
        raise AdjustmentInputError(0, "")
    for number, typed in enumerate(lines, start=1):
        line = typed.strip()
        if found := _REASON.match(line):
            reason = found.group(2).strip()[:1000]
        elif len(line) > MAX_LINE:
            raise AdjustmentInputError(number, line[:60])
        elif found := _WEATHER.fullmatch(line):
            weather += _delta(found.group(2))
        elif found := _VP.fullmatch(line):
            side = vocabulary.sides.get(normalise(found.group(2)))
            if side is None:
                raise AdjustmentInputError(number, found.group(2))
            vp.append(VpChange(side=side, delta=_delta(found.group(3))))
        elif (found := _ARMIES.fullmatch(line)) and (
            where := _side_and_sector(found.group(1), vocabulary)
        ):
            armies.append(ArmyChange(side=where[0], sector=where[1], delta=_delta(found.group(2))))
        else:
            raise AdjustmentInputError(number, line.strip()[:60])
    if not armies and not vp and weather == 0:
        raise AdjustmentInputError(0, "")
    if not -7 <= weather <= 7:
        raise AdjustmentInputError(0, str(weather))
    return Adjustment(armies=tuple(armies), vp=tuple(vp), weather_steps=weather, reason=reason)


class AdjustOutcome(StrEnum):
    """What :func:`adjust_turn_start` did."""

    APPLIED = "applied"
    REFUSED = "refused"  # the rules refuse it: ``problems`` say why
    CLOSED = "closed"  # not a siege campaign with its orders open (or it moved on meanwhile)


@dataclass(frozen=True)
class AdjustResult:
    """The outcome and, when refused, every problem."""

    outcome: AdjustOutcome
    problems: tuple[AdjustmentProblem, ...] = ()


def may_adjust(campaign: Campaign) -> bool:
    """Whether a GM may carry out card effects now: a siege campaign with its orders open."""
    return campaign.phase is Phase.ORDERS and game_for(campaign).module(SIEGE) is not None


async def adjust_turn_start(
    store: Store, campaign: Campaign, adjustment: Adjustment, actor: UserId, now: datetime
) -> AdjustResult:
    """Apply ``adjustment`` to the current turn's start (audited, compare-and-set, kept for a
    correction to apply again); the group is told what changed and why. The caller has
    checked that ``actor`` is a GM."""
    if not may_adjust(campaign):
        return AdjustResult(AdjustOutcome.CLOSED)
    current = await store.turn_start(campaign.id, campaign.turn)
    if current is None:
        return AdjustResult(AdjustOutcome.CLOSED)
    game = game_for(campaign)
    try:
        changed = apply_adjustment(game, game.upgraded(current), adjustment)
    except AdjustmentError as refused:
        return AdjustResult(AdjustOutcome.REFUSED, tuple(refused.problems))
    count = len(await store.adjustments(campaign.id, campaign.turn)) + 1
    key = f"turn:{campaign.turn}:adjustment:{count}"
    written = await store.replace_turn_start(
        campaign.id,
        campaign.turn,
        (Phase.ORDERS,),
        current,
        changed,
        actor,
        AuditAction.STATE_ADJUSTED,
        adjustment.reason,
        now,
        adjustment=adjustment.model_dump(mode="json"),
        outbox=[
            group_post(campaign, "state_adjusted", key, turn=campaign.turn, n=count),
            board_post(campaign, key),
        ],
    )
    if written is not WriteOutcome.SAVED:
        return AdjustResult(AdjustOutcome.CLOSED)
    return AdjustResult(AdjustOutcome.APPLIED)
