"""The campaign's deadlines as a calendar file, sent where someone asked for it (``/calendar``)
and sent again there when a GM moves a deadline (an extension, a resume, "advance now").

Who asked is not kept separately: a chat that was sent a calendar post of the campaign before
is one that wants it again (the outbox keeps every post).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from bot.services.deadlines import Planned, plan_weeks
from bot.services.posting import group_post, private_post
from bot.services.window import week_plan
from storage import Campaign, CampaignStatus, NewOutboxMessage, Store

KIND = "calendar"
TURNS_AHEAD = 8
"""How many orders windows ahead the file lists (two months of a weekly campaign)."""


async def calendar_plan(store: Store, campaign: Campaign, now: datetime) -> tuple[Planned, ...]:
    """The moments the schedule brings from ``now`` on, ``TURNS_AHEAD`` orders windows ahead;
    nothing for a campaign that is over, paused (its dates are not known until it resumes) or
    in manual mode."""
    if campaign.status in (CampaignStatus.FINISHED, CampaignStatus.PAUSED):
        return ()
    plan = await week_plan(store, campaign, now)
    return plan_weeks(plan, campaign.schedule, ZoneInfo(campaign.time_zone), TURNS_AHEAD)


def calendar_post(campaign: Campaign, chat_id: int, key: str) -> NewOutboxMessage:
    """The calendar file for ``chat_id`` (the campaign's group, or a person's private chat),
    worded and computed when it is sent."""
    if chat_id == campaign.chat_id:
        return group_post(campaign, KIND, f"calendar:{key}")
    return private_post(campaign, chat_id, KIND, f"calendar:{key}")


async def calendar_updates(store: Store, campaign: Campaign, key: str) -> list[NewOutboxMessage]:
    """A fresh calendar for every chat that was sent one of this campaign before (``key``: the
    change that moved the dates)."""
    chats = await store.outbox_chats(campaign.id, KIND)
    return [calendar_post(campaign, chat, key) for chat in sorted(chats)]
