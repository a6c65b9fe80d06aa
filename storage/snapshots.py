"""One read for one update: what a person's screens of a campaign need, read in one snapshot.

An order press used to open about twenty read transactions (the campaign three times, the
seat, the turn's start, the orders twice, the phase history twice, the sides and the members
for the screen's words ...). :meth:`SnapshotRecords.seat_snapshot` reads it all at once, with
the queries the single reads use, in one read transaction: every part is of the same moment.

A snapshot is for reading. Writes stay compare-and-set in their own transactions (orders on
their edit count and the campaign's turn and phase), so a write decided on a snapshot that
went stale meanwhile is refused or applied again by the database as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol

from rules import CampaignState
from storage.absences import AbsenceRecords, OrdersReopening, reopenings_of, reopenings_query
from storage.campaigns import (
    CampaignRecords,
    members_of,
    members_query,
    running_count_of,
    running_count_query,
    sides_of,
    sides_query,
)
from storage.models import (
    Campaign,
    CampaignId,
    Member,
    OrdersRecord,
    Person,
    PhaseEntry,
    Side,
    SideId,
    UiMessage,
    UserId,
)
from storage.orders import OrderRecords, orders_of, orders_query
from storage.people import (
    PeopleRecords,
    people_of,
    side_people_query,
    ui_messages_of,
    ui_messages_query,
)
from storage.schedule import ClockState, ScheduleRecords, clock_of, clock_query
from storage.shared import campaign_of, campaign_query, turn_start_of, turn_start_query
from storage.turns import TurnRecords, current_entries_query, phase_entries_of


@dataclass(frozen=True)
class SeatSnapshot:
    """A person's seat in a campaign and what its screens show, as of one moment.

    ``orders`` holds the current sets for the campaign's turn that the person may see: their
    own side's, and every side's for a GM (the services still decide which one a screen
    shows).
    """

    campaign: Campaign
    member: Member
    running_campaigns: int
    """How many unfinished campaigns the person is in (this one among them, if unfinished)."""
    sides: tuple[Side, ...]
    members: tuple[Member, ...]
    people: dict[UserId, Person] = field(repr=False)
    """The person and the other members of their side, by user id (those the bot has seen)."""
    history: tuple[PhaseEntry, ...]
    """The phase entry the campaign is in and the undone entries after it (all the history
    :func:`bot.services.window.entry_in` needs)."""
    clock: ClockState | None
    reopenings: dict[int, OrdersReopening]
    """The GM's reopenings of the orders phase, by phase entry."""
    turn_start: CampaignState | None = field(repr=False)
    """The state at the start of the campaign's current turn (none before turn 1)."""
    orders: dict[SideId, OrdersRecord] = field(repr=False)
    ui_messages: dict[str, UiMessage]
    """The person's screens in this campaign, by kind."""

    def member_named(self, user_id: UserId) -> Member | None:
        """The campaign's member ``user_id``, if they are one."""
        return next((member for member in self.members if member.user_id == user_id), None)

    def with_orders(self, record: OrdersRecord) -> SeatSnapshot:
        """This snapshot after its reader saved ``record`` (what the save returned)."""
        return replace(self, orders={**self.orders, record.side_id: record})

    def with_screen(self, screen: UiMessage) -> SeatSnapshot:
        """This snapshot after its reader remembered ``screen``."""
        return replace(self, ui_messages={**self.ui_messages, screen.kind: screen})


class SnapshotStore(Protocol):
    """The part of the store that reads a seat's screens at once."""

    async def seat_snapshot(
        self, campaign_id: CampaignId, user_id: UserId
    ) -> SeatSnapshot | None: ...


class SnapshotRecords(
    CampaignRecords, TurnRecords, OrderRecords, PeopleRecords, ScheduleRecords, AbsenceRecords
):
    """:class:`SnapshotStore` in SQL (mixed into ``SqlCampaignStore``)."""

    async def seat_snapshot(self, campaign_id: CampaignId, user_id: UserId) -> SeatSnapshot | None:
        """``user_id``'s seat in the campaign and everything its screens need, in one read
        transaction; ``None`` when there is no such campaign or they are not in it.

        The queries do not wait for one another (the turn is the campaign's own, read inside
        the queries that need it), so on SQLite they are one call to the database's thread."""
        (
            campaign_rows,
            member_rows,
            running_rows,
            side_rows,
            people_rows,
            history_rows,
            clock_rows,
            reopening_rows,
            turn_start_rows,
            order_rows,
            ui_message_rows,
        ) = await self._db.read(
            [
                campaign_query(campaign_id),
                members_query(campaign_id),
                running_count_query(user_id),
                sides_query(campaign_id),
                side_people_query(campaign_id, user_id),
                current_entries_query(campaign_id),
                clock_query(campaign_id),
                reopenings_query(campaign_id),
                turn_start_query(campaign_id, None),
                orders_query(campaign_id, None, seen_by=user_id),
                ui_messages_query(campaign_id, user_id),
            ]
        )
        campaign = campaign_of(campaign_rows)
        if campaign is None:
            return None
        members = members_of(campaign_id, member_rows)
        member = next((m for m in members if m.user_id == user_id), None)
        if member is None:
            return None
        return SeatSnapshot(
            campaign=campaign,
            member=member,
            running_campaigns=running_count_of(running_rows),
            sides=tuple(sides_of(side_rows)),
            members=tuple(members),
            people=people_of(people_rows),
            history=tuple(phase_entries_of(history_rows)),
            clock=clock_of(clock_rows),
            reopenings=reopenings_of(reopening_rows),
            turn_start=turn_start_of(turn_start_rows),
            orders=orders_of(order_rows),
            ui_messages=ui_messages_of(ui_message_rows),
        )
