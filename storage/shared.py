"""The pieces every aggregate of the store shares: row converters, JSON adapters and the
writes used inside other writes (the audit row, the phase history, the clock's compare-and-set,
the outbox insert). Always called inside a transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from pydantic import TypeAdapter

from rules import (
    Battle,
    BattleResult,
    CampaignMap,
    CampaignState,
    ModuleOrder,
    Rejection,
    Roll,
    SideOrders,
    TurnReport,
)
from rules.table import ScoreMargins
from storage.dialect import INTEGRITY_ERRORS, breaks_one_active_per_chat
from storage.errors import ChatHasActiveCampaignError, NotFoundError
from storage.models import (
    AuditAction,
    BattleListRecord,
    BattleReport,
    Campaign,
    CampaignId,
    CampaignStatus,
    JoiningPolicy,
    LateOrdersRecord,
    Member,
    NewOutboxMessage,
    NoShowPolicy,
    OrdersRecord,
    OutboxMessage,
    OutboxState,
    Phase,
    PhaseEntry,
    PlacementRecord,
    ResolutionRecord,
    RetiredReason,
    Role,
    Schedule,
    SectorId,
    Side,
    SideId,
    TransitionOutcome,
    TransitionResult,
    UnreportedPolicy,
    UserId,
)
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
    may_violate,
    once_per_row,
    opt_dt,
    ts,
)

_BATTLES = TypeAdapter(tuple[Battle, ...])
_REJECTIONS = TypeAdapter(tuple[Rejection, ...])
_RESULTS = TypeAdapter(tuple[BattleResult, ...])
_ORDERS = TypeAdapter(dict[SideId, SideOrders])
_LATE = TypeAdapter(dict[SideId, tuple[ModuleOrder, ...]])
_MODULE_ORDERS = TypeAdapter(tuple[ModuleOrder, ...])
_ROLLS = TypeAdapter(tuple[Roll, ...])
_PLACEMENT = TypeAdapter(dict[SectorId, int])
_PRE_BATTLE_PHASES = (Phase.SETUP.value, Phase.DEPLOYMENT.value, Phase.ORDERS.value)


def _state_json(state: CampaignState) -> str:
    return state.model_dump_json()


def _appendix_state(state: CampaignState) -> dict[str, Any]:
    data: dict[str, Any] = {"turn": state.turn, "armies": state.armies}
    if state.modules:
        data["modules"] = state.modules
    return data


def _position(campaign: Campaign) -> dict[str, Any]:
    return {"turn": campaign.turn, "phase": campaign.phase.value, "status": campaign.status.value}


@lru_cache(maxsize=64)
def _map_of(map_json: str) -> CampaignMap:
    """A campaign's own map from its stored JSON, parsed once per text: the campaign is read
    for nearly every update and post, and a map of 30 sectors is most of that read. Safe to
    share: a map is frozen (tuples inside), so no reader can change another's; the same text
    gives an equal map, as parsing it again did."""
    return CampaignMap.model_validate_json(map_json)


@lru_cache(maxsize=256)
def _schedule_of(schedule_json: str) -> Schedule:
    """A campaign's schedule from its stored JSON, parsed once per text (frozen, as the map)."""
    return Schedule.model_validate_json(schedule_json)


@once_per_row(256)
def _campaign(row: Row) -> Campaign:
    campaign_map: str | CampaignMap = (
        row["map_name"] if row["map_name"] is not None else _map_of(row["map_json"])
    )
    return Campaign(
        id=row["id"],
        chat_id=row["chat_id"],
        thread_id=row["thread_id"],
        title=row["title"],
        time_zone=row["time_zone"],
        schedule=_schedule_of(row["schedule_json"]),
        ruleset_overrides=json.loads(row["ruleset_json"]),
        map=campaign_map,
        unreported_policy=UnreportedPolicy(row["unreported_policy"]),
        status=CampaignStatus(row["status"]),
        phase=Phase(row["phase"]),
        turn=row["turn"],
        created_by=row["created_by"],
        created_at=dt(row["created_at"]),
        updated_at=dt(row["updated_at"]),
        language=row["language"],
        status_message_id=row["status_message_id"],
        joining=JoiningPolicy(row["joining"]),
        no_show_policy=NoShowPolicy(row["no_show_policy"]),
        score_margins=(
            ScoreMargins()
            if row["score_margins_json"] is None
            else ScoreMargins.model_validate_json(row["score_margins_json"])
        ),
    )


