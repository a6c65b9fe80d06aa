"""The outbox: every post the bot owes Telegram, queued in the transaction that decided it,
claimed by the sender with a lease, marked sent or failed.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta

from storage.dialect import FOR_UPDATE_SKIP_LOCKED
from storage.models import (
    CampaignId,
    NewOutboxMessage,
    OutboxMessage,
    utc,
)
from storage.shared import (
    SharedRecords,
    _outbox,
)
from storage.sql import (
    changed_rows,
    fetch_all,
    fetch_one,
    ts,
)


class OutboxRecords(SharedRecords):
    """The outbox (mixed into ``SqliteCampaignStore``)."""

    async def enqueue(self, message: NewOutboxMessage, now: datetime) -> OutboxMessage:
        """Queue a message; a second enqueue with the same ``dedup_key`` returns the first row
        unchanged (whatever its state), so a retried step never queues a post twice."""
        async with self._db.transaction() as conn:
            return await self._enqueue_in(conn, message, now)

    async def claim_due(
        self, now: datetime, limit: int, lease_seconds: float
    ) -> list[OutboxMessage]:
        """Lease up to ``limit`` due messages for sending, at most one per chat.

        A message is due when it is pending (or its sender's lease ran out) and ``not_before``
        has come, and no older unsent message waits in the same chat: a chat's posts go out in
        the order they were queued. An older message scheduled for later and never tried (the
        Friday battle list, queued Thursday night) does not hold the chat back; one waiting to
        be retried does, so a failure never reorders a chat. Claimed rows are ``sending`` until
        ``lease_seconds`` pass; each claim gets a fresh ``claim_token`` and counts an attempt.
        Which chats' first messages are claimed first: groups before private chats, and among
        them the chats where a post with a map (the Monday map, a corrected map, the Friday
        battle list) is due, whatever their first message is; then queue order. On a busy
        Monday every group's map goes out before the status board edits and the private
        notices. Each chat keeps its own order either way.
        """
        stamp = ts(now)
        lease_until = ts(now + timedelta(seconds=lease_seconds))
        map_kinds = ("map", "corrected_map", "battle_list")
        # Several processes claim at once on PostgreSQL: each locks the rows it takes and
        # passes over the rows another one is taking (SKIP LOCKED); a row another claim took
        # meanwhile is checked again on its new values (READ COMMITTED), so it is not taken
        # twice, and a chat's later message stays behind the one being taken.
        async with self._db.transaction(row_locks=True) as conn:
            rows = await fetch_all(
                conn,
                "SELECT o.id FROM outbox o WHERE o.state IN ('pending', 'sending')"
                " AND o.not_before <= ? AND (o.state = 'pending' OR o.lease_until <= ?)"
                " AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.chat_id = o.chat_id"
                " AND p.id < o.id AND p.state IN ('pending', 'sending')"
                " AND (p.not_before <= ? OR p.attempts > 0))"
                " ORDER BY o.chat_id > 0, NOT EXISTS (SELECT 1 FROM outbox m"
                " WHERE m.chat_id = o.chat_id AND m.id >= o.id"
                " AND m.state IN ('pending', 'sending') AND m.not_before <= ?"
                " AND m.kind IN (?, ?, ?)), o.id LIMIT ?"
                + FOR_UPDATE_SKIP_LOCKED[self._db.dialect],
                (stamp, stamp, stamp, stamp, *map_kinds, limit),
            )
            claimed: list[OutboxMessage] = []
            for row in rows:
                await conn.execute(
                    "UPDATE outbox SET state = 'sending', lease_until = ?, claim_token = ?,"
                    " attempts = attempts + 1 WHERE id = ?",
                    (lease_until, uuid.uuid4().hex, row["id"]),
                )
                updated = await fetch_one(conn, "SELECT * FROM outbox WHERE id = ?", (row["id"],))
                if updated is not None:
                    claimed.append(_outbox(updated))
        return claimed

    async def mark_sent(
        self, message_id: int, telegram_message_id: int | None, now: datetime
    ) -> bool:
        """Record that Telegram accepted the message. False if it was already marked sent.

        Accepted even after the lease ran out: the message did go out, and recording it stops
        a further send. "Once" cannot be promised across a crash between Telegram accepting a
        message and this call committing (it is sent again after the lease), nor when a lease
        runs out during a slow send (keep leases well above the request timeout, or renew
        them while sending: :meth:`renew_leases`).
        """
        async with self._db.transaction() as conn:
            changed = await changed_rows(
                conn,
                "UPDATE outbox SET state = 'sent', telegram_message_id = ?, sent_at = ?,"
                " lease_until = NULL WHERE id = ? AND state IN ('pending', 'sending')",
                (telegram_message_id, ts(now), message_id),
            )
        return changed == 1

    async def mark_failed(
        self, message_id: int, error: str, retry_at: datetime | None, now: datetime
    ) -> bool:
        """Record a failed send: retry at ``retry_at``, or give up (``dead``) when ``None``.

        A dead message no longer holds back later messages of its chat. False when the row is
        not being sent (already sent, cancelled, or dead).
        """
        async with self._db.transaction() as conn:
            if retry_at is None:
                changed = await changed_rows(
                    conn,
                    "UPDATE outbox SET state = 'dead', last_error = ?, lease_until = NULL"
                    " WHERE id = ? AND state IN ('pending', 'sending')",
                    (error, message_id),
                )
            else:
                changed = await changed_rows(
                    conn,
                    "UPDATE outbox SET state = 'pending', last_error = ?, not_before = ?,"
                    " lease_until = NULL WHERE id = ? AND state IN ('pending', 'sending')",
                    (error, ts(max(utc(retry_at), utc(now))), message_id),
                )
        return changed == 1

    async def renew_leases(self, claims: Mapping[int, str], until: datetime) -> set[int]:
        """Extend to ``until`` the leases of the posts a sender is still sending: ``claims``
        maps a post's id to the ``claim_token`` of that sender's claim. A lease is never
        shortened, and a post no longer ``sending`` is left as it is. The ids of the posts
        another sender claimed since (the lease had run out first: that sender may be sending
        the post too)."""
        if not claims:
            return set()
        stamp = ts(until)
        ids = sorted(claims)
        # Beside this process's other transactions (PostgreSQL: its second connection): a
        # renewal queued behind a write waiting for another process would come too late.
        async with self._db.aside() as conn:
            for message_id in ids:
                await conn.execute(
                    "UPDATE outbox SET lease_until = CASE WHEN lease_until < ? THEN ?"
                    " ELSE lease_until END"
                    " WHERE id = ? AND claim_token = ? AND state = 'sending'",
                    (stamp, stamp, message_id, claims[message_id]),
                )
            marks = ", ".join("?" for _ in ids)
            rows = await fetch_all(
                conn, f"SELECT id, claim_token FROM outbox WHERE id IN ({marks})", ids
            )
        return {row["id"] for row in rows if row["claim_token"] != claims[row["id"]]}

    async def release_leases(self) -> int:
        """Make every post left ``sending`` pending again, due at once; how many. Only for a
        process starting alone on the database: the process that held those leases is gone
        (the bot's runner holds a lock that keeps a second process out), so its posts need not
        wait for the leases to run out. One Telegram may have taken goes again."""
        async with self._db.transaction() as conn:
            return await changed_rows(
                conn,
                "UPDATE outbox SET state = 'pending', lease_until = NULL WHERE state = 'sending'",
                (),
            )

    async def release_battle_list(self, campaign_id: CampaignId, now: datetime) -> int:
        """Make the campaign's held battle list due at once: the Friday list, its players'
        notices and the board's refresh after it, queued on Thursday night to go out on Friday
        and never tried yet; how many. For a turn that leaves its battles before the list was
        public (the GM ends them early): the list then goes out before the turn's result."""
        stamp = ts(now)
        async with self._db.transaction() as conn:
            return await changed_rows(
                conn,
                "UPDATE outbox SET not_before = ? WHERE campaign_id = ? AND state = 'pending'"
                " AND attempts = 0 AND not_before > ?"
                " AND (kind IN ('battle_list', 'battle_notice') OR dedup_key LIKE ?)",
                (stamp, campaign_id, stamp, "%:battle_list"),
            )

    async def outbox_message(self, message_id: int) -> OutboxMessage | None:
        """One outbox row."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(conn, "SELECT * FROM outbox WHERE id = ?", (message_id,))
        return None if row is None else _outbox(row)

    async def outbox_messages(self, campaign_id: CampaignId) -> list[OutboxMessage]:
        """Every message a campaign queued, in queue order, whatever its state."""
        [rows] = await self._db.read(
            [("SELECT * FROM outbox WHERE campaign_id = ? ORDER BY id", (campaign_id,))]
        )
        return [_outbox(row) for row in rows]

    async def outbox_chats(self, campaign_id: CampaignId, kind: str) -> set[int]:
        """Every chat the campaign queued a message of ``kind`` for, whatever its state: what
        :meth:`outbox_messages` tells of them, without reading the whole outbox."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT DISTINCT chat_id FROM outbox WHERE campaign_id = ? AND kind = ?",
                (campaign_id, kind),
            )
        return {int(row["chat_id"]) for row in rows}

    async def unsent_outbox_messages(
        self, campaign_id: CampaignId, kind: str
    ) -> list[OutboxMessage]:
        """The campaign's messages of ``kind`` not sent nor given up yet (pending or being
        sent), in queue order: what :meth:`outbox_messages` holds of them, without reading the
        whole outbox (the board and the battle list ask at every post and press)."""
        [rows] = await self._db.read(
            [
                (
                    "SELECT * FROM outbox WHERE campaign_id = ? AND kind = ?"
                    " AND state IN ('pending', 'sending') ORDER BY id",
                    (campaign_id, kind),
                )
            ]
        )
        return [_outbox(row) for row in rows]
