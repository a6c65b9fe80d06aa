"""Players' vacations (issue 23): a player sets their own absence from a campaign, by days of
the campaign's calendar (its time zone), both days included.

Setting or cancelling one is stored with private posts to the player's teammates (same side)
and the campaign's GMs in one transaction (``storage.absences``). While a player is away the
scheduler's reminders skip them (:func:`away_users`); their side is otherwise treated as any
side: a teammate may give its orders, and a side nobody gave orders for meets the campaign's
no-show policy at the deadline, whose notices name who is on vacation (:func:`away_of_sides`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.services.posting import private_post
from storage import Campaign, CampaignStatus, Member, Store, Vacation
from storage.models import SideId, UserId

MAX_DAYS = 60
"""The longest vacation, in days (longer: the GM finds the side a new player)."""
MAX_DAYS_AHEAD = 365
"""How far ahead a vacation may begin."""


class VacationRefusal(StrEnum):
    """Why a vacation cannot be set."""

    OVER = "over"  # the campaign is over
    PAST = "past"  # it begins before today
    TOO_FAR = "too_far"  # it begins more than MAX_DAYS_AHEAD ahead
    BACKWARDS = "backwards"  # it ends before it begins
    TOO_LONG = "too_long"  # longer than MAX_DAYS
    OVERLAPS = "overlaps"  # the player has one on some of these days already


@dataclass(frozen=True)
class VacationResult:
    """The stored vacation, or why not (with the one it overlaps)."""

    vacation: Vacation | None = None
    refusal: VacationRefusal | None = None
    overlapping: Vacation | None = None


def today_in(campaign: Campaign, now: datetime) -> date:
    """The date in the campaign's time zone."""
    return now.astimezone(ZoneInfo(campaign.time_zone)).date()


async def own_vacations(
    store: Store, campaign: Campaign, user_id: UserId, now: datetime
) -> list[Vacation]:
    """The player's vacations in the campaign not over yet, in the order they begin."""
    today = today_in(campaign, now)
    return [
        v
        for v in await store.vacations(campaign.id)
        if v.user_id == user_id and v.last_day >= today
    ]


def check(first: date, last: date, today: date) -> VacationRefusal | None:
    """What is wrong with an absence from ``first`` to ``last`` set on ``today``."""
    if first < today:
        return VacationRefusal.PAST
    if first > today + timedelta(days=MAX_DAYS_AHEAD):
        return VacationRefusal.TOO_FAR
    if last < first:
        return VacationRefusal.BACKWARDS
    if (last - first).days + 1 > MAX_DAYS:
        return VacationRefusal.TOO_LONG
    return None


async def _told(store: Store, campaign: Campaign, member: Member) -> list[UserId]:
    """Who hears of a player's vacation: their teammates and the GMs who can be reached."""
    members = await store.members(campaign.id)
    users = [
        m.user_id
        for m in members
        if m.user_id != member.user_id
        and (m.is_gm or (member.side_id is not None and m.side_id == member.side_id))
    ]
    people = await store.people(users)
    return [u for u in dict.fromkeys(users) if u in people and people[u].can_receive_private]


async def set_vacation(
    store: Store, campaign: Campaign, member: Member, first: date, last: date, now: datetime
) -> VacationResult:
    """Store ``member``'s own absence and queue the notices to teammates and GMs."""
    if campaign.status is CampaignStatus.FINISHED:
        return VacationResult(refusal=VacationRefusal.OVER)
    refusal = check(first, last, today_in(campaign, now))
    if refusal is not None:
        return VacationResult(refusal=refusal)
    async with store.atomic():
        for existing in await own_vacations(store, campaign, member.user_id, now):
            if existing.first_day <= last and first <= existing.last_day:
                return VacationResult(refusal=VacationRefusal.OVERLAPS, overlapping=existing)
        key = f"vacation:{member.user_id}:{first.isoformat()}:{now.isoformat()}"
        outbox = [
            private_post(
                campaign,
                user,
                "vacation_set",
                key,
                name=member.display_name,
                side=member.side_id,
                first=first.isoformat(),
                last=last.isoformat(),
            )
            for user in await _told(store, campaign, member)
        ]
        vacation = await store.add_vacation(campaign.id, member.user_id, first, last, now, outbox)
    return VacationResult(vacation=vacation)


async def cancel_vacation(
    store: Store, campaign: Campaign, member: Member, vacation_id: int, now: datetime
) -> Vacation | None:
    """Cancel ``member``'s own vacation (``None``: not theirs, or cancelled already); the
    teammates and GMs are told."""
    mine = {v.id: v for v in await store.vacations(campaign.id) if v.user_id == member.user_id}
    vacation = mine.get(vacation_id)
    if vacation is None:
        return None
    key = f"vacation:{vacation.id}:cancelled"
    outbox = [
        private_post(
            campaign,
            user,
            "vacation_cancelled",
            key,
            name=member.display_name,
            side=member.side_id,
            first=vacation.first_day.isoformat(),
            last=vacation.last_day.isoformat(),
        )
        for user in await _told(store, campaign, member)
    ]
    if not await store.cancel_vacation(vacation.id, member.user_id, now, outbox):
        return None
    return vacation


async def away_users(store: Store, campaign: Campaign, now: datetime) -> set[UserId]:
    """Who is on vacation today (the campaign's calendar)."""
    today = today_in(campaign, now)
    return {v.user_id for v in await store.vacations(campaign.id) if v.covers(today)}


async def away_of_sides(
    store: Store, campaign: Campaign, sides: list[SideId], day: date
) -> list[tuple[str, date]]:
    """(name, last day) of each player of ``sides`` on vacation on ``day``."""
    covering = {v.user_id: v for v in await store.vacations(campaign.id) if v.covers(day)}
    return [
        (m.display_name, covering[m.user_id].last_day)
        for m in await store.members(campaign.id)
        if m.user_id in covering and m.side_id is not None and m.side_id in sides
    ]
