"""What the bot keeps about people and its own messages: languages, private chats, pending
joins, people a GM removed, dialogue steps waiting for typed input, and messages edited in place.

None of it may live only in memory: a restart in the middle of a dialogue, or between a "join"
press and the private chat, must lose nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from pydantic import JsonValue

from storage.models import (
    AuditAction,
    CampaignId,
    ChatId,
    JoinRequest,
    Language,
    Person,
    Prompt,
    RemovedMember,
    Role,
    SideId,
    UiMessage,
    UserId,
    utc,
)
from storage.shared import SharedRecords
from storage.sql import (
    Conn,
    Query,
    Row,
    Transactions,
    changed_rows,
    dt,
    dump_json,
    fetch_all,
    fetch_one,
    once_per_row,
    opt_dt,
    ts,
)


def side_people_query(campaign_id: CampaignId, user_id: UserId) -> Query:
    """The person and the other members of their side in the campaign, those the bot has seen
    (:func:`people_of`)."""
    return (
        "SELECT * FROM people WHERE user_id = ? OR user_id IN (SELECT o.user_id FROM members o"
        " JOIN members me ON me.campaign_id = o.campaign_id AND me.side_id = o.side_id"
        " WHERE me.campaign_id = ? AND me.user_id = ?)",
        (user_id, campaign_id, user_id),
    )


def people_of(rows: Sequence[Row]) -> dict[UserId, Person]:
    """The people of ``people`` rows, by user id."""
    return {row["user_id"]: _person(row) for row in rows}


def ui_messages_query(campaign_id: CampaignId, user_id: UserId) -> Query:
    """The messages remembered for ``user_id`` in the campaign (:func:`ui_messages_of`)."""
    return (
        "SELECT * FROM ui_messages WHERE campaign_id = ? AND user_id = ?",
        (campaign_id, user_id),
    )


def ui_messages_of(rows: Sequence[Row]) -> dict[str, UiMessage]:
    """The messages of :func:`ui_messages_query`'s rows, by what they show."""
    return {row["kind"]: _ui_message(row) for row in rows}


class PeopleStore(Protocol):
    """The people part of the store."""

    async def see_person(
        self,
        user_id: UserId,
        display_name: str,
        username: str | None,
        telegram_language: str | None,
        in_private_chat: bool,
        now: datetime,
    ) -> Person: ...
    async def person(self, user_id: UserId) -> Person | None: ...
    async def people(self, user_ids: list[UserId]) -> dict[UserId, Person]: ...
    async def set_language(
        self, user_id: UserId, language: Language | None, now: datetime
    ) -> Person: ...
    async def set_current_campaign(
        self, user_id: UserId, campaign_id: CampaignId | None, now: datetime
    ) -> Person: ...
    async def set_status_message(self, campaign_id: CampaignId, message_id: int | None) -> None: ...
    async def request_join(
        self, campaign_id: CampaignId, user_id: UserId, display_name: str, now: datetime
    ) -> JoinRequest: ...
    async def join_requests(self, campaign_id: CampaignId) -> list[JoinRequest]: ...
    async def join_request(
        self, campaign_id: CampaignId, user_id: UserId
    ) -> JoinRequest | None: ...
    async def drop_join_request(self, campaign_id: CampaignId, user_id: UserId) -> bool: ...
    async def ask_to_join(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        side_id: SideId,
        role: Role,
        now: datetime,
    ) -> JoinRequest | None: ...
    async def settle_join_request(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        approved: bool,
        actor: UserId,
        now: datetime,
    ) -> JoinRequest | None: ...
    async def record_removal(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        display_name: str,
        removed_by: UserId,
        now: datetime,
    ) -> RemovedMember: ...
    async def removed_member(
        self, campaign_id: CampaignId, user_id: UserId
    ) -> RemovedMember | None: ...
    async def removed_members(self, campaign_id: CampaignId) -> list[RemovedMember]: ...
    async def clear_removal(
        self, campaign_id: CampaignId, user_id: UserId, actor: UserId, now: datetime
    ) -> bool: ...
    async def set_prompt(
        self,
        chat_id: ChatId,
        user_id: UserId,
        campaign_id: CampaignId | None,
        field: str,
        data: dict[str, JsonValue],
        message_id: int | None,
        now: datetime,
    ) -> Prompt: ...
    async def prompt(self, chat_id: ChatId, user_id: UserId) -> Prompt | None: ...
    async def answered_prompt(
        self, chat_id: ChatId, user_id: UserId, message_id: int
    ) -> Prompt | None: ...
    async def clear_prompt(
        self, chat_id: ChatId, user_id: UserId, answered_by: int | None = None
    ) -> bool: ...
    async def remember_ui_message(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        kind: str,
        chat_id: ChatId,
        message_id: int,
        now: datetime,
    ) -> UiMessage: ...
    async def ui_message(
        self, campaign_id: CampaignId, user_id: UserId, kind: str
    ) -> UiMessage | None: ...


