"""The campaign's clock as the scheduler keeps it: the current phase's deadline, pauses,
extensions, reminders sent, the GM's proposals waiting for confirmation, and a log of late runs,
alarms and GM time tools.

The scheduler is only a clock; this is what it must not forget across a restart. Each write is
one transaction, and the ones that announce something queue their post in the same transaction.
Storage never works out a moment on a wall clock: a moved deadline comes from the caller (which
knows the campaign's time zone), and storage checks that the clock is still where the caller
read it (compare-and-set) before it records the move.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue

from storage.models import (
    AuditAction,
    Campaign,
    CampaignId,
    CampaignStatus,
    NewOutboxMessage,
    Phase,
    TransitionOutcome,
    TransitionResult,
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
    dump_json,
    fetch_all,
    fetch_one,
    insert_row,
    opt_dt,
    ts,
)

_RECORD = ConfigDict(frozen=True, extra="forbid")
_PAUSABLE = (CampaignStatus.DEPLOYMENT, CampaignStatus.RUNNING)


class ClockNoteKind(StrEnum):
    """What a clock-log row records."""

    RAN_LATE = "ran_late"  # a deadline passed while the bot was down; run at start
    OVERDUE = "overdue"  # a deadline passed while the bot ran (a stuck job); run by the sweep
    BLOCKED = "blocked"  # a deadline came but the step cannot happen (sides not deployed...)
    EARLY_CLOSE = "early_close"  # every side was ready: the orders window closed early
    PAUSED = "paused"
    RESUMED = "resumed"
    EXTENDED = "extended"
    ADVANCED = "advanced"  # the GM's "advance now"
    DEADLINE_SET = "deadline_set"  # the GM set the deadline to a moment of their choice


class ClockState(BaseModel):
    """The deadline of the phase entry ``entry_seq`` and the pause/extension around it."""

    model_config = _RECORD

    campaign_id: CampaignId
    entry_seq: int
    turn: int
    phase: Phase
    anchor: AwareDatetime
    deadline: AwareDatetime | None
    basis: str
    extension_hours: int
    paused_seconds: int  # wall-clock seconds this entry was paused in all (before this pause)
    paused_at: AwareDatetime | None
    paused_status: CampaignStatus | None
    updated_at: AwareDatetime


class ClockNote(BaseModel):
    """One row of the clock log."""

    model_config = _RECORD

    id: int
    campaign_id: CampaignId
    at: AwareDatetime
    actor: UserId | None
    kind: ClockNoteKind
    turn: int
    phase: Phase
    deadline: AwareDatetime | None
    detail: dict[str, JsonValue]


class ReminderSent(BaseModel):
    """A reminder that went (was queued) to one person."""

    model_config = _RECORD

    campaign_id: CampaignId
    turn: int
    phase: Phase
    kind: str
    user_id: UserId
    sent_at: AwareDatetime


class ExtendOutcome(StrEnum):
    """What an extension did."""

    EXTENDED = "extended"
    OVER_LIMIT = "over_limit"  # the phase's extensions would pass ``max_extension_hours``
    NO_DEADLINE = "no_deadline"  # manual mode, or a phase without a deadline
    PASSED = "passed"  # the deadline has passed and its step waits (blocked): nothing to gain
    STALE = "stale"  # the campaign moved on since the deadline was read


class ExtendResult(BaseModel):
    """The outcome of an extension and the clock afterwards."""

    model_config = _RECORD

    outcome: ExtendOutcome
    clock: ClockState | None


class DeadlineMove(BaseModel):
    """A deadline moved later, worked out by the caller on the campaign's wall clock: where it
    stood when read (``before``; storage refuses the move if it stands elsewhere now), where it
    goes, and the reminder kinds of the phase that the move sets ahead again (sent again before
    the new deadline)."""

    model_config = _RECORD

    before: AwareDatetime | None
    after: AwareDatetime | None
    rearm: tuple[str, ...] = ()


class ProposalAction(StrEnum):
    """What a GM's proposal would do once confirmed."""

    EXTEND = "extend"
    PAUSE = "pause"


