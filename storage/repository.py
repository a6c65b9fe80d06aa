"""The campaign repository: the only place SQL lives.

:class:`CampaignStore` is the API handlers and services depend on; :class:`SqliteCampaignStore`
implements it on one SQLite file. Another backend (PostgreSQL) implements the same Protocol.
The methods live with their aggregate (``storage/campaigns.py``, ``turns.py``, ``orders.py``,
``battles.py``, ``outbox.py``, ``people.py`` ...); this module composes them.

Every method that changes more than one row does it in one transaction. Clock changes are
compare-and-set on (campaign, turn, phase): a repeated call does nothing and says so in its
result. Nothing here knows the rules: the rules core's models are stored as JSON and the
services in ``bot/services`` compute them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from pydantic import JsonValue

import rules.modules
from rules import (
    Battle,
    BattleResult,
    CampaignState,
    ModuleOrder,
    Rejection,
    Roll,
    SideOrders,
    TurnReport,
    TurnResolution,
    commitment,
)
from storage.absences import AbsenceRecords, AbsenceStore
from storage.battles import BattleRecords
from storage.campaigns import CampaignRecords
from storage.chats import ChatRecords, ChatStore
from storage.db import Database
from storage.edits import EditRecords, EditStore
from storage.errors import ChatHasActiveCampaignError, NotFoundError, SettingsLockedError
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
    CorrectionResult,
    LateOrdersRecord,
    Member,
    Membership,
    NewCampaign,
    NewOutboxMessage,
    NewSide,
    OrderEdit,
    OrdersRecord,
    OrdersWrite,
    OutboxMessage,
    Phase,
    PhaseEntry,
    PlacementRecord,
    ReportWrite,
    ResolutionRecord,
    Role,
    SectorId,
    Side,
    SideId,
    TransitionResult,
    TurnInputs,
    TurnRecord,
    UserId,
)
from storage.modules import (
    DuelRecords,
    DuelStore,
    ModuleRecords,
    ModuleStore,
    RewardRecords,
    RewardStore,
)
from storage.orders import OrderRecords
from storage.outbox import OutboxRecords
from storage.people import PeopleRecords, PeopleStore
from storage.postgres import PostgresDatabase
from storage.schedule import ScheduleRecords, ScheduleStore
from storage.seats import SeatRecords, SeatStore
from storage.shared import (
    _ROLLS,
    _appendix_state,
    _resolution,
)
from storage.sharing import SharingRecords, SharingStore
from storage.snapshots import SnapshotRecords, SnapshotStore
from storage.sql import (
    Transactions,
    dt,
    fetch_all,
    ts,
)
from storage.turns import TurnRecords

__all__ = [
    "CampaignStore",
    "ChatHasActiveCampaignError",
    "NotFoundError",
    "PostgresCampaignStore",
    "SettingsLockedError",
    "SqlCampaignStore",
    "SqliteCampaignStore",
    "Store",
    "open_store",
]


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
        against: Mapping[int, str] | None = None,
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
        against: str | None = None,
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
        against: str | None = None,
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
        against: str | None = None,
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
        *,
        against: str | None = None,
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
    async def renew_leases(self, claims: Mapping[int, str], until: datetime) -> set[int]: ...
    async def release_leases(self) -> int: ...
    async def release_battle_list(self, campaign_id: CampaignId, now: datetime) -> int: ...
    async def outbox_message(self, message_id: int) -> OutboxMessage | None: ...
    async def outbox_messages(self, campaign_id: CampaignId) -> list[OutboxMessage]: ...
    async def outbox_chats(self, campaign_id: CampaignId, kind: str) -> set[int]: ...
    async def unsent_outbox_messages(
        self, campaign_id: CampaignId, kind: str
    ) -> list[OutboxMessage]: ...
    async def backup(self, target: Path) -> None: ...
    async def export_campaign(self, campaign_id: CampaignId) -> dict[str, Any]: ...
    def atomic(self) -> AbstractAsyncContextManager[None]: ...
    async def close(self) -> None: ...


class Store(
    CampaignStore,
    PeopleStore,
    ScheduleStore,
    ChatStore,
    ModuleStore,
    AbsenceStore,
    SeatStore,
    EditStore,
    SharingStore,
    RewardStore,
    DuelStore,
    SnapshotStore,
    Protocol,
):
    """Everything the bot keeps: campaigns and turns, what it knows of people, the clock, and
    the chats campaigns are played in."""


class SqlCampaignStore(
    SnapshotRecords,
    CampaignRecords,
    TurnRecords,
    OrderRecords,
    BattleRecords,
    OutboxRecords,
    PeopleRecords,
    ScheduleRecords,
    ChatRecords,
    ModuleRecords,
    AbsenceRecords,
    SeatRecords,
    EditRecords,
    SharingRecords,
    RewardRecords,
    DuelRecords,
):
    """:class:`Store` in SQL, on either engine: the same queries, the engine's few differences
    in :mod:`storage.dialect`. Open one with :func:`open_store` or a subclass's ``open``."""

    def __init__(self, db: Transactions) -> None:
        self._db = db

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

        def shown(state: CampaignState) -> dict[str, Any]:
            """The state as exported: until the deal seed is revealed (the campaign finished),
            each module's state as anyone may see it (what was dealt from it left out)."""
            data = _appendix_state(state)
            if not finished and state.modules:
                data["modules"] = {
                    name: _public_state(name, value) for name, value in state.modules.items()
                }
            return data

        def public_rolls(rolls: Sequence[Roll]) -> list[Roll]:
            """The rolls as exported: those drawn from the deal seed only once it is revealed."""
            return [roll for roll in rolls if finished or roll.seed != "deal"]

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
                "rolls": [roll.as_json() for roll in public_rolls(drawn)],
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
                "state": shown(record.state),
                "orders": orders,
                "results": results,
            }
            if modular:
                document["seeds"] = {k: v for k, v in audit["seeds"].items() if v is not None}
            turns.append(
                {
                    "turn": record.turn,
                    "revision": record.revision,
                    "state": shown(record.state),
                    "orders": orders,
                    "results": results,
                    "battles": _exported_battles(record.report),
                    "unreported": list(record.report.unreported),
                    "state_after": shown(record.state_after),
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
            "first_state": None if first is None else shown(first),
            "turns": turns,
            "people": people,
        }


def _public_state(name: str, value: JsonValue) -> JsonValue:
    """A module's stored state as anyone may see it (a module not registered: as it is); the
    registry (``rules.modules.BUILTIN_MODULES``) is read when called, so a module registered
    later (a module the tests add) keeps its secrets too."""
    for module in rules.modules.BUILTIN_MODULES:
        if module.name == name:
            return module.public_state(value, None)
    return value


def _exported_battles(report: TurnReport) -> list[dict[str, Any]]:
    """A resolved turn's battles as listed (``python -m rules`` replays them); a chain battle
    whose defender came from an earlier battle (MODULES.md C6) also names the defender it was
    fought against (``fought_defender``), or is marked ``played: false``."""
    fought = {battle.id: battle for battle in report.fought_battles()}
    exported = []
    for battle in report.battles:
        data = battle.as_json()
        if battle.defender_from is not None:
            played = fought.get(battle.id)
            data["played"] = played is not None
            if played is not None:
                data["fought_defender"] = played.defender
        exported.append(data)
    return exported


class SqliteCampaignStore(SqlCampaignStore):
    """:class:`Store` on one SQLite file (see ``docs/storage.md``)."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)

    @classmethod
    async def open(cls, path: Path) -> SqliteCampaignStore:
        """Open the file, migrating its schema to the latest version."""
        return cls(await Database.open(path))


class PostgresCampaignStore(SqlCampaignStore):
    """:class:`Store` on a PostgreSQL database (see ``docs/storage.md``, "PostgreSQL")."""

    def __init__(self, db: PostgresDatabase) -> None:
        super().__init__(db)

    @classmethod
    async def open(
        cls, url: str, *, only_process: bool = False, shared: bool = False
    ) -> PostgresCampaignStore:
        """Connect to ``url`` (``postgresql://...``), migrating its schema to the latest version;
        ``only_process``: refuse to open while another bot process holds the database;
        ``shared``: open beside other sharing processes, not beside one that must be alone."""
        return cls(await PostgresDatabase.open(url, only_process=only_process, shared=shared))


def is_postgresql(location: str) -> bool:
    """Whether ``location`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    return location.startswith(("postgresql://", "postgres://"))


def sqlite_path(location: str) -> Path:
    """The file a ``sqlite:///path`` URL (or a plain path) names."""
    return (
        Path(location.removeprefix("sqlite://"))
        if location.startswith("sqlite://")
        else Path(location)
    )


async def open_store(location: str, *, only_process: bool = False) -> SqlCampaignStore:
    """The store at ``location``: a ``postgresql://`` URL, or a SQLite file (``sqlite:///path``
    or a path)."""
    if is_postgresql(location):
        return await PostgresCampaignStore.open(location, only_process=only_process)
    return await SqliteCampaignStore.open(sqlite_path(location))