@once_per_row(1024)
def _person(row: Row) -> Person:
    return Person(
        user_id=row["user_id"],
        display_name=row["display_name"],
        username=row["username"],
        telegram_language=row["telegram_language"],
        language=row["language"],
        private_started_at=opt_dt(row["private_started_at"]),
        current_campaign_id=row["current_campaign_id"],
        updated_at=dt(row["updated_at"]),
    )


def _join_request(row: Row) -> JoinRequest:
    return JoinRequest(
        campaign_id=row["campaign_id"],
        user_id=row["user_id"],
        display_name=row["display_name"],
        requested_at=dt(row["requested_at"]),
        side_id=row["side_id"],
        role=None if row["role"] is None else Role(row["role"]),
        asked_at=opt_dt(row["asked_at"]),
    )


def _removed_member(row: Row) -> RemovedMember:
    return RemovedMember(
        campaign_id=row["campaign_id"],
        user_id=row["user_id"],
        display_name=row["display_name"],
        removed_by=row["removed_by"],
        removed_at=dt(row["removed_at"]),
    )


def _prompt(row: Row) -> Prompt:
    return Prompt(
        chat_id=row["chat_id"],
        user_id=row["user_id"],
        campaign_id=row["campaign_id"],
        field=row["field"],
        data=json.loads(row["data_json"]),
        message_id=row["message_id"],
        created_at=dt(row["created_at"]),
        answered_by=row["answered_by"],
    )


def _ui_message(row: Row) -> UiMessage:
    return UiMessage(
        campaign_id=row["campaign_id"],
        user_id=row["user_id"],
        kind=row["kind"],
        chat_id=row["chat_id"],
        message_id=row["message_id"],
        updated_at=dt(row["updated_at"]),
    )


async def _require_person(conn: Conn, user_id: UserId) -> Person:
    row = await fetch_one(conn, "SELECT * FROM people WHERE user_id = ?", (user_id,))
    if row is None:
        raise LookupError(f"no person {user_id}")
    return _person(row)