@once_per_row(1024)
def _side(row: Row) -> Side:
    return Side(
        campaign_id=row["campaign_id"],
        id=row["id"],
        name=row["name"],
        colour=row["colour"],
        position=row["position"],
        retired_at=opt_dt(row["retired_at"]),
    )


@once_per_row(1024)
def _phase_entry(row: Row) -> PhaseEntry:
    return PhaseEntry(
        campaign_id=row["campaign_id"],
        seq=row["seq"],
        turn=row["turn"],
        phase=Phase(row["phase"]),
        status=CampaignStatus(row["status"]),
        entered_at=dt(row["entered_at"]),
        actor=row["actor"],
        reason=row["reason"],
        undone_at=opt_dt(row["undone_at"]),
        undone_by=row["undone_by"],
    )


def _battle_list(row: Row) -> BattleListRecord:
    return BattleListRecord(
        id=row["id"],
        campaign_id=row["campaign_id"],
        turn=row["turn"],
        revision=row["revision"],
        battles=_BATTLES.validate_json(row["battles_json"]),
        rejected=_REJECTIONS.validate_json(row["rejected_json"]),
        published_at=dt(row["published_at"]),
        published_by=row["published_by"],
        retired_at=opt_dt(row["retired_at"]),
        retired_reason=None
        if row["retired_reason"] is None
        else RetiredReason(row["retired_reason"]),
        rolls=_ROLLS.validate_json(row["rolls_json"]),
        modules=json.loads(row["modules_json"]),
    )


def _resolution(row: Row) -> ResolutionRecord:
    return ResolutionRecord(
        id=row["id"],
        campaign_id=row["campaign_id"],
        turn=row["turn"],
        revision=row["revision"],
        state=CampaignState.model_validate_json(row["state_json"]),
        orders=_ORDERS.validate_json(row["orders_json"]),
        results=_RESULTS.validate_json(row["results_json"]),
        report=TurnReport.model_validate_json(row["report_json"]),
        state_after=CampaignState.model_validate_json(row["state_after_json"]),
        created_at=dt(row["created_at"]),
        created_by=row["created_by"],
        retired_at=opt_dt(row["retired_at"]),
        retired_reason=None
        if row["retired_reason"] is None
        else RetiredReason(row["retired_reason"]),
        late=_LATE.validate_json(row["late_json"]),
    )


def _late_record(row: Row) -> LateOrdersRecord:
    return LateOrdersRecord(
        campaign_id=row["campaign_id"],
        turn=row["turn"],
        side_id=row["side_id"],
        orders=_MODULE_ORDERS.validate_json(row["body_json"]),
        updated_by=row["updated_by"],
        updated_at=dt(row["updated_at"]),
        edits=row["edits"],
    )


def _orders_record(row: Row) -> OrdersRecord:
    return OrdersRecord(
        campaign_id=row["campaign_id"],
        turn=row["turn"],
        side_id=row["side_id"],
        orders=SideOrders.model_validate_json(row["body_json"]),
        ready=bool(row["ready"]),
        updated_by=row["updated_by"],
        updated_at=dt(row["updated_at"]),
        edits=row["edits"],
    )


def _placement_record(row: Row) -> PlacementRecord:
    return PlacementRecord(
        campaign_id=row["campaign_id"],
        side_id=row["side_id"],
        placement=_PLACEMENT.validate_json(row["body_json"]),
        ready=bool(row["ready"]),
        updated_by=row["updated_by"],
        updated_at=dt(row["updated_at"]),
        edits=row["edits"],
    )


def _optional_result(text: str | None) -> BattleResult | None:
    return None if text is None else BattleResult.model_validate_json(text)


