"""Battle results: reports, confirmations, disputes and a GM's overrides."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rules import (
    BattleResult,
)
from storage.models import (
    AuditAction,
    BattleListRecord,
    BattleReport,
    Campaign,
    CampaignId,
    NewOutboxMessage,
    Phase,
    ReportWrite,
    UserId,
    WriteOutcome,
    json_of,
    standing_results,
    story_order,
)
from storage.shared import (
    SharedRecords,
    _battle_list,
    _battle_report,
    _optional_result,
)
from storage.sql import (
    Conn,
    Row,
    fetch_all,
    fetch_one,
    ts,
)


class BattleRecords(SharedRecords):
    """Battle reports and results (mixed into ``SqliteCampaignStore``)."""

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
        against: str | None = None,
    ) -> None:
        await conn.execute(
            "INSERT INTO battle_reports (battle_list_id, battle, override_json, override_by,"
            " override_at, override_against) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (battle_list_id, battle) DO UPDATE"
            " SET override_json = excluded.override_json, override_by = excluded.override_by,"
            " override_at = excluded.override_at, override_against = excluded.override_against",
            (
                list_id,
                battle,
                None if result is None else result.model_dump_json(),
                actor,
                ts(now),
                None if result is None else against,
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
        against: str | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> ReportWrite:
        """Record a participant's report, given against defender ``against``; it replaces an
        earlier one and needs a new confirm (a GM's decision made against another defender goes
        with it: the battle is fought by other sides now). ``outbox`` (the notices asking the
        other side to confirm) is queued in the same transaction: the notices exist if and
        only if the report does."""
        async with self._db.transaction() as conn:
            outcome, _, list_id = await self._report_target(conn, campaign_id, turn, result.battle)
            if list_id is None:
                return ReportWrite(outcome=outcome)
            before = await self._report_row(conn, list_id, result.battle)
            if before is not None and _override_against_other(before, against):
                await conn.execute(
                    "UPDATE battle_reports SET override_json = NULL, override_by = NULL,"
                    " override_at = NULL, override_against = NULL"
                    " WHERE battle_list_id = ? AND battle = ?",
                    (list_id, result.battle),
                )
            await conn.execute(
                "INSERT INTO battle_reports (battle_list_id, battle, reported_json, reported_by,"
                " reported_at, reported_against) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (battle_list_id, battle)"
                " DO UPDATE SET reported_json = excluded.reported_json, reported_by ="
                " excluded.reported_by, reported_at = excluded.reported_at, confirmed_by = NULL,"
                " confirmed_at = NULL, disputed_by = NULL, disputed_at = NULL,"
                " counter_json = NULL, reported_against = excluded.reported_against",
                (list_id, result.battle, result.model_dump_json(), actor, ts(now), against),
            )
            await self._report_event(conn, list_id, result.battle, "report", result, actor, now)
            for message in story_order(outbox):
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
        against: str | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> ReportWrite:
        """Confirm the reported result, only if it is still ``expected`` and was given against
        defender ``against`` (who may confirm is the caller's decision); ``outbox`` is queued
        only if it is. Confirming a confirmed result again records and queues nothing. In a
        dispute, confirming the other account (``counter``) makes it the agreed result and ends
        the dispute."""
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
            if (reported != expected and not (disputed and counter == expected)) or _other_sides(
                row, against
            ):
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
            for message in story_order(outbox):
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
        against: str | None = None,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> ReportWrite:
        """Dispute the reported result, only if it is still ``expected`` and was given against
        defender ``against``, with the disputing side's own account ``counter`` (clears a
        confirmation), for the GMs to decide; ``outbox`` is queued in the same transaction.
        The same dispute again changes nothing."""
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
            if _optional_result(row["reported_json"]) != expected or _other_sides(row, against):
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
            for message in story_order(outbox):
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
        *,
        against: str | None = None,
    ) -> ReportWrite:
        """Set (or with ``None`` clear) the GM's result for a battle of the turn being played,
        given against defender ``against``.

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
            await self._write_override(conn, list_id, battle, result, actor, now, against)
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
        """The results that count now: override > undisputed report, of battles played and
        given against the defender each has now; battles without one omitted."""
        async with self._db.snapshot() as conn:
            list_row = await self._current_list_row(conn, campaign_id, turn)
            battle_list = None if list_row is None else _battle_list(list_row)
            reports = await self._reports_in(conn, campaign_id, turn, battle_list)
        if battle_list is None:
            return []
        standing = standing_results(battle_list.battles, reports)
        return [standing.results[battle] for battle in sorted(standing.results)]


def _override_against_other(row: Row, against: str | None) -> bool:
    """Whether the row holds a GM's decision made against another defender than ``against``."""
    made_for = row["override_against"]
    return (
        row["override_json"] is not None
        and against is not None
        and made_for is not None
        and made_for != against
    )


def _other_sides(row: Row, against: str | None) -> bool:
    """Whether the row's report was given against another defender than ``against``."""
    made_for = row["reported_against"]
    return against is not None and made_for is not None and made_for != against
