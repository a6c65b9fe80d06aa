"""The records of rule module ``siege`` (MODULES.md S8): each side's reward claim once the
campaign has finished, and the GM's choice of variant at each place that needs one (table
``reward_claims``, migrations 0007 and 0008).

Storage computes nothing of the rules: the service (``bot.modules.siege.rewards``) prices and
checks a claim with the rules core; storage records it once, with the same compare-and-set habits
as the rest of the store.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from storage.dialect import INTEGRITY_ERRORS
from storage.models import (
    AuditAction,
    CampaignId,
    CampaignStatus,
    NewOutboxMessage,
    SideId,
    UserId,
    WriteOutcome,
    story_order,
)
from storage.shared import SharedRecords
from storage.sql import Row, Transactions, dt, dump_json, fetch_all, fetch_one, may_violate, ts


class RewardClaimRecord(BaseModel):
    """A side's claim of rewards (item ids, repeats allowed) with its VP."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    campaign_id: CampaignId
    side_id: SideId
    items: tuple[str, ...]
    total: int
    vp: int
    claimed_by: UserId
    claimed_at: AwareDatetime
    choices: dict[int, int] = Field(default_factory=dict)
    """The GM's choice at each place of ``items`` that needed one (S8): a variant's index, or
    -1 for an item that lists none."""


def _claim_record(row: Row) -> RewardClaimRecord:
    """A ``reward_claims`` row as a record."""
    return RewardClaimRecord(
        campaign_id=row["campaign_id"],
        side_id=row["side_id"],
        items=tuple(json.loads(row["items_json"])),
        total=row["total"],
        vp=row["vp"],
        claimed_by=row["claimed_by"],
        claimed_at=dt(row["claimed_at"]),
        choices={int(place): int(v) for place, v in json.loads(row["choices_json"]).items()},
    )


class RewardStore(Protocol):
    """The module's rewards in the store."""

    async def claim_rewards(
        self,
        campaign_id: CampaignId,
        side_id: SideId,
        items: Sequence[str],
        total: int,
        vp: int,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> WriteOutcome: ...
    async def reward_claims(self, campaign_id: CampaignId) -> dict[SideId, RewardClaimRecord]: ...
    async def choose_reward(
        self,
        campaign_id: CampaignId,
        side_id: SideId,
        place: int,
        variant: int,
        needed: Sequence[int],
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> WriteOutcome: ...


class RewardRecords(SharedRecords):
    """:class:`RewardStore` on the campaign file (mixed into ``SqlCampaignStore``)."""

    _db: Transactions

    async def claim_rewards(
        self,
        campaign_id: CampaignId,
        side_id: SideId,
        items: Sequence[str],
        total: int,
        vp: int,
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> WriteOutcome:
        """Record a side's reward claim (checked by the caller) once the campaign has finished;
        a side claims once (``CONFLICT`` for a second claim). Audited."""
        async with self._db.transaction() as conn:
            campaign = await self._campaign_in(conn, campaign_id)
            if campaign is None:
                return WriteOutcome.NOT_FOUND
            if campaign.status is not CampaignStatus.FINISHED:
                return WriteOutcome.PHASE_CLOSED
            side = await fetch_one(
                conn, "SELECT 1 FROM sides WHERE campaign_id = ? AND id = ?", (campaign_id, side_id)
            )
            if side is None:
                return WriteOutcome.UNKNOWN_SIDE
            try:
                async with may_violate(conn):
                    await conn.execute(
                        "INSERT INTO reward_claims (campaign_id, side_id, items_json, total, vp,"
                        " claimed_by, claimed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (campaign_id, side_id, dump_json(list(items)), total, vp, actor, ts(now)),
                    )
            except INTEGRITY_ERRORS:
                return WriteOutcome.CONFLICT
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.REWARDS_CLAIMED,
                None,
                {"side": side_id, "items": list(items), "total": total, "vp": vp},
                now,
            )
            for message in story_order(outbox):
                await self._enqueue_in(conn, message, now)
        return WriteOutcome.SAVED

    async def reward_claims(self, campaign_id: CampaignId) -> dict[SideId, RewardClaimRecord]:
        """Every side's reward claim."""
        async with self._db.snapshot() as conn:
            rows = await fetch_all(
                conn, "SELECT * FROM reward_claims WHERE campaign_id = ?", (campaign_id,)
            )
        return {row["side_id"]: _claim_record(row) for row in rows}

    async def choose_reward(
        self,
        campaign_id: CampaignId,
        side_id: SideId,
        place: int,
        variant: int,
        needed: Sequence[int],
        actor: UserId,
        now: datetime,
        outbox: Sequence[NewOutboxMessage] = (),
    ) -> WriteOutcome:
        """Record the GM's choice ``variant`` (checked by the caller) at ``place`` of a side's
        claim: ``NOT_FOUND`` without a claim, ``CONFLICT`` when that place is chosen already (a
        choice is final). ``outbox`` is queued only once every place of ``needed`` has its
        choice, in the same transaction (two GMs choosing at once announce it once). Audited."""
        async with self._db.transaction() as conn:
            campaign = await self._campaign_in(conn, campaign_id)
            row = await fetch_one(
                conn,
                "SELECT * FROM reward_claims WHERE campaign_id = ? AND side_id = ?",
                (campaign_id, side_id),
            )
            if campaign is None or row is None:
                return WriteOutcome.NOT_FOUND
            claim = _claim_record(row)
            if not 0 <= place < len(claim.items):
                return WriteOutcome.NOT_FOUND
            if place in claim.choices:
                return WriteOutcome.CONFLICT
            choices = {**claim.choices, place: variant}
            await conn.execute(
                "UPDATE reward_claims SET choices_json = ? WHERE campaign_id = ? AND side_id = ?",
                (
                    dump_json({str(key): value for key, value in sorted(choices.items())}),
                    campaign_id,
                    side_id,
                ),
            )
            await self._audit(
                conn,
                campaign,
                actor,
                AuditAction.REWARD_CHOSEN,
                None,
                {"side": side_id, "place": place, "item": claim.items[place], "variant": variant},
                now,
            )
            if set(needed) <= set(choices):
                for message in story_order(outbox):
                    await self._enqueue_in(conn, message, now)
        return WriteOutcome.SAVED
