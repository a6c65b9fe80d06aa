"""The GM's time tools as services: pause, resume, extend the deadline, advance now; and the
proposals that show a GM what an extension or a pause moves before they confirm it.

Each tool is one compare-and-set in storage, audited there, with its group announcement queued in
the same transaction. Time bends on the campaign's wall clock (``bot.services.deadlines``): an
extension of N hours moves the deadline to the same local time N hours later, and resume moves
it by as long as the pause lasted on that clock, both across a daylight-saving change; either
move sets the phase's reminders that now lie ahead going again, and moves a module's open and
waiting steps (duel steps) as much (``BotModule.shift_steps``). An extension is
capped by the schedule's ``max_extension_hours`` per phase in all. "Advance now" is the phase
machine with the GM as actor: racing a due job, the campaign moves once.

An extension or a pause asked for in the group is first a stored :class:`ClockProposal`: the
bot shows the dates it moves and waits. Confirming re-reads it, refuses it once the clock moved
since (the dates shown would be wrong), acts, and records the answer in the same transaction,
so a confirmation pressed twice acts once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.modules import BOT_MODULES
from bot.services.calendars import calendar_updates
from bot.services.clockwork import AdvanceResult, advance
from bot.services.deadlines import (
    Milestone,
    Planned,
    WindowChange,
    moved,
    phase_deadline,
    plan_ahead,
    reminder_times,
    wall_between,
    wall_shift,
    window_changes,
)
from bot.services.deployment import sides_to_place
from bot.services.no_shows import no_show_sides
from bot.services.posting import board_post, group_post
from bot.services.schedule import sides_in_play, sync_clock
from bot.services.window import held_by, orders_opening, position_mark
from storage import (
    Campaign,
    CampaignStatus,
    ClockNoteKind,
    ClockProposal,
    ClockState,
    DeadlineMove,
    ExtendOutcome,
    ExtendResult,
    NewClockProposal,
    Phase,
    ProposalAction,
    ProposalOutcome,
    Store,
    TransitionOutcome,
    TransitionResult,
)
from storage.models import SideId, UserId

_PAUSABLE = (CampaignStatus.DEPLOYMENT, CampaignStatus.RUNNING)
_OWN_MOMENTS = {
    Phase.DEPLOYMENT: frozenset({Milestone.DEPLOYMENT_ENDS}),
    Phase.ORDERS: frozenset({Milestone.ORDERS_OPEN, Milestone.ORDERS_CLOSE}),
    Phase.BATTLES: frozenset({Milestone.RESOLUTION}),
}
"""The moments of each phase a pause holds: its deadline and (orders) a pending opening."""


def _stamp(now: datetime) -> str:
    return now.isoformat(timespec="microseconds")


def _rearmed(
    clock: ClockState, deadline: datetime | None, zone: ZoneInfo, now: datetime
) -> tuple[str, ...]:
    """The reminders of the clock's phase due again before ``deadline``: those still ahead."""
    return tuple(
        kind
        for kind, moment in reminder_times(clock.phase, clock.anchor, deadline, zone)
        if moment > now
    )


def _results(clock: ClockState, deadline: datetime | None) -> datetime | None:
    """``deadline`` if it is the results deadline (the clock counts the battles phase)."""
    return deadline if clock.phase is Phase.BATTLES else None


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
    """Resume a paused campaign; its deadline (and a pending orders opening) moves later by as
    long as the pause lasted on the campaign's wall clock."""
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return TransitionResult(
            outcome=TransitionOutcome.NOT_FOUND, campaign=None, message=f"no campaign {campaign_id}"
        )
    zone = ZoneInfo(campaign.time_zone)
    notice = group_post(campaign, "clock_resumed", f"resumed:{_stamp(now)}", by=actor)
    board = board_post(campaign, f"resumed:{_stamp(now)}")
    calendars = await calendar_updates(store, campaign, f"resumed:{_stamp(now)}")
    async with store.atomic():
        clock = await store.clock_state(campaign_id)
        if clock is None or clock.paused_at is None:
            return await store.resume_clock(
                campaign_id, actor, reason, now, [notice, board, *calendars]
            )
        paused = wall_between(clock.paused_at, now, zone)
        after = None if clock.deadline is None else wall_shift(clock.deadline, paused, zone)
        move = DeadlineMove(
            before=clock.deadline, after=after, rearm=_rearmed(clock, after, zone, now)
        )
        resumed = await store.resume_clock(
            campaign_id,
            actor,
            reason,
            now,
            [notice, board, *calendars],
            paused_at=clock.paused_at,
            paused_seconds=int(paused.total_seconds()),
            move=move,
        )
        if resumed.applied:
            for module in BOT_MODULES.values():
                await module.shift_steps(store, campaign, paused, _results(clock, after), now)
        return resumed


