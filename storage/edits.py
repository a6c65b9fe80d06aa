"""A GM's direct edits of the state (issue 23), kept with the other adjustments of a turn's start
(``state_adjustments``): the state before and after, a side added or retired with it, and the
undo that puts it all back.

Storage checks no rule: the services apply the edit with the rules core and hand over both
states; storage writes them with a compare-and-set on the campaign's turn and phase and on the
turn's current start, audits them and queues the posts in the same transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from rules import CampaignState, Roll
from storage.models import (
    AuditAction,
    Campaign,
    CampaignId,
    NewOutboxMessage,
    NewSide,
    Phase,
    SideId,
    StateAdjustmentRecord,
    UserId,
    WriteOutcome,
    story_order,
)
from storage.modules.shared import adjustment_record
from storage.shared import SharedRecords
from storage.sql import Conn, Transactions, dump_json, fetch_all, fetch_one, insert_row, ts

EDIT_PHASES = (Phase.ORDERS,)
"""The phases a GM may edit the state in: the battle list is built from the turn's start."""

OutboxFor = Callable[[int], Sequence[NewOutboxMessage]]
"""The posts of an edit, made from the id its record gets."""


class _RefusedError(Exception):
    """Raised inside a transaction to roll it back and return ``outcome``."""

    def __init__(self, outcome: WriteOutcome) -> None:
        super().__init__(outcome.value)
        self.outcome = outcome


def _no_posts(_adjustment_id: int) -> Sequence[NewOutboxMessage]:
    return ()


