"""The clock of a campaign's turns: phase changes, battle lists, resolutions and their
correction, undo, and what a turn was played from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rules import (
    Battle,
    BattleResult,
    CampaignState,
    Rejection,
    Roll,
    TurnResolution,
)
from storage.dialect import INTEGRITY_ERRORS, breaks_one_active_per_chat
from storage.errors import ChatHasActiveCampaignError, NotFoundError
from storage.models import (
    AuditAction,
    BattleListRecord,
    BattleReport,
    Campaign,
    CampaignId,
    CampaignStatus,
    CorrectionOutcome,
    CorrectionResult,
    LateOrdersRecord,
    NewOutboxMessage,
    OrdersRecord,
    Phase,
    PhaseEntry,
    ResolutionRecord,
    SideId,
    TransitionOutcome,
    TransitionResult,
    TurnInputs,
    TurnRecord,
    TurnSeedsRecord,
    UserId,
    standing_results,
    story_order,
)
from storage.shared import (
    _BATTLES,
    _LATE,
    _ORDERS,
    _PRE_BATTLE_PHASES,
    _REJECTIONS,
    _RESULTS,
    _ROLLS,
    SharedRecords,
    _appendix_state,
    _battle_list,
    _phase_entry,
    _position,
    _resolution,
    _result,
    _state_json,
    current_list_query,
    turn_start_of,
    turn_start_query,
)
from storage.sql import (
    Conn,
    Query,
    Row,
    changed_rows,
    dump_json,
    fetch_all,
    fetch_one,
    insert_row,
    may_violate,
    ts,
)


def current_entries_query(campaign_id: CampaignId) -> Query:
    """The phase entry the campaign is in and the undone entries after it
    (:func:`phase_entries_of`)."""
    return (
        "SELECT * FROM phase_history WHERE campaign_id = ? AND seq >= (SELECT"
        " coalesce(max(seq), 0) FROM phase_history WHERE campaign_id = ?"
        " AND undone_at IS NULL) ORDER BY seq",
        (campaign_id, campaign_id),
    )


def phase_entries_of(rows: Sequence[Row]) -> list[PhaseEntry]:
    """The entries of ``phase_history`` rows."""
    return [_phase_entry(row) for row in rows]


class TurnRecords(SharedRecords):
    """Phase changes, battle lists, resolutions (mixed into ``SqliteCampaignStore``)."""

    if TYPE_CHECKING:
        # Provided by the other mixins of SqliteCampaignStore.
        async def _write_override(
            self,
            conn: Conn,
            list_id: int,
            battle: int,
            result: BattleResult | None,
            actor: UserId,
            now: datetime,
            against: str | None = None,
        ) -> None: ...
        async def _undo_side_edits_in(
            self, conn: Conn, campaign_id: CampaignId, after_turn: int, actor: UserId, now: datetime
        ) -> None: ...
        async def _seeds_in(
            self, conn: Conn, campaign_id: CampaignId, turn: int
        ) -> TurnSeedsRecord | None: ...
        async def _orders_in(
            self, conn: Conn, campaign_id: CampaignId, turn: int
        ) -> dict[SideId, OrdersRecord]: ...
        async def _late_in(
            self, conn: Conn, campaign_id: CampaignId, turn: int
        ) -> dict[SideId, LateOrdersRecord]: ...
        async def _reports_in(
            self,
            conn: Conn,
            campaign_id: CampaignId,
            turn: int,
            battle_list: BattleListRecord | None,
        ) -> list[BattleReport]: ...

    async def transition(
        self,
        campaign_id: CampaignId,
        expected_turn: int,
        expected_phase: Phase,
        new_turn: int,
        new_phase: Phase,
        actor: UserId | None,
        reason: str,
        now: datetime,
        *,
        new_status: CampaignStatus | None = None,
        turn_start: CampaignState | None = None,
        turn_start_rolls: Sequence[Roll] = (),
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> TransitionResult:
        """Move the campaign from (expected_turn, expected_phase) to (new_turn, new_phase).

        One guarded UPDATE plus the phase history, the audit row, the optional turn-start
        snapshot (with what its modules drew, ``turn_start_rolls``) and the queued messages, in
        one transaction. A second identical call returns ``ALREADY_DONE`` and changes nothing; a
        paused campaign does not move (``CONFLICT``).
        """
        if turn_start is not None and turn_start.turn != new_turn:
            raise ValueError(f"turn-start state is for turn {turn_start.turn}, not {new_turn}")
        async with self._db.transaction() as conn:
            result, seq = await self._move_clock(
                conn,
                campaign_id,
                expected_turn,
                expected_phase,
                new_turn,
                new_phase,
                new_status,
                actor,
                reason,
                now,
            )
            if seq is None:
                return result
            if turn_start is not None:
                await self._insert_turn_start(
                    conn, campaign_id, turn_start, None, actor, now, turn_start_rolls
                )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now, phase_seq=seq)
        return result

    async def publish_battles(
        self,
        campaign_id: CampaignId,
        turn: int,
        battles: Sequence[Battle],
        rejected: Sequence[Rejection],
        actor: UserId | None,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        *,
        rolls: Sequence[Roll] = (),
        modules: dict[str, Any] | None = None,
    ) -> TransitionResult:
        """Close the orders window: (turn, orders) -> (turn, battles) with the list as published
        (its rolls and what rule modules show with it included)."""
        async with self._db.transaction() as conn:
            result, seq = await self._move_clock(
                conn,
                campaign_id,
                turn,
                Phase.ORDERS,
                turn,
                Phase.BATTLES,
                None,
                actor,
                "battle list published",
                now,
            )
            if seq is None or result.campaign is None:
                return result
            row = await fetch_one(
                conn,
                "SELECT COALESCE(MAX(revision), 0) + 1 FROM battle_lists"
                " WHERE campaign_id = ? AND turn = ?",
                (campaign_id, turn),
            )
            revision = int(row[0]) if row is not None else 1
            list_id = await insert_row(
                conn,
                "INSERT INTO battle_lists (campaign_id, turn, revision, battles_json,"
                " rejected_json, published_at, published_by, rolls_json, modules_json)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    campaign_id,
                    turn,
                    revision,
                    _BATTLES.dump_json(tuple(battles)).decode(),
                    _REJECTIONS.dump_json(tuple(rejected)).decode(),
                    ts(now),
                    actor,
                    _ROLLS.dump_json(tuple(rolls)).decode(),
                    dump_json(modules or {}),
                ),
            )
            carried = await self._carry_reports_over(
                conn, campaign_id, turn, revision, list_id, battles, actor, now
            )
            await self._audit(
                conn,
                result.campaign,
                actor,
                AuditAction.BATTLES_PUBLISHED,
                None,
                {
                    "revision": revision,
                    "battles": [b.as_json() for b in battles],
                    "reports_carried_over": carried,
                    **({"rolls": [roll.as_json() for roll in rolls]} if rolls else {}),
                },
                now,
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now, phase_seq=seq)
        return result

    async def _carry_reports_over(
        self,
        conn: Conn,
        campaign_id: CampaignId,
        turn: int,
        revision: int,
        list_id: int,
        battles: Sequence[Battle],
        actor: UserId | None,
        now: datetime,
    ) -> list[int]:
        """Copy the reports of the previous (undone) list revision to the new one for every
        battle that is identical in both, so an undo and republish keeps results already in."""
        previous = await fetch_one(
            conn,
            "SELECT * FROM battle_lists WHERE campaign_id = ? AND turn = ? AND revision = ?",
            (campaign_id, turn, revision - 1),
        )
        if previous is None:
            return []
        before = {battle.id: battle for battle in _battle_list(previous).battles}
        carried = [battle.id for battle in battles if before.get(battle.id) == battle]
        for battle_id in carried:
            copied = await changed_rows(
                conn,
                "INSERT INTO battle_reports (battle_list_id, battle, reported_json, reported_by,"
                " reported_at, confirmed_by, confirmed_at, disputed_by, disputed_at,"
                " override_json, override_by, override_at, counter_json, reported_against,"
                " override_against)"
                " SELECT ?, battle, reported_json, reported_by, reported_at, confirmed_by,"
                " confirmed_at, disputed_by, disputed_at, override_json, override_by,"
                " override_at, counter_json, reported_against, override_against"
                " FROM battle_reports"
                " WHERE battle_list_id = ? AND battle = ?",
                (list_id, previous["id"], battle_id),
            )
            if copied:
                await conn.execute(
                    "INSERT INTO battle_report_events (battle_list_id, battle, kind, actor, at)"
                    " VALUES (?, ?, 'carried_over', ?, ?)",
                    (list_id, battle_id, actor, ts(now)),
                )
        return carried

    async def store_resolution(
        self,
        campaign_id: CampaignId,
        expected_phase: Phase,
        inputs: TurnInputs,
        resolution: TurnResolution,
        revision: int,
        actor: UserId | None,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        reason: str = "",
        *,
        next_start: CampaignState | None = None,
        next_rolls: Sequence[Roll] = (),
    ) -> TransitionResult:
        """Record a resolved turn and start the next: (turn, expected_phase) -> (turn + 1,
        orders), or finished when the report says the game is over. ``revision`` must be the
        next revision number of the turn's resolution (1 + those stored, undone included).
        ``reason`` goes to the audit entry (e.g. what a forced resolution settled).
        ``next_start`` is the next turn's start when rule modules changed the resolved state as
        the turn began (``rules.start_turn``; ``next_rolls`` what they drew); by default the
        resolved state. The turn's roll seed is marked revealed (the Monday summary shows it)."""
        turn = inputs.turn
        over = resolution.report.game_over
        async with self._db.transaction() as conn:
            stored = await fetch_one(
                conn,
                "SELECT COALESCE(MAX(revision), 0) FROM resolutions WHERE campaign_id = ?"
                " AND turn = ?",
                (campaign_id, turn),
            )
            if stored is not None and int(stored[0]) + 1 != revision:
                campaign = await self._campaign_in(conn, campaign_id)
                stale = f"resolution revision {revision} is stale (stored: {int(stored[0])})"
                return _result(TransitionOutcome.CONFLICT, campaign, stale)
            result, seq = await self._move_clock(
                conn,
                campaign_id,
                turn,
                expected_phase,
                turn + 1,
                Phase.FINISHED if over else Phase.ORDERS,
                CampaignStatus.FINISHED if over else CampaignStatus.RUNNING,
                actor,
                f"turn {turn} resolved",
                now,
            )
            if seq is None or result.campaign is None:
                return result
            resolution_id = await self._insert_resolution(
                conn, campaign_id, inputs, resolution, revision, actor, now
            )
            await self._insert_turn_start(
                conn,
                campaign_id,
                next_start or resolution.state,
                resolution_id,
                actor,
                now,
                next_rolls,
            )
            await self._reveal_roll_seed(conn, campaign_id, turn, now)
            await self._audit(
                conn,
                result.campaign,
                actor,
                AuditAction.TURN_RESOLVED,
                {"turn": turn, "state": _appendix_state(inputs.state)},
                {
                    "revision": revision,
                    "state": _appendix_state(resolution.state),
                    "winner": resolution.report.winner,
                },
                now,
                reason,
            )
            for message in story_order(outbox):
                await self._enqueue_in(
                    conn, message, now, phase_seq=seq, resolution_id=resolution_id
                )
        return result

    async def _insert_resolution(
        self,
        conn: Conn,
        campaign_id: CampaignId,
        inputs: TurnInputs,
        resolution: TurnResolution,
        revision: int,
        actor: UserId | None,
        now: datetime,
    ) -> int:
        return await insert_row(
            conn,
            "INSERT INTO resolutions (campaign_id, turn, revision, battle_list_id, state_json,"
            " orders_json, results_json, report_json, state_after_json, created_at, created_by,"
            " late_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                campaign_id,
                inputs.turn,
                revision,
                None if inputs.battle_list is None else inputs.battle_list.id,
                _state_json(inputs.state),
                _ORDERS.dump_json(inputs.orders).decode(),
                _RESULTS.dump_json(inputs.results).decode(),
                resolution.report.model_dump_json(),
                _state_json(resolution.state),
                ts(now),
                actor,
                _LATE.dump_json(inputs.late).decode(),
            ),
        )

    async def _reveal_roll_seed(
        self, conn: Conn, campaign_id: CampaignId, turn: int, now: datetime
    ) -> None:
        await conn.execute(
            "UPDATE turn_seeds SET roll_revealed_at = ? WHERE campaign_id = ? AND turn = ?"
            " AND roll_revealed_at IS NULL",
            (ts(now), campaign_id, turn),
        )

    async def supersede_resolution(
        self,
        campaign_id: CampaignId,
        turn: int,
        expected_revision: int,
        overrides: Sequence[BattleResult],
        inputs: TurnInputs,
        resolution: TurnResolution,
        actor: UserId,
        reason: str,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
        *,
        next_start: CampaignState | None = None,
        next_rolls: Sequence[Roll] = (),
        against: Mapping[int, str] | None = None,
    ) -> CorrectionResult:
        """Correct the latest resolved turn in one transaction: store the GM's ``overrides`` of
        its results (``against``: by battle, the defender each was given against), retire
        revision ``expected_revision`` and its next turn-start state as superseded, store the
        new revision and state (``next_start``: as the next turn begins with rule modules and
        the GM's adjustments of it applied again; by default the resolved state), cancel
        unsent messages of the old revision, and queue ``outbox``. If the
        correction ends or revives the game, the phase moves between orders and finished
        accordingly. The next turn's orders and the GM's adjustments of it are kept."""
        async with self._db.transaction() as conn:
            campaign = await self._campaign_in(conn, campaign_id)
            if campaign is None:
                return CorrectionResult(
                    outcome=CorrectionOutcome.NOT_FOUND,
                    resolution=None,
                    campaign=None,
                    message=f"no campaign {campaign_id}",
                )
            old_row = await fetch_one(
                conn,
                "SELECT * FROM resolutions WHERE campaign_id = ? AND turn = ?"
                " AND retired_at IS NULL",
                (campaign_id, turn),
            )
            if old_row is None or old_row["revision"] != expected_revision:
                current = None if old_row is None else old_row["revision"]
                return CorrectionResult(
                    outcome=CorrectionOutcome.STALE_REVISION,
                    resolution=None if old_row is None else _resolution(old_row),
                    campaign=campaign,
                    message=f"expected revision {expected_revision} of turn {turn}: {current}",
                )
            if campaign.turn != turn + 1 or campaign.phase not in (Phase.ORDERS, Phase.FINISHED):
                return CorrectionResult(
                    outcome=CorrectionOutcome.NOT_LATEST_TURN,
                    resolution=_resolution(old_row),
                    campaign=campaign,
                    message=(
                        f"turn {turn} is not the latest resolved turn with its next orders open "
                        f"(campaign at turn {campaign.turn} {campaign.phase.value}): undo first"
                    ),
                )
            old = _resolution(old_row)
            if overrides and old_row["battle_list_id"] is None:
                raise ValueError(
                    f"turn {turn} was resolved without a battle list: no result to fix"
                )
            for result in overrides:
                await self._write_override(
                    conn,
                    old_row["battle_list_id"],
                    result.battle,
                    result,
                    actor,
                    now,
                    (against or {}).get(result.battle),
                )
            await conn.execute(
                "UPDATE resolutions SET retired_at = ?, retired_by = ?, retired_reason ="
                " 'superseded' WHERE id = ?",
                (ts(now), actor, old.id),
            )
            await conn.execute(
                "UPDATE turn_starts SET retired_at = ?, retired_by = ?, retired_reason ="
                " 'superseded' WHERE campaign_id = ? AND turn = ? AND retired_at IS NULL",
                (ts(now), actor, campaign_id, turn + 1),
            )
            await conn.execute(
                "UPDATE outbox SET state = 'cancelled' WHERE resolution_id = ? AND state ="
                " 'pending'",
                (old.id,),
            )
            revision_row = await fetch_one(
                conn,
                "SELECT MAX(revision) + 1 FROM resolutions WHERE campaign_id = ? AND turn = ?",
                (campaign_id, turn),
            )
            revision = int(revision_row[0]) if revision_row is not None else old.revision + 1
            new_id = await self._insert_resolution(
                conn, campaign_id, inputs, resolution, revision, actor, now
            )
            await self._insert_turn_start(
                conn, campaign_id, next_start or resolution.state, new_id, actor, now, next_rolls
            )
            phase_seq = await self._repoint_after_correction(
                conn, campaign, resolution.report.game_over, actor, reason, now
            )
            campaign = await self._require_campaign(conn, campaign_id)
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.TURN_CORRECTED,
                {
                    "turn": turn,
                    "revision": old.revision,
                    "results": [r.model_dump(mode="json") for r in old.results],
                    "state_after": _appendix_state(old.state_after),
                },
                {
                    "turn": turn,
                    "revision": revision,
                    "results": [r.model_dump(mode="json") for r in inputs.results],
                    "state_after": _appendix_state(resolution.state),
                },
                now,
                reason,
            )
            for message in story_order(outbox):
                await self._enqueue_in(
                    conn, message, now, phase_seq=phase_seq, resolution_id=new_id
                )
            new_row = await fetch_one(conn, "SELECT * FROM resolutions WHERE id = ?", (new_id,))
        if new_row is None:
            raise RuntimeError(f"resolution {new_id} vanished inside its transaction")
        return CorrectionResult(
            outcome=CorrectionOutcome.APPLIED,
            resolution=_resolution(new_row),
            campaign=campaign,
            message=f"turn {turn} re-resolved as revision {revision}",
        )

    async def _repoint_after_correction(
        self,
        conn: Conn,
        campaign: Campaign,
        game_over: bool,
        actor: UserId,
        reason: str,
        now: datetime,
    ) -> int | None:
        """Switch between (turn, orders) and (turn, finished) when a correction changes whether
        the game is over; the replaced phase entry is marked undone. Returns the new entry."""
        if game_over == (campaign.phase is Phase.FINISHED):
            return None
        phase = Phase.FINISHED if game_over else Phase.ORDERS
        status = CampaignStatus.FINISHED if game_over else CampaignStatus.RUNNING
        await conn.execute(
            "UPDATE phase_history SET undone_at = ?, undone_by = ? WHERE campaign_id = ? AND seq"
            " = (SELECT MAX(seq) FROM phase_history WHERE campaign_id = ? AND undone_at IS NULL)",
            (ts(now), actor, campaign.id, campaign.id),
        )
        await self._set_position(conn, campaign.id, campaign.turn, phase, status, now)
        return await self._enter_phase(
            conn, campaign.id, campaign.turn, phase, status, actor, reason, now
        )

    async def _set_position(
        self,
        conn: Conn,
        campaign_id: CampaignId,
        turn: int,
        phase: Phase,
        status: CampaignStatus,
        now: datetime,
    ) -> None:
        try:
            async with may_violate(conn):
                await conn.execute(
                    "UPDATE campaigns SET turn = ?, phase = ?, status = ?, updated_at = ?"
                    " WHERE id = ?",
                    (turn, phase.value, status.value, ts(now), campaign_id),
                )
        except INTEGRITY_ERRORS as error:
            if breaks_one_active_per_chat(error):
                raise ChatHasActiveCampaignError(
                    "this chat has started another campaign since: finish it first"
                ) from error
            raise

    async def undo_last_step(
        self,
        campaign_id: CampaignId,
        expected_turn: int,
        expected_phase: Phase,
        actor: UserId,
        reason: str,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> TransitionResult:
        """Roll the campaign back to the start of its previous phase (or turn).

        The undone phase entry is marked undone, never deleted; so is everything that belongs
        after the restored position: later turn-start states, this turn's resolution and later
        ones, battle lists not yet due, later turns' orders (edits kept). Reports stay attached
        to their (now retired) battle list; republishing copies them to identical battles.
        Sides that those later turns' state edits added or retired are as before them.
        Unsent messages queued by the undone step are cancelled. A paused campaign stays
        paused, unless it goes back to the setup, which has no deadline to hold.
        Compare-and-set on the expected position: a repeated call returns ``ALREADY_DONE``.
        """
        async with self._db.transaction() as conn:
            campaign = await self._campaign_in(conn, campaign_id)
            if campaign is None:
                return _result(TransitionOutcome.NOT_FOUND, None, f"no campaign {campaign_id}")
            entries = [
                _phase_entry(row)
                for row in await fetch_all(
                    conn,
                    "SELECT * FROM phase_history WHERE campaign_id = ? ORDER BY seq",
                    (campaign_id,),
                )
            ]
            live = [entry for entry in entries if entry.undone_at is None]
            if (campaign.turn, campaign.phase) != (expected_turn, expected_phase):
                last = live[-1].seq if live else 0
                repeated = any(
                    entry.seq > last
                    and entry.undone_at is not None
                    and (entry.turn, entry.phase) == (expected_turn, expected_phase)
                    for entry in entries
                )
                outcome = TransitionOutcome.ALREADY_DONE if repeated else TransitionOutcome.CONFLICT
                where = f"turn {campaign.turn} {campaign.phase.value}"
                return _result(outcome, campaign, f"campaign is at {where}: nothing undone")
            if len(live) < 2:
                return _result(
                    TransitionOutcome.NOTHING_TO_UNDO, campaign, "nothing before the setup phase"
                )
            undone, back_to = live[-1], live[-2]
            # A pause holds deadlines; a campaign set up again has none, and the wizard opens
            # it anew, so an undo back to the setup ends the pause.
            kept_paused = (
                campaign.status is CampaignStatus.PAUSED and back_to.phase is not Phase.SETUP
            )
            status = CampaignStatus.PAUSED if kept_paused else back_to.status
            await self._set_position(conn, campaign_id, back_to.turn, back_to.phase, status, now)
            if campaign.status is CampaignStatus.PAUSED and not kept_paused:
                await conn.execute(
                    "UPDATE campaign_clocks SET paused_at = NULL, paused_status = NULL,"
                    " updated_at = ? WHERE campaign_id = ?",
                    (ts(now), campaign_id),
                )
            stamp = (ts(now), actor)
            await conn.execute(
                "UPDATE phase_history SET undone_at = ?, undone_by = ? WHERE campaign_id = ?"
                " AND seq = ?",
                (*stamp, campaign_id, undone.seq),
            )
            retire = "retired_at = ?, retired_by = ?, retired_reason = 'undone'"
            await conn.execute(
                f"UPDATE turn_starts SET {retire} WHERE campaign_id = ? AND turn > ?"
                " AND retired_at IS NULL",
                (*stamp, campaign_id, back_to.turn),
            )
            retired_resolutions = await fetch_all(
                conn,
                "SELECT id FROM resolutions WHERE campaign_id = ? AND turn >= ?"
                " AND retired_at IS NULL",
                (campaign_id, back_to.turn),
            )
            await conn.execute(
                f"UPDATE resolutions SET {retire} WHERE campaign_id = ? AND turn >= ?"
                " AND retired_at IS NULL",
                (*stamp, campaign_id, back_to.turn),
            )
            list_from = (
                back_to.turn if back_to.phase.value in _PRE_BATTLE_PHASES else back_to.turn + 1
            )
            await conn.execute(
                f"UPDATE battle_lists SET {retire} WHERE campaign_id = ? AND turn >= ?"
                " AND retired_at IS NULL",
                (*stamp, campaign_id, list_from),
            )
            await conn.execute(
                "UPDATE order_sets SET retired_at = ?, retired_by = ? WHERE campaign_id = ?"
                " AND turn > ? AND retired_at IS NULL",
                (*stamp, campaign_id, back_to.turn),
            )
            # Late orders answer a battle list: they go with it.
            await conn.execute(
                "UPDATE order_sets SET retired_at = ?, retired_by = ? WHERE campaign_id = ?"
                " AND kind = 'late' AND turn >= ? AND retired_at IS NULL",
                (*stamp, campaign_id, list_from),
            )
            await self._undo_side_edits_in(conn, campaign_id, back_to.turn, actor, now)
            await conn.execute(
                f"UPDATE state_adjustments SET {retire} WHERE campaign_id = ? AND turn > ?"
                " AND retired_at IS NULL",
                (*stamp, campaign_id, back_to.turn),
            )
            await conn.execute(
                "UPDATE outbox SET state = 'cancelled' WHERE state = 'pending' AND campaign_id = ?"
                " AND phase_seq = ?",
                (campaign_id, undone.seq),
            )
            await conn.executemany(
                "UPDATE outbox SET state = 'cancelled' WHERE state = 'pending'"
                " AND resolution_id = ?",
                [(row["id"],) for row in retired_resolutions],
            )
            after = await self._require_campaign(conn, campaign_id)
            await self._audit(
                conn,
                after,
                actor,
                AuditAction.UNDONE,
                _position(campaign),
                _position(after),
                now,
                reason,
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        where = f"turn {after.turn} {after.phase.value}"
        return _result(TransitionOutcome.APPLIED, after, f"rolled back to {where}")

    async def phase_history(self, campaign_id: CampaignId) -> list[PhaseEntry]:
        """Every phase entry of a campaign, undone ones included, in order."""
        [rows] = await self._db.read(
            [("SELECT * FROM phase_history WHERE campaign_id = ? ORDER BY seq", (campaign_id,))]
        )
        return [_phase_entry(row) for row in rows]

    async def _current_entries_in(self, conn: Conn, campaign_id: CampaignId) -> list[PhaseEntry]:
        """The phase entry the campaign is in (its last entry not undone) and the undone
        entries after it: the tail of its history that says when the current phase began."""
        rows = await fetch_all(conn, *current_entries_query(campaign_id))
        return phase_entries_of(rows)

    async def _phase_history_in(self, conn: Conn, campaign_id: CampaignId) -> list[PhaseEntry]:
        rows = await fetch_all(
            conn, "SELECT * FROM phase_history WHERE campaign_id = ? ORDER BY seq", (campaign_id,)
        )
        return [_phase_entry(row) for row in rows]

    # ---- turns --------------------------------------------------------------------------------

    async def turn_start(self, campaign_id: CampaignId, turn: int) -> CampaignState | None:
        """The current state at the start of ``turn``."""
        [rows] = await self._db.read([turn_start_query(campaign_id, turn)])
        return turn_start_of(rows)

    async def turn_record(self, campaign_id: CampaignId, turn: int) -> TurnRecord | None:
        """A turn's start state, current battle list and current resolution."""
        async with self._db.snapshot() as conn:
            state = await self._state_in(conn, campaign_id, turn)
            if state is None:
                return None
            list_row = await self._current_list_row(conn, campaign_id, turn)
            resolution_row = await fetch_one(
                conn,
                "SELECT * FROM resolutions WHERE campaign_id = ? AND turn = ?"
                " AND retired_at IS NULL",
                (campaign_id, turn),
            )
        return TurnRecord(
            campaign_id=campaign_id,
            turn=turn,
            state=state,
            battle_list=None if list_row is None else _battle_list(list_row),
            resolution=None if resolution_row is None else _resolution(resolution_row),
        )

    async def turn_inputs(self, campaign_id: CampaignId, turn: int) -> TurnInputs:
        """What resolving ``turn`` now would use: start state, current orders, effective
        results of the current battle list. Raises :class:`NotFoundError` without a state."""
        async with self._db.snapshot() as conn:
            state = await self._state_in(conn, campaign_id, turn)
            if state is None:
                raise NotFoundError(f"campaign {campaign_id} has no state for turn {turn}")
            orders = await self._orders_in(conn, campaign_id, turn)
            late = await self._late_in(conn, campaign_id, turn)
            list_row = await self._current_list_row(conn, campaign_id, turn)
            battle_list = None if list_row is None else _battle_list(list_row)
            reports = await self._reports_in(conn, campaign_id, turn, battle_list)
            seeds = await self._seeds_in(conn, campaign_id, turn)
        standing = standing_results(
            () if battle_list is None else battle_list.battles, reports, final=True
        )
        return TurnInputs(
            campaign_id=campaign_id,
            turn=turn,
            state=state,
            orders={side: record.orders for side, record in orders.items()},
            results=tuple(standing.results[battle] for battle in sorted(standing.results)),
            battle_list=battle_list,
            disputed=tuple(report.battle for report in reports if standing.holds(report)),
            late={side: record.orders for side, record in late.items() if record.orders},
            seeds=None if seeds is None else seeds.seeds,
        )

    async def battle_list(self, campaign_id: CampaignId, turn: int) -> BattleListRecord | None:
        """The current battle list of a turn, if published."""
        [rows] = await self._db.read([current_list_query(campaign_id, turn)])
        return _battle_list(rows[0]) if rows else None

    async def resolutions(
        self, campaign_id: CampaignId, turn: int, *, include_retired: bool = False
    ) -> list[ResolutionRecord]:
        """A turn's resolution revisions, oldest first (only the current one by default)."""
        only_current = "" if include_retired else " AND retired_at IS NULL"
        [rows] = await self._db.read(
            [
                (
                    "SELECT * FROM resolutions WHERE campaign_id = ? AND turn = ?"
                    + only_current
                    + " ORDER BY revision",
                    (campaign_id, turn),
                )
            ]
        )
        return [_resolution(row) for row in rows]
