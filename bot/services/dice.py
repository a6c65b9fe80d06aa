"""Dice nobody can doubt (MODULES.md G4) and the table's ``/roll`` (MODULES.md "002").

Each turn has two seeds, ``roll`` and ``deal`` (``secrets.token_hex(16)``), made once and kept
(undo and correction replay the same rolls). When a rule module draws dice, they are made when
the turn starts, and their SHA-256 is posted in the group in the same transaction,
before the orders window opens, so before any order exists. A campaign whose modules draw
nothing makes them at the first ``/roll`` of the turn and posts the commitment with that roll.
Before turn 1 (setup, deployment) a ``/roll`` makes turn 1's seeds. The roll seed is revealed
in the turn's Monday summary, the deal seed when the campaign finishes; then anyone can
recompute every value (``python -m rules verify-rolls`` on ``python -m storage export``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.services.posting import group_post, private_post
from rules import Game, commitment
from rules.table import DiceExpression, TableRoll, roll_table_dice
from storage import Campaign, CampaignStatus, NewOutboxMessage, Phase, Store, TurnSeedsRecord
from storage.models import UserId

SEED_BYTES = 16


def new_seed() -> str:
    """A fresh seed: 32 hex digits from the operating system's secure source."""
    return secrets.token_hex(SEED_BYTES)


async def seeds_of(store: Store, campaign_id: int, turn: int, now: datetime) -> TurnSeedsRecord:
    """The seeds of ``turn``: those made already, or two fresh ones stored now."""
    return await store.ensure_turn_seeds(campaign_id, turn, new_seed(), new_seed(), now)


def commitment_post(campaign: Campaign, turn: int, key: str) -> NewOutboxMessage:
    """The group post with the SHA-256 of ``turn``'s seeds (worded when sent)."""
    return group_post(campaign, "seeds_committed", f"{key}:seeds", turn=turn)


def commitments(seeds: TurnSeedsRecord) -> tuple[str, str]:
    """The SHA-256 of the roll seed and of the deal seed (hex)."""
    return commitment(seeds.roll), commitment(seeds.deal)


def roll_turn(campaign: Campaign) -> int | None:
    """The turn whose roll seed a ``/roll`` draws from now: turn 1 before it starts, the current
    turn after; ``None`` once the campaign is over (its seeds are public then)."""
    if campaign.status is CampaignStatus.FINISHED or campaign.phase is Phase.FINISHED:
        return None
    return max(campaign.turn, 1)


class RollRefusal(StrEnum):
    """Why a ``/roll`` was not rolled."""

    CAMPAIGN_OVER = "campaign_over"
    NOT_MEMBER = "not_member"
    NO_SUCH_BATTLE = "no_such_battle"
    LIST_NOT_PUBLIC = "list_not_public"  # the battle list is held until its moment
    BUSY = "busy"


@dataclass(frozen=True)
class RollDone:
    """A roll made: the dice with their labels, the turn's seeds' commitment, and whether the
    seeds were made for it (their commitment is news)."""

    roll: TableRoll | None
    turn: int = 0
    roll_commitment: str = ""
    fresh_seeds: bool = False
    refusal: RollRefusal | None = None


ROLL_ATTEMPTS = 5


async def roll_dice(
    store: Store,
    campaign: Campaign,
    context: int | None,
    expression: DiceExpression,
    actor: UserId,
    now: datetime,
    notify: Sequence[UserId] = (),
) -> RollDone:
    """Roll ``expression`` at the table in ``context`` (a battle's number, ``None``: the group)
    from the current turn's roll seed, and record it; ``notify`` are told in private (the
    other side of a battle). The number ``k`` of the roll in its context is taken in the same
    transaction as the record, so no label is drawn twice."""
    turn = roll_turn(campaign)
    if turn is None:
        return RollDone(None, refusal=RollRefusal.CAMPAIGN_OVER)
    for _attempt in range(ROLL_ATTEMPTS):
        async with store.atomic():
            known = await store.turn_seeds(campaign.id, turn)
            seeds = known or await seeds_of(store, campaign.id, turn, now)
            k = await store.next_table_roll(campaign.id, turn, context)
            rolled = roll_table_dice(seeds.roll, turn, context, k, expression)
            where = "group" if context is None else str(context)
            posts = [
                private_post(
                    campaign,
                    user,
                    "table_roll",
                    f"turn:{turn}:roll:{where}:{k}:{user}",
                    turn=turn,
                    context=context,
                    k=k,
                )
                for user in notify
                if user != actor
            ]
            recorded = await store.add_table_roll(
                campaign.id, turn, context, k, str(expression), rolled.dice, actor, now, posts
            )
        if recorded is not None:
            return RollDone(
                rolled,
                turn=turn,
                roll_commitment=commitment(seeds.roll),
                fresh_seeds=known is None,
            )
    return RollDone(None, refusal=RollRefusal.BUSY)


def draws_dice(game: Game) -> bool:
    """Whether the campaign's rule modules draw from the turn's seeds (their seeds are then made
    and committed as each turn starts)."""
    return game.uses_dice()
