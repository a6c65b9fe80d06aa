"""The ``calendar`` post: the campaign's coming deadlines as an ``.ics`` file, computed and worded
when it is sent (in the chat's language), so a re-sent file shows the dates as they are now."""

from __future__ import annotations

import re

from aiogram.utils.i18n import gettext as _

from bot.posts import Post, PostContext, Renderer
from bot.posts.turns import milestone_name
from bot.screens.calendar_file import calendar_file
from bot.services.calendars import calendar_plan
from bot.texts.moments import zone_label
from storage import CampaignStatus, OutboxMessage

_UNSAFE = re.compile(r"[^\w-]+")


def file_name(title: str) -> str:
    """A file name for the campaign's calendar: its title in letters, digits and dashes."""
    stem = _UNSAFE.sub("-", title).strip("-")[:48] or "campaign"
    return f"{stem}.ics"


async def render_calendar(context: PostContext, message: OutboxMessage) -> Post | None:
    """The file with every coming deadline; words instead when there is none to list."""
    campaign_id = message.payload.get("campaign_id")
    if not isinstance(campaign_id, int):
        return None
    campaign = await context.store.campaign(campaign_id)
    if campaign is None or campaign.status is CampaignStatus.FINISHED:
        return None
    language = context.i18n.current_locale
    plan = await calendar_plan(context.store, campaign, message.not_before)
    if not plan:
        if campaign.status is CampaignStatus.PAUSED:
            return Post(
                text=_(
                    "«{title}» is paused: its dates are not known until the GM resumes it; "
                    "I will send the calendar again then."
                ).format(title=campaign.title)
            )
        return Post(
            text=_(
                "«{title}» has no dated deadlines now: the GM advances its phases by hand."
            ).format(title=campaign.title)
        )
    content = calendar_file(
        campaign.id,
        campaign.title,
        campaign.time_zone,
        plan,
        milestone_name,
        message.not_before,
    )
    caption = _(
        "«{title}»: every deadline of the next weeks, in the campaign's time zone ({zone}). "
        "Open the file to add them to your calendar; when the GM moves a deadline I send it "
        "again, and your calendar moves the events."
    ).format(title=campaign.title, zone=zone_label(campaign.time_zone, language))
    return Post(text=caption, document=(file_name(campaign.title), content))


RENDERERS: dict[str, Renderer] = {"calendar": render_calendar}
