"""The campaign's deadlines as an iCalendar file (RFC 5545, the ``icalendar`` package).

Every moment the schedule brings over the next weeks (orders open, orders close, the battle
list, the resolution; the end of deployment) is one event in the campaign's time zone, with a
reminder an hour before a close. An event keeps its UID (campaign, turn, moment), and every file
carries a higher SEQUENCE than the one before, so a calendar that imports the file again moves
the events the GM moved instead of adding new ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from icalendar import Alarm, Calendar, Event

from bot.services.deadlines import Milestone, Planned

EVENT_LENGTH = timedelta(minutes=15)
WARN_BEFORE = timedelta(hours=1)
WARNED = frozenset({Milestone.ORDERS_CLOSE, Milestone.DEPLOYMENT_ENDS})
"""Moments a player must act before: their events carry an alarm an hour ahead."""


def calendar_file(
    campaign_id: int,
    title: str,
    zone: str,
    plan: Sequence[Planned],
    name: Callable[[Planned], str],
    now: datetime,
    host: str = "strategium",
) -> bytes:
    """The ``.ics`` bytes of ``plan`` for the campaign ``title`` (``name`` words each moment in
    the reader's language), stamped ``now``."""
    calendar = Calendar()
    calendar.add("prodid", "-//Strategium//campaign deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", title)
    calendar.add("x-wr-timezone", zone)
    tz = ZoneInfo(zone)
    sequence = int(now.timestamp()) // 60
    for item in plan:
        local = item.at.astimezone(tz)
        event = Event()
        event.add("uid", f"campaign-{campaign_id}-turn-{item.turn}-{item.milestone.value}@{host}")
        event.add("dtstamp", now)
        event.add("sequence", sequence)
        event.add("dtstart", local)
        event.add("dtend", local + EVENT_LENGTH)
        event.add("summary", f"{title}: {name(item)}")
        event.add("transp", "TRANSPARENT")
        if item.milestone in WARNED:
            alarm = Alarm()
            alarm.add("action", "DISPLAY")
            alarm.add("description", f"{title}: {name(item)}")
            alarm.add("trigger", -WARN_BEFORE)
            event.add_component(alarm)
        calendar.add_component(event)
    # The zone's rules from a year before to two after: enough for every event, and small.
    calendar.add_missing_timezones(
        first_date=(now - timedelta(days=366)).date(), last_date=(now + timedelta(days=731)).date()
    )
    return bytes(calendar.to_ical())
