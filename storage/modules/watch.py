"""The duel steps of rule module ``watch`` (MODULES.md W6): one step per hero in a duel, each
with its own deadline, kept here so the scheduler finds them again after a restart.

A step belongs to the battle list that made it; once that list is retired (undone, superseded)
its steps are no longer current and every write to them does nothing. Every change of a step's
state is a compare-and-set on its row (``pending`` -> ``open`` -> ``closed``), so a duplicate
run, two processes or a stale button change nothing twice. Storage computes nothing of the
rules: the service (``bot.modules.watch.duels``) checks plays with the rules core.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter

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
    Row,
    Transactions,
    changed_rows,
    fetch_all,
    fetch_one,
    opt_dt,
    ts,
)

_RECORD = ConfigDict(frozen=True, extra="forbid")
_CURRENT = "list_id IN (SELECT id FROM battle_lists WHERE retired_at IS NULL)"


class DuelMode(StrEnum):
    """How a duel's steps run (the module's setting ``duel_mode``)."""

    INITIATIVE = "initiative"  # one after another, each posted when it closes
    SEALED = "sealed"  # all at once, revealed together when the last closes


class DuelStepState(StrEnum):
    """Where a step is."""

    PENDING = "pending"  # not open yet (initiative: waits for the step before it)
    OPEN = "open"
    CLOSED = "closed"


class DuelCloser(StrEnum):
    """What closed a step."""

    SUBMIT = "submit"  # its side played (or chose to play nothing)
    TIMEOUT = "timeout"  # its own deadline passed
    DEADLINE = "deadline"  # the results deadline came first (or the turn was resolved)
    GM = "gm"  # a GM closed it now (audited)


class DuelPlay(BaseModel):
    """One card laid on one hero."""

    model_config = _RECORD

    card: str = Field(min_length=2, max_length=4)
    target: str = Field(min_length=1, max_length=32)


_PLAYS = TypeAdapter(tuple[DuelPlay, ...])


class NewDuelStep(BaseModel):
    """A step to add when a battle list is published."""

    model_config = _RECORD

    sector: str
    index: int = Field(ge=0)
    hero: str
    side_id: SideId
    opens_at: AwareDatetime | None = None  # None: it opens when the step before it closes


class DuelStep(BaseModel):
    """One hero's step in one duel of one turn."""

    model_config = _RECORD

    id: int
    campaign_id: CampaignId
    turn: int
    list_id: int
    mode: DuelMode
    sector: str
    index: int
    hero: str
    side_id: SideId
    state: DuelStepState
    opens_at: AwareDatetime | None
    deadline: AwareDatetime | None
    reminded_at: AwareDatetime | None
    closed_at: AwareDatetime | None
    closed_by: DuelCloser | None
    closed_actor: UserId | None
    plays: tuple[DuelPlay, ...]
    edits: int


def _step(row: Row) -> DuelStep:
    return DuelStep(
        id=row["id"],
        campaign_id=row["campaign_id"],
        turn=row["turn"],
        list_id=row["list_id"],
        mode=DuelMode(row["mode"]),
        sector=row["sector"],
        index=row["step_index"],
        hero=row["hero"],
        side_id=row["side_id"],
        state=DuelStepState(row["state"]),
        opens_at=opt_dt(row["opens_at"]),
        deadline=opt_dt(row["deadline"]),
        reminded_at=opt_dt(row["reminded_at"]),
        closed_at=opt_dt(row["closed_at"]),
        closed_by=None if row["closed_by"] is None else DuelCloser(row["closed_by"]),
        closed_actor=row["closed_actor"],
        plays=_PLAYS.validate_json(row["plays_json"]),
        edits=row["edits"],
    )


def _plays_json(plays: Sequence[DuelPlay]) -> str:
    return _PLAYS.dump_json(tuple(plays)).decode()