async def extend(
    store: Store,
    campaign_id: int,
    hours: int,
    actor: UserId,
    now: datetime,
    request: str | None = None,
) -> ExtendResult:
    """Move the current phase's deadline ``hours`` later on the campaign's wall clock, within
    ``max_extension_hours``. ``request`` names the GM's message, press or confirmation (e.g.
    ``message:<chat>:<id>``): taken once however often it is delivered."""
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return ExtendResult(outcome=ExtendOutcome.STALE, clock=None)
    zone = ZoneInfo(campaign.time_zone)
    clock = await sync_clock(store, campaign, now)
    if await _passed_and_held(store, campaign, clock, now):
        return ExtendResult(outcome=ExtendOutcome.PASSED, clock=clock)
    after = (
        None if clock.deadline is None else wall_shift(clock.deadline, timedelta(hours=hours), zone)
    )
    key = f"extended:{_stamp(now) if request is None else request}"
    notice = group_post(
        campaign,
        "deadline_extended",
        key,
        turn=campaign.turn,
        phase=campaign.phase.value,
        hours=hours,
        before=None if clock.deadline is None else clock.deadline.isoformat(),
    )
    outbox = [notice, board_post(campaign, key), *await calendar_updates(store, campaign, key)]
    async with store.atomic():
        extended = await store.extend_deadline(
            campaign_id,
            clock.entry_seq,
            hours,
            campaign.schedule.max_extension_hours,
            DeadlineMove(
                before=clock.deadline, after=after, rearm=_rearmed(clock, after, zone, now)
            ),
            actor,
            now,
            outbox,
            request=None if request is None else f"campaign:{campaign_id}:{key}",
        )
        if extended.outcome is ExtendOutcome.EXTENDED:
            for module in BOT_MODULES.values():
                await module.shift_steps(
                    store, campaign, timedelta(hours=hours), _results(clock, after), now
                )
    return extended


async def _passed_and_held(
    store: Store, campaign: Campaign, clock: ClockState, now: datetime
) -> bool:
    """The deadline has passed and its step is blocked (sides not placed, results missing):
    moved later from the past, it would still be past, and the phase waits either way."""
    if clock.deadline is None or clock.deadline >= now:
        return False
    return await held_by(store, campaign, clock.entry_seq) is not None


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
            ),
            *await calendar_updates(
                store, after, f"advanced:{expected_turn}:{expected_phase.value}:{_stamp(now)}"
            ),
        ],
    )
    return result


# ---- "advance now": what it ends and what that costs, asked first -------------------------------


@dataclass(frozen=True)
class AdvanceQuestion:
    """What the GM's "advance now" would end, worked out when the GM asks: the phase (turn and
    phase of the campaign then), the ``mark`` of that moment (``window.position_mark``: a
    confirmation made for it is refused once the campaign moved, even back by an undo), and the
    cost. Deployment: sides in all and those that confirmed their placement (``missing``: the
    sides not placed, which block it). Orders: sides in play, those that gave orders (``ready``:
    confirmed; ``silent``: none, which meet the no-show policy), and whether the window has not
    opened yet. Battles: battles on the list, those with a result, those disputed. ``then``: the
    deadline of what follows if advanced now (the next orders close; the results deadline)."""

    campaign: Campaign
    mark: int
    sides: int = 0
    ready: int = 0
    given: int = 0
    missing: tuple[SideId, ...] = ()
    silent: tuple[SideId, ...] = ()
    not_open: bool = False
    battles: int = 0
    results: int = 0
    disputed: tuple[int, ...] = ()
    then: datetime | None = None
    names: Mapping[SideId, str] = field(default_factory=dict)  # every side's name, by id