class EditStore(Protocol):
    """The GM's edits of the state."""

    async def edit_turn_start(
        self,
        campaign_id: CampaignId,
        turn: int,
        expected: CampaignState,
        new: CampaignState,
        edit: dict[str, Any],
        actor: UserId,
        now: datetime,
        *,
        new_side: NewSide | None = None,
        retire: SideId | None = None,
        outbox: OutboxFor = _no_posts,
    ) -> tuple[WriteOutcome, int | None]: ...
    async def undo_state_edit(
        self,
        campaign_id: CampaignId,
        adjustment_id: int,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> WriteOutcome: ...
    async def state_edit(self, adjustment_id: int) -> StateAdjustmentRecord | None: ...


class EditRecords(SharedRecords):
    """:class:`EditStore` on the campaign file (mixed into ``SqliteCampaignStore``)."""

    _db: Transactions

    if TYPE_CHECKING:
        # Provided by SqliteCampaignStore and ModuleRecords.
        async def _swap_turn_start(
            self,
            conn: Conn,
            campaign_id: CampaignId,
            turn: int,
            phases: tuple[Phase, ...],
            expected: CampaignState,
            new: CampaignState,
            actor: UserId,
            now: datetime,
            rolls: Sequence[Roll] = (),
        ) -> tuple[WriteOutcome, Campaign | None]: ...

    async def edit_turn_start(
        self,
        campaign_id: CampaignId,
        turn: int,
        expected: CampaignState,
        new: CampaignState,
        edit: dict[str, Any],
        actor: UserId,
        now: datetime,
        *,
        new_side: NewSide | None = None,
        retire: SideId | None = None,
        outbox: OutboxFor = _no_posts,
    ) -> tuple[WriteOutcome, int | None]:
        """Replace ``turn``'s start ``expected`` with ``new`` while the orders are open (a
        compare-and-set, as :meth:`replace_turn_start`), keeping ``edit`` to be applied again
        by a correction. With ``new_side`` the side is added first (``CONFLICT`` if its id or
        name is taken); with ``retire`` the side is marked retired and its players leave it
        (their seats kept for the undo). Audited with ``edit["reason"]``; returns the outcome
        and the edit's id."""
        try:
            return await self._edit_turn_start(
                campaign_id, turn, expected, new, edit, actor, now, new_side, retire, outbox
            )
        except _RefusedError as refused:
            return refused.outcome, None

    async def _edit_turn_start(
        self,
        campaign_id: CampaignId,
        turn: int,
        expected: CampaignState,
        new: CampaignState,
        edit: dict[str, Any],
        actor: UserId,
        now: datetime,
        new_side: NewSide | None,
        retire: SideId | None,
        outbox: OutboxFor,
    ) -> tuple[WriteOutcome, int | None]:
        reason = str(edit.get("reason", ""))
        async with self._db.transaction() as conn:
            outcome, campaign = await self._swap_turn_start(
                conn, campaign_id, turn, EDIT_PHASES, expected, new, actor, now
            )
            if campaign is None:
                return outcome, None
            undo: dict[str, Any] = {}
            if new_side is not None:
                if not await self._add_side_in(conn, campaign, new_side, actor, now):
                    raise _RefusedError(WriteOutcome.CONFLICT)
                undo["added"] = new_side.id
            if retire is not None:
                seats = await self._retire_side_in(conn, campaign, retire, actor, now)
                if seats is None:
                    raise _RefusedError(WriteOutcome.UNKNOWN_SIDE)
                undo["retired"] = retire
                undo["seats"] = seats
            adjustment_id = await insert_row(
                conn,
                "INSERT INTO state_adjustments (campaign_id, turn, adjustment_json, made_by,"
                " made_at, before_json, after_json, undo_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    campaign_id,
                    turn,
                    dump_json(edit),
                    actor,
                    ts(now),
                    expected.model_dump_json(),
                    new.model_dump_json(),
                    dump_json(undo),
                ),
            )
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.STATE_EDITED,
                {"turn": turn, "armies": expected.armies},
                {"turn": turn, "armies": new.armies, "edit": edit, **undo},
                now,
                reason,
            )
            for message in story_order(outbox(adjustment_id)):
                await self._enqueue_in(conn, message, now)
        return WriteOutcome.SAVED, adjustment_id

    async def _add_side_in(
        self, conn: Conn, campaign: Campaign, side: NewSide, actor: UserId, now: datetime
    ) -> bool:
        taken = await fetch_one(
            conn,
            "SELECT 1 FROM sides WHERE campaign_id = ? AND (id = ? OR lower(name) = lower(?))",
            (campaign.id, side.id, side.name),
        )
        if taken is not None:
            return False
        row = await fetch_one(
            conn,
            "SELECT COALESCE(MAX(position), 0) + 1 FROM sides WHERE campaign_id = ?",
            (campaign.id,),
        )
        position = int(row[0]) if row is not None else 1
        await conn.execute(
            "INSERT INTO sides (campaign_id, id, name, colour, position) VALUES (?, ?, ?, ?, ?)",
            (campaign.id, side.id, side.name, side.colour, position),
        )
        await self._audit(
            conn,
            campaign,
            actor,
            AuditAction.SIDE_ADDED,
            None,
            {**side.model_dump(mode="json"), "position": position},
            now,
        )
        return True

    async def _retire_side_in(
        self, conn: Conn, campaign: Campaign, side_id: SideId, actor: UserId, now: datetime
    ) -> list[dict[str, Any]] | None:
        """Mark the side retired; its players leave it (roles on it dropped). Their seats, for
        the undo; ``None`` if the side is unknown or retired already."""
        row = await fetch_one(
            conn,
            "SELECT 1 FROM sides WHERE campaign_id = ? AND id = ? AND retired_at IS NULL",
            (campaign.id, side_id),
        )
        if row is None:
            return None
        players = await fetch_all(
            conn,
            "SELECT user_id FROM members WHERE campaign_id = ? AND side_id = ? ORDER BY user_id",
            (campaign.id, side_id),
        )
        seats: list[dict[str, Any]] = []
        for player in players:
            roles = await fetch_all(
                conn,
                "SELECT role FROM member_roles WHERE campaign_id = ? AND user_id = ?"
                " AND role IN ('strategist', 'tactician') ORDER BY role",
                (campaign.id, player["user_id"]),
            )
            seats.append({"user": player["user_id"], "roles": [r["role"] for r in roles]})
        await conn.execute(
            "DELETE FROM member_roles WHERE campaign_id = ? AND role IN ('strategist',"
            " 'tactician') AND user_id IN (SELECT user_id FROM members WHERE campaign_id = ?"
            " AND side_id = ?)",
            (campaign.id, campaign.id, side_id),
        )
        await conn.execute(
            "UPDATE members SET side_id = NULL WHERE campaign_id = ? AND side_id = ?",
            (campaign.id, side_id),
        )
        await conn.execute(
            "UPDATE sides SET retired_at = ?, retired_by = ? WHERE campaign_id = ? AND id = ?",
            (ts(now), actor, campaign.id, side_id),
        )
        return seats

    async def undo_state_edit(
        self,
        campaign_id: CampaignId,
        adjustment_id: int,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> WriteOutcome:
        """Undo edit ``adjustment_id``: its turn's start goes back to the state before it,
        if the campaign is still at that turn with the orders open and nothing changed the
        start since (``CONFLICT`` otherwise: a later change is undone first). A retired side
        comes back with the players who were on it and are still without a side; a side the
        edit added is retired. The edit is kept as undone; audited."""
        async with self._db.transaction() as conn:
            row = await fetch_one(
                conn,
                "SELECT * FROM state_adjustments WHERE id = ? AND campaign_id = ?"
                " AND after_json IS NOT NULL",
                (adjustment_id, campaign_id),
            )
            if row is None:
                return WriteOutcome.NOT_FOUND
            if row["retired_at"] is not None:
                return WriteOutcome.CONFLICT
            before = CampaignState.model_validate_json(row["before_json"])
            after = CampaignState.model_validate_json(row["after_json"])
            outcome, campaign = await self._swap_turn_start(
                conn, campaign_id, row["turn"], EDIT_PHASES, after, before, actor, now
            )
            if campaign is None:
                return outcome
            await conn.execute(
                "UPDATE state_adjustments SET retired_at = ?, retired_by = ?, retired_reason ="
                " 'undone' WHERE id = ?",
                (ts(now), actor, adjustment_id),
            )
            undo = json.loads(row["undo_json"] or "{}")
            back: list[int] = []
            if isinstance(retired := undo.get("retired"), str):
                back = await self._bring_back_in(conn, campaign_id, retired, undo.get("seats", []))
            if isinstance(added := undo.get("added"), str):
                await conn.execute(
                    "UPDATE sides SET retired_at = ?, retired_by = ? WHERE campaign_id = ?"
                    " AND id = ?",
                    (ts(now), actor, campaign_id, added),
                )
            edit = json.loads(row["adjustment_json"])
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.STATE_EDIT_UNDONE,
                {"turn": row["turn"], "armies": after.armies, "edit": edit},
                {"turn": row["turn"], "armies": before.armies, "seated_again": back},
                now,
                str(edit.get("reason", "")),
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return WriteOutcome.SAVED

    async def _undo_side_edits_in(
        self, conn: Conn, campaign_id: CampaignId, after_turn: int, actor: UserId, now: datetime
    ) -> None:
        """The sides that live edits of turns after ``after_turn`` added or retired, as they
        were before (the GM's undo of a step takes those turns' edits with it), latest first."""
        rows = await fetch_all(
            conn,
            "SELECT undo_json FROM state_adjustments WHERE campaign_id = ? AND turn > ?"
            " AND retired_at IS NULL AND undo_json IS NOT NULL ORDER BY id DESC",
            (campaign_id, after_turn),
        )
        for row in rows:
            undo = json.loads(row["undo_json"] or "{}")
            if isinstance(retired := undo.get("retired"), str):
                await self._bring_back_in(conn, campaign_id, retired, undo.get("seats", []))
            if isinstance(added := undo.get("added"), str):
                await conn.execute(
                    "UPDATE sides SET retired_at = ?, retired_by = ? WHERE campaign_id = ?"
                    " AND id = ?",
                    (ts(now), actor, campaign_id, added),
                )

    async def _bring_back_in(
        self, conn: Conn, campaign_id: CampaignId, side_id: SideId, seats: list[dict[str, Any]]
    ) -> list[int]:
        """The retired side plays again: its players still without a side take their seats
        and roles back. The users seated again."""
        await conn.execute(
            "UPDATE sides SET retired_at = NULL, retired_by = NULL WHERE campaign_id = ?"
            " AND id = ?",
            (campaign_id, side_id),
        )
        back: list[int] = []
        for seat in seats:
            user = int(seat["user"])
            cursor = await conn.execute(
                "UPDATE members SET side_id = ? WHERE campaign_id = ? AND user_id = ?"
                " AND side_id IS NULL",
                (side_id, campaign_id, user),
            )
            if not cursor.rowcount:
                continue
            back.append(user)
            for role in seat.get("roles", []):
                await conn.execute(
                    "INSERT INTO member_roles (campaign_id, user_id, role)"
                    " VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                    (campaign_id, user, role),
                )
        return back

    async def state_edit(self, adjustment_id: int) -> StateAdjustmentRecord | None:
        """A GM's edit of the state by id (undone ones too, ``None`` for a module's)."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(
                conn,
                "SELECT * FROM state_adjustments WHERE id = ? AND after_json IS NOT NULL",
                (adjustment_id,),
            )
        return None if row is None else adjustment_record(row)