class DuelStore(Protocol):
    """Duel steps with their deadlines."""

    async def add_duel_steps(
        self,
        campaign_id: CampaignId,
        turn: int,
        mode: DuelMode,
        steps: Sequence[NewDuelStep],
    ) -> list[DuelStep]: ...
    async def duel_steps(self, campaign_id: CampaignId, turn: int) -> list[DuelStep]: ...
    async def duel_step(self, step_id: int) -> DuelStep | None: ...
    async def list_duel_steps(self, list_id: int) -> list[DuelStep]: ...
    async def campaigns_with_duel_steps(self) -> list[CampaignId]: ...
    async def schedule_duel_step(self, step_id: int, opens_at: datetime) -> bool: ...
    async def open_duel_step(
        self,
        step_id: int,
        deadline: datetime | None,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> bool: ...
    async def draft_duel_step(
        self, step_id: int, plays: Sequence[DuelPlay], expected_edits: int
    ) -> DuelStep | None: ...
    async def close_duel_step(
        self,
        step_id: int,
        closed_by: DuelCloser,
        plays: Sequence[DuelPlay],
        actor: UserId | None,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        *,
        expected_edits: int | None = None,
    ) -> DuelStep | None: ...
    async def remind_duel_step(
        self, step_id: int, now: datetime, outbox: Sequence[NewOutboxMessage] = ()
    ) -> bool: ...
    async def reschedule_duel_step(
        self,
        step_id: int,
        state: DuelStepState,
        opens_at: datetime | None,
        deadline: datetime | None,
        *,
        rearm: bool = False,
    ) -> bool: ...


class DuelRecords(SharedRecords):
    """:class:`DuelStore` in SQL (mixed into ``SqlCampaignStore``)."""

    _db: Transactions

    async def _step_in(self, conn: Conn, step_id: int) -> DuelStep | None:
        row = await fetch_one(conn, "SELECT * FROM duel_steps WHERE id = ?", (step_id,))
        return None if row is None else _step(row)

    async def add_duel_steps(
        self,
        campaign_id: CampaignId,
        turn: int,
        mode: DuelMode,
        steps: Sequence[NewDuelStep],
    ) -> list[DuelStep]:
        """Add the steps of the turn's current battle list (those it has already are kept as
        they are, so a retried publication adds nothing twice). Returns the list's steps."""
        async with self._db.transaction() as conn:
            listed = await self._current_list_row(conn, campaign_id, turn)
            if listed is None:
                raise LookupError(f"campaign {campaign_id} has no battle list of turn {turn}")
            for step in steps:
                await conn.execute(
                    "INSERT INTO duel_steps (campaign_id, turn, list_id, mode, sector,"
                    " step_index, hero, side_id, opens_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT DO NOTHING",
                    (
                        campaign_id,
                        turn,
                        listed["id"],
                        mode.value,
                        step.sector,
                        step.index,
                        step.hero,
                        step.side_id,
                        None if step.opens_at is None else ts(step.opens_at),
                    ),
                )
            rows = await fetch_all(
                conn, "SELECT * FROM duel_steps WHERE list_id = ? ORDER BY id", (listed["id"],)
            )
        return [_step(row) for row in rows]

    async def duel_steps(self, campaign_id: CampaignId, turn: int) -> list[DuelStep]:
        """The steps of the turn's current battle list, in the order they were added (duel by
        duel, each in step order)."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                f"SELECT * FROM duel_steps WHERE campaign_id = ? AND turn = ? AND {_CURRENT}"
                " ORDER BY id",
                (campaign_id, turn),
            )
        return [_step(row) for row in rows]

    async def duel_step(self, step_id: int) -> DuelStep | None:
        """One step, current or not (a button names it by id)."""
        async with self._db.snapshot() as conn:
            return await self._step_in(conn, step_id)

    async def list_duel_steps(self, list_id: int) -> list[DuelStep]:
        """The steps of battle list ``list_id`` while it is not retired (the turn may have been
        resolved since: its list stays), in the order they were added; none once retired."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                f"SELECT * FROM duel_steps WHERE list_id = ? AND {_CURRENT} ORDER BY id",
                (list_id,),
            )
        return [_step(row) for row in rows]

    async def campaigns_with_duel_steps(self) -> list[CampaignId]:
        """The campaigns with a current step not yet closed (the scheduler's duel sweep)."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                f"SELECT DISTINCT campaign_id FROM duel_steps WHERE state <> 'closed'"
                f" AND {_CURRENT} ORDER BY campaign_id",
            )
        return [row["campaign_id"] for row in rows]

    async def schedule_duel_step(self, step_id: int, opens_at: datetime) -> bool:
        """Set when a pending step opens (the step before it closed); once: False if it has
        its moment already, is no longer pending or no longer current."""
        async with self._db.transaction() as conn:
            changed = await changed_rows(
                conn,
                "UPDATE duel_steps SET opens_at = ? WHERE id = ? AND state = 'pending'"
                f" AND opens_at IS NULL AND {_CURRENT}",
                (ts(opens_at), step_id),
            )
        return changed > 0

    async def open_duel_step(
        self,
        step_id: int,
        deadline: datetime | None,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> bool:
        """Open a pending step until ``deadline`` and queue ``outbox`` (its side's screen), once:
        False if it is not pending or not current any more."""
        async with self._db.transaction() as conn:
            changed = await changed_rows(
                conn,
                "UPDATE duel_steps SET state = 'open', opens_at = COALESCE(opens_at, ?),"
                f" deadline = ? WHERE id = ? AND state = 'pending' AND {_CURRENT}",
                (ts(now), None if deadline is None else ts(deadline), step_id),
            )
            if changed == 0:
                return False
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return True

    async def draft_duel_step(
        self, step_id: int, plays: Sequence[DuelPlay], expected_edits: int
    ) -> DuelStep | None:
        """Keep the side's draft of an open step, if nobody changed it since it was read
        (``expected_edits``); None when it changed, closed or is not current."""
        async with self._db.transaction() as conn:
            changed = await changed_rows(
                conn,
                "UPDATE duel_steps SET plays_json = ?, edits = edits + 1"
                f" WHERE id = ? AND state = 'open' AND edits = ? AND {_CURRENT}",
                (_plays_json(plays), step_id, expected_edits),
            )
            return await self._step_in(conn, step_id) if changed else None

    async def close_duel_step(
        self,
        step_id: int,
        closed_by: DuelCloser,
        plays: Sequence[DuelPlay],
        actor: UserId | None,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        *,
        expected_edits: int | None = None,
    ) -> DuelStep | None:
        """Close a step with ``plays`` (the compare-and-set: open, or pending for the results
        deadline and a GM; ``expected_edits`` also guards the draft), queue ``outbox``; a GM's
        close is audited. None when it was closed already or is not current."""
        late = closed_by in (DuelCloser.DEADLINE, DuelCloser.GM)
        states = ("open", "pending") if late else ("open",)
        async with self._db.transaction() as conn:
            before = await self._step_in(conn, step_id)
            if before is None or before.state.value not in states:
                return None
            if expected_edits is not None and before.edits != expected_edits:
                return None
            changed = await changed_rows(
                conn,
                "UPDATE duel_steps SET state = 'closed', closed_at = ?, closed_by = ?,"
                " closed_actor = ?, plays_json = ?, edits = edits + 1"
                f" WHERE id = ? AND state = ? AND edits = ? AND {_CURRENT}",
                (
                    ts(now),
                    closed_by.value,
                    actor,
                    _plays_json(plays),
                    step_id,
                    before.state.value,
                    before.edits,
                ),
            )
            if changed == 0:
                return None
            if closed_by is DuelCloser.GM:
                campaign = await self._require_campaign(conn, before.campaign_id)
                await self._audit(
                    conn,
                    campaign,
                    actor,
                    AuditAction.DUEL_STEP_CLOSED,
                    {"step": before.id, "hero": before.hero, "state": before.state.value},
                    {"step": before.id, "hero": before.hero, "state": "closed"},
                    now,
                    f"duel step of {before.hero} in {before.sector} closed by a GM",
                )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
            return await self._step_in(conn, step_id)

    async def remind_duel_step(
        self, step_id: int, now: datetime, outbox: Sequence[NewOutboxMessage] = ()
    ) -> bool:
        """Note that an open step's side was reminded and queue ``outbox``, once."""
        async with self._db.transaction() as conn:
            changed = await changed_rows(
                conn,
                "UPDATE duel_steps SET reminded_at = ? WHERE id = ? AND state = 'open'"
                f" AND reminded_at IS NULL AND {_CURRENT}",
                (ts(now), step_id),
            )
            if changed == 0:
                return False
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return True

    async def reschedule_duel_step(
        self,
        step_id: int,
        state: DuelStepState,
        opens_at: datetime | None,
        deadline: datetime | None,
        *,
        rearm: bool = False,
    ) -> bool:
        """Move a step's opening and deadline (a pause or the GM moved the results deadline),
        if it is still in ``state`` and current; ``rearm``: its reminder is due again."""
        reminded = ", reminded_at = NULL" if rearm else ""
        async with self._db.transaction() as conn:
            changed = await changed_rows(
                conn,
                f"UPDATE duel_steps SET opens_at = ?, deadline = ?{reminded}"
                f" WHERE id = ? AND state = ? AND {_CURRENT}",
                (
                    None if opens_at is None else ts(opens_at),
                    None if deadline is None else ts(deadline),
                    step_id,
                    state.value,
                ),
            )
        return changed > 0