async def advance_question(store: Store, campaign: Campaign, now: datetime) -> AdvanceQuestion:
    """What advancing ``campaign`` now ends and costs (:class:`AdvanceQuestion`)."""
    mark = position_mark(await store.phase_history(campaign.id))
    zone = ZoneInfo(campaign.time_zone)
    schedule = campaign.schedule
    sides = await store.sides(campaign.id)
    names = {side.id: side.name for side in sides}
    match campaign.phase:
        case Phase.DEPLOYMENT:
            placements = await store.placements(campaign.id)
            missing = tuple(side.id for side in sides_to_place(sides, placements))
            return AdvanceQuestion(
                campaign,
                mark,
                sides=len(sides),
                ready=len(sides) - len(missing),
                missing=missing,
                then=phase_deadline(Phase.ORDERS, now, schedule, zone),
                names=names,
            )
        case Phase.ORDERS:
            in_play = await sides_in_play(store, campaign)
            orders = await store.orders_for_turn(campaign.id, campaign.turn)
            silent = tuple(await no_show_sides(store, campaign))
            ready = [side for side in in_play if side in orders and orders[side].ready]
            return AdvanceQuestion(
                campaign,
                mark,
                sides=len(in_play),
                ready=len(ready),
                given=len(in_play) - len(silent),
                silent=silent,
                not_open=await orders_opening(store, campaign, now) is not None,
                then=phase_deadline(Phase.BATTLES, now, schedule, zone),
                names=names,
            )
        case Phase.BATTLES | Phase.RESOLUTION:
            inputs = await store.turn_inputs(campaign.id, campaign.turn)
            listed = () if inputs.battle_list is None else inputs.battle_list.battles
            return AdvanceQuestion(
                campaign,
                mark,
                battles=len(listed),
                results=len(inputs.results),
                disputed=inputs.disputed,
                then=phase_deadline(Phase.ORDERS, now, schedule, zone),
            )
        case _:
            return AdvanceQuestion(campaign, mark)


# ---- proposals: the dates first, then the GM confirms ------------------------------------------


class ProposalRefusal(StrEnum):
    """Why an extension or a pause cannot even be proposed."""

    GONE = "gone"  # no such campaign
    NO_DEADLINE = "no_deadline"  # manual mode, or a phase without a deadline
    PASSED = "passed"  # the deadline has passed and its step waits: an extension gives no time
    OVER_LIMIT = "over_limit"  # the phase's extensions would pass ``max_extension_hours``
    PAUSED = "paused"  # an extension while paused: resume first (the dates are not known)
    NOT_RUNNING = "not_running"  # a pause of a campaign that is paused, in setup or over


@dataclass(frozen=True)
class Proposed:
    """A stored proposal and what it moves: for an extension every moment that moves (old,
    new); for a pause the moments it holds (they move later by as long as it lasts)."""

    campaign: Campaign | None
    proposal: ClockProposal | None = None
    refusal: ProposalRefusal | None = None
    changes: tuple[tuple[Planned, Planned], ...] = ()
    windows: tuple[WindowChange, ...] = ()  # orders windows the extension shrinks or keeps
    held: tuple[Planned, ...] = ()
    used_hours: int = 0


async def propose_extension(
    store: Store,
    campaign_id: int,
    hours: int,
    actor: UserId,
    now: datetime,
    request: str | None = None,
) -> Proposed:
    """Work out what extending the current deadline by ``hours`` moves (the close, and what
    follows it: the battle list, the resolution, the next turn) and keep it as a proposal."""
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return Proposed(campaign=None, refusal=ProposalRefusal.GONE)
    if campaign.status is CampaignStatus.PAUSED:
        return Proposed(campaign=campaign, refusal=ProposalRefusal.PAUSED)
    clock = await sync_clock(store, campaign, now)
    if clock.deadline is None or campaign.status not in _PAUSABLE:
        return Proposed(campaign=campaign, refusal=ProposalRefusal.NO_DEADLINE)
    if await _passed_and_held(store, campaign, clock, now):
        return Proposed(campaign=campaign, refusal=ProposalRefusal.PASSED)
    if clock.extension_hours + hours > campaign.schedule.max_extension_hours:
        return Proposed(
            campaign=campaign,
            refusal=ProposalRefusal.OVER_LIMIT,
            used_hours=clock.extension_hours,
        )
    zone = ZoneInfo(campaign.time_zone)
    opening = await orders_opening(store, campaign, now)
    deadline = wall_shift(clock.deadline, timedelta(hours=hours), zone)
    turn, phase, schedule = campaign.turn, campaign.phase, campaign.schedule
    before = plan_ahead(turn, phase, clock.deadline, opening, schedule, zone)
    after = plan_ahead(turn, phase, deadline, opening, schedule, zone)
    proposal = await store.propose_clock_change(
        NewClockProposal(
            campaign_id=campaign.id,
            entry_seq=clock.entry_seq,
            action=ProposalAction.EXTEND,
            hours=hours,
            deadline=clock.deadline,
            basis=clock.basis,
            proposed_by=actor,
            request=None if request is None else f"campaign:{campaign.id}:{request}",
        ),
        now,
    )
    return Proposed(
        campaign=campaign,
        proposal=proposal,
        changes=tuple(moved(before, after)),
        windows=tuple(window_changes(before, after, zone)),
        used_hours=clock.extension_hours,
    )


