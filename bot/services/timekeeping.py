"""The GM's time tools as services: pause, resume, extend the deadline, advance now.

Each is one compare-and-set in storage, audited there, with its group announcement queued in
the same transaction. A pause stops the clock (the scheduler runs nothing while paused) and
resume moves the deadline by the time paused; an extension moves the current deadline, up to
the schedule's ``max_extension_hours`` per phase in all. "Advance now" is the phase machine
with the GM as actor: racing a due job, the campaign moves once.
"""

from __future__ import annotations

from datetime import datetime

from bot.services.clockwork import AdvanceResult, advance
from bot.services.posting import board_post, group_post
from bot.services.schedule import sync_clock
from storage import (
    ClockNoteKind,
    ExtendOutcome,
    ExtendResult,
    Phase,
    Store,
    TransitionOutcome,
    TransitionResult,
)
from storage.models import UserId


def _stamp(now: datetime) -> str:
    return now.isoformat(timespec="microseconds")


async def pause(
    store: Store, campaign_id: int, actor: UserId, now: datetime, reason: str = ""
) -> TransitionResult:
    """Pause the campaign's clock; nothing runs until :func:`resume`."""
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return TransitionResult(
            outcome=TransitionOutcome.NOT_FOUND, campaign=None, message=f"no campaign {campaign_id}"
        )
    await sync_clock(store, campaign, now)
    notice = group_post(campaign, "clock_paused", f"paused:{_stamp(now)}", by=actor)
    board = board_post(campaign, f"paused:{_stamp(now)}")
    return await store.pause_clock(campaign_id, actor, reason, now, [notice, board])


async def resume(
    store: Store, campaign_id: int, actor: UserId, now: datetime, reason: str = ""
) -> TransitionResult:
    """Resume a paused campaign; its deadline moves by the time it was paused."""
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return TransitionResult(
            outcome=TransitionOutcome.NOT_FOUND, campaign=None, message=f"no campaign {campaign_id}"
        )
    notice = group_post(campaign, "clock_resumed", f"resumed:{_stamp(now)}", by=actor)
    board = board_post(campaign, f"resumed:{_stamp(now)}")
    return await store.resume_clock(campaign_id, actor, reason, now, [notice, board])


async def extend(
    store: Store,
    campaign_id: int,
    hours: int,
    actor: UserId,
    now: datetime,
    request: str | None = None,
) -> ExtendResult:
    """Move the current phase's deadline ``hours`` later, within ``max_extension_hours``.
    ``request`` names the GM's message or press (e.g. ``message:<chat>:<id>``): taken once
    however often it is delivered."""
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return ExtendResult(outcome=ExtendOutcome.STALE, clock=None)
    clock = await sync_clock(store, campaign, now)
    key = f"extended:{_stamp(now) if request is None else request}"
    notice = group_post(
        campaign,
        "deadline_extended",
        key,
        turn=campaign.turn,
        phase=campaign.phase.value,
        hours=hours,
    )
    return await store.extend_deadline(
        campaign_id,
        clock.entry_seq,
        hours,
        campaign.schedule.max_extension_hours,
        actor,
        now,
        [notice, board_post(campaign, key)],
        request=None if request is None else f"campaign:{campaign_id}:{key}",
    )


async def advance_now(
    store: Store,
    campaign_id: int,
    expected_turn: int,
    expected_phase: Phase,
    actor: UserId,
    now: datetime,
    *,
    force: bool = False,
) -> AdvanceResult:
    """The GM's "advance now": the next step at once; the new phase's deadline counts from now.

    Only the caller that moved the campaign records and announces it."""
    result = await advance(
        store, campaign_id, expected_turn, expected_phase, actor, now, force=force
    )
    if not result.advanced:
        return result
    after = await store.campaign(campaign_id)
    if after is None:
        return result
    await sync_clock(store, after, now)
    await store.note_clock(
        campaign_id,
        ClockNoteKind.ADVANCED,
        expected_turn,
        expected_phase,
        None,
        actor,
        {"to_turn": after.turn, "to_phase": after.phase.value, "forced": force},
        now,
        outbox=[
            group_post(
                after,
                "gm_advanced",
                f"advanced:{expected_turn}:{expected_phase.value}:{_stamp(now)}",
                turn=after.turn,
                phase=after.phase.value,
                by=actor,
            )
        ],
    )
    return result
