"""Seats left vacant (issue 23): a GM takes a vanished player's place on a side from them and
later gives it to a newcomer.

Storage checks only what keeps the records whole (the player has a side; the vacancy is still
open, compare-and-set); who may be given a seat is the services' decision
(``bot/services/seats.py``). Each change is one transaction with its membership change, its
audit entry and the posts that announce it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from storage.models import (
    AuditAction,
    Campaign,
    CampaignId,
    Member,
    NewOutboxMessage,
    Role,
    SideId,
    UserId,
    Vacancy,
    story_order,
)
from storage.shared import SharedRecords
from storage.sql import Conn, Row, Transactions, dt, fetch_all, fetch_one, insert_row, opt_dt, ts


def _vacancy(row: Row) -> Vacancy:
    return Vacancy(
        id=row["id"],
        campaign_id=row["campaign_id"],
        side_id=row["side_id"],
        roles=frozenset(Role(r) for r in row["roles"].split(",") if r),
        left_user_id=row["left_user_id"],
        left_name=row["left_name"],
        reason=row["reason"],
        opened_by=row["opened_by"],
        opened_at=dt(row["opened_at"]),
        filled_by=row["filled_by"],
        filled_name=row["filled_name"],
        closed_by=row["closed_by"],
        closed_at=opt_dt(row["closed_at"]),
    )


class SeatStore(Protocol):
    """The vacant seats part of the store."""

    async def vacate_seat(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        reason: str,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> Vacancy | None: ...
    async def fill_seat(
        self,
        vacancy_id: int,
        user_id: UserId,
        display_name: str,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        extra_roles: frozenset[Role] = frozenset(),
    ) -> Member | None: ...
    async def withdraw_vacancy(
        self,
        vacancy_id: int,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> Vacancy | None: ...
    async def vacancy(self, vacancy_id: int) -> Vacancy | None: ...
    async def vacancies(
        self, campaign_id: CampaignId, *, open_only: bool = True
    ) -> list[Vacancy]: ...


class SeatRecords(SharedRecords):
    """:class:`SeatStore` on the campaign file (mixed into ``SqliteCampaignStore``)."""

    _db: Transactions

    async def _set_member(
        self,
        conn: Conn,
        campaign_id: CampaignId,
        user_id: UserId,
        display_name: str,
        roles: frozenset[Role],
        side_id: SideId | None,
        now: datetime,
    ) -> None:
        await conn.execute(
            "INSERT INTO members (campaign_id, user_id, display_name, side_id, joined_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (campaign_id, user_id) DO UPDATE SET"
            " display_name = excluded.display_name, side_id = excluded.side_id",
            (campaign_id, user_id, display_name, side_id, ts(now)),
        )
        await conn.execute(
            "DELETE FROM member_roles WHERE campaign_id = ? AND user_id = ?",
            (campaign_id, user_id),
        )
        await conn.executemany(
            "INSERT INTO member_roles (campaign_id, user_id, role) VALUES (?, ?, ?)",
            [(campaign_id, user_id, role.value) for role in sorted(roles)],
        )

    async def vacate_seat(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        reason: str,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> Vacancy | None:
        """Take ``user_id``'s place on their side from them (they stay a member, with any GM
        role, but with no side) and note the seat as vacant, audited with ``reason``; the
        ``outbox`` posts go in the same transaction. ``None`` if they play no side (any more)."""
        async with self._db.transaction() as conn:
            campaign = await self._campaign_in(conn, campaign_id)
            before = await self._member_in(conn, campaign_id, user_id)
            if campaign is None or before is None or before.side_id is None:
                return None
            seat_roles = frozenset(role for role in before.roles if role.needs_side)
            kept = before.roles - seat_roles
            await self._set_member(conn, campaign_id, user_id, before.display_name, kept, None, now)
            vacancy_id = await insert_row(
                conn,
                "INSERT INTO vacancies (campaign_id, side_id, roles, left_user_id, left_name,"
                " reason, opened_by, opened_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    campaign_id,
                    before.side_id,
                    ",".join(sorted(seat_roles)),
                    user_id,
                    before.display_name,
                    reason,
                    actor,
                    ts(now),
                ),
            )
            row = await fetch_one(conn, "SELECT * FROM vacancies WHERE id = ?", (vacancy_id,))
            if row is None:
                raise RuntimeError(f"vacancy {vacancy_id} vanished inside its transaction")
            vacancy = _vacancy(row)
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.SEAT_VACATED,
                before.model_dump(mode="json"),
                vacancy.model_dump(mode="json"),
                now,
                reason,
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return vacancy

    async def fill_seat(
        self,
        vacancy_id: int,
        user_id: UserId,
        display_name: str,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        extra_roles: frozenset[Role] = frozenset(),
    ) -> Member | None:
        """Give the open vacancy to ``user_id``: they get its side and roles (with
        ``extra_roles``, e.g. the role they asked for, and keeping any GM role); their join
        request goes and the vacancy closes, audited, with the ``outbox`` posts. A
        compare-and-set on the vacancy being open: ``None`` if it was filled meanwhile or the
        person plays a side already."""
        async with self._db.transaction() as conn:
            found = await self._open_vacancy_in(conn, vacancy_id)
            if found is None:
                return None
            vacancy, campaign = found
            before = await self._member_in(conn, vacancy.campaign_id, user_id)
            if before is not None and before.side_id is not None:
                return None
            kept = before.roles if before is not None else frozenset[Role]()
            name = before.display_name if before is not None else display_name
            await self._set_member(
                conn,
                campaign.id,
                user_id,
                name,
                kept | vacancy.roles | extra_roles,
                vacancy.side_id,
                now,
            )
            await conn.execute(
                "DELETE FROM join_requests WHERE campaign_id = ? AND user_id = ?",
                (campaign.id, user_id),
            )
            await conn.execute(
                "UPDATE vacancies SET filled_by = ?, filled_name = ?, closed_by = ?,"
                " closed_at = ? WHERE id = ?",
                (user_id, name, actor, ts(now), vacancy_id),
            )
            after = await self._member_in(conn, campaign.id, user_id)
            if after is None:
                raise RuntimeError(f"member {user_id} vanished inside its transaction")
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.SEAT_FILLED,
                vacancy.model_dump(mode="json"),
                after.model_dump(mode="json"),
                now,
                vacancy.reason,
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return after

    async def withdraw_vacancy(
        self,
        vacancy_id: int,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> Vacancy | None:
        """Close the open vacancy without giving it to anyone (the side plays on with its other
        players), audited, with the ``outbox`` posts. A compare-and-set on the vacancy being
        open: ``None`` if it was filled or withdrawn meanwhile."""
        async with self._db.transaction() as conn:
            found = await self._open_vacancy_in(conn, vacancy_id)
            if found is None:
                return None
            vacancy, campaign = found
            await conn.execute(
                "UPDATE vacancies SET closed_by = ?, closed_at = ? WHERE id = ?",
                (actor, ts(now), vacancy_id),
            )
            closed = vacancy.model_copy(update={"closed_by": actor, "closed_at": now})
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.SEAT_WITHDRAWN,
                vacancy.model_dump(mode="json"),
                closed.model_dump(mode="json"),
                now,
                vacancy.reason,
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return closed

    async def _open_vacancy_in(
        self, conn: Conn, vacancy_id: int
    ) -> tuple[Vacancy, Campaign] | None:
        """Vacancy ``vacancy_id`` if still open, with its campaign; ``None`` otherwise."""
        row = await fetch_one(
            conn, "SELECT * FROM vacancies WHERE id = ? AND closed_at IS NULL", (vacancy_id,)
        )
        if row is None:
            return None
        vacancy = _vacancy(row)
        campaign = await self._campaign_in(conn, vacancy.campaign_id)
        return None if campaign is None else (vacancy, campaign)

    async def vacancy(self, vacancy_id: int) -> Vacancy | None:
        """One vacancy, open or closed."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(conn, "SELECT * FROM vacancies WHERE id = ?", (vacancy_id,))
        return None if row is None else _vacancy(row)

    async def vacancies(self, campaign_id: CampaignId, *, open_only: bool = True) -> list[Vacancy]:
        """The campaign's vacancies, oldest first (only the open ones unless ``open_only`` is
        false)."""
        where = " AND closed_at IS NULL" if open_only else ""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                f"SELECT * FROM vacancies WHERE campaign_id = ?{where} ORDER BY id",
                (campaign_id,),
            )
        return [_vacancy(row) for row in rows]
