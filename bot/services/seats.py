"""Replacing a player who vanished (issue 23): a GM marks their seat vacant, the group is told
the side has an open seat, and a GM gives it to a newcomer.

A seat is a player's place on a side: their strategist and tactician roles. Vacating it takes
the side from the player at once (they stay a member without a side, so their private screens
of that side refuse them and their history shows only what is public); the newcomer gets the
same roles and, with them, what the side sees: its own orders and maps, its past turns, never
another side's secrets. While a side has an open seat, anyone may ask for it (even when the
campaign takes no new players otherwise), and every join of that side waits for a GM.

No aiogram here: the handlers word the posts (in the campaign's and each person's language) and
pass them in, so each change and its announcements are one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.services.campaigns import board_refresh
from storage import (
    Campaign,
    CampaignStatus,
    Member,
    NewOutboxMessage,
    Phase,
    Store,
    Vacancy,
)
from storage.models import SideId, UserId

MAX_REASON = 200


class SeatOutcome(StrEnum):
    """What :func:`vacate`, :func:`fill` or :func:`withdraw` did."""

    DONE = "done"
    NO_SEAT = "no_seat"  # the player has no side (any more): vacated or moved meanwhile
    FILLED = "filled"  # the vacancy was given to someone (or withdrawn) meanwhile
    PLAYING = "playing"  # the newcomer plays a side of this campaign already
    REMOVED = "removed"  # a GM removed the newcomer: let them back in first
    CLOSED = "closed"  # the campaign is over or still being set up


@dataclass(frozen=True)
class Candidate:
    """Someone a GM may give a vacant seat to, and why they are offered."""

    user_id: UserId
    name: str
    asked: bool  # they asked to join this campaign (the group's «Join» or /join)


def seats_change(campaign: Campaign) -> bool:
    """Seats can be vacated and filled while the campaign is played (not in setup, where
    players join and leave freely, nor once it is over)."""
    return campaign.status is not CampaignStatus.FINISHED and campaign.phase is not Phase.SETUP


def clean_reason(text: str) -> str | None:
    """A typed reason on one line, or ``None`` if empty or longer than :data:`MAX_REASON`."""
    reason = " ".join(text.split())
    return reason if 1 <= len(reason) <= MAX_REASON else None


async def seated(store: Store, campaign: Campaign) -> list[Member]:
    """The members who hold a seat (play a side), by side then name."""
    order = {side.id: side.position for side in await store.sides(campaign.id)}
    members = [m for m in await store.members(campaign.id) if m.side_id is not None]
    return sorted(members, key=lambda m: (order.get(m.side_id or "", 0), m.display_name))


async def vacant_sides(store: Store, campaign: Campaign) -> set[SideId]:
    """The sides with an open seat."""
    return {vacancy.side_id for vacancy in await store.vacancies(campaign.id)}


async def vacate(
    store: Store,
    campaign: Campaign,
    user_id: UserId,
    reason: str,
    actor: UserId,
    now: datetime,
    notices: Sequence[NewOutboxMessage] = (),
) -> tuple[SeatOutcome, Vacancy | None]:
    """Take ``user_id``'s seat from them and note it vacant (audited with ``reason``); the
    ``notices`` and a board refresh go in the same transaction."""
    if not seats_change(campaign):
        return SeatOutcome.CLOSED, None
    queued = (*notices, board_refresh(campaign, f"vacated:{user_id}", now))
    vacancy = await store.vacate_seat(campaign.id, user_id, reason, actor, now, queued)
    if vacancy is None:
        return SeatOutcome.NO_SEAT, None
    return SeatOutcome.DONE, vacancy


async def candidates(store: Store, campaign: Campaign) -> list[Candidate]:
    """Whom a GM may give a vacant seat: people who asked to join (first), then people of the
    group who opened a private chat with the bot and play no side here: members without a
    side (a GM, a player whose seat was vacated) and players of the group's other campaigns.
    Nobody a GM removed; nobody the bot cannot write to."""
    members = {m.user_id: m for m in await store.members(campaign.id)}
    removed = {r.user_id for r in await store.removed_members(campaign.id)}
    asked = [r.user_id for r in await store.join_requests(campaign.id)]
    others = [m.user_id for m in members.values() if m.side_id is None]
    for other in await store.campaigns_in_chat(campaign.chat_id):
        if other.id != campaign.id:
            others += [m.user_id for m in await store.members(other.id)]
    ordered = list(dict.fromkeys(asked + sorted(set(others))))
    people = await store.people(ordered)
    found = []
    for user_id in ordered:
        person = people.get(user_id)
        member = members.get(user_id)
        playing = member is not None and member.side_id is not None
        if person is None or not person.can_receive_private or playing or user_id in removed:
            continue
        found.append(Candidate(user_id, person.display_name, user_id in asked))
    return found


async def fill(
    store: Store,
    campaign: Campaign,
    vacancy: Vacancy,
    user_id: UserId,
    name: str,
    actor: UserId,
    now: datetime,
    notices: Sequence[NewOutboxMessage] = (),
) -> tuple[SeatOutcome, Member | None]:
    """Give the open ``vacancy`` to ``user_id`` (audited); the ``notices`` and a board refresh
    go in the same transaction. Refused for someone a GM removed or who plays a side here."""
    if not seats_change(campaign):
        return SeatOutcome.CLOSED, None
    async with store.atomic():
        if await store.removed_member(campaign.id, user_id) is not None:
            return SeatOutcome.REMOVED, None
        current = await store.member(campaign.id, user_id)
        if current is not None and current.side_id is not None:
            return SeatOutcome.PLAYING, current
        queued = (*notices, board_refresh(campaign, f"seated:{user_id}", now))
        member = await store.fill_seat(vacancy.id, user_id, name, actor, now, queued)
    if member is None:
        return SeatOutcome.FILLED, None
    return SeatOutcome.DONE, member


async def withdraw(
    store: Store,
    campaign: Campaign,
    vacancy: Vacancy,
    actor: UserId,
    now: datetime,
    notices: Sequence[NewOutboxMessage] = (),
) -> SeatOutcome:
    """Close the open ``vacancy`` without a newcomer: the side plays on with its other players
    (audited); the ``notices`` and a board refresh go in the same transaction."""
    if not seats_change(campaign):
        return SeatOutcome.CLOSED
    queued = (*notices, board_refresh(campaign, f"withdrawn:{vacancy.id}", now))
    if await store.withdraw_vacancy(vacancy.id, actor, now, queued) is None:
        return SeatOutcome.FILLED
    return SeatOutcome.DONE