class ProposalOutcome(StrEnum):
    """How a proposal ended."""

    CONFIRMED = "confirmed"
    CANCELLED = "cancelled"
    STALE = "stale"  # the clock moved since the dates were shown: nothing was done
    REFUSED = "refused"  # confirmed, but the tool refused (e.g. over the extension limit)


class NewClockProposal(BaseModel):
    """An extension or a pause a GM asked for, on the clock as it was read (entry, deadline and
    settings basis); ``request`` names the message or press that asked."""

    model_config = _RECORD

    campaign_id: CampaignId
    entry_seq: int
    action: ProposalAction
    hours: int = Field(default=0, ge=0)
    deadline: AwareDatetime | None
    basis: str
    proposed_by: UserId
    request: str | None = None


class ClockProposal(NewClockProposal):
    """A stored proposal, with its answer once given."""

    id: int
    proposed_at: AwareDatetime
    decided_by: UserId | None
    decided_at: AwareDatetime | None
    outcome: ProposalOutcome | None


class ScheduleStore(Protocol):
    """The scheduler's part of the store."""

    async def clock_state(self, campaign_id: CampaignId) -> ClockState | None: ...
    async def set_clock(
        self,
        campaign_id: CampaignId,
        entry_seq: int,
        turn: int,
        phase: Phase,
        anchor: datetime,
        deadline: datetime | None,
        basis: str,
        now: datetime,
    ) -> ClockState: ...
    async def extend_deadline(
        self,
        campaign_id: CampaignId,
        entry_seq: int,
        hours: int,
        max_hours: int,
        move: DeadlineMove,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        *,
        request: str | None = None,
    ) -> ExtendResult: ...
    async def set_deadline(
        self,
        campaign_id: CampaignId,
        entry_seq: int,
        move: DeadlineMove,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> bool: ...
    async def rearm_reminders(
        self, campaign_id: CampaignId, kinds: Sequence[str], now: datetime
    ) -> None: ...
    async def pause_clock(
        self,
        campaign_id: CampaignId,
        actor: UserId,
        reason: str,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> TransitionResult: ...
    async def resume_clock(
        self,
        campaign_id: CampaignId,
        actor: UserId,
        reason: str,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        *,
        paused_at: datetime | None = None,
        paused_seconds: int = 0,
        move: DeadlineMove | None = None,
    ) -> TransitionResult: ...
    async def send_reminders(
        self,
        campaign_id: CampaignId,
        turn: int,
        phase: Phase,
        kind: str,
        messages: Sequence[tuple[UserId, NewOutboxMessage]],
        now: datetime,
    ) -> list[UserId]: ...
    async def reminders_sent(self, campaign_id: CampaignId) -> list[ReminderSent]: ...
    async def note_clock(
        self,
        campaign_id: CampaignId,
        kind: ClockNoteKind,
        turn: int,
        phase: Phase,
        deadline: datetime | None,
        actor: UserId | None,
        detail: dict[str, JsonValue],
        now: datetime,
        *,
        dedup: str | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> bool: ...
    async def clock_log(self, campaign_id: CampaignId) -> list[ClockNote]: ...
    async def propose_clock_change(
        self, proposal: NewClockProposal, now: datetime
    ) -> ClockProposal: ...
    async def clock_proposal(self, proposal_id: int) -> ClockProposal | None: ...
    async def clock_proposals(self, campaign_id: CampaignId) -> list[ClockProposal]: ...
    async def decide_clock_proposal(
        self, proposal_id: int, outcome: ProposalOutcome, actor: UserId, now: datetime
    ) -> bool: ...


def _clock(row: Row) -> ClockState:
    return ClockState(
        campaign_id=row["campaign_id"],
        entry_seq=row["entry_seq"],
        turn=row["turn"],
        phase=Phase(row["phase"]),
        anchor=dt(row["anchor"]),
        deadline=opt_dt(row["deadline"]),
        basis=row["basis"],
        extension_hours=row["extension_hours"],
        paused_seconds=row["paused_seconds"],
        paused_at=opt_dt(row["paused_at"]),
        paused_status=(
            None if row["paused_status"] is None else CampaignStatus(row["paused_status"])
        ),
        updated_at=dt(row["updated_at"]),
    )


def _note(row: Row) -> ClockNote:
    return ClockNote(
        id=row["id"],
        campaign_id=row["campaign_id"],
        at=dt(row["at"]),
        actor=row["actor"],
        kind=ClockNoteKind(row["kind"]),
        turn=row["turn"],
        phase=Phase(row["phase"]),
        deadline=opt_dt(row["deadline"]),
        detail=json.loads(row["detail_json"]),
    )


def _proposal(row: Row) -> ClockProposal:
    return ClockProposal(
        id=row["id"],
        campaign_id=row["campaign_id"],
        entry_seq=row["entry_seq"],
        action=ProposalAction(row["action"]),
        hours=row["hours"],
        deadline=opt_dt(row["deadline"]),
        basis=row["basis"],
        proposed_by=row["proposed_by"],
        request=row["request"],
        proposed_at=dt(row["proposed_at"]),
        decided_by=row["decided_by"],
        decided_at=opt_dt(row["decided_at"]),
        outcome=None if row["outcome"] is None else ProposalOutcome(row["outcome"]),
    )


@dataclass(frozen=True)
class _StatusChange:
    """A pause or a resume written: the result's message and the log's details."""

    message: str
    detail: dict[str, JsonValue] = field(default_factory=dict)


def _status_result(
    outcome: TransitionOutcome, campaign: Campaign | None, message: str
) -> TransitionResult:
    return TransitionResult(outcome=outcome, campaign=campaign, message=message)


def clock_query(campaign_id: CampaignId) -> Query:
    """The campaign's clock (:func:`clock_of`)."""
    return "SELECT * FROM campaign_clocks WHERE campaign_id = ?", (campaign_id,)


def clock_of(rows: Sequence[Row]) -> ClockState | None:
    """The clock of :func:`clock_query`'s rows, if the campaign has one."""
    return _clock(rows[0]) if rows else None


class ScheduleRecords(SharedRecords):
    """:class:`ScheduleStore` on the campaign file (mixed into ``SqliteCampaignStore``)."""

    _db: Transactions

    async def _clock_in(self, conn: Conn, campaign_id: CampaignId) -> ClockState | None:
        return clock_of(await fetch_all(conn, *clock_query(campaign_id)))

    async def _log_in(
        self,
        conn: Conn,
        campaign_id: CampaignId,
        kind: ClockNoteKind,
        turn: int,
        phase: Phase,
        deadline: datetime | None,
        actor: UserId | None,
        detail: dict[str, JsonValue],
        now: datetime,
        dedup: str | None = None,
    ) -> bool:
        cursor = await conn.execute(
            "INSERT INTO clock_log (campaign_id, at, actor, kind, turn, phase, deadline,"
            " detail_json, dedup) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (dedup) DO NOTHING",
            (
                campaign_id,
                ts(now),
                actor,
                kind.value,
                turn,
                phase.value,
                None if deadline is None else ts(deadline),
                dump_json(detail),
                dedup,
            ),
        )
        return cursor.rowcount == 1

    async def clock_state(self, campaign_id: CampaignId) -> ClockState | None:
        """The campaign's clock row, if the scheduler has seen the campaign."""
        [rows] = await self._db.read([clock_query(campaign_id)])
        return clock_of(rows)

    async def set_clock(
        self,
        campaign_id: CampaignId,
        entry_seq: int,
        turn: int,
        phase: Phase,
        anchor: datetime,
        deadline: datetime | None,
        basis: str,
        now: datetime,
    ) -> ClockState:
        """Record the deadline of phase entry ``entry_seq``, computed from ``anchor`` with the
        settings ``basis`` names. The same entry and basis again changes nothing (the first
        writer wins a race). A new entry starts with no extension used and no time paused; a new
        basis for the same entry (the GM changed the schedule) records ``deadline`` as given
        (the caller has added the extension used and the time paused) and keeps both counts. A
        pause in force is kept."""
        async with self._db.transaction() as conn:
            clock = await self._clock_in(conn, campaign_id)
            if clock is not None and clock.entry_seq == entry_seq:
                if clock.basis != basis:
                    await conn.execute(
                        "UPDATE campaign_clocks SET deadline = ?, basis = ?, updated_at = ?"
                        " WHERE campaign_id = ?",
                        (None if deadline is None else ts(deadline), basis, ts(now), campaign_id),
                    )
            else:
                await conn.execute(
                    "INSERT INTO campaign_clocks (campaign_id, entry_seq, turn, phase, anchor,"
                    " deadline, basis, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (campaign_id) DO UPDATE SET entry_seq = excluded.entry_seq,"
                    " turn = excluded.turn, phase = excluded.phase, anchor = excluded.anchor,"
                    " deadline = excluded.deadline, basis = excluded.basis, extension_hours = 0,"
                    " paused_seconds = 0, updated_at = excluded.updated_at",
                    (
                        campaign_id,
                        entry_seq,
                        turn,
                        phase.value,
                        ts(anchor),
                        None if deadline is None else ts(deadline),
                        basis,
                        ts(now),
                    ),
                )
            after = await self._clock_in(conn, campaign_id)
        if after is None:
            raise LookupError(f"clock of campaign {campaign_id} vanished inside its transaction")
        return after

    async def extend_deadline(
        self,
        campaign_id: CampaignId,
        entry_seq: int,
        hours: int,
        max_hours: int,
        move: DeadlineMove,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        *,
        request: str | None = None,
    ) -> ExtendResult:
        """Move the current deadline ``hours`` later, to ``move.after`` (the caller counts the
        hours on the campaign's wall clock), if the phase is still entry ``entry_seq`` with its
        deadline at ``move.before`` and its extensions stay within ``max_hours``; logged, the
        reminders ``move.rearm`` names set ahead again, with ``outbox`` queued. ``request``
        names the GM's message, press or confirmation: the same request again (delivered twice)
        extends nothing more and says ``EXTENDED`` with the clock as it is."""
        if hours <= 0:
            raise ValueError(f"an extension is a positive number of hours, not {hours}")
        async with self._db.transaction() as conn:
            clock = await self._clock_in(conn, campaign_id)
            if request is not None and await fetch_one(
                conn, "SELECT 1 FROM clock_log WHERE dedup = ?", (request,)
            ):
                return ExtendResult(outcome=ExtendOutcome.EXTENDED, clock=clock)
            if clock is None or clock.entry_seq != entry_seq:
                return ExtendResult(outcome=ExtendOutcome.STALE, clock=clock)
            if clock.deadline is None:
                return ExtendResult(outcome=ExtendOutcome.NO_DEADLINE, clock=clock)
            if clock.deadline != move.before or move.after is None:
                return ExtendResult(outcome=ExtendOutcome.STALE, clock=clock)
            if clock.extension_hours + hours > max_hours:
                return ExtendResult(outcome=ExtendOutcome.OVER_LIMIT, clock=clock)
            deadline = move.after
            await conn.execute(
                "UPDATE campaign_clocks SET deadline = ?, extension_hours = extension_hours + ?,"
                " updated_at = ? WHERE campaign_id = ?",
                (ts(deadline), hours, ts(now), campaign_id),
            )
            await self._rearm_in(conn, clock, move.rearm)
            await self._log_in(
                conn,
                campaign_id,
                ClockNoteKind.EXTENDED,
                clock.turn,
                clock.phase,
                deadline,
                actor,
                {"hours": hours, "before": ts(clock.deadline)},
                now,
                request,
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
            after = await self._clock_in(conn, campaign_id)
        return ExtendResult(outcome=ExtendOutcome.EXTENDED, clock=after)

    async def set_deadline(
        self,
        campaign_id: CampaignId,
        entry_seq: int,
        move: DeadlineMove,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> bool:
        """Put the current deadline at ``move.after`` (earlier or later: the GM chose the
        moment), if the phase is still entry ``entry_seq`` with its deadline at ``move.before``
        and not paused; logged and audited, the reminders ``move.rearm`` names set going again,
        with ``outbox`` queued. False (nothing done) when the clock stands elsewhere now."""
        if move.after is None:
            raise ValueError("a deadline is set to a moment")
        async with self._db.transaction() as conn:
            clock = await self._clock_in(conn, campaign_id)
            campaign = await self._campaign_in(conn, campaign_id)
            if (
                clock is None
                or campaign is None
                or clock.entry_seq != entry_seq
                or clock.deadline is None
                or clock.deadline != move.before
                or clock.paused_at is not None
            ):
                return False
            await conn.execute(
                "UPDATE campaign_clocks SET deadline = ?, updated_at = ? WHERE campaign_id = ?",
                (ts(move.after), ts(now), campaign_id),
            )
            await self._rearm_in(conn, clock, move.rearm)
            await self._log_in(
                conn,
                campaign_id,
                ClockNoteKind.DEADLINE_SET,
                clock.turn,
                clock.phase,
                move.after,
                actor,
                {"before": ts(clock.deadline)},
                now,
            )
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.DEADLINE_SET,
                {"deadline": ts(clock.deadline)},
                {"deadline": ts(move.after)},
                now,
                f"deadline of turn {clock.turn} {clock.phase.value} set by a GM",
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return True

    async def rearm_reminders(
        self, campaign_id: CampaignId, kinds: Sequence[str], now: datetime
    ) -> None:
        """Forget that the current phase's reminders ``kinds`` went out (its deadline moved
        with a schedule change): they are due again before the new deadline."""
        async with self._db.transaction() as conn:
            clock = await self._clock_in(conn, campaign_id)
            if clock is not None:
                await self._rearm_in(conn, clock, kinds)

    async def pause_clock(
        self,
        campaign_id: CampaignId,
        actor: UserId,
        reason: str,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> TransitionResult:
        """Pause a campaign in deployment or running: status compare-and-set, the moment the
        pause began (deadlines move by the paused time on resume), audit, log and ``outbox``."""

        async def pause(conn: Conn, before: Campaign) -> TransitionResult | _StatusChange:
            if before.status is CampaignStatus.PAUSED:
                return _status_result(TransitionOutcome.ALREADY_DONE, before, "already paused")
            if before.status not in _PAUSABLE:
                return _status_result(
                    TransitionOutcome.CONFLICT, before, f"cannot pause in {before.status.value}"
                )
            changed = await changed_rows(
                conn,
                "UPDATE campaigns SET status = 'paused', updated_at = ?"
                " WHERE id = ? AND status = ?",
                (ts(now), campaign_id, before.status.value),
            )
            if changed == 0:
                return _status_result(TransitionOutcome.CONFLICT, before, "status changed")
            await conn.execute(
                "UPDATE campaign_clocks SET paused_at = ?, paused_status = ?, updated_at = ?"
                " WHERE campaign_id = ?",
                (ts(now), before.status.value, ts(now), campaign_id),
            )
            return _StatusChange("paused")

        return await self._change_status(
            campaign_id, actor, ClockNoteKind.PAUSED, reason, now, outbox, pause
        )

    async def resume_clock(
        self,
        campaign_id: CampaignId,
        actor: UserId,
        reason: str,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        *,
        paused_at: datetime | None = None,
        paused_seconds: int = 0,
        move: DeadlineMove | None = None,
    ) -> TransitionResult:
        """Resume a paused campaign in the status it had. The caller read the clock (the pause
        began at ``paused_at``) and worked out on the campaign's wall clock how long it lasted
        (``paused_seconds``) and where the deadline goes (``move``); if the clock stands
        elsewhere now (another resume came first), nothing changes (``CONFLICT``). Audited and
        logged, with ``outbox`` queued, in one transaction."""

        async def resume(conn: Conn, before: Campaign) -> TransitionResult | _StatusChange:
            if before.status is not CampaignStatus.PAUSED:
                outcome = (
                    TransitionOutcome.ALREADY_DONE
                    if before.status in _PAUSABLE
                    else TransitionOutcome.CONFLICT
                )
                return _status_result(outcome, before, f"status is {before.status.value}")
            clock = await self._clock_in(conn, campaign_id)
            if clock is not None and clock.paused_at is not None:
                moved_elsewhere = move is None or move.before != clock.deadline
                if clock.paused_at != paused_at or moved_elsewhere:
                    return _status_result(TransitionOutcome.CONFLICT, before, "clock changed")
            # The phase's status, not the one the pause began in: an undo while paused may
            # have taken the campaign from a turn back to its deployment.
            status = (
                CampaignStatus.DEPLOYMENT
                if before.phase is Phase.DEPLOYMENT
                else CampaignStatus.RUNNING
            )
            await conn.execute(
                "UPDATE campaigns SET status = ?, updated_at = ?"
                " WHERE id = ? AND status = 'paused'",
                (status.value, ts(now), campaign_id),
            )
            shift = 0
            if clock is not None and clock.paused_at is not None and move is not None:
                shift = max(paused_seconds, 0)
                await conn.execute(
                    "UPDATE campaign_clocks SET deadline = ?, paused_seconds = paused_seconds + ?,"
                    " paused_at = NULL, paused_status = NULL, updated_at = ? WHERE campaign_id = ?",
                    (
                        None if move.after is None else ts(move.after),
                        shift,
                        ts(now),
                        campaign_id,
                    ),
                )
                await self._rearm_in(conn, clock, move.rearm)
            return _StatusChange(f"status {status.value}", {"paused_seconds": shift})

        return await self._change_status(
            campaign_id, actor, ClockNoteKind.RESUMED, reason, now, outbox, resume
        )

    async def _change_status(
        self,
        campaign_id: CampaignId,
        actor: UserId,
        kind: ClockNoteKind,
        reason: str,
        now: datetime,
        outbox: Sequence[NewOutboxMessage],
        change: Callable[[Conn, Campaign], Awaitable[TransitionResult | _StatusChange]],
    ) -> TransitionResult:
        """The one transaction of a pause and of a resume: the campaign read, ``change`` checks
        and writes its status (or returns why not), then the change is audited and logged as
        ``kind`` with ``reason``, and ``outbox`` queued."""
        async with self._db.transaction() as conn:
            before = await self._campaign_in(conn, campaign_id)
            if before is None:
                return _status_result(
                    TransitionOutcome.NOT_FOUND, None, f"no campaign {campaign_id}"
                )
            done = await change(conn, before)
            if isinstance(done, TransitionResult):
                return done
            after = await self._status_changed_in(
                conn, before, actor, kind, reason, now, outbox, **done.detail
            )
        return _status_result(TransitionOutcome.APPLIED, after, done.message)

    async def _status_changed_in(
        self,
        conn: Conn,
        before: Campaign,
        actor: UserId,
        kind: ClockNoteKind,
        reason: str,
        now: datetime,
        outbox: Sequence[NewOutboxMessage],
        **detail: JsonValue,
    ) -> Campaign:
        """The campaign after a pause or resume changed its status in this transaction: the
        change audited and logged as ``kind`` with ``reason`` (and ``detail``), ``outbox``
        queued."""
        after = await self._campaign_in(conn, before.id)
        if after is None:
            raise LookupError(f"campaign {before.id} vanished inside its transaction")
        await self._audit(
            conn,
            after,
            actor,
            AuditAction.STATUS_CHANGED,
            {"status": before.status.value},
            {"status": after.status.value},
            now,
            reason,
        )
        noted: dict[str, JsonValue] = {"reason": reason, **detail}
        await self._log_in(conn, before.id, kind, after.turn, after.phase, None, actor, noted, now)
        for message in story_order(outbox):
            await self._enqueue_in(conn, message, now)
        return after

    async def _rearm_in(self, conn: Conn, clock: ClockState, kinds: Sequence[str]) -> None:
        """Forget that the phase's reminders ``kinds`` went out: its deadline moved, and they
        are due again before the new one."""
        for kind in kinds:
            await conn.execute(
                "DELETE FROM reminders_sent WHERE campaign_id = ? AND turn = ? AND phase = ?"
                " AND kind = ?",
                (clock.campaign_id, clock.turn, clock.phase.value, kind),
            )

    async def send_reminders(
        self,
        campaign_id: CampaignId,
        turn: int,
        phase: Phase,
        kind: str,
        messages: Sequence[tuple[UserId, NewOutboxMessage]],
        now: datetime,
    ) -> list[UserId]:
        """Queue each person's reminder unless they already had this one (turn, phase, kind);
        who got one now. Recorded and queued in one transaction, so a restart never doubles."""
        sent: list[UserId] = []
        async with self._db.transaction() as conn:
            for user_id, message in messages:
                cursor = await conn.execute(
                    "INSERT INTO reminders_sent (campaign_id, turn, phase, kind, user_id, sent_at)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (campaign_id, turn, phase.value, kind, user_id, ts(now)),
                )
                if cursor.rowcount == 1:
                    await self._enqueue_in(conn, message, now)
                    sent.append(user_id)
        return sent

    async def reminders_sent(self, campaign_id: CampaignId) -> list[ReminderSent]:
        """Every reminder the campaign sent, in the order sent."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT * FROM reminders_sent WHERE campaign_id = ? ORDER BY sent_at, user_id",
                (campaign_id,),
            )
        return [
            ReminderSent(
                campaign_id=row["campaign_id"],
                turn=row["turn"],
                phase=Phase(row["phase"]),
                kind=row["kind"],
                user_id=row["user_id"],
                sent_at=dt(row["sent_at"]),
            )
            for row in rows
        ]

    async def note_clock(
        self,
        campaign_id: CampaignId,
        kind: ClockNoteKind,
        turn: int,
        phase: Phase,
        deadline: datetime | None,
        actor: UserId | None,
        detail: dict[str, JsonValue],
        now: datetime,
        *,
        dedup: str | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> bool:
        """Log a clock event and queue ``outbox`` with it. With ``dedup``, only the first call
        does anything (False for the later ones): a late run is announced once."""
        async with self._db.transaction() as conn:
            logged = await self._log_in(
                conn, campaign_id, kind, turn, phase, deadline, actor, detail, now, dedup
            )
            if logged:
                for message in story_order(outbox):
                    await self._enqueue_in(conn, message, now)
        return logged

    async def clock_log(self, campaign_id: CampaignId) -> list[ClockNote]:
        """The campaign's clock log, oldest first."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn, "SELECT * FROM clock_log WHERE campaign_id = ? ORDER BY id", (campaign_id,)
            )
        return [_note(row) for row in rows]

    async def propose_clock_change(
        self, proposal: NewClockProposal, now: datetime
    ) -> ClockProposal:
        """Keep a GM's extension or pause until they confirm it; the same ``request`` again
        (the message delivered twice) gives back the first proposal."""
        async with self._db.transaction() as conn:
            if proposal.request is not None:
                row = await fetch_one(
                    conn, "SELECT * FROM clock_proposals WHERE request = ?", (proposal.request,)
                )
                if row is not None:
                    return _proposal(row)
            proposal_id = await insert_row(
                conn,
                "INSERT INTO clock_proposals (campaign_id, entry_seq, action, hours, deadline,"
                " basis, proposed_by, proposed_at, request) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    proposal.campaign_id,
                    proposal.entry_seq,
                    proposal.action.value,
                    proposal.hours,
                    None if proposal.deadline is None else ts(proposal.deadline),
                    proposal.basis,
                    proposal.proposed_by,
                    ts(now),
                    proposal.request,
                ),
            )
            row = await fetch_one(
                conn, "SELECT * FROM clock_proposals WHERE id = ?", (proposal_id,)
            )
        if row is None:
            raise LookupError(f"proposal {proposal_id} vanished inside its transaction")
        return _proposal(row)

    async def clock_proposal(self, proposal_id: int) -> ClockProposal | None:
        """A proposal by id."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(
                conn, "SELECT * FROM clock_proposals WHERE id = ?", (proposal_id,)
            )
        return None if row is None else _proposal(row)

    async def clock_proposals(self, campaign_id: CampaignId) -> list[ClockProposal]:
        """Every proposal of a campaign, oldest first, answered or not."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT * FROM clock_proposals WHERE campaign_id = ? ORDER BY id",
                (campaign_id,),
            )
        return [_proposal(row) for row in rows]

    async def decide_clock_proposal(
        self, proposal_id: int, outcome: ProposalOutcome, actor: UserId, now: datetime
    ) -> bool:
        """Record the answer to a proposal; False when it had one already (the first answer
        stands: a confirmation pressed twice acts once)."""
        async with self._db.transaction() as conn:
            changed = await changed_rows(
                conn,
                "UPDATE clock_proposals SET outcome = ?, decided_by = ?, decided_at = ?"
                " WHERE id = ? AND outcome IS NULL",
                (outcome.value, actor, ts(now), proposal_id),
            )
        return changed == 1
