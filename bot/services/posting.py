"""Outbox messages of a campaign: to its group, to one person, and the status board refresh.

Keys name the step that queues them (``campaign:<id>:<key>``), so a step run twice queues once
and an undone step's successor queues anew. Each kind has its place in the story a step tells
(:data:`OPENINGS`): the outbox queues a step's posts so that each chat reads what happened
before what comes next.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import JsonValue

from storage import Campaign, NewOutboxMessage, OutboxStage
from storage.models import UserId

OPENINGS = frozenset(
    {
        "status_board",
        "phase_notice",
        "private_phase_notice",
        "seeds_committed",
        "module_choice",
        "module_choice_gm",
        "module_choice_news",
        "late_window",
        "reward_claim",
    }
)
"""Kinds that tell what comes next (a phase or a window opening, a choice or a reward to make,
the dice of the next turn) or show the campaign as it stands now (the pinned board): queued
with a step's other posts, they go after them (``OutboxStage.NEXT``), so a player reads turn
1's results before turn 2's «orders are open» and the group sees the Monday map before the
board turns to turn 2."""


def stage_of(kind: str) -> OutboxStage:
    """Where a post of ``kind`` goes among the posts a step queues with it."""
    return OutboxStage.NEXT if kind in OPENINGS else OutboxStage.NEWS


def group_post(campaign: Campaign, kind: str, key: str, **payload: JsonValue) -> NewOutboxMessage:
    """A post to the campaign's group (topic), queued under ``campaign:<id>:<key>``."""
    return NewOutboxMessage(
        campaign_id=campaign.id,
        chat_id=campaign.chat_id,
        thread_id=campaign.thread_id,
        kind=kind,
        payload={"campaign_id": campaign.id, **payload},
        dedup_key=f"campaign:{campaign.id}:{key}",
        stage=stage_of(kind),
    )


def held_until(message: NewOutboxMessage, moment: datetime | None) -> NewOutboxMessage:
    """``message`` to be sent no earlier than ``moment`` (as it is when ``moment`` is None)."""
    return message if moment is None else message.model_copy(update={"not_before": moment})


def private_post(
    campaign: Campaign, user_id: UserId, kind: str, key: str, **payload: JsonValue
) -> NewOutboxMessage:
    """A post to one person's private chat, queued under ``campaign:<id>:<key>:<user>``."""
    return NewOutboxMessage(
        campaign_id=campaign.id,
        chat_id=user_id,
        kind=kind,
        payload={"campaign_id": campaign.id, **payload},
        dedup_key=f"campaign:{campaign.id}:{key}:{user_id}",
        stage=stage_of(kind),
    )


def board_post(campaign: Campaign, key: str) -> NewOutboxMessage:
    """Refresh the pinned status board after the step ``key`` names (bursts collapse into one
    edit: the board renderer skips a refresh when a newer one is waiting)."""
    return group_post(campaign, "status_board", f"{key}:board")