def _battle_report(
    campaign_id: CampaignId, turn: int, battle: int, row: Row | None
) -> BattleReport:
    if row is None:
        return BattleReport(
            campaign_id=campaign_id,
            turn=turn,
            battle=battle,
            reported=None,
            reported_by=None,
            reported_at=None,
            confirmed_by=None,
            confirmed_at=None,
            disputed_by=None,
            disputed_at=None,
            override=None,
            override_by=None,
            override_at=None,
            counter=None,
        )
    return BattleReport(
        campaign_id=campaign_id,
        turn=turn,
        battle=battle,
        reported=_optional_result(row["reported_json"]),
        reported_by=row["reported_by"],
        reported_at=opt_dt(row["reported_at"]),
        confirmed_by=row["confirmed_by"],
        confirmed_at=opt_dt(row["confirmed_at"]),
        disputed_by=row["disputed_by"],
        disputed_at=opt_dt(row["disputed_at"]),
        override=_optional_result(row["override_json"]),
        override_by=row["override_by"],
        override_at=opt_dt(row["override_at"]),
        counter=_optional_result(row["counter_json"]),
        reported_against=row["reported_against"],
        override_against=row["override_against"],
    )


@once_per_row(4096)
def _outbox(row: Row) -> OutboxMessage:
    return OutboxMessage(
        id=row["id"],
        campaign_id=row["campaign_id"],
        chat_id=row["chat_id"],
        thread_id=row["thread_id"],
        kind=row["kind"],
        payload=json.loads(row["payload_json"]),
        dedup_key=row["dedup_key"],
        state=OutboxState(row["state"]),
        attempts=row["attempts"],
        created_at=dt(row["created_at"]),
        not_before=dt(row["not_before"]),
        lease_until=opt_dt(row["lease_until"]),
        claim_token=row["claim_token"],
        telegram_message_id=row["telegram_message_id"],
        sent_at=opt_dt(row["sent_at"]),
        last_error=row["last_error"],
    )


def _result(
    outcome: TransitionOutcome, campaign: Campaign | None, message: str
) -> TransitionResult:
    return TransitionResult(outcome=outcome, campaign=campaign, message=message)


def campaign_query(campaign_id: CampaignId) -> Query:
    """The campaign's row (:func:`campaign_of`)."""
    return "SELECT * FROM campaigns WHERE id = ?", (campaign_id,)


def campaign_of(rows: Sequence[Row]) -> Campaign | None:
    """The campaign of :func:`campaign_query`'s rows, if there is one."""
    return _campaign(rows[0]) if rows else None


def turn_of(campaign_id: CampaignId, turn: int | None) -> Query:
    """SQL for a turn number and its parameters: ``turn``, or the campaign's current turn when
    ``None`` (so a query needs not wait for the campaign's row to know it)."""
    if turn is None:
        return "(SELECT turn FROM campaigns WHERE id = ?)", (campaign_id,)
    return "?", (turn,)


def current_list_query(campaign_id: CampaignId, turn: int) -> Query:
    """The turn's current battle list's row, if it has one."""
    return (
        "SELECT * FROM battle_lists WHERE campaign_id = ? AND turn = ? AND retired_at IS NULL",
        (campaign_id, turn),
    )


def turn_start_query(campaign_id: CampaignId, turn: int | None) -> Query:
    """The state at the start of ``turn`` (``None``: the current one; :func:`turn_start_of`)."""
    turn_sql, turn_params = turn_of(campaign_id, turn)
    return (
        "SELECT state_json FROM turn_starts WHERE campaign_id = ? AND turn = "
        + turn_sql
        + " AND retired_at IS NULL",
        (campaign_id, *turn_params),
    )


def turn_start_of(rows: Sequence[Row]) -> CampaignState | None:
    """The state of :func:`turn_start_query`'s rows, if there is one."""
    return CampaignState.model_validate_json(rows[0]["state_json"]) if rows else None


def member_query(campaign_id: CampaignId, user_id: UserId) -> Query:
    """One person's membership of the campaign (:func:`member_of`)."""
    return (
        "SELECT m.display_name, m.side_id, m.joined_at, group_concat(r.role) AS roles"
        " FROM members m LEFT JOIN member_roles r ON r.campaign_id = m.campaign_id"
        " AND r.user_id = m.user_id WHERE m.campaign_id = ? AND m.user_id = ?"
        " GROUP BY m.campaign_id, m.user_id",
        (campaign_id, user_id),
    )


