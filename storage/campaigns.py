"""Campaigns, their sides and their members."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from storage.dialect import INTEGRITY_ERRORS, breaks_one_active_per_chat
from storage.errors import ChatHasActiveCampaignError, NotFoundError, SettingsLockedError
from storage.models import (
    AuditAction,
    Campaign,
    CampaignId,
    CampaignSettings,
    CampaignStatus,
    ChatId,
    Member,
    Membership,
    NewCampaign,
    NewSide,
    Phase,
    Role,
    Side,
    SideId,
    TransitionOutcome,
    TransitionResult,
    UserId,
    json_of,
)
from storage.shared import (
    SharedRecords,
    _campaign,
    _result,
    _side,
    campaign_of,
    campaign_query,
    member_of,
    member_query,
)
from storage.sql import (
    Conn,
    Query,
    Row,
    changed_rows,
    dt,
    dump_json,
    fetch_all,
    fetch_one,
    insert_row,
    may_violate,
    ts,
)


def sides_query(campaign_id: CampaignId) -> Query:
    """The campaign's sides in their order (:func:`sides_of`)."""
    return "SELECT * FROM sides WHERE campaign_id = ? ORDER BY position", (campaign_id,)


def sides_of(rows: Sequence[Row]) -> list[Side]:
    """The sides of :func:`sides_query`'s rows."""
    return [_side(row) for row in rows]


def members_query(campaign_id: CampaignId) -> Query:
    """Everyone in the campaign with their roles, by user id (:func:`members_of`)."""
    return (
        "SELECT m.user_id, m.display_name, m.side_id, m.joined_at,"
        " group_concat(r.role) AS roles FROM members m LEFT JOIN member_roles r"
        " ON r.campaign_id = m.campaign_id AND r.user_id = m.user_id"
        " WHERE m.campaign_id = ? GROUP BY m.campaign_id, m.user_id ORDER BY m.user_id",
        (campaign_id,),
    )


def members_of(campaign_id: CampaignId, rows: Sequence[Row]) -> list[Member]:
    """The members of :func:`members_query`'s rows."""
    return [
        _member(
            campaign_id,
            row["user_id"],
            row["display_name"],
            row["side_id"],
            row["roles"],
            row["joined_at"],
        )
        for row in rows
    ]


@lru_cache(maxsize=1024)
def _member(
    campaign_id: CampaignId,
    user_id: UserId,
    display_name: str,
    side_id: SideId | None,
    roles: str | None,
    joined_at: str,
) -> Member:
    """A member from its row's values, made once per distinct row (frozen, as
    :func:`storage.sql.once_per_row`'s records: members are read at nearly every update)."""
    return Member(
        campaign_id=campaign_id,
        user_id=user_id,
        display_name=display_name,
        side_id=side_id,
        roles=frozenset(Role(r) for r in (roles or "").split(",") if r),
        joined_at=dt(joined_at),
    )


def running_count_query(user_id: UserId) -> Query:
    """How many unfinished campaigns ``user_id`` is in (:func:`running_count_of`)."""
    return (
        "SELECT count(*) AS running FROM members m JOIN campaigns c ON c.id = m.campaign_id"
        " WHERE m.user_id = ? AND c.status <> 'finished'",
        (user_id,),
    )


def running_count_of(rows: Sequence[Row]) -> int:
    """The count of :func:`running_count_query`'s rows."""
    return int(rows[0]["running"]) if rows else 0