async def propose_pause(
    store: Store, campaign_id: int, actor: UserId, now: datetime, request: str | None = None
) -> Proposed:
    """Work out which moments a pause holds (the deadline, a pending orders opening) and keep
    it as a proposal."""
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return Proposed(campaign=None, refusal=ProposalRefusal.GONE)
    if campaign.status not in _PAUSABLE:
        return Proposed(campaign=campaign, refusal=ProposalRefusal.NOT_RUNNING)
    clock = await sync_clock(store, campaign, now)
    zone = ZoneInfo(campaign.time_zone)
    opening = await orders_opening(store, campaign, now)
    plan = plan_ahead(
        campaign.turn, campaign.phase, clock.deadline, opening, campaign.schedule, zone
    )
    own = _OWN_MOMENTS.get(campaign.phase, frozenset())
    held = tuple(item for item in plan if item.turn == campaign.turn and item.milestone in own)
    proposal = await store.propose_clock_change(
        NewClockProposal(
            campaign_id=campaign.id,
            entry_seq=clock.entry_seq,
            action=ProposalAction.PAUSE,
            deadline=clock.deadline,
            basis=clock.basis,
            proposed_by=actor,
            request=None if request is None else f"campaign:{campaign.id}:{request}",
        ),
        now,
    )
    return Proposed(campaign=campaign, proposal=proposal, held=held)


class ConfirmOutcome(StrEnum):
    """What confirming (or cancelling) a proposal did."""

    DONE = "done"
    CANCELLED = "cancelled"
    ANSWERED = "answered"  # it had an answer already: nothing more was done
    STALE = "stale"  # the clock moved since the dates were shown: nothing was done
    REFUSED = "refused"  # the tool refused it (e.g. over the extension limit meanwhile)
    NOT_FOUND = "not_found"


@dataclass(frozen=True)
class Confirmation:
    """The outcome, the proposal as it now stands, and the tool's own result."""

    outcome: ConfirmOutcome
    proposal: ClockProposal | None = None
    extended: ExtendResult | None = None
    paused: TransitionResult | None = None


def _stale(proposal: ClockProposal, campaign: Campaign, clock: ClockState) -> bool:
    """Whether the clock moved since the proposal's dates were worked out."""
    return (
        campaign.status not in _PAUSABLE
        or clock.entry_seq != proposal.entry_seq
        or clock.deadline != proposal.deadline
        or clock.basis != proposal.basis
    )


async def confirm(store: Store, proposal_id: int, actor: UserId, now: datetime) -> Confirmation:
    """Carry out a proposal the GM confirmed, once: refused as stale when the campaign moved
    on or its deadline moved since the dates were shown. The caller checked ``actor`` is a GM
    of the proposal's campaign."""
    async with store.atomic():
        proposal = await store.clock_proposal(proposal_id)
        if proposal is None:
            return Confirmation(ConfirmOutcome.NOT_FOUND)
        if proposal.outcome is not None:
            return Confirmation(ConfirmOutcome.ANSWERED, proposal)
        campaign = await store.campaign(proposal.campaign_id)
        if campaign is None:
            return Confirmation(ConfirmOutcome.NOT_FOUND, proposal)
        clock = await sync_clock(store, campaign, now)
        if _stale(proposal, campaign, clock):
            await store.decide_clock_proposal(proposal.id, ProposalOutcome.STALE, actor, now)
            return Confirmation(ConfirmOutcome.STALE, await store.clock_proposal(proposal.id))
        extended = paused = None
        if proposal.action is ProposalAction.EXTEND:
            extended = await extend(
                store, campaign.id, proposal.hours, actor, now, f"proposal:{proposal.id}"
            )
            done = extended.outcome is ExtendOutcome.EXTENDED
        else:
            paused = await pause(store, campaign.id, actor, now)
            done = paused.applied
        outcome = ProposalOutcome.CONFIRMED if done else ProposalOutcome.REFUSED
        await store.decide_clock_proposal(proposal.id, outcome, actor, now)
        return Confirmation(
            ConfirmOutcome.DONE if done else ConfirmOutcome.REFUSED,
            await store.clock_proposal(proposal.id),
            extended,
            paused,
        )


async def cancel(store: Store, proposal_id: int, actor: UserId, now: datetime) -> Confirmation:
    """The GM said no: the proposal ends without doing anything (a later "yes" is refused)."""
    proposal = await store.clock_proposal(proposal_id)
    if proposal is None:
        return Confirmation(ConfirmOutcome.NOT_FOUND)
    if not await store.decide_clock_proposal(proposal_id, ProposalOutcome.CANCELLED, actor, now):
        return Confirmation(ConfirmOutcome.ANSWERED, await store.clock_proposal(proposal_id))
    return Confirmation(ConfirmOutcome.CANCELLED, await store.clock_proposal(proposal_id))