def member_of(campaign_id: CampaignId, user_id: UserId, rows: Sequence[Row]) -> Member | None:
    """The membership of :func:`member_query`'s rows, if they are a member."""
    if not rows:
        return None
    row = rows[0]
    return Member(
        campaign_id=campaign_id,
        user_id=user_id,
        display_name=row["display_name"],
        side_id=row["side_id"],
        roles=frozenset(Role(r) for r in (row["roles"] or "").split(",") if r),
        joined_at=dt(row["joined_at"]),
    )


def queue_statement(
    message: NewOutboxMessage,
    now: datetime,
    phase_seq: int | None = None,
    resolution_id: int | None = None,
) -> Query:
    """The INSERT that queues ``message`` (nothing if its ``dedup_key`` is queued already)."""
    not_before = message.not_before or now
    return (
        "INSERT INTO outbox (campaign_id, chat_id, thread_id, kind, payload_json, dedup_key,"
        " created_at, not_before, phase_seq, resolution_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dedup_key) DO NOTHING",
        (
            message.campaign_id,
            message.chat_id,
            message.thread_id,
            message.kind,
            dump_json(message.payload),
            message.dedup_key,
            ts(now),
            ts(not_before),
            phase_seq,
            resolution_id,
        ),
    )


class SharedRecords:
    """What every aggregate's mixin of :class:`storage.repository.SqliteCampaignStore` uses."""

    _db: Transactions

    async def _campaign_in(self, conn: Conn, campaign_id: CampaignId) -> Campaign | None:
        return campaign_of(await fetch_all(conn, *campaign_query(campaign_id)))

    async def _require_campaign(self, conn: Conn, campaign_id: CampaignId) -> Campaign:
        campaign = await self._campaign_in(conn, campaign_id)
        if campaign is None:
            raise NotFoundError(f"no campaign {campaign_id}")
        return campaign

    async def _audit(
        self,
        conn: Conn,
        campaign: Campaign,
        actor: UserId | None,
        action: AuditAction,
        before: Any,
        after: Any,
        now: datetime,
        reason: str = "",
    ) -> None:
        await conn.execute(
            "INSERT INTO audit_log (campaign_id, at, actor, action, turn, phase, before_json,"
            " after_json, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                campaign.id,
                ts(now),
                actor,
                action.value,
                campaign.turn,
                campaign.phase.value,
                dump_json(before),
                dump_json(after),
                reason,
            ),
        )

    async def _enter_phase(
        self,
        conn: Conn,
        campaign_id: CampaignId,
        turn: int,
        phase: Phase,
        status: CampaignStatus,
        actor: UserId | None,
        reason: str,
        now: datetime,
    ) -> int:
        row = await fetch_one(
            conn,
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM phase_history WHERE campaign_id = ?",
            (campaign_id,),
        )
        seq = int(row[0]) if row is not None else 1
        await conn.execute(
            "INSERT INTO phase_history (campaign_id, seq, turn, phase, status, entered_at, actor,"
            " reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (campaign_id, seq, turn, phase.value, status.value, ts(now), actor, reason),
        )
        return seq

    async def _move_clock(
        self,
        conn: Conn,
        campaign_id: CampaignId,
        expected_turn: int,
        expected_phase: Phase,
        new_turn: int,
        new_phase: Phase,
        new_status: CampaignStatus | None,
        actor: UserId | None,
        reason: str,
        now: datetime,
    ) -> tuple[TransitionResult, int | None]:
        """The compare-and-set itself: one UPDATE guarded by (id, turn, phase), not paused."""
        before = await self._campaign_in(conn, campaign_id)
        if before is None:
            return _result(TransitionOutcome.NOT_FOUND, None, f"no campaign {campaign_id}"), None
        try:
            async with may_violate(conn):
                changed = await changed_rows(
                    conn,
                    "UPDATE campaigns SET turn = ?, phase = ?, status = COALESCE(?, status),"
                    " updated_at = ? WHERE id = ? AND turn = ? AND phase = ?"
                    " AND status <> 'paused'",
                    (
                        new_turn,
                        new_phase.value,
                        None if new_status is None else new_status.value,
                        ts(now),
                        campaign_id,
                        expected_turn,
                        expected_phase.value,
                    ),
                )
        except INTEGRITY_ERRORS as error:
            if breaks_one_active_per_chat(error):
                raise ChatHasActiveCampaignError(
                    "this chat runs another unfinished campaign: finish it first"
                ) from error
            raise
        campaign = await self._require_campaign(conn, campaign_id)
        if changed == 0:
            done = await fetch_one(
                conn,
                "SELECT 1 FROM phase_history WHERE campaign_id = ? AND turn = ? AND phase = ?"
                " AND undone_at IS NULL",
                (campaign_id, new_turn, new_phase.value),
            )
            if done is not None:
                message = f"turn {new_turn} {new_phase.value} was already entered: nothing done"
                return _result(TransitionOutcome.ALREADY_DONE, campaign, message), None
            where = f"turn {campaign.turn} {campaign.phase.value} ({campaign.status.value})"
            message = (
                f"expected turn {expected_turn} {expected_phase.value}, campaign is at {where}"
            )
            return _result(TransitionOutcome.CONFLICT, campaign, message), None
        seq = await self._enter_phase(
            conn, campaign_id, new_turn, new_phase, campaign.status, actor, reason, now
        )
        await self._audit(
            conn,
            campaign,
            actor,
            AuditAction.PHASE_CHANGED,
            _position(before),
            _position(campaign),
            now,
            reason,
        )
        message = f"turn {new_turn} {new_phase.value} entered"
        return _result(TransitionOutcome.APPLIED, campaign, message), seq

    async def _enqueue_in(
        self,
        conn: Conn,
        message: NewOutboxMessage,
        now: datetime,
        phase_seq: int | None = None,
        resolution_id: int | None = None,
    ) -> OutboxMessage:
        await self._queue_in(conn, message, now, phase_seq, resolution_id)
        row = await fetch_one(
            conn, "SELECT * FROM outbox WHERE dedup_key = ?", (message.dedup_key,)
        )
        if row is None:
            raise RuntimeError(f"outbox row {message.dedup_key!r} vanished inside its transaction")
        return _outbox(row)

    async def _queue_in(
        self,
        conn: Conn,
        message: NewOutboxMessage,
        now: datetime,
        phase_seq: int | None = None,
        resolution_id: int | None = None,
    ) -> None:
        """Queue ``message`` (nothing if its ``dedup_key`` is queued already), without reading
        the row back (:meth:`_enqueue_in` does)."""
        await conn.execute(*queue_statement(message, now, phase_seq, resolution_id))

    async def _current_list_row(self, conn: Conn, campaign_id: CampaignId, turn: int) -> Row | None:
        return await fetch_one(conn, *current_list_query(campaign_id, turn))

    async def _state_in(
        self, conn: Conn, campaign_id: CampaignId, turn: int
    ) -> CampaignState | None:
        return turn_start_of(await fetch_all(conn, *turn_start_query(campaign_id, turn)))

    async def _insert_turn_start(
        self,
        conn: Conn,
        campaign_id: CampaignId,
        state: CampaignState,
        resolution_id: int | None,
        actor: UserId | None,
        now: datetime,
        rolls: Sequence[Roll] = (),
    ) -> None:
        await conn.execute(
            "INSERT INTO turn_starts (campaign_id, turn, state_json, resolution_id, created_at,"
            " created_by, rolls_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                campaign_id,
                state.turn,
                _state_json(state),
                resolution_id,
                ts(now),
                actor,
                _ROLLS.dump_json(tuple(rolls)).decode(),
            ),
        )

    async def _member_in(
        self, conn: Conn, campaign_id: CampaignId, user_id: UserId
    ) -> Member | None:
        return member_of(
            campaign_id, user_id, await fetch_all(conn, *member_query(campaign_id, user_id))
        )
