"""The campaign repository: the only place SQL lives.

:class:`CampaignStore` is the API handlers and services depend on; :class:`SqliteCampaignStore`
implements it on one SQLite file. Another backend (PostgreSQL) implements the same Protocol.

Every method that changes more than one row does it in one transaction. Clock changes are
compare-and-set on (campaign, turn, phase): a repeated call does nothing and says so in its
result. Nothing here knows the rules: the rules core's models are stored as JSON and the
services in ``bot/services`` compute them.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

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
    TurnResolution,
    commitment,
)
from rules.table import ScoreMargins
from storage.absences import AbsenceRecords, AbsenceStore
from storage.chats import ChatRecords, ChatStore
from storage.db import Database
from storage.edits import EditRecords, EditStore
from storage.models import (
    AuditAction,
    AuditEntry,
    BattleListRecord,
    BattleReport,
    Campaign,
    CampaignId,
    CampaignSettings,
    CampaignStatus,
    ChatId,
    CorrectionOutcome,
    CorrectionResult,
    JoiningPolicy,
    LateOrdersRecord,
    Member,
    Membership,
    NewCampaign,
    NewOutboxMessage,
    NewSide,
    NoShowPolicy,
    OrderEdit,
    OrdersRecord,
    OrdersWrite,
    OutboxMessage,
    OutboxState,
    Phase,
    PhaseEntry,
    PlacementRecord,
    ReportWrite,
    ResolutionRecord,
    RetiredReason,
    Role,
    Schedule,
    SectorId,
    Side,
    SideId,
    TransitionOutcome,
    TransitionResult,
    TurnInputs,
    TurnRecord,
    UnreportedPolicy,
    UserId,
    WriteOutcome,
    json_of,
    utc,
)
from storage.modules import ModuleRecords, ModuleStore
from storage.people import PeopleRecords, PeopleStore
from storage.schedule import ScheduleRecords, ScheduleStore
from storage.seats import SeatRecords, SeatStore
from storage.sql import (
    Conn,
    Row,
    changed_rows,
    dt,
    dump_json,
    fetch_all,
    fetch_one,
    insert_row,
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


class ChatHasActiveCampaignError(ValueError):
    """The group chat (topic) already runs an unfinished campaign."""


class SettingsLockedError(ValueError):
    """Map and ruleset are fixed once the first turn has started (replays depend on them)."""


class NotFoundError(LookupError):
    """The campaign, side or turn asked for is not stored."""


class CampaignStore(Protocol):
    """Everything the bot stores and reads. Handlers and services depend on this only."""

    # campaigns, sides, members
    async def create_campaign(self, new: NewCampaign, now: datetime) -> Campaign: ...
    async def campaign(self, campaign_id: CampaignId) -> Campaign | None: ...
    async def active_campaign(self, chat_id: ChatId, thread_id: int = 0) -> Campaign | None: ...
    async def campaigns_in_chat(self, chat_id: ChatId) -> list[Campaign]: ...
    async def unfinished_campaigns(self) -> list[Campaign]: ...
    async def update_settings(
        self,
        campaign_id: CampaignId,
        settings: CampaignSettings,
        actor: UserId,
        now: datetime,
        reason: str = "",
    ) -> Campaign: ...
    async def set_status(
        self,
        campaign_id: CampaignId,
        expected: CampaignStatus,
        new: CampaignStatus,
        actor: UserId | None,
        reason: str,
        now: datetime,
    ) -> TransitionResult: ...
    async def add_side(
        self, campaign_id: CampaignId, side: NewSide, actor: UserId, now: datetime
    ) -> Side: ...
    async def update_side(
        self, campaign_id: CampaignId, side: NewSide, actor: UserId, now: datetime
    ) -> Side: ...
    async def remove_side(
        self, campaign_id: CampaignId, side_id: SideId, actor: UserId, now: datetime
    ) -> bool: ...
    async def sides(self, campaign_id: CampaignId) -> list[Side]: ...
    async def put_member(
        self,
        campaign_id: CampaignId,
        user_id: UserId,
        display_name: str,
        roles: frozenset[Role],
        side_id: SideId | None,
        actor: UserId,
        now: datetime,
    ) -> Member: ...
    async def remove_member(
        self, campaign_id: CampaignId, user_id: UserId, actor: UserId, now: datetime
    ) -> bool: ...
    async def member(self, campaign_id: CampaignId, user_id: UserId) -> Member | None: ...
    async def members(self, campaign_id: CampaignId) -> list[Member]: ...
    async def memberships(self, user_id: UserId) -> list[Membership]: ...

    # the clock
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
    ) -> TransitionResult: ...
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
    ) -> TransitionResult: ...
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
    ) -> TransitionResult: ...
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
    ) -> CorrectionResult: ...
    async def undo_last_step(
        self,
        campaign_id: CampaignId,
        expected_turn: int,
        expected_phase: Phase,
        actor: UserId,
        reason: str,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> TransitionResult: ...
    async def phase_history(self, campaign_id: CampaignId) -> list[PhaseEntry]: ...

    # turns
    async def turn_start(self, campaign_id: CampaignId, turn: int) -> CampaignState | None: ...
    async def turn_record(self, campaign_id: CampaignId, turn: int) -> TurnRecord | None: ...
    async def turn_inputs(self, campaign_id: CampaignId, turn: int) -> TurnInputs: ...
    async def battle_list(self, campaign_id: CampaignId, turn: int) -> BattleListRecord | None: ...
    async def resolutions(
        self, campaign_id: CampaignId, turn: int, *, include_retired: bool = False
    ) -> list[ResolutionRecord]: ...

    # orders and deployment
    async def save_orders(
        self,
        campaign_id: CampaignId,
        turn: int,
        side_id: SideId,
        orders: SideOrders,
        ready: bool,
        actor: UserId,
        now: datetime,
        *,
        expected_edits: int | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> OrdersWrite: ...
    async def save_placement(
        self,
        campaign_id: CampaignId,
        side_id: SideId,
        placement: dict[SectorId, int],
        ready: bool,
        actor: UserId,
        now: datetime,
        *,
        expected_edits: int | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> OrdersWrite: ...
    async def save_late_orders(
        self,
        campaign_id: CampaignId,
        turn: int,
        side_id: SideId,
        orders: Sequence[ModuleOrder],
        actor: UserId,
        now: datetime,
        *,
        expected_edits: int | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> OrdersWrite: ...
    async def late_orders(
        self, campaign_id: CampaignId, turn: int
    ) -> dict[SideId, LateOrdersRecord]: ...
    async def orders(
        self, campaign_id: CampaignId, turn: int, side_id: SideId
    ) -> OrdersRecord | None: ...
    async def orders_for_turn(
        self, campaign_id: CampaignId, turn: int
    ) -> dict[SideId, OrdersRecord]: ...
    async def placements(self, campaign_id: CampaignId) -> dict[SideId, PlacementRecord]: ...
    async def order_edits(
        self, campaign_id: CampaignId, turn: int, side_id: SideId
    ) -> list[OrderEdit]: ...
    async def revealed_orders(
        self, campaign_id: CampaignId
    ) -> dict[int, dict[SideId, SideOrders]]: ...

    # battle results
    async def report_result(
        self,
        campaign_id: CampaignId,
        turn: int,
        result: BattleResult,
        actor: UserId,
        now: datetime,
        *,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> ReportWrite: ...
    async def confirm_result(
        self,
        campaign_id: CampaignId,
        turn: int,
        expected: BattleResult,
        actor: UserId,
        now: datetime,
        *,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> ReportWrite: ...
    async def dispute_result(
        self,
        campaign_id: CampaignId,
        turn: int,
        expected: BattleResult,
        counter: BattleResult,
        actor: UserId,
        now: datetime,
        *,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> ReportWrite: ...
    async def override_result(
        self,
        campaign_id: CampaignId,
        turn: int,
        battle: int,
        result: BattleResult | None,
        actor: UserId,
        reason: str,
        now: datetime,
    ) -> ReportWrite: ...
    async def battle_reports(self, campaign_id: CampaignId, turn: int) -> list[BattleReport]: ...
    async def effective_results(self, campaign_id: CampaignId, turn: int) -> list[BattleResult]: ...

    # audit, outbox, backup, export
    async def audit_log(self, campaign_id: CampaignId) -> list[AuditEntry]: ...
    async def enqueue(self, message: NewOutboxMessage, now: datetime) -> OutboxMessage: ...
    async def claim_due(
        self, now: datetime, limit: int, lease_seconds: float
    ) -> list[OutboxMessage]: ...
    async def mark_sent(
        self, message_id: int, telegram_message_id: int | None, now: datetime
    ) -> bool: ...
    async def mark_failed(
        self, message_id: int, error: str, retry_at: datetime | None, now: datetime
    ) -> bool: ...
    async def release_leases(self) -> int: ...
    async def outbox_message(self, message_id: int) -> OutboxMessage | None: ...
    async def outbox_messages(self, campaign_id: CampaignId) -> list[OutboxMessage]: ...
    async def backup(self, target: Path) -> None: ...
    async def export_campaign(self, campaign_id: CampaignId) -> dict[str, Any]: ...
    def atomic(self) -> AbstractAsyncContextManager[None]: ...
    async def close(self) -> None: ...


def _state_json(state: CampaignState) -> str:
    return state.model_dump_json()


def _appendix_state(state: CampaignState) -> dict[str, Any]:
    data: dict[str, Any] = {"turn": state.turn, "armies": state.armies}
    if state.modules:
        data["modules"] = state.modules
    return data


def _position(campaign: Campaign) -> dict[str, Any]:
    return {"turn": campaign.turn, "phase": campaign.phase.value, "status": campaign.status.value}


def _campaign(row: Row) -> Campaign:
    campaign_map: str | CampaignMap = (
        row["map_name"]
        if row["map_name"] is not None
        else CampaignMap.model_validate_json(row["map_json"])
    )
    return Campaign(
        id=row["id"],
        chat_id=row["chat_id"],
        thread_id=row["thread_id"],
        title=row["title"],
        time_zone=row["time_zone"],
        schedule=Schedule.model_validate_json(row["schedule_json"]),
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


def _side(row: Row) -> Side:
    return Side(
        campaign_id=row["campaign_id"],
        id=row["id"],
        name=row["name"],
        colour=row["colour"],
        position=row["position"],
        retired_at=opt_dt(row["retired_at"]),
    )


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
    )


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


class Store(
    CampaignStore,
    PeopleStore,
    ScheduleStore,
    ChatStore,
    ModuleStore,
    AbsenceStore,
    SeatStore,
    EditStore,
    Protocol,
):
    """Everything the bot keeps: campaigns and turns, what it knows of people, the clock, and
    the chats campaigns are played in."""


class SqliteCampaignStore(
    PeopleRecords,
    ScheduleRecords,
    ChatRecords,
    ModuleRecords,
    AbsenceRecords,
    SeatRecords,
    EditRecords,
):
    """:class:`Store` on one SQLite file (see ``docs/storage.md``)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @classmethod
    async def open(cls, path: Path) -> SqliteCampaignStore:
        """Open the file, migrating its schema to the latest version."""
        return cls(await Database.open(path))

    async def close(self) -> None:
        """Close the database connection."""
        await self._db.close()

    @asynccontextmanager
    async def atomic(self) -> AsyncIterator[None]:
        """The store calls made inside (by this task) are one transaction: all of them are
        stored, or none (a crash or an error before the end). Put only store calls and plain
        computing inside: every other transaction waits for it, so nothing that waits on
        Telegram."""
        async with self._db.transaction():
            yield

    # ---- shared pieces, always called inside a transaction -----------------------------------

    async def _campaign_in(self, conn: Conn, campaign_id: CampaignId) -> Campaign | None:
        row = await fetch_one(conn, "SELECT * FROM campaigns WHERE id = ?", (campaign_id,))
        return None if row is None else _campaign(row)

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
            changed = await changed_rows(
                conn,
                "UPDATE campaigns SET turn = ?, phase = ?, status = COALESCE(?, status),"
                " updated_at = ? WHERE id = ? AND turn = ? AND phase = ? AND status <> 'paused'",
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
        except sqlite3.IntegrityError as error:
            if "campaigns.chat_id" in str(error):
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
        not_before = message.not_before or now
        await conn.execute(
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
        row = await fetch_one(
            conn, "SELECT * FROM outbox WHERE dedup_key = ?", (message.dedup_key,)
        )
        if row is None:
            raise RuntimeError(f"outbox row {message.dedup_key!r} vanished inside its transaction")
        return _outbox(row)

    async def _current_list_row(self, conn: Conn, campaign_id: CampaignId, turn: int) -> Row | None:
        return await fetch_one(
            conn,
            "SELECT * FROM battle_lists WHERE campaign_id = ? AND turn = ? AND retired_at IS NULL",
            (campaign_id, turn),
        )

    async def _state_in(
        self, conn: Conn, campaign_id: CampaignId, turn: int
    ) -> CampaignState | None:
        row = await fetch_one(
            conn,
            "SELECT state_json FROM turn_starts WHERE campaign_id = ? AND turn = ?"
            " AND retired_at IS NULL",
            (campaign_id, turn),
        )
        return None if row is None else CampaignState.model_validate_json(row["state_json"])

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

    # ---- campaigns ----------------------------------------------------------------------------

    async def create_campaign(self, new: NewCampaign, now: datetime) -> Campaign:
        """Store a new campaign in setup, with its creator as GM; one active per chat topic."""
        map_name = new.map if isinstance(new.map, str) else None
        map_json = None if isinstance(new.map, str) else new.map.model_dump_json()
        async with self._db.transaction() as conn:
            try:
                campaign_id = await insert_row(
                    conn,
                    "INSERT INTO campaigns (chat_id, thread_id, title, time_zone, schedule_json,"
                    " ruleset_json, map_name, map_json, unreported_policy, status, phase, turn,"
                    " created_by, created_at, updated_at, language)"
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
            except sqlite3.IntegrityError as error:
                if "campaigns.chat_id" in str(error):
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
        async with self._db.snapshot() as conn:
            return await self._campaign_in(conn, campaign_id)

    async def active_campaign(self, chat_id: ChatId, thread_id: int = 0) -> Campaign | None:
        """The unfinished campaign of a group chat (forum topic ``thread_id``), if any."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(
                conn,
                "SELECT * FROM campaigns WHERE chat_id = ? AND thread_id = ?"
                " AND status <> 'finished'",
                (chat_id, thread_id),
            )
        return None if row is None else _campaign(row)

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
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn, "SELECT * FROM sides WHERE campaign_id = ? ORDER BY position", (campaign_id,)
            )
        return [_side(row) for row in rows]

    async def _member_in(
        self, conn: Conn, campaign_id: CampaignId, user_id: UserId
    ) -> Member | None:
        row = await fetch_one(
            conn,
            "SELECT * FROM members WHERE campaign_id = ? AND user_id = ?",
            (campaign_id, user_id),
        )
        if row is None:
            return None
        roles = await fetch_all(
            conn,
            "SELECT role FROM member_roles WHERE campaign_id = ? AND user_id = ?",
            (campaign_id, user_id),
        )
        return Member(
            campaign_id=campaign_id,
            user_id=user_id,
            display_name=row["display_name"],
            side_id=row["side_id"],
            roles=frozenset(Role(r["role"]) for r in roles),
            joined_at=dt(row["joined_at"]),
        )

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
        async with self._db.snapshot() as conn:
            return await self._member_in(conn, campaign_id, user_id)

    async def members(self, campaign_id: CampaignId) -> list[Member]:
        """Everyone in a campaign, by user id."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT m.user_id, m.display_name, m.side_id, m.joined_at,"
                " group_concat(r.role) AS roles FROM members m LEFT JOIN member_roles r"
                " ON r.campaign_id = m.campaign_id AND r.user_id = m.user_id"
                " WHERE m.campaign_id = ? GROUP BY m.user_id ORDER BY m.user_id",
                (campaign_id,),
            )
        return [
            Member(
                campaign_id=campaign_id,
                user_id=row["user_id"],
                display_name=row["display_name"],
                side_id=row["side_id"],
                roles=frozenset(Role(r) for r in (row["roles"] or "").split(",") if r),
                joined_at=dt(row["joined_at"]),
            )
            for row in rows
        ]

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

    # ---- the clock ----------------------------------------------------------------------------

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
            for message in outbox:
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
            for message in outbox:
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
                " override_json, override_by, override_at, counter_json)"
                " SELECT ?, battle, reported_json, reported_by, reported_at, confirmed_by,"
                " confirmed_at, disputed_by, disputed_at, override_json, override_by,"
                " override_at, counter_json FROM battle_reports"
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
            for message in outbox:
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
    ) -> CorrectionResult:
        """Correct the latest resolved turn in one transaction: store the GM's ``overrides`` of
        its results, retire revision ``expected_revision`` and its next turn-start state as
        superseded, store the new revision and state (``next_start``: as the next turn begins
        with rule modules and the GM's adjustments of it applied again; by default the resolved
        state), cancel unsent messages of the old revision, and queue ``outbox``. If the
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
                    conn, old_row["battle_list_id"], result.battle, result, actor, now
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
            for message in outbox:
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
            await conn.execute(
                "UPDATE campaigns SET turn = ?, phase = ?, status = ?, updated_at = ? WHERE id = ?",
                (turn, phase.value, status.value, ts(now), campaign_id),
            )
        except sqlite3.IntegrityError as error:
            if "campaigns.chat_id" in str(error):
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
        paused. Compare-and-set on the expected position: a repeated call returns
        ``ALREADY_DONE``.
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
            status = (
                CampaignStatus.PAUSED
                if campaign.status is CampaignStatus.PAUSED
                else back_to.status
            )
            await self._set_position(conn, campaign_id, back_to.turn, back_to.phase, status, now)
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
            for message in outbox:
                await self._enqueue_in(conn, message, now)
        where = f"turn {after.turn} {after.phase.value}"
        return _result(TransitionOutcome.APPLIED, after, f"rolled back to {where}")

    async def phase_history(self, campaign_id: CampaignId) -> list[PhaseEntry]:
        """Every phase entry of a campaign, undone ones included, in order."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT * FROM phase_history WHERE campaign_id = ? ORDER BY seq",
                (campaign_id,),
            )
        return [_phase_entry(row) for row in rows]

    # ---- turns --------------------------------------------------------------------------------

    async def turn_start(self, campaign_id: CampaignId, turn: int) -> CampaignState | None:
        """The current state at the start of ``turn``."""
        async with self._db.snapshot() as conn:
            return await self._state_in(conn, campaign_id, turn)

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
        results = tuple(result for report in reports if (result := report.effective()) is not None)
        return TurnInputs(
            campaign_id=campaign_id,
            turn=turn,
            state=state,
            orders={side: record.orders for side, record in orders.items()},
            results=results,
            battle_list=battle_list,
            disputed=tuple(report.battle for report in reports if report.disputed),
            late={side: record.orders for side, record in late.items() if record.orders},
            seeds=None if seeds is None else seeds.seeds,
        )

    async def battle_list(self, campaign_id: CampaignId, turn: int) -> BattleListRecord | None:
        """The current battle list of a turn, if published."""
        async with self._db.snapshot() as conn:
            row = await self._current_list_row(conn, campaign_id, turn)
        return None if row is None else _battle_list(row)

    async def resolutions(
        self, campaign_id: CampaignId, turn: int, *, include_retired: bool = False
    ) -> list[ResolutionRecord]:
        """A turn's resolution revisions, oldest first (only the current one by default)."""
        only_current = "" if include_retired else " AND retired_at IS NULL"
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT * FROM resolutions WHERE campaign_id = ? AND turn = ?"
                + only_current
                + " ORDER BY revision",
                (campaign_id, turn),
            )
        return [_resolution(row) for row in rows]

    # ---- orders -------------------------------------------------------------------------------

    async def _save_order_set(
        self,
        campaign_id: CampaignId,
        turn: int,
        side_id: SideId,
        body: str,
        ready: bool,
        phases: tuple[Phase, ...],
        actor: UserId,
        now: datetime,
        expected_edits: int | None,
        outbox: Sequence[NewOutboxMessage],
        kind: str,
    ) -> tuple[WriteOutcome, Row | None]:
        async with self._db.transaction() as conn:
            campaign = await self._campaign_in(conn, campaign_id)
            if campaign is None:
                return WriteOutcome.NOT_FOUND, None
            if campaign.turn != turn or campaign.phase not in phases:
                return WriteOutcome.PHASE_CLOSED, None
            side = await fetch_one(
                conn, "SELECT 1 FROM sides WHERE campaign_id = ? AND id = ?", (campaign_id, side_id)
            )
            if side is None:
                return WriteOutcome.UNKNOWN_SIDE, None
            current = await fetch_one(
                conn,
                "SELECT * FROM order_sets WHERE campaign_id = ? AND turn = ? AND side_id = ?"
                " AND kind = ? AND retired_at IS NULL",
                (campaign_id, turn, side_id, kind),
            )
            if expected_edits is not None and expected_edits != (
                0 if current is None else current["edits"]
            ):
                return WriteOutcome.CONFLICT, current
            if current is not None and (current["body_json"], bool(current["ready"])) == (
                body,
                ready,
            ):
                return WriteOutcome.SAVED, current  # the same again: no edit, nothing posted
            if current is None:
                set_id = await insert_row(
                    conn,
                    "INSERT INTO order_sets (campaign_id, turn, side_id, kind, body_json, ready,"
                    " updated_by, updated_at, edits) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)",
                    (campaign_id, turn, side_id, kind, body, int(ready), actor, ts(now)),
                )
                seq = 1
            else:
                set_id, seq = current["id"], current["edits"] + 1
                await conn.execute(
                    "UPDATE order_sets SET body_json = ?, ready = ?, updated_by = ?,"
                    " updated_at = ?, edits = ? WHERE id = ?",
                    (body, int(ready), actor, ts(now), seq, set_id),
                )
            await conn.execute(
                "INSERT INTO order_edits (order_set_id, seq, body_json, ready, edited_by,"
                " edited_at) VALUES (?, ?, ?, ?, ?, ?)",
                (set_id, seq, body, int(ready), actor, ts(now)),
            )
            member = await self._member_in(conn, campaign_id, actor)
            own_side = member is not None and member.side_id == side_id
            if member is not None and member.is_gm and not own_side:
                action = (
                    AuditAction.PLACEMENT_SET_BY_GM
                    if kind == "placement"
                    else AuditAction.ORDERS_SET_BY_GM
                )
                before = None if current is None else json.loads(current["body_json"])
                await self._audit(
                    conn,
                    campaign,
                    actor,
                    action,
                    {"side": side_id, "body": before},
                    {"side": side_id, "body": json.loads(body), "ready": ready},
                    now,
                )
            for message in outbox:
                await self._enqueue_in(conn, message, now)
            row = await fetch_one(conn, "SELECT * FROM order_sets WHERE id = ?", (set_id,))
        return WriteOutcome.SAVED, row

    async def save_orders(
        self,
        campaign_id: CampaignId,
        turn: int,
        side_id: SideId,
        orders: SideOrders,
        ready: bool,
        actor: UserId,
        now: datetime,
        *,
        expected_edits: int | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> OrdersWrite:
        """Replace a side's orders for ``turn`` and append the edit, with ``outbox`` queued in
        the same transaction.

        Taken only while the campaign is at (turn, orders), paused or not (a pause stops the
        clock, not the players); validation is the caller's. With ``expected_edits`` (the edit
        count the caller read; 0 for no set yet) it is a compare-and-set: if another save came
        in between, nothing is written and the outcome is ``CONFLICT`` with the set as it now
        is. Without it, last write wins.
        The audit log gets a row when a GM writes for a side that is not their own.
        """
        outcome, row = await self._save_order_set(
            campaign_id,
            turn,
            side_id,
            orders.model_dump_json(),
            ready,
            (Phase.ORDERS,),
            actor,
            now,
            expected_edits,
            outbox,
            "orders",
        )
        return OrdersWrite(outcome=outcome, orders=None if row is None else _orders_record(row))

    async def save_late_orders(
        self,
        campaign_id: CampaignId,
        turn: int,
        side_id: SideId,
        orders: Sequence[ModuleOrder],
        actor: UserId,
        now: datetime,
        *,
        expected_edits: int | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> OrdersWrite:
        """Replace a side's late orders for ``turn`` (rule-module orders given after the battle
        list, such as siege's "after" cards), taken only while the campaign is at (turn,
        battles) or (turn, resolution); validation is the caller's. A compare-and-set on
        ``expected_edits`` as :meth:`save_orders`."""
        outcome, row = await self._save_order_set(
            campaign_id,
            turn,
            side_id,
            _MODULE_ORDERS.dump_json(tuple(orders)).decode(),
            True,
            (Phase.BATTLES, Phase.RESOLUTION),
            actor,
            now,
            expected_edits,
            outbox,
            "late",
        )
        return OrdersWrite(outcome=outcome, late=None if row is None else _late_record(row))

    async def _late_in(
        self, conn: Conn, campaign_id: CampaignId, turn: int
    ) -> dict[SideId, LateOrdersRecord]:
        rows = await fetch_all(
            conn,
            "SELECT o.* FROM order_sets o JOIN sides s ON s.campaign_id = o.campaign_id"
            " AND s.id = o.side_id WHERE o.campaign_id = ? AND o.turn = ? AND o.kind = 'late'"
            " AND o.retired_at IS NULL ORDER BY s.position",
            (campaign_id, turn),
        )
        return {row["side_id"]: _late_record(row) for row in rows}

    async def late_orders(
        self, campaign_id: CampaignId, turn: int
    ) -> dict[SideId, LateOrdersRecord]:
        """Every side's current late orders for a turn (secret until the resolution)."""
        async with self._db.snapshot() as conn:
            return await self._late_in(conn, campaign_id, turn)

    async def save_placement(
        self,
        campaign_id: CampaignId,
        side_id: SideId,
        placement: dict[SectorId, int],
        ready: bool,
        actor: UserId,
        now: datetime,
        *,
        expected_edits: int | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> OrdersWrite:
        """Replace a side's deployment (turn 0), taken only in the deployment phase; a
        compare-and-set on ``expected_edits`` as :meth:`save_orders`."""
        body = _PLACEMENT.dump_json(placement).decode()
        outcome, row = await self._save_order_set(
            campaign_id,
            0,
            side_id,
            body,
            ready,
            (Phase.DEPLOYMENT,),
            actor,
            now,
            expected_edits,
            outbox,
            "placement",
        )
        return OrdersWrite(
            outcome=outcome, placement=None if row is None else _placement_record(row)
        )

    async def _orders_in(
        self, conn: Conn, campaign_id: CampaignId, turn: int
    ) -> dict[SideId, OrdersRecord]:
        rows = await fetch_all(
            conn,
            "SELECT o.* FROM order_sets o JOIN sides s ON s.campaign_id = o.campaign_id"
            " AND s.id = o.side_id WHERE o.campaign_id = ? AND o.turn = ? AND o.kind = 'orders'"
            " AND o.retired_at IS NULL ORDER BY s.position",
            (campaign_id, turn),
        )
        return {row["side_id"]: _orders_record(row) for row in rows}

    async def orders(
        self, campaign_id: CampaignId, turn: int, side_id: SideId
    ) -> OrdersRecord | None:
        """A side's current orders for a turn."""
        async with self._db.snapshot() as conn:
            return (await self._orders_in(conn, campaign_id, turn)).get(side_id)

    async def orders_for_turn(
        self, campaign_id: CampaignId, turn: int
    ) -> dict[SideId, OrdersRecord]:
        """Every side's current orders for a turn (secret: for the GM and the resolution)."""
        async with self._db.snapshot() as conn:
            return await self._orders_in(conn, campaign_id, turn)

    async def placements(self, campaign_id: CampaignId) -> dict[SideId, PlacementRecord]:
        """Every side's current deployment."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT o.* FROM order_sets o JOIN sides s ON s.campaign_id = o.campaign_id"
                " AND s.id = o.side_id WHERE o.campaign_id = ? AND o.kind = 'placement'"
                " AND o.retired_at IS NULL ORDER BY s.position",
                (campaign_id,),
            )
        return {row["side_id"]: _placement_record(row) for row in rows}

    async def order_edits(
        self, campaign_id: CampaignId, turn: int, side_id: SideId
    ) -> list[OrderEdit]:
        """Every save of a side's orders (turn 0: placement) for a turn, retired sets included."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT e.*, o.kind, o.retired_at FROM order_edits e JOIN order_sets o"
                " ON o.id = e.order_set_id WHERE o.campaign_id = ? AND o.turn = ?"
                " AND o.side_id = ? ORDER BY o.id, e.seq",
                (campaign_id, turn, side_id),
            )
        return [
            OrderEdit(
                seq=row["seq"],
                orders=(
                    SideOrders.model_validate_json(row["body_json"])
                    if row["kind"] == "orders"
                    else None
                ),
                placement=(
                    _PLACEMENT.validate_json(row["body_json"])
                    if row["kind"] == "placement"
                    else None
                ),
                ready=bool(row["ready"]),
                edited_by=row["edited_by"],
                edited_at=dt(row["edited_at"]),
                retired=row["retired_at"] is not None,
                late=(
                    _MODULE_ORDERS.validate_json(row["body_json"])
                    if row["kind"] == "late"
                    else None
                ),
            )
            for row in rows
        ]

    async def revealed_orders(self, campaign_id: CampaignId) -> dict[int, dict[SideId, SideOrders]]:
        """Orders as resolved, by turn: only turns whose resolution is current (after reveal)."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn,
                "SELECT turn, orders_json FROM resolutions WHERE campaign_id = ?"
                " AND retired_at IS NULL ORDER BY turn",
                (campaign_id,),
            )
        return {row["turn"]: _ORDERS.validate_json(row["orders_json"]) for row in rows}

    # ---- battle results -----------------------------------------------------------------------

    async def _reports_in(
        self,
        conn: Conn,
        campaign_id: CampaignId,
        turn: int,
        battle_list: BattleListRecord | None,
    ) -> list[BattleReport]:
        if battle_list is None:
            return []
        rows = await fetch_all(
            conn, "SELECT * FROM battle_reports WHERE battle_list_id = ?", (battle_list.id,)
        )
        by_battle = {row["battle"]: row for row in rows}
        return [
            _battle_report(campaign_id, turn, battle.id, by_battle.get(battle.id))
            for battle in battle_list.battles
        ]

    async def _report_target(
        self, conn: Conn, campaign_id: CampaignId, turn: int, battle: int
    ) -> tuple[WriteOutcome, Campaign | None, int | None]:
        """Check a report may be written now; gives the battle list id to write it on."""
        campaign = await self._campaign_in(conn, campaign_id)
        if campaign is None:
            return WriteOutcome.NOT_FOUND, None, None
        if campaign.turn != turn or campaign.phase not in (Phase.BATTLES, Phase.RESOLUTION):
            return WriteOutcome.PHASE_CLOSED, campaign, None
        list_row = await self._current_list_row(conn, campaign_id, turn)
        if list_row is None:
            return WriteOutcome.PHASE_CLOSED, campaign, None
        if battle not in {b.id for b in _battle_list(list_row).battles}:
            return WriteOutcome.NO_SUCH_BATTLE, campaign, None
        return WriteOutcome.SAVED, campaign, list_row["id"]

    async def _report_row(self, conn: Conn, list_id: int, battle: int) -> Row | None:
        return await fetch_one(
            conn,
            "SELECT * FROM battle_reports WHERE battle_list_id = ? AND battle = ?",
            (list_id, battle),
        )

    async def _report_event(
        self,
        conn: Conn,
        list_id: int,
        battle: int,
        kind: str,
        result: BattleResult | None,
        actor: UserId | None,
        now: datetime,
    ) -> None:
        await conn.execute(
            "INSERT INTO battle_report_events (battle_list_id, battle, kind, result_json, actor,"
            " at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                list_id,
                battle,
                kind,
                None if result is None else result.model_dump_json(),
                actor,
                ts(now),
            ),
        )

    async def _write_override(
        self,
        conn: Conn,
        list_id: int,
        battle: int,
        result: BattleResult | None,
        actor: UserId,
        now: datetime,
    ) -> None:
        await conn.execute(
            "INSERT INTO battle_reports (battle_list_id, battle, override_json, override_by,"
            " override_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (battle_list_id, battle) DO UPDATE"
            " SET override_json = excluded.override_json, override_by = excluded.override_by,"
            " override_at = excluded.override_at",
            (
                list_id,
                battle,
                None if result is None else result.model_dump_json(),
                actor,
                ts(now),
            ),
        )
        await self._report_event(conn, list_id, battle, "override", result, actor, now)

    async def report_result(
        self,
        campaign_id: CampaignId,
        turn: int,
        result: BattleResult,
        actor: UserId,
        now: datetime,
        *,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> ReportWrite:
        """Record a participant's report; it replaces an earlier one and needs a new confirm.
        ``outbox`` (the notices asking the other side to confirm) is queued in the same
        transaction: the notices exist if and only if the report does."""
        async with self._db.transaction() as conn:
            outcome, _, list_id = await self._report_target(conn, campaign_id, turn, result.battle)
            if list_id is None:
                return ReportWrite(outcome=outcome)
            await conn.execute(
                "INSERT INTO battle_reports (battle_list_id, battle, reported_json, reported_by,"
                " reported_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (battle_list_id, battle)"
                " DO UPDATE SET reported_json = excluded.reported_json, reported_by ="
                " excluded.reported_by, reported_at = excluded.reported_at, confirmed_by = NULL,"
                " confirmed_at = NULL, disputed_by = NULL, disputed_at = NULL,"
                " counter_json = NULL",
                (list_id, result.battle, result.model_dump_json(), actor, ts(now)),
            )
            await self._report_event(conn, list_id, result.battle, "report", result, actor, now)
            for message in outbox:
                await self._enqueue_in(conn, message, now)
            row = await self._report_row(conn, list_id, result.battle)
        return ReportWrite(
            outcome=WriteOutcome.SAVED,
            report=_battle_report(campaign_id, turn, result.battle, row),
        )

    async def confirm_result(
        self,
        campaign_id: CampaignId,
        turn: int,
        expected: BattleResult,
        actor: UserId,
        now: datetime,
        *,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> ReportWrite:
        """Confirm the reported result, only if it is still ``expected`` (who may confirm is
        the caller's decision); ``outbox`` is queued only if it is. Confirming a confirmed
        result again records and queues nothing. In a dispute, confirming the other account
        (``counter``) makes it the agreed result and ends the dispute."""
        async with self._db.transaction() as conn:
            outcome, _, list_id = await self._report_target(
                conn, campaign_id, turn, expected.battle
            )
            if list_id is None:
                return ReportWrite(outcome=outcome)
            row = await self._report_row(conn, list_id, expected.battle)
            reported = None if row is None else _optional_result(row["reported_json"])
            counter = None if row is None else _optional_result(row["counter_json"])
            if reported is None or row is None:
                return ReportWrite(outcome=WriteOutcome.NO_REPORT)
            disputed = row["disputed_by"] is not None
            if reported != expected and not (disputed and counter == expected):
                return ReportWrite(
                    outcome=WriteOutcome.REPORT_CHANGED,
                    report=_battle_report(campaign_id, turn, expected.battle, row),
                )
            if row["confirmed_by"] is not None and not disputed:
                # Confirmed already (a press that came twice): nothing more to record or post.
                return ReportWrite(
                    outcome=WriteOutcome.SAVED,
                    report=_battle_report(campaign_id, turn, expected.battle, row),
                )
            if reported != expected:
                # The reporter's side accepts the disputing side's account.
                await conn.execute(
                    "UPDATE battle_reports SET reported_json = counter_json, reported_by ="
                    " disputed_by, reported_at = disputed_at WHERE battle_list_id = ? AND"
                    " battle = ?",
                    (list_id, expected.battle),
                )
            await conn.execute(
                "UPDATE battle_reports SET confirmed_by = ?, confirmed_at = ?, disputed_by = NULL,"
                " disputed_at = NULL, counter_json = NULL WHERE battle_list_id = ? AND battle = ?",
                (actor, ts(now), list_id, expected.battle),
            )
            await self._report_event(
                conn, list_id, expected.battle, "confirm", expected, actor, now
            )
            for message in outbox:
                await self._enqueue_in(conn, message, now)
            row = await self._report_row(conn, list_id, expected.battle)
        return ReportWrite(
            outcome=WriteOutcome.SAVED,
            report=_battle_report(campaign_id, turn, expected.battle, row),
        )

    async def dispute_result(
        self,
        campaign_id: CampaignId,
        turn: int,
        expected: BattleResult,
        counter: BattleResult,
        actor: UserId,
        now: datetime,
        *,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> ReportWrite:
        """Dispute the reported result, only if it is still ``expected``, with the disputing
        side's own account ``counter`` (clears a confirmation), for the GMs to decide;
        ``outbox`` is queued in the same transaction. The same dispute again changes nothing."""
        if counter.battle != expected.battle:
            raise ValueError(f"counter is for battle {counter.battle}, not {expected.battle}")
        battle = expected.battle
        async with self._db.transaction() as conn:
            outcome, _, list_id = await self._report_target(conn, campaign_id, turn, battle)
            if list_id is None:
                return ReportWrite(outcome=outcome)
            row = await self._report_row(conn, list_id, battle)
            if row is None or row["reported_json"] is None:
                return ReportWrite(outcome=WriteOutcome.NO_REPORT)
            if _optional_result(row["reported_json"]) != expected:
                return ReportWrite(
                    outcome=WriteOutcome.REPORT_CHANGED,
                    report=_battle_report(campaign_id, turn, battle, row),
                )
            if row["disputed_by"] == actor and _optional_result(row["counter_json"]) == counter:
                return ReportWrite(
                    outcome=WriteOutcome.SAVED,
                    report=_battle_report(campaign_id, turn, battle, row),
                )
            await conn.execute(
                "UPDATE battle_reports SET disputed_by = ?, disputed_at = ?, confirmed_by = NULL,"
                " confirmed_at = NULL, counter_json = ? WHERE battle_list_id = ? AND battle = ?",
                (actor, ts(now), counter.model_dump_json(), list_id, battle),
            )
            await self._report_event(conn, list_id, battle, "dispute", counter, actor, now)
            for message in outbox:
                await self._enqueue_in(conn, message, now)
            row = await self._report_row(conn, list_id, battle)
        return ReportWrite(
            outcome=WriteOutcome.SAVED, report=_battle_report(campaign_id, turn, battle, row)
        )

    async def override_result(
        self,
        campaign_id: CampaignId,
        turn: int,
        battle: int,
        result: BattleResult | None,
        actor: UserId,
        reason: str,
        now: datetime,
    ) -> ReportWrite:
        """Set (or with ``None`` clear) the GM's result for a battle of the turn being played.

        For a turn already resolved, use the correction (``bot.services.turns.correct_result``).
        """
        if result is not None and result.battle != battle:
            raise ValueError(f"result is for battle {result.battle}, not {battle}")
        async with self._db.transaction() as conn:
            outcome, campaign, list_id = await self._report_target(conn, campaign_id, turn, battle)
            if list_id is None or campaign is None:
                return ReportWrite(outcome=outcome)
            before = _battle_report(
                campaign_id, turn, battle, await self._report_row(conn, list_id, battle)
            )
            await self._write_override(conn, list_id, battle, result, actor, now)
            after = _battle_report(
                campaign_id, turn, battle, await self._report_row(conn, list_id, battle)
            )
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.RESULT_OVERRIDDEN,
                json_of(before),
                json_of(after),
                now,
                reason,
            )
        return ReportWrite(outcome=WriteOutcome.SAVED, report=after)

    async def battle_reports(self, campaign_id: CampaignId, turn: int) -> list[BattleReport]:
        """What is known about each battle of the turn's current list, in battle order."""
        async with self._db.snapshot() as conn:
            list_row = await self._current_list_row(conn, campaign_id, turn)
            battle_list = None if list_row is None else _battle_list(list_row)
            return await self._reports_in(conn, campaign_id, turn, battle_list)

    async def effective_results(self, campaign_id: CampaignId, turn: int) -> list[BattleResult]:
        """The results resolution uses: override > undisputed report; battles without one
        omitted."""
        reports = await self.battle_reports(campaign_id, turn)
        return [result for report in reports if (result := report.effective()) is not None]

    # ---- audit --------------------------------------------------------------------------------

    async def audit_log(self, campaign_id: CampaignId) -> list[AuditEntry]:
        """Every audit row of a campaign, oldest first."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn, "SELECT * FROM audit_log WHERE campaign_id = ? ORDER BY id", (campaign_id,)
            )
        return [
            AuditEntry(
                id=row["id"],
                campaign_id=row["campaign_id"],
                at=dt(row["at"]),
                actor=row["actor"],
                action=AuditAction(row["action"]),
                turn=row["turn"],
                phase=Phase(row["phase"]),
                before=json.loads(row["before_json"]),
                after=json.loads(row["after_json"]),
                reason=row["reason"],
            )
            for row in rows
        ]

    # ---- outbox -------------------------------------------------------------------------------

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
        async with self._db.transaction() as conn:
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
                " AND m.kind IN (?, ?, ?)), o.id LIMIT ?",
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
        runs out during a slow send (keep leases well above the request timeout).
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

    async def outbox_message(self, message_id: int) -> OutboxMessage | None:
        """One outbox row."""
        async with self._db.snapshot() as conn:
            row = await fetch_one(conn, "SELECT * FROM outbox WHERE id = ?", (message_id,))
        return None if row is None else _outbox(row)

    async def outbox_messages(self, campaign_id: CampaignId) -> list[OutboxMessage]:
        """Every message a campaign queued, in queue order, whatever its state."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn, "SELECT * FROM outbox WHERE campaign_id = ? ORDER BY id", (campaign_id,)
            )
        return [_outbox(row) for row in rows]

    # ---- backup and export --------------------------------------------------------------------

    async def backup(self, target: Path) -> None:
        """A consistent copy of the whole database at ``target`` (see :meth:`Database.backup`)."""
        await self._db.backup(target)

    async def export_campaign(self, campaign_id: CampaignId) -> dict[str, Any]:
        """One campaign as JSON data: settings, sides, deployment, every resolved turn, and its
        people (members, those a GM removed and has not let back, unfinished join requests).

        Each turn carries its start ``state``, the ``orders`` and ``results`` its current
        resolution used (orders are revealed: only resolved turns are exported), the battles,
        ``state_after``, and ``document``: the same inputs in the RULES.md Appendix A shape, which
        ``python -m rules resolve`` turns into ``state_after``.

        For ``python -m rules verify-rolls`` (docs/rules.md) each turn also carries ``seeds``
        (the roll seed once the Monday summary revealed it, the deal seed once the campaign is
        finished; ``null`` until then), their ``commitments`` (SHA-256) and every value drawn
        for it (``rolls``: as the turn began, the list's, the resolution's and the table's).
        A turn not resolved yet is listed with ``document`` null only when it has public rolls
        (a battle list's, a ``/roll``'s); its orders stay out.
        """
        async with self._db.snapshot() as conn:
            campaign = await self._require_campaign(conn, campaign_id)
            side_rows = await fetch_all(
                conn, "SELECT * FROM sides WHERE campaign_id = ? ORDER BY position", (campaign_id,)
            )
            resolution_rows = await fetch_all(
                conn,
                "SELECT * FROM resolutions WHERE campaign_id = ? AND retired_at IS NULL"
                " ORDER BY turn",
                (campaign_id,),
            )
            first = await self._state_in(conn, campaign_id, 1)
            placement_rows = await fetch_all(
                conn,
                "SELECT o.* FROM order_sets o JOIN sides s ON s.campaign_id = o.campaign_id"
                " AND s.id = o.side_id WHERE o.campaign_id = ? AND o.kind = 'placement'"
                " AND o.retired_at IS NULL ORDER BY s.position",
                (campaign_id,),
            )
            start_rows = await fetch_all(
                conn,
                "SELECT turn, rolls_json FROM turn_starts WHERE campaign_id = ?"
                " AND retired_at IS NULL",
                (campaign_id,),
            )
            list_rows = await fetch_all(
                conn,
                "SELECT turn, rolls_json FROM battle_lists WHERE campaign_id = ?"
                " AND retired_at IS NULL",
                (campaign_id,),
            )
        campaign_map: Any = (
            campaign.map if isinstance(campaign.map, str) else campaign.map.model_dump(mode="json")
        )
        people = {
            "members": [
                {
                    "user_id": m.user_id,
                    "display_name": m.display_name,
                    "side": m.side_id,
                    "roles": sorted(role.value for role in m.roles),
                    "joined_at": ts(m.joined_at),
                }
                for m in await self.members(campaign_id)
            ],
            "removed": [r.model_dump(mode="json") for r in await self.removed_members(campaign_id)],
            "join_requests": [
                r.model_dump(mode="json") for r in await self.join_requests(campaign_id)
            ],
        }
        finished = campaign.status is CampaignStatus.FINISHED
        seeds = {record.turn: record for record in await self.all_turn_seeds(campaign_id)}
        table = await self.table_rolls(campaign_id)
        start_rolls = {row["turn"]: _ROLLS.validate_json(row["rolls_json"]) for row in start_rows}
        list_rolls = {row["turn"]: _ROLLS.validate_json(row["rolls_json"]) for row in list_rows}

        def dice(turn: int, engine: Sequence[Roll]) -> dict[str, Any]:
            made = seeds.get(turn)
            drawn = [
                *start_rolls.get(turn, ()),
                *engine,
                *(roll for entry in table if entry.turn == turn for roll in entry.rolls),
            ]
            return {
                "seeds": {
                    "roll": made.roll if made and made.roll_revealed_at else None,
                    "deal": made.deal if made and finished else None,
                },
                "commitments": {
                    "roll": commitment(made.roll) if made else None,
                    "deal": commitment(made.deal) if made else None,
                },
                "rolls": [roll.as_json() for roll in drawn],
            }

        modular = bool(campaign.ruleset_overrides.get("modules"))
        turns = []
        for row in resolution_rows:
            record = _resolution(row)
            orders = {side: given.as_json() for side, given in record.orders.items()}
            for side, late in record.late.items():
                orders.setdefault(side, SideOrders().as_json())["late"] = [
                    order.model_dump(mode="json", include={"module", "data"}) for order in late
                ]
            results = [result.model_dump(mode="json") for result in record.results]
            audit = dice(record.turn, record.report.rolls)
            document: dict[str, Any] = {
                "map": campaign_map,
                "ruleset": campaign.ruleset_overrides,
                "state": _appendix_state(record.state),
                "orders": orders,
                "results": results,
            }
            if modular:
                document["seeds"] = {k: v for k, v in audit["seeds"].items() if v is not None}
            turns.append(
                {
                    "turn": record.turn,
                    "revision": record.revision,
                    "state": _appendix_state(record.state),
                    "orders": orders,
                    "results": results,
                    "battles": [battle.as_json() for battle in record.report.battles],
                    "unreported": list(record.report.unreported),
                    "state_after": _appendix_state(record.state_after),
                    "winner": record.report.winner,
                    "document": document,
                    **audit,
                }
            )
        resolved = {entry["turn"] for entry in turns}
        for turn in sorted(set(seeds) - resolved):
            audit = dice(turn, list_rolls.get(turn, ()))
            if audit["rolls"]:
                turns.append({"turn": turn, "document": None, **audit})
        turns.sort(key=lambda entry: int(entry["turn"]))
        return {
            "format": "strategium-campaign-export",
            "version": 1,
            "campaign": {
                "id": campaign.id,
                "title": campaign.title,
                "chat_id": campaign.chat_id,
                "thread_id": campaign.thread_id,
                "time_zone": campaign.time_zone,
                "status": campaign.status.value,
                "turn": campaign.turn,
                "phase": campaign.phase.value,
                "unreported_policy": campaign.unreported_policy.value,
            },
            "map": campaign_map,
            "ruleset": campaign.ruleset_overrides,
            "sides": [{"id": r["id"], "name": r["name"], "colour": r["colour"]} for r in side_rows],
            "deployment": (
                {r["side_id"]: json.loads(r["body_json"]) for r in placement_rows}
                if first is not None
                else None
            ),
            "first_state": None if first is None else _appendix_state(first),
            "turns": turns,
            "people": people,
        }


def _result(
    outcome: TransitionOutcome, campaign: Campaign | None, message: str
) -> TransitionResult:
    return TransitionResult(outcome=outcome, campaign=campaign, message=message)