class CampaignRecords(SharedRecords):
    """Campaigns, sides and members (mixed into ``SqliteCampaignStore``)."""

    async def create_campaign(self, new: NewCampaign, now: datetime) -> Campaign:
        """Store a new campaign in setup, with its creator as GM; one active per chat topic."""
        map_name = new.map if isinstance(new.map, str) else None
        map_json = None if isinstance(new.map, str) else new.map.model_dump_json()
        async with self._db.transaction() as conn:
            try:
                async with may_violate(conn):
                    campaign_id = await insert_row(
                        conn,
                        "INSERT INTO campaigns (chat_id, thread_id, title, time_zone,"
                        " schedule_json, ruleset_json, map_name, map_json, unreported_policy,"
                        " status, phase, turn, created_by, created_at, updated_at, language)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'setup', 'setup', 0, ?, ?, ?, ?)",
                        (
                            new.chat_id,
                            new.thread_id,
                            new.title,
                            new.time_zone,
                            new.schedule.model_dump_json(),
                            dump_json(new.ruleset_overrides),
                            map_name,
                            map_json,
                            new.unreported_policy.value,
                            new.created_by,
                            ts(now),
                            ts(now),
                            new.language,
                        ),
                    )
            except INTEGRITY_ERRORS as error:
                if breaks_one_active_per_chat(error):
                    raise ChatHasActiveCampaignError(
                        f"chat {new.chat_id} topic {new.thread_id} already runs a campaign"
                    ) from error
                raise
            await conn.execute(
                "INSERT INTO members (campaign_id, user_id, display_name, side_id, joined_at)"
                " VALUES (?, ?, ?, NULL, ?)",
                (campaign_id, new.created_by, new.creator_name, ts(now)),
            )
            await conn.execute(
                "INSERT INTO member_roles (campaign_id, user_id, role) VALUES (?, ?, 'gm')",
                (campaign_id, new.created_by),
            )
            await self._enter_phase(
                conn,
                campaign_id,
                0,
                Phase.SETUP,
                CampaignStatus.SETUP,
                new.created_by,
                "created",
                now,
            )
            campaign = await self._require_campaign(conn, campaign_id)
            await self._audit(
                conn,
                campaign,
                new.created_by,
                AuditAction.CAMPAIGN_CREATED,
                None,
                json_of(campaign),
                now,
            )
        return campaign

    async def campaign(self, campaign_id: CampaignId) -> Campaign | None:
        """The campaign, or ``None``."""
        [rows] = await self._db.read([campaign_query(campaign_id)])
        return campaign_of(rows)

    async def active_campaign(self, chat_id: ChatId, thread_id: int = 0) -> Campaign | None:
        """The unfinished campaign of a group chat (forum topic ``thread_id``), if any."""
        [rows] = await self._db.read(
            [
                (
                    "SELECT * FROM campaigns WHERE chat_id = ? AND thread_id = ?"
                    " AND status <> 'finished'",
                    (chat_id, thread_id),
                )
            ]
        )
        return _campaign(rows[0]) if rows else None

    async def campaigns_in_chat(self, chat_id: ChatId) -> list[Campaign]:
        """Every campaign a chat has run, oldest first."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn, "SELECT * FROM campaigns WHERE chat_id = ? ORDER BY id", (chat_id,)
            )
        return [_campaign(row) for row in rows]

    async def unfinished_campaigns(self) -> list[Campaign]:
        """Every campaign not finished, oldest first (the scheduler's list after a restart)."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn, "SELECT * FROM campaigns WHERE status <> 'finished' ORDER BY id"
            )
        return [_campaign(row) for row in rows]

    async def update_settings(
        self,
        campaign_id: CampaignId,
        settings: CampaignSettings,
        actor: UserId,
        now: datetime,
        reason: str = "",
    ) -> Campaign:
        """Change the fields ``settings`` sets (nothing, and no audit entry, when they already
        hold those values). Map and ruleset only before turn 1 starts."""
        async with self._db.transaction() as conn:
            before = await self._require_campaign(conn, campaign_id)
            locks_rules = settings.map is not None or settings.ruleset_overrides is not None
            if locks_rules and before.phase not in (Phase.SETUP, Phase.DEPLOYMENT):
                raise SettingsLockedError("map and ruleset cannot change after turn 1 has started")
            columns: dict[str, Any] = {}
            if settings.title is not None:
                columns["title"] = settings.title
            if settings.time_zone is not None:
                columns["time_zone"] = settings.time_zone
            if settings.schedule is not None:
                columns["schedule_json"] = settings.schedule.model_dump_json()
            if settings.ruleset_overrides is not None:
                columns["ruleset_json"] = dump_json(settings.ruleset_overrides)
            if settings.unreported_policy is not None:
                columns["unreported_policy"] = settings.unreported_policy.value
            if settings.language is not None:
                columns["language"] = settings.language
            if settings.joining is not None:
                columns["joining"] = settings.joining.value
            if settings.no_show_policy is not None:
                columns["no_show_policy"] = settings.no_show_policy.value
            if settings.score_margins is not None:
                columns["score_margins_json"] = settings.score_margins.model_dump_json()
            if isinstance(settings.map, str):
                columns["map_name"], columns["map_json"] = settings.map, None
            elif settings.map is not None:
                columns["map_name"], columns["map_json"] = None, settings.map.model_dump_json()
            if not columns:
                return before
            # Nothing changes (e.g. the same answer sent twice): no write, no audit.
            unchanged = " AND ".join(f"{name} IS ?" for name in columns)
            values = tuple(columns.values())
            columns["updated_at"] = ts(now)
            assignments = ", ".join(f"{name} = ?" for name in columns)
            changed = await changed_rows(
                conn,
                f"UPDATE campaigns SET {assignments} WHERE id = ? AND NOT ({unchanged})",
                (*columns.values(), campaign_id, *values),
            )
            if changed == 0:
                return before
            after = await self._require_campaign(conn, campaign_id)
            await self._audit(
                conn,
                after,
                actor,
                AuditAction.SETTINGS_CHANGED,
                json_of(before),
                json_of(after),
                now,
                reason,
            )
        return after

    async def set_status(
        self,
        campaign_id: CampaignId,
        expected: CampaignStatus,
        new: CampaignStatus,
        actor: UserId | None,
        reason: str,
        now: datetime,
    ) -> TransitionResult:
        """Compare-and-set the status alone (pause, resume); the phase does not move."""
        async with self._db.transaction() as conn:
            changed = await changed_rows(
                conn,
                "UPDATE campaigns SET status = ?, updated_at = ? WHERE id = ? AND status = ?",
                (new.value, ts(now), campaign_id, expected.value),
            )
            campaign = await self._campaign_in(conn, campaign_id)
            if campaign is None:
                return _result(TransitionOutcome.NOT_FOUND, None, f"no campaign {campaign_id}")
            if changed == 0:
                outcome = (
                    TransitionOutcome.ALREADY_DONE
                    if campaign.status is new
                    else TransitionOutcome.CONFLICT
                )
                return _result(
                    outcome, campaign, f"status is {campaign.status.value}: nothing done"
                )
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.STATUS_CHANGED,
                {"status": expected.value},
                {"status": new.value},
                now,
                reason,
            )
        return _result(TransitionOutcome.APPLIED, campaign, f"status {new.value}")

    # ---- sides and members --------------------------------------------------------------------

    async def add_side(
        self, campaign_id: CampaignId, side: NewSide, actor: UserId, now: datetime
    ) -> Side:
        """Add a side at the end of the side order."""
        async with self._db.transaction() as conn:
            campaign = await self._require_campaign(conn, campaign_id)
            row = await fetch_one(
                conn,
                "SELECT COALESCE(MAX(position), 0) + 1 FROM sides WHERE campaign_id = ?",
                (campaign_id,),
            )
            position = int(row[0]) if row is not None else 1
            await conn.execute(
                "INSERT INTO sides (campaign_id, id, name, colour, position)"
                " VALUES (?, ?, ?, ?, ?)",
                (campaign_id, side.id, side.name, side.colour, position),
            )
            stored = Side(campaign_id=campaign_id, position=position, **side.model_dump())
            await self._audit(
                conn, campaign, actor, AuditAction.SIDE_ADDED, None, json_of(stored), now
            )
        return stored

    async def update_side(
        self, campaign_id: CampaignId, side: NewSide, actor: UserId, now: datetime
    ) -> Side:
        """Rename or recolour side ``side.id``."""
        async with self._db.transaction() as conn:
            campaign = await self._require_campaign(conn, campaign_id)
            row = await fetch_one(
                conn, "SELECT * FROM sides WHERE campaign_id = ? AND id = ?", (campaign_id, side.id)
            )
            if row is None:
                raise NotFoundError(f"campaign {campaign_id} has no side {side.id}")
            before = _side(row)
            await conn.execute(
                "UPDATE sides SET name = ?, colour = ? WHERE campaign_id = ? AND id = ?",
                (side.name, side.colour, campaign_id, side.id),
            )
            after = before.model_copy(update={"name": side.name, "colour": side.colour})
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.SIDE_CHANGED,
                json_of(before),
                json_of(after),
                now,
            )
        return after

    async def remove_side(
        self, campaign_id: CampaignId, side_id: SideId, actor: UserId, now: datetime
    ) -> bool:
        """Remove a side during setup (its members stay, without a side). False if unknown."""
        async with self._db.transaction() as conn:
            campaign = await self._require_campaign(conn, campaign_id)
            if campaign.phase is not Phase.SETUP:
                raise SettingsLockedError("sides can be removed only during setup")
            row = await fetch_one(
                conn, "SELECT * FROM sides WHERE campaign_id = ? AND id = ?", (campaign_id, side_id)
            )
            if row is None:
                return False
            await conn.execute(
                "DELETE FROM member_roles WHERE campaign_id = ? AND role IN ('strategist',"
                " 'tactician') AND user_id IN (SELECT user_id FROM members WHERE campaign_id = ?"
                " AND side_id = ?)",
                (campaign_id, campaign_id, side_id),
            )
            await conn.execute(
                "UPDATE members SET side_id = NULL WHERE campaign_id = ? AND side_id = ?",
                (campaign_id, side_id),
            )
            await conn.execute(
                "DELETE FROM order_edits WHERE order_set_id IN (SELECT id FROM order_sets"
                " WHERE campaign_id = ? AND side_id = ?)",
                (campaign_id, side_id),
            )
            await conn.execute(
                "DELETE FROM order_sets WHERE campaign_id = ? AND side_id = ?",
                (campaign_id, side_id),
            )
            await conn.execute(
                "DELETE FROM sides WHERE campaign_id = ? AND id = ?", (campaign_id, side_id)
            )
            await self._audit(
                conn, campaign, actor, AuditAction.SIDE_REMOVED, json_of(_side(row)), None, now
            )
        return True

    async def sides(self, campaign_id: CampaignId) -> list[Side]:
        """The campaign's sides in the order they were added."""
        [rows] = await self._db.read([sides_query(campaign_id)])
        return sides_of(rows)

    async def _sides_in(self, conn: Conn, campaign_id: CampaignId) -> list[Side]:
        return sides_of(await fetch_all(conn, *sides_query(campaign_id)))

    async def put_member(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        display_name: str,
        roles: frozenset[Role],
        side_id: SideId | None,
        actor: UserId,
        now: datetime,
    ) -> Member:
        """Add a person or replace their roles and side. Player roles need a side."""
        if any(role.needs_side for role in roles) and side_id is None:
            raise ValueError("a strategist or tactician belongs to a side")
        if side_id is not None and not any(role.needs_side for role in roles):
            raise ValueError("only strategists and tacticians have a side")
        async with self._db.transaction() as conn:
            campaign = await self._require_campaign(conn, campaign_id)
            before = await self._member_in(conn, campaign_id, user_id)
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
            after = await self._member_in(conn, campaign_id, user_id)
            await self._audit(
                conn, campaign, actor, AuditAction.MEMBER_SET, json_of(before), json_of(after), now
            )
        if after is None:
            raise RuntimeError(f"member {user_id} vanished inside its transaction")
        return after

    async def remove_member(
        self, campaign_id: CampaignId, user_id: UserId, actor: UserId, now: datetime
    ) -> bool:
        """Remove a person from a campaign (their past orders and reports stay)."""
        async with self._db.transaction() as conn:
            campaign = await self._require_campaign(conn, campaign_id)
            before = await self._member_in(conn, campaign_id, user_id)
            if before is None:
                return False
            await conn.execute(
                "DELETE FROM members WHERE campaign_id = ? AND user_id = ?", (campaign_id, user_id)
            )
            await self._audit(
                conn, campaign, actor, AuditAction.MEMBER_REMOVED, json_of(before), None, now
            )
        return True

    async def member(self, campaign_id: CampaignId, user_id: UserId) -> Member | None:
        """One person's membership of a campaign."""
        [rows] = await self._db.read([member_query(campaign_id, user_id)])
        return member_of(campaign_id, user_id, rows)

    async def members(self, campaign_id: CampaignId) -> list[Member]:
        """Everyone in a campaign, by user id."""
        [rows] = await self._db.read([members_query(campaign_id)])
        return members_of(campaign_id, rows)

    async def _members_in(self, conn: Conn, campaign_id: CampaignId) -> list[Member]:
        return members_of(campaign_id, await fetch_all(conn, *members_query(campaign_id)))

    async def _running_count_in(self, conn: Conn, user_id: UserId) -> int:
        """How many unfinished campaigns ``user_id`` is in."""
        return running_count_of(await fetch_all(conn, *running_count_query(user_id)))

    async def memberships(self, user_id: UserId) -> list[Membership]:
        """Every campaign a person is in, oldest first."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT c.* FROM campaigns c JOIN members m ON m.campaign_id = c.id"
                " WHERE m.user_id = ? ORDER BY c.id",
                (user_id,),
            )
            result: list[Membership] = []
            for row in rows:
                member = await self._member_in(conn, row["id"], user_id)
                if member is not None:
                    result.append(Membership(campaign=_campaign(row), member=member))
        return result
