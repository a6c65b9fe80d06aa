"""Outbox messages of a campaign: to its group, to one person, and the status board refresh.

Keys name the step that queues them (``campaign:<id>:<key>``), so a step run twice queues once
and an undone step's successor queues anew.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import JsonValue

from storage import Campaign, NewOutboxMessage
from storage.models import UserId


def group_post(campaign: Campaign, kind: str, key: str, **payload: JsonValue) -> NewOutboxMessage:
    """A post to the campaign's group (topic), queued under ``campaign:<id>:<key>``."""
    return NewOutboxMessage(
        campaign_id=campaign.id,
        chat_id=campaign.chat_id,
        thread_id=campaign.thread_id,
        kind=kind,
        payload={"campaign_id": campaign.id, **payload},
        dedup_key=f"campaign:{campaign.id}:{key}",
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
    )


def board_post(campaign: Campaign, key: str) -> NewOutboxMessage:
    """Refresh the pinned status board after the step ``key`` names (bursts collapse into one
    edit: the board renderer skips a refresh when a newer one is waiting)."""
    return group_post(campaign, "status_board", f"{key}:board")
