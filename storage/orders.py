"""Each side's orders, late orders and deployment, with their edits."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from rules import (
    ModuleOrder,
    SideOrders,
)
from storage.models import (
    BOT_ACTOR,
    GM_ROLES,
    AuditAction,
    CampaignId,
    CampaignStatus,
    LateOrdersRecord,
    NewOutboxMessage,
    OrderEdit,
    OrdersRecord,
    OrdersWrite,
    Phase,
    PlacementRecord,
    Role,
    SectorId,
    SideId,
    UserId,
    WriteOutcome,
    story_order,
)
from storage.shared import (
    _MODULE_ORDERS,
    _ORDERS,
    _PLACEMENT,
    SharedRecords,
    _late_record,
    _orders_record,
    _placement_record,
    member_of,
    member_query,
    queue_statement,
    turn_of,
)
from storage.sql import (
    Conn,
    Query,
    Row,
    dt,
    fetch_all,
    fetch_batch,
    insert_row,
    ts,
)


def orders_query(campaign_id: CampaignId, turn: int | None, seen_by: UserId | None = None) -> Query:
    """Every side's current orders for ``turn`` (``None``: the campaign's current turn), in the
    sides' order (:func:`orders_of`); with ``seen_by``, only those that person may see: their
    own side's, every side's for a GM."""
    turn_sql, turn_params = turn_of(campaign_id, turn)
    seen_sql, seen_params = "", tuple[object, ...]()
    if seen_by is not None:
        gm_roles = sorted(role.value for role in GM_ROLES)
        seen_sql = (
            " AND (o.side_id = (SELECT side_id FROM members WHERE campaign_id = ?"
            " AND user_id = ?) OR EXISTS (SELECT 1 FROM member_roles WHERE campaign_id = ?"
            f" AND user_id = ? AND role IN ({', '.join('?' for _ in gm_roles)})))"
        )
        seen_params = (campaign_id, seen_by, campaign_id, seen_by, *gm_roles)
    return (
        "SELECT o.* FROM order_sets o JOIN sides s ON s.campaign_id = o.campaign_id"
        " AND s.id = o.side_id WHERE o.campaign_id = ? AND o.turn = "
        + turn_sql
        + " AND o.kind = 'orders' AND o.retired_at IS NULL"
        + seen_sql
        + " ORDER BY s.position",
        (campaign_id, *turn_params, *seen_params),
    )


def orders_of(rows: Sequence[Row]) -> dict[SideId, OrdersRecord]:
    """The sets of :func:`orders_query`'s rows, by side."""
    return {row["side_id"]: _orders_record(row) for row in rows}


class OrderRecords(SharedRecords):
    """Orders, late orders, placements (mixed into ``SqliteCampaignStore``)."""

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
            # What the compare-and-set decides on, in one call to the database's thread.
            positions, currents, members = await fetch_batch(
                conn,
                [
                    (
                        "SELECT turn, phase, status, EXISTS (SELECT 1 FROM sides WHERE"
                        " campaign_id = ?"
                        " AND id = ?) AS side_known FROM campaigns WHERE id = ?",
                        (campaign_id, side_id, campaign_id),
                    ),
                    (
                        "SELECT * FROM order_sets WHERE campaign_id = ? AND turn = ?"
                        " AND side_id = ? AND kind = ? AND retired_at IS NULL",
                        (campaign_id, turn, side_id, kind),
                    ),
                    member_query(campaign_id, actor),
                ],
            )
            if not positions:
                return WriteOutcome.NOT_FOUND, None
            position = positions[0]
            # Judged here, not on what the caller read at the press: the GM may have ended
            # the campaign or moved the writer's seat since.
            if CampaignStatus(position["status"]) is CampaignStatus.FINISHED:
                return WriteOutcome.CAMPAIGN_OVER, None
            if position["turn"] != turn or Phase(position["phase"]) not in phases:
                return WriteOutcome.PHASE_CLOSED, None
            current = next(iter(currents), None)
            # A side's set is deleted with the side: only a first set needs the side.
            if current is None and not position["side_known"]:
                return WriteOutcome.UNKNOWN_SIDE, None
            member = member_of(campaign_id, actor, members)
            if actor != BOT_ACTOR and not (
                member is not None
                and (
                    member.is_gm or (member.side_id == side_id and Role.STRATEGIST in member.roles)
                )
            ):
                return WriteOutcome.NOT_ALLOWED, None
            if expected_edits is not None and expected_edits != (
                0 if current is None else current["edits"]
            ):
                return WriteOutcome.CONFLICT, current
            if current is not None and (current["body_json"], bool(current["ready"])) == (
                body,
                ready,
            ):
                return WriteOutcome.SAVED, current  # the same again: no edit, nothing posted
            writes: list[Query] = []
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
                writes.append(
                    (
                        "UPDATE order_sets SET body_json = ?, ready = ?, updated_by = ?,"
                        " updated_at = ?, edits = ? WHERE id = ?",
                        (body, int(ready), actor, ts(now), seq, set_id),
                    )
                )
            writes.append(
                (
                    "INSERT INTO order_edits (order_set_id, seq, body_json, ready, edited_by,"
                    " edited_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (set_id, seq, body, int(ready), actor, ts(now)),
                )
            )
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
                    await self._require_campaign(conn, campaign_id),
                    actor,
                    action,
                    {"side": side_id, "body": before},
                    {"side": side_id, "body": json.loads(body), "ready": ready},
                    now,
                )
            writes.extend(queue_statement(message, now) for message in story_order(outbox))
            writes.append(("SELECT * FROM order_sets WHERE id = ?", (set_id,)))
            *_, saved = await fetch_batch(conn, writes)
            row = saved[0]
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
        list, such as a card played once the list is out), taken only while the campaign is at
        (turn, battles) or (turn, resolution); validation is the caller's. A compare-and-set on
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
        return orders_of(await fetch_all(conn, *orders_query(campaign_id, turn)))

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
        [rows] = await self._db.read(
            [
                (
                    "SELECT e.*, o.kind, o.retired_at FROM order_edits e JOIN order_sets o"
                    " ON o.id = e.order_set_id WHERE o.campaign_id = ? AND o.turn = ?"
                    " AND o.side_id = ? ORDER BY o.id, e.seq",
                    (campaign_id, turn, side_id),
                )
            ]
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
