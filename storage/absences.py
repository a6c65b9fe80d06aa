"""No-shows in storage (issue 23): players' vacations and one side's orders reopened by a GM.

A vacation is a person's absence from one campaign, by days of the campaign's calendar; a
reopening lets one side change its orders after the window closed, until a short deadline the
scheduler honours (it is read back from here after a restart). Each write is one transaction,
with its announcements queued in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from storage.models import (
    AuditAction,
    CampaignId,
    NewOutboxMessage,
    SideId,
    UserId,
    story_order,
)
from storage.shared import SharedRecords
from storage.sql import (
    Conn,
    Query,
    Row,
    Transactions,
    changed_rows,
    dt,
    fetch_all,
    fetch_one,
    insert_row,
    opt_dt,
    ts,
)

_RECORD = ConfigDict(frozen=True, extra="forbid")


class Vacation(BaseModel):
    """A person's absence from a campaign, ``first_day`` to ``last_day`` included."""

    model_config = _RECORD

    id: int
    campaign_id: CampaignId
    user_id: UserId
    first_day: date
    last_day: date
    set_at: AwareDatetime
    cancelled_at: AwareDatetime | None = None

    def covers(self, day: date) -> bool:
        """True when ``day`` (in the campaign's calendar) is part of the absence."""
        return self.cancelled_at is None and self.first_day <= day <= self.last_day


class OrdersReopening(BaseModel):
    """One side's orders reopened for the orders phase entry ``entry_seq``."""

    model_config = _RECORD

    campaign_id: CampaignId
    entry_seq: int
    turn: int
    side_id: SideId
    hours: int = Field(gt=0)
    deadline: AwareDatetime
    list_at: AwareDatetime | None
    reopened_by: UserId
    reopened_at: AwareDatetime


