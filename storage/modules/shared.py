"""What every rule module and the auditable dice keep (MODULES.md G4, A2, "002"): each turn's
seeds, dice rolled at the table, a GM's adjustments of a turn's start and a module's choice after
deployment.

A module's own records live beside these, one file per module (``storage/modules/<name>.py``,
listed in :mod:`storage.modules`), as its rules live in ``rules/modules/<name>/``.

Storage computes nothing of the rules: the services draw the values, check the adjustments with
the rules core, and storage records them with the same compare-and-set habits as the rest of the
store.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from pydantic import TypeAdapter

from rules import CampaignState, Roll
from storage.dialect import INTEGRITY_ERRORS
from storage.models import (
    AuditAction,
    Campaign,
    CampaignId,
    CampaignStatus,
    NewOutboxMessage,
    Phase,
    StateAdjustmentRecord,
    TableRollRecord,
    TurnSeedsRecord,
    UserId,
    WriteOutcome,
    story_order,
)
from storage.shared import SharedRecords
from storage.sql import (
    Conn,
    Row,
    Transactions,
    dt,
    dump_json,
    fetch_all,
    fetch_one,
    insert_row,
    may_violate,
    opt_dt,
    ts,
)

_ROLLS = TypeAdapter(tuple[Roll, ...])


def _context_key(context: int | None) -> str:
    return "group" if context is None else str(context)


def seeds_record(row: Row) -> TurnSeedsRecord:
    """A ``turn_seeds`` row as a record."""
    return TurnSeedsRecord(
        campaign_id=row["campaign_id"],
        turn=row["turn"],
        roll=row["roll_seed"],
        deal=row["deal_seed"],
        created_at=dt(row["created_at"]),
        roll_revealed_at=opt_dt(row["roll_revealed_at"]),
    )


def table_roll_record(row: Row) -> TableRollRecord:
    """A ``table_rolls`` row as a record."""
    context = row["context"]
    return TableRollRecord(
        id=row["id"],
        campaign_id=row["campaign_id"],
        turn=row["turn"],
        context=None if context == "group" else int(context),
        k=row["k"],
        expression=row["expression"],
        rolls=_ROLLS.validate_json(row["rolls_json"]),
        rolled_by=row["rolled_by"],
        rolled_at=dt(row["rolled_at"]),
    )


def adjustment_record(row: Row) -> StateAdjustmentRecord:
    """A ``state_adjustments`` row as a record."""
    return StateAdjustmentRecord(
        id=row["id"],
        campaign_id=row["campaign_id"],
        turn=row["turn"],
        adjustment=json.loads(row["adjustment_json"]),
        made_by=row["made_by"],
        made_at=dt(row["made_at"]),
        before=_optional_state(row["before_json"]),
        after=_optional_state(row["after_json"]),
    )


def _optional_state(text: str | None) -> CampaignState | None:
    return None if text is None else CampaignState.model_validate_json(text)


class ModuleStore(Protocol):
    """The rule modules' and dice's part of the store."""

    async def ensure_turn_seeds(
        self, campaign_id: CampaignId, turn: int, roll: str, deal: str, now: datetime
    ) -> TurnSeedsRecord: ...
    async def turn_seeds(self, campaign_id: CampaignId, turn: int) -> TurnSeedsRecord | None: ...
    async def all_turn_seeds(self, campaign_id: CampaignId) -> list[TurnSeedsRecord]: ...
    async def next_table_roll(
        self, campaign_id: CampaignId, turn: int, context: int | None
    ) -> int: ...
    async def add_table_roll(
        self,
        campaign_id: CampaignId,
        turn: int,
        context: int | None,
        k: int,
        expression: str,
        rolls: Sequence[Roll],
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> TableRollRecord | None: ...
    async def table_rolls(
        self, campaign_id: CampaignId, turn: int | None = None
    ) -> list[TableRollRecord]: ...
    async def replace_turn_start(
        self,
        campaign_id: CampaignId,
        turn: int,
        phases: tuple[Phase, ...],
        expected: CampaignState,
        new: CampaignState,
        actor: UserId,
        action: AuditAction,
        reason: str,
        now: datetime,
        *,
        adjustment: dict[str, Any] | None = None,
        rolls: Sequence[Roll] = (),
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> WriteOutcome: ...
    async def adjustments(
        self, campaign_id: CampaignId, turn: int
    ) -> list[StateAdjustmentRecord]: ...


class ModuleRecords(SharedRecords):
    """:class:`ModuleStore` on the campaign file (mixed into ``SqliteCampaignStore``)."""

    _db: Transactions

    # ---- seeds (G4) ---------------------------------------------------------------------------

    async def _seeds_in(
        self, conn: Conn, campaign_id: CampaignId, turn: int
    ) -> TurnSeedsRecord | None:
        row = await fetch_one(
            conn,
            "SELECT * FROM turn_seeds WHERE campaign_id = ? AND turn = ?",
            (campaign_id, turn),
        )
        return None if row is None else seeds_record(row)

    async def ensure_turn_seeds(
        self, campaign_id: CampaignId, turn: int, roll: str, deal: str, now: datetime
    ) -> TurnSeedsRecord:
        """The seeds of ``turn``: those stored, or ``roll`` and ``deal`` stored now if there are
        none yet (made once per turn; undo and correction keep them)."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO turn_seeds (campaign_id, turn, roll_seed, deal_seed, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (campaign_id, turn) DO NOTHING",
                (campaign_id, turn, roll, deal, ts(now)),
            )
            found = await self._seeds_in(conn, campaign_id, turn)
        if found is None:
            raise RuntimeError(f"seeds of turn {turn} vanished inside their transaction")
        return found

    async def turn_seeds(self, campaign_id: CampaignId, turn: int) -> TurnSeedsRecord | None:
        """The seeds of ``turn`` (secret: the services decide what is revealed)."""
        async with self._db.snapshot() as conn:
            return await self._seeds_in(conn, campaign_id, turn)

    async def all_turn_seeds(self, campaign_id: CampaignId) -> list[TurnSeedsRecord]:
        """Every turn's seeds, by turn."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT * FROM turn_seeds WHERE campaign_id = ? ORDER BY turn",
                (campaign_id,),
            )
        return [seeds_record(row) for row in rows]

    # ---- table rolls ("002") ------------------------------------------------------------------

    async def next_table_roll(self, campaign_id: CampaignId, turn: int, context: int | None) -> int:
        """The number ``k`` the next roll of ``context`` in ``turn`` takes (from 1)."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(
                conn,
                "SELECT COALESCE(MAX(k), 0) + 1 FROM table_rolls WHERE campaign_id = ?"
                " AND turn = ? AND context = ?",
                (campaign_id, turn, _context_key(context)),
            )
        return int(row[0]) if row is not None else 1

    async def add_table_roll(
        self,
        campaign_id: CampaignId,
        turn: int,
        context: int | None,
        k: int,
        expression: str,
        rolls: Sequence[Roll],
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> TableRollRecord | None:
        """Record the ``k``-th roll of ``context`` with the posts that publish it; ``None`` when
        that number was taken meanwhile (draw again with the next one)."""
        async with self._db.transaction() as conn:
            try:
                async with may_violate(conn):
                    roll_id = await insert_row(
                        conn,
                        "INSERT INTO table_rolls (campaign_id, turn, context, k, expression,"
                        " rolls_json, rolled_by, rolled_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            campaign_id,
                            turn,
                            _context_key(context),
                            k,
                            expression,
                            _ROLLS.dump_json(tuple(rolls)).decode(),
                            actor,
                            ts(now),
                        ),
                    )
            except INTEGRITY_ERRORS:
                return None
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
            row = await fetch_one(conn, "SELECT * FROM table_rolls WHERE id = ?", (roll_id,))
        return None if row is None else table_roll_record(row)

    async def table_rolls(
        self, campaign_id: CampaignId, turn: int | None = None
    ) -> list[TableRollRecord]:
        """The table's rolls of a campaign (of one turn if given), in the order rolled."""
        query = "SELECT * FROM table_rolls WHERE campaign_id = ?"
        params: tuple[Any, ...] = (campaign_id,)
        if turn is not None:
            query += " AND turn = ?"
            params += (turn,)
        async with self._db.snapshot() as conn:
            rows = await fetch_all(conn, query + " ORDER BY id", params)
        return [table_roll_record(row) for row in rows]

    # ---- a turn start changed by a GM or a module's choice ------------------------------------

    async def replace_turn_start(
        self,
        campaign_id: CampaignId,
        turn: int,
        phases: tuple[Phase, ...],
        expected: CampaignState,
        new: CampaignState,
        actor: UserId,
        action: AuditAction,
        reason: str,
        now: datetime,
        *,
        adjustment: dict[str, Any] | None = None,
        rolls: Sequence[Roll] = (),
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> WriteOutcome:
        """Replace the current start state of ``turn`` with ``new`` (a deployment choice made,
        a GM's adjustment applied), if the campaign is at ``turn`` in one of ``phases`` and the
        state is still ``expected`` (a compare-and-set: ``CONFLICT`` if it changed since it was
        read, ``PHASE_CLOSED`` if the campaign moved on). The old state is kept as superseded;
        the change is audited (before and after); ``adjustment`` is kept to be applied again
        when a correction recomputes the turn's start."""
        async with self._db.transaction() as conn:
            outcome, campaign = await self._swap_turn_start(
                conn, campaign_id, turn, phases, expected, new, actor, now, rolls
            )
            if campaign is None:
                return outcome
            if adjustment is not None:
                await conn.execute(
                    "INSERT INTO state_adjustments (campaign_id, turn, adjustment_json, made_by,"
                    " made_at) VALUES (?, ?, ?, ?, ?)",
                    (campaign_id, turn, dump_json(adjustment), actor, ts(now)),
                )
            await self._audit(
                conn,
                campaign,
                actor,
                action,
                {"turn": turn, "state": _state_data(expected)},
                {
                    "turn": turn,
                    "state": _state_data(new),
                    **({"adjustment": adjustment} if adjustment is not None else {}),
                },
                now,
                reason,
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return WriteOutcome.SAVED

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
    ) -> tuple[WriteOutcome, Campaign | None]:
        """Inside a transaction: the compare-and-set of :meth:`replace_turn_start` (the old
        start kept as superseded). Returns the outcome and, when saved, the campaign."""
        if new.turn != turn:
            raise ValueError(f"a state of turn {new.turn} cannot start turn {turn}")
        campaign = await self._campaign_in(conn, campaign_id)
        if campaign is None:
            return WriteOutcome.NOT_FOUND, None
        if campaign.turn != turn or campaign.phase not in phases:
            return WriteOutcome.PHASE_CLOSED, None
        if campaign.status is CampaignStatus.FINISHED:
            return WriteOutcome.PHASE_CLOSED, None
        row = await fetch_one(
            conn,
            "SELECT * FROM turn_starts WHERE campaign_id = ? AND turn = ? AND retired_at IS NULL",
            (campaign_id, turn),
        )
        if row is None:
            return WriteOutcome.NOT_FOUND, None
        if CampaignState.model_validate_json(row["state_json"]) != expected:
            return WriteOutcome.CONFLICT, None
        await conn.execute(
            "UPDATE turn_starts SET retired_at = ?, retired_by = ?, retired_reason ="
            " 'superseded' WHERE id = ?",
            (ts(now), actor, row["id"]),
        )
        await self._insert_turn_start(
            conn, campaign_id, new, row["resolution_id"], actor, now, rolls
        )
        return WriteOutcome.SAVED, campaign

    async def adjustments(self, campaign_id: CampaignId, turn: int) -> list[StateAdjustmentRecord]:
        """The GM's current adjustments of ``turn``'s start, in the order made."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT * FROM state_adjustments WHERE campaign_id = ? AND turn = ?"
                " AND retired_at IS NULL ORDER BY id",
                (campaign_id, turn),
            )
        return [adjustment_record(row) for row in rows]


def _state_data(state: CampaignState) -> dict[str, Any]:
    data: dict[str, Any] = {"turn": state.turn, "armies": state.armies}
    if state.modules:
        data["modules"] = state.modules
    return data