class PeopleRecords(SharedRecords):
    """:class:`PeopleStore` on the campaign file (mixed into ``SqliteCampaignStore``)."""

    _db: Transactions

    async def see_person(
        self,
        user_id: UserId,
        display_name: str,
        username: str | None,
        telegram_language: str | None,
        in_private_chat: bool,
        now: datetime,
    ) -> Person:
        """Record (or refresh) someone who just wrote to the bot; their choices are kept."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO people (user_id, display_name, username, telegram_language,"
                " private_started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name,"
                " username = excluded.username, telegram_language = excluded.telegram_language,"
                " private_started_at = COALESCE(people.private_started_at,"
                " excluded.private_started_at), updated_at = excluded.updated_at",
                (
                    user_id,
                    display_name,
                    username,
                    telegram_language,
                    ts(now) if in_private_chat else None,
                    ts(now),
                ),
            )
            return await _require_person(conn, user_id)

    async def person(self, user_id: UserId) -> Person | None:
        """The person, or ``None`` if the bot never saw them."""
        [rows] = await self._db.read([("SELECT * FROM people WHERE user_id = ?", (user_id,))])
        return _person(rows[0]) if rows else None

    async def people(self, user_ids: list[UserId]) -> dict[UserId, Person]:
        """The people among ``user_ids`` the bot has seen."""
        if not user_ids:
            return {}
        marks = ", ".join("?" for _ in user_ids)
        [rows] = await self._db.read(
            [(f"SELECT * FROM people WHERE user_id IN ({marks})", tuple(user_ids))]
        )
        return people_of(rows)

    async def _people_in(self, conn: Conn, user_ids: Sequence[UserId]) -> dict[UserId, Person]:
        if not user_ids:
            return {}
        marks = ", ".join("?" for _ in user_ids)
        rows = await fetch_all(
            conn, f"SELECT * FROM people WHERE user_id IN ({marks})", tuple(user_ids)
        )
        return people_of(rows)

    async def set_language(
        self, user_id: UserId, language: Language | None, now: datetime
    ) -> Person:
        """Set the person's language (``None``: follow their Telegram app)."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "UPDATE people SET language = ?, updated_at = ? WHERE user_id = ?",
                (language, ts(now), user_id),
            )
            return await _require_person(conn, user_id)

    async def set_current_campaign(
        self, user_id: UserId, campaign_id: CampaignId | None, now: datetime
    ) -> Person:
        """The campaign the person's private commands are about when they are in several."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "UPDATE people SET current_campaign_id = ?, updated_at = ? WHERE user_id = ?",
                (campaign_id, ts(now), user_id),
            )
            return await _require_person(conn, user_id)

    async def set_status_message(self, campaign_id: CampaignId, message_id: int | None) -> None:
        """Remember the group's pinned status message (edited in place after each change)."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "UPDATE campaigns SET status_message_id = ? WHERE id = ?",
                (message_id, campaign_id),
            )

    async def request_join(
        self, campaign_id: CampaignId, user_id: UserId, display_name: str, now: datetime
    ) -> JoinRequest:
        """Note that someone pressed "join"; a second press keeps the first time."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO join_requests (campaign_id, user_id, display_name, requested_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (campaign_id, user_id)"
                " DO UPDATE SET display_name = excluded.display_name",
                (campaign_id, user_id, display_name, ts(now)),
            )
            row = await fetch_one(
                conn,
                "SELECT * FROM join_requests WHERE campaign_id = ? AND user_id = ?",
                (campaign_id, user_id),
            )
        if row is None:
            raise LookupError(f"join request of {user_id} vanished inside its transaction")
        return _join_request(row)

    async def join_requests(self, campaign_id: CampaignId) -> list[JoinRequest]:
        """Everyone still to finish joining, oldest first."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT * FROM join_requests WHERE campaign_id = ? ORDER BY requested_at, user_id",
                (campaign_id,),
            )
        return [_join_request(row) for row in rows]

    async def join_request(self, campaign_id: CampaignId, user_id: UserId) -> JoinRequest | None:
        """The person's pending join request (they pressed "join" in the group), if any."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(
                conn,
                "SELECT * FROM join_requests WHERE campaign_id = ? AND user_id = ?",
                (campaign_id, user_id),
            )
        return None if row is None else _join_request(row)

    async def drop_join_request(self, campaign_id: CampaignId, user_id: UserId) -> bool:
        """Forget a join request (joined, or cancelled); False if there was none."""
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "DELETE FROM join_requests WHERE campaign_id = ? AND user_id = ?",
                (campaign_id, user_id),
            )
            return cursor.rowcount > 0

    async def ask_to_join(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        side_id: SideId,
        role: Role,
        now: datetime,
    ) -> JoinRequest | None:
        """The person's join request now waits for a GM: they asked for ``side_id`` as ``role``.
        ``None`` if they have no join request (it is the ticket). Asking again replaces the side
        and role and keeps the first time asked."""
        async with self._db.transaction() as conn:
            changed = await changed_rows(
                conn,
                "UPDATE join_requests SET side_id = ?, role = ?, asked_at = COALESCE(asked_at, ?)"
                " WHERE campaign_id = ? AND user_id = ?",
                (side_id, role.value, ts(now), campaign_id, user_id),
            )
            if not changed:
                return None
            row = await fetch_one(
                conn,
                "SELECT * FROM join_requests WHERE campaign_id = ? AND user_id = ?",
                (campaign_id, user_id),
            )
        return None if row is None else _join_request(row)

    async def settle_join_request(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        approved: bool,
        actor: UserId,
        now: datetime,
    ) -> JoinRequest | None:
        """GM ``actor`` approves or refuses a join request that waits for a GM: the request
        goes, audited. ``None`` (nothing written) if no such request waits (decided already).
        On approval the caller adds the membership in the same transaction (``atomic``)."""
        async with self._db.transaction() as conn:
            row = await fetch_one(
                conn,
                "SELECT * FROM join_requests WHERE campaign_id = ? AND user_id = ?"
                " AND side_id IS NOT NULL AND role IS NOT NULL",
                (campaign_id, user_id),
            )
            campaign = await self._campaign_in(conn, campaign_id)
            if row is None or campaign is None:
                return None
            await conn.execute(
                "DELETE FROM join_requests WHERE campaign_id = ? AND user_id = ?",
                (campaign_id, user_id),
            )
            request = _join_request(row)
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.JOIN_APPROVED if approved else AuditAction.JOIN_REFUSED,
                request.model_dump(mode="json"),
                None,
                now,
            )
        return request

    async def record_removal(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        display_name: str,
        removed_by: UserId,
        now: datetime,
    ) -> RemovedMember:
        """Note that a GM removed ``user_id``: they may not join again until a GM lets them
        (:meth:`clear_removal`). Any join request of theirs goes in the same transaction."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO removed_members (campaign_id, user_id, display_name,"
                " removed_by, removed_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (campaign_id, user_id) DO UPDATE SET"
                " display_name = excluded.display_name, removed_by = excluded.removed_by,"
                " removed_at = excluded.removed_at",
                (campaign_id, user_id, display_name, removed_by, ts(now)),
            )
            await conn.execute(
                "DELETE FROM join_requests WHERE campaign_id = ? AND user_id = ?",
                (campaign_id, user_id),
            )
        return RemovedMember(
            campaign_id=campaign_id,
            user_id=user_id,
            display_name=display_name,
            removed_by=removed_by,
            removed_at=utc(now),
        )

    async def removed_member(
        self, campaign_id: CampaignId, user_id: UserId
    ) -> RemovedMember | None:
        """Whether a GM removed ``user_id`` from the campaign (and has not let them back)."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(
                conn,
                "SELECT * FROM removed_members WHERE campaign_id = ? AND user_id = ?",
                (campaign_id, user_id),
            )
        return None if row is None else _removed_member(row)

    async def removed_members(self, campaign_id: CampaignId) -> list[RemovedMember]:
        """Everyone a GM removed from the campaign and has not let back, oldest first."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT * FROM removed_members WHERE campaign_id = ? ORDER BY removed_at, user_id",
                (campaign_id,),
            )
        return [_removed_member(row) for row in rows]

    async def clear_removal(
        self, campaign_id: CampaignId, user_id: UserId, actor: UserId, now: datetime
    ) -> bool:
        """GM ``actor`` lets a removed person join again, audited; False if they were not
        removed."""
        async with self._db.transaction() as conn:
            row = await fetch_one(
                conn,
                "SELECT * FROM removed_members WHERE campaign_id = ? AND user_id = ?",
                (campaign_id, user_id),
            )
            campaign = await self._campaign_in(conn, campaign_id)
            if row is None or campaign is None:
                return False
            await conn.execute(
                "DELETE FROM removed_members WHERE campaign_id = ? AND user_id = ?",
                (campaign_id, user_id),
            )
            removed = _removed_member(row)
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.MEMBER_READMITTED,
                removed.model_dump(mode="json"),
                None,
                now,
            )
            return True

    async def set_prompt(
        self,
        chat_id: ChatId,
        user_id: UserId,
        campaign_id: CampaignId | None,
        field: str,
        data: dict[str, JsonValue],
        message_id: int | None,
        now: datetime,
    ) -> Prompt:
        """Wait for ``user_id`` to type ``field`` in ``chat_id`` (replacing any earlier wait)."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO prompts (chat_id, user_id, campaign_id, field, data_json,"
                " message_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (chat_id, user_id) DO UPDATE SET campaign_id = excluded.campaign_id,"
                " field = excluded.field, data_json = excluded.data_json,"
                " message_id = excluded.message_id, created_at = excluded.created_at,"
                " answered_by = NULL",
                (chat_id, user_id, campaign_id, field, dump_json(data), message_id, ts(now)),
            )
            row = await fetch_one(
                conn,
                "SELECT * FROM prompts WHERE chat_id = ? AND user_id = ?",
                (chat_id, user_id),
            )
        if row is None:
            raise LookupError(f"prompt of {user_id} in {chat_id} vanished inside its transaction")
        return _prompt(row)

    async def prompt(self, chat_id: ChatId, user_id: UserId) -> Prompt | None:
        """What the bot waits for ``user_id`` to type in ``chat_id``, if anything."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(
                conn,
                "SELECT * FROM prompts WHERE chat_id = ? AND user_id = ? AND answered_by IS NULL",
                (chat_id, user_id),
            )
        return None if row is None else _prompt(row)

    async def answered_prompt(
        self, chat_id: ChatId, user_id: UserId, message_id: int
    ) -> Prompt | None:
        """The wait that the message ``message_id`` answered, if it still is the last one."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(
                conn,
                "SELECT * FROM prompts WHERE chat_id = ? AND user_id = ? AND answered_by = ?",
                (chat_id, user_id, message_id),
            )
        return None if row is None else _prompt(row)

    async def clear_prompt(
        self, chat_id: ChatId, user_id: UserId, answered_by: int | None = None
    ) -> bool:
        """Stop waiting for typed input; False if nothing was awaited. With ``answered_by``
        (the message that answered) the wait is kept as answered, for that message only."""
        async with self._db.transaction() as conn:
            if answered_by is None:
                return (
                    await changed_rows(
                        conn,
                        "DELETE FROM prompts WHERE chat_id = ? AND user_id = ?"
                        " AND answered_by IS NULL",
                        (chat_id, user_id),
                    )
                    > 0
                )
            return (
                await changed_rows(
                    conn,
                    "UPDATE prompts SET answered_by = ? WHERE chat_id = ? AND user_id = ?"
                    " AND answered_by IS NULL",
                    (answered_by, chat_id, user_id),
                )
                > 0
            )

    async def remember_ui_message(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        kind: str,
        chat_id: ChatId,
        message_id: int,
        now: datetime,
    ) -> UiMessage:
        """Remember which message shows ``kind`` for ``user_id``, to edit it in place later.
        The same message again writes nothing (``updated_at``: when it last changed), so a
        screen edited in place costs no disk write."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO ui_messages (campaign_id, user_id, kind, chat_id, message_id,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (campaign_id, user_id, kind)"
                " DO UPDATE SET chat_id = excluded.chat_id, message_id = excluded.message_id,"
                " updated_at = excluded.updated_at WHERE ui_messages.chat_id <> excluded.chat_id"
                " OR ui_messages.message_id <> excluded.message_id",
                (campaign_id, user_id, kind, chat_id, message_id, ts(now)),
            )
            row = await fetch_one(
                conn,
                "SELECT * FROM ui_messages WHERE campaign_id = ? AND user_id = ? AND kind = ?",
                (campaign_id, user_id, kind),
            )
        if row is None:
            raise RuntimeError(f"ui message {kind!r} of {user_id} vanished inside its transaction")
        return _ui_message(row)

    async def ui_message(
        self, campaign_id: CampaignId, user_id: UserId, kind: str
    ) -> UiMessage | None:
        """The message that shows ``kind`` for ``user_id``, if one was remembered."""
        async with self._db.snapshot() as conn:
            return (await self._ui_messages_in(conn, campaign_id, user_id)).get(kind)

    async def _ui_messages_in(
        self, conn: Conn, campaign_id: CampaignId, user_id: UserId
    ) -> dict[str, UiMessage]:
        """The messages remembered for ``user_id`` in the campaign, by what they show."""
        return ui_messages_of(await fetch_all(conn, *ui_messages_query(campaign_id, user_id)))