class AbsenceStore(Protocol):
    """Vacations and reopened orders."""

    async def add_vacation(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        first_day: date,
        last_day: date,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> Vacation: ...
    async def cancel_vacation(
        self,
        vacation_id: int,
        user_id: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> bool: ...
    async def vacations(self, campaign_id: CampaignId) -> list[Vacation]: ...
    async def reopen_orders(
        self,
        reopening: OrdersReopening,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> bool: ...
    async def orders_reopening(
        self, campaign_id: CampaignId, entry_seq: int
    ) -> OrdersReopening | None: ...


def _vacation(row: Row) -> Vacation:
    return Vacation(
        id=row["id"],
        campaign_id=row["campaign_id"],
        user_id=row["user_id"],
        first_day=date.fromisoformat(row["first_day"]),
        last_day=date.fromisoformat(row["last_day"]),
        set_at=dt(row["set_at"]),
        cancelled_at=opt_dt(row["cancelled_at"]),
    )


def _reopening(row: Row) -> OrdersReopening:
    return OrdersReopening(
        campaign_id=row["campaign_id"],
        entry_seq=row["entry_seq"],
        turn=row["turn"],
        side_id=row["side_id"],
        hours=row["hours"],
        deadline=dt(row["deadline"]),
        list_at=opt_dt(row["list_at"]),
        reopened_by=row["reopened_by"],
        reopened_at=dt(row["reopened_at"]),
    )


def reopenings_query(campaign_id: CampaignId) -> Query:
    """The campaign's reopenings of its orders phases (:func:`reopenings_of`)."""
    return "SELECT * FROM orders_reopenings WHERE campaign_id = ?", (campaign_id,)


def reopenings_of(rows: Sequence[Row]) -> dict[int, OrdersReopening]:
    """The reopenings of :func:`reopenings_query`'s rows, by phase entry."""
    return {row["entry_seq"]: _reopening(row) for row in rows}


class AbsenceRecords(SharedRecords):
    """:class:`AbsenceStore` on the campaign file (mixed into ``SqliteCampaignStore``)."""

    _db: Transactions

    async def add_vacation(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        first_day: date,
        last_day: date,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> Vacation:
        """Record an absence (``first_day`` <= ``last_day``) and queue ``outbox`` with it."""
        if first_day > last_day:
            raise ValueError(f"a vacation ends on or after its first day: {first_day}, {last_day}")
        async with self._db.transaction() as conn:
            await self._require_campaign(conn, campaign_id)
            row_id = await insert_row(
                conn,
                "INSERT INTO vacations (campaign_id, user_id, first_day, last_day, set_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (campaign_id, user_id, first_day.isoformat(), last_day.isoformat(), ts(now)),
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
            row = await fetch_one(conn, "SELECT * FROM vacations WHERE id = ?", (row_id,))
        if row is None:
            raise LookupError(f"vacation {row_id} vanished inside its transaction")
        return _vacation(row)

    async def cancel_vacation(
        self,
        vacation_id: int,
        user_id: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> bool:
        """Cancel ``user_id``'s own vacation (once: False if it is not theirs or was cancelled),
        with ``outbox`` queued."""
        async with self._db.transaction() as conn:
            changed = await changed_rows(
                conn,
                "UPDATE vacations SET cancelled_at = ?"
                " WHERE id = ? AND user_id = ? AND cancelled_at IS NULL",
                (ts(now), vacation_id, user_id),
            )
            if changed == 0:
                return False
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return True

    async def vacations(self, campaign_id: CampaignId) -> list[Vacation]:
        """The campaign's vacations not cancelled, in the order they begin."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT * FROM vacations WHERE campaign_id = ? AND cancelled_at IS NULL"
                " ORDER BY first_day, id",
                (campaign_id,),
            )
        return [_vacation(row) for row in rows]

    async def reopen_orders(
        self,
        reopening: OrdersReopening,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> bool:
        """Record a reopening (one per orders phase entry: False if the entry has one already),
        move the clock's deadline of that entry to the reopening's, audit it and queue
        ``outbox``. A clock row still on an earlier entry is left to the scheduler, which reads
        the reopening when it counts the entry's deadline."""
        async with self._db.transaction() as conn:
            campaign = await self._require_campaign(conn, reopening.campaign_id)
            added = await changed_rows(
                conn,
                "INSERT INTO orders_reopenings (campaign_id, entry_seq, turn, side_id, hours,"
                " deadline, list_at, reopened_by, reopened_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (campaign_id, entry_seq) DO NOTHING",
                (
                    reopening.campaign_id,
                    reopening.entry_seq,
                    reopening.turn,
                    reopening.side_id,
                    reopening.hours,
                    ts(reopening.deadline),
                    None if reopening.list_at is None else ts(reopening.list_at),
                    reopening.reopened_by,
                    ts(reopening.reopened_at),
                ),
            )
            if added == 0:
                return False
            await conn.execute(
                "UPDATE campaign_clocks SET deadline = ?, updated_at = ?"
                " WHERE campaign_id = ? AND entry_seq = ?",
                (ts(reopening.deadline), ts(now), reopening.campaign_id, reopening.entry_seq),
            )
            await self._audit(
                conn,
                campaign,
                reopening.reopened_by,
                AuditAction.ORDERS_REOPENED,
                {},
                reopening.model_dump(mode="json"),
                now,
                f"orders of {reopening.side_id} reopened for {reopening.hours} h",
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return True

    async def orders_reopening(
        self, campaign_id: CampaignId, entry_seq: int
    ) -> OrdersReopening | None:
        """The reopening of the orders phase entry ``entry_seq``, if a GM made one."""
        async with self._db.snapshot() as conn:
            return (await self._reopenings_in(conn, campaign_id)).get(entry_seq)

    async def _reopenings_in(
        self, conn: Conn, campaign_id: CampaignId
    ) -> dict[int, OrdersReopening]:
        """The campaign's reopenings of its orders phases, by phase entry."""
        return reopenings_of(await fetch_all(conn, *reopenings_query(campaign_id)))
