"""What happens to a group chat itself: Telegram turns a basic group into a supergroup with a
new chat id (``migrate_to_chat_id``), and the campaigns played there must follow it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from storage.models import AuditAction, Campaign, ChatId
from storage.shared import SharedRecords
from storage.sql import Transactions, fetch_all

if TYPE_CHECKING:
    from storage.sql import Row


class ChatStore(Protocol):
    """The chats part of the store."""

    async def move_chat(
        self, old_chat_id: ChatId, new_chat_id: ChatId, now: datetime
    ) -> list[Campaign]: ...


class ChatRecords(SharedRecords):
    """:class:`ChatStore` on the campaign file (mixed into ``SqliteCampaignStore``)."""

    _db: Transactions

    async def move_chat(
        self, old_chat_id: ChatId, new_chat_id: ChatId, now: datetime
    ) -> list[Campaign]:
        """The group ``old_chat_id`` became the supergroup ``new_chat_id``: move its campaigns
        (finished ones too, so their history stays with the group), the messages still to be
        sent there and the dialogue steps waiting there, in one transaction. The pinned status
        board is forgotten (its message stays behind in the old chat), so the next refresh
        posts it anew. Returns the campaigns moved; a second call moves nothing."""
        if old_chat_id == new_chat_id:
            return []
        async with self._db.transaction() as conn:
            rows: list[Row] = await fetch_all(
                conn, "SELECT id FROM campaigns WHERE chat_id = ? ORDER BY id", (old_chat_id,)
            )
            await conn.execute(
                "UPDATE campaigns SET chat_id = ?, status_message_id = NULL WHERE chat_id = ?",
                (new_chat_id, old_chat_id),
            )
            await conn.execute(
                "UPDATE outbox SET chat_id = ? WHERE chat_id = ?"
                " AND state IN ('pending', 'sending')",
                (new_chat_id, old_chat_id),
            )
            # A question waiting in the old chat replaces one for the same person in the new.
            await conn.execute(
                "DELETE FROM prompts WHERE chat_id = ? AND user_id IN"
                " (SELECT user_id FROM prompts WHERE chat_id = ?)",
                (new_chat_id, old_chat_id),
            )
            await conn.execute(
                "UPDATE prompts SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
            )
            moved: list[Campaign] = []
            for row in rows:
                campaign = await self._campaign_in(conn, row["id"])
                if campaign is None:
                    continue
                await self._audit(
                    conn,
                    campaign,
                    None,
                    AuditAction.CHAT_MIGRATED,
                    {"chat_id": old_chat_id},
                    {"chat_id": new_chat_id},
                    now,
                    "the group became a supergroup",
                )
                moved.append(campaign)
        return moved
