"""The campaign's phase machine: one entry point, :func:`advance`, moves a campaign from the
phase it is in to the next one, whoever asks (a scheduled deadline, the GM's "advance now", the
setup's final confirm).

    setup -> deployment -> orders(1) -> battles(1) -> [resolution(1)] -> orders(2) -> ... finished

Every step is a compare-and-set on (campaign, turn, phase) in storage, so a scheduler job and
the GM pressing "advance" at the same moment move the campaign once; the loser is told it was
already done. A step that cannot happen yet says why (``BLOCKED``) and changes nothing.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from bot.modules import BOT_MODULES
from bot.services.no_shows import repeat_for_no_shows, waiting_for_gm
from bot.services.posting import board_post, group_post, private_post
from bot.services.turns import (
    FirstTurnOutcome,
    ResolveOutcome,
    begin_first_turn,
    pending_choices,
    publish_battle_list,
    resolve_and_store,
)
from rules import overrides_in_force
from storage import (
    Campaign,
    CampaignSettings,
    CampaignStatus,
    NewOutboxMessage,
    Phase,
    Role,
    Store,
    TransitionOutcome,
    TransitionResult,
)
from storage.models import SideId, UserId

MIN_SIDES = 2


class AdvanceOutcome(StrEnum):
    """What :func:`advance` did."""

    ADVANCED = "advanced"
    ALREADY_DONE = "already_done"  # someone else made this step first: nothing changed
    CONFLICT = "conflict"  # the campaign is elsewhere than the caller thought (or paused)
    BLOCKED = "blocked"  # the step cannot happen yet: ``reason`` says why
    FINISHED = "finished"  # the campaign is over: there is no next phase
    NOT_FOUND = "not_found"


class BlockReason(StrEnum):
    """Why a step cannot happen yet."""

    TOO_FEW_SIDES = "too_few_sides"  # setup needs at least two sides
    SIDES_NOT_DEPLOYED = "sides_not_deployed"  # ``sides`` lists them; the GM places them
    RESULTS_MISSING = "results_missing"  # policy "wait for the GM": ``battles`` lists them
    RESULTS_DISPUTED = "results_disputed"  # open disputes (and missing results): the GMs decide
    CHOICE_PENDING = "choice_pending"  # ``modules``' choices after deployment wait
    ORDERS_MISSING = "orders_missing"  # no-show policy "wait for the GM": ``sides`` gave none


class AdvanceResult(BaseModel):
    """The outcome, where the campaign stands now, and the details of a block."""

    model_config = ConfigDict(frozen=True)

    outcome: AdvanceOutcome
    campaign: Campaign | None
    reason: BlockReason | None = None
    sides: tuple[SideId, ...] = ()
    battles: tuple[int, ...] = ()
    disputed: tuple[int, ...] = ()
    modules: tuple[str, ...] = ()

    @property
    def advanced(self) -> bool:
        """True when this call moved the campaign."""
        return self.outcome is AdvanceOutcome.ADVANCED


def _from_transition(result: TransitionResult) -> AdvanceOutcome:
    return {
        TransitionOutcome.APPLIED: AdvanceOutcome.ADVANCED,
        TransitionOutcome.ALREADY_DONE: AdvanceOutcome.ALREADY_DONE,
        TransitionOutcome.NOT_FOUND: AdvanceOutcome.NOT_FOUND,
    }.get(result.outcome, AdvanceOutcome.CONFLICT)


def phase_notice(campaign: Campaign, turn: int, phase: Phase, step: int) -> NewOutboxMessage:
    """The group post that announces a new phase (rendered when sent, in the group's language)."""
    return group_post(
        campaign, "phase_notice", f"step:{step}:phase_notice", turn=turn, phase=phase.value
    )


def private_phase_notice(
    campaign: Campaign, user_id: UserId, turn: int, phase: Phase, step: int
) -> NewOutboxMessage:
    """A strategist's private note that a phase needs them (deployment, orders)."""
    return private_post(
        campaign,
        user_id,
        "private_phase_notice",
        f"step:{step}:private_phase_notice",
        turn=turn,
        phase=phase.value,
    )


async def _strategist_notices(
    store: Store, campaign: Campaign, turn: int, phase: Phase, step: int
) -> list[NewOutboxMessage]:
    members = [m for m in await store.members(campaign.id) if Role.STRATEGIST in m.roles]
    reachable = await store.people([m.user_id for m in members])
    return [
        private_phase_notice(campaign, member.user_id, turn, phase, step)
        for member in members
        if member.user_id in reachable and reachable[member.user_id].can_receive_private
    ]


async def advance(
    store: Store,
    campaign_id: int,
    expected_turn: int,
    expected_phase: Phase,
    actor: UserId | None,
    now: datetime,
    *,
    force: bool = False,
    post_at: datetime | None = None,
) -> AdvanceResult:
    """Move the campaign from (``expected_turn``, ``expected_phase``) to its next phase.

    ``force`` is the GM's "resolve now" while the resolution waits (open disputes, or missing
    results under the wait-for-the-GM policy): those battles then count as draws without
    losses; at the orders' close it is the GM's "close now" while the no-show policy waits for
    the GM: the sides without orders hold. The no-show policy applies at the orders' close
    (``bot.services.no_shows``). ``post_at`` holds the battle list and its notices in the
    outbox until then (orders close Thursday, the list is posted Friday). Queued posts go out
    through the outbox. The orders do not close while a rule module's choice is still to make
    (``CHOICE_PENDING``, with the ``modules`` whose choice waits; the GM makes it if the side
    has not).
    """
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return AdvanceResult(outcome=AdvanceOutcome.NOT_FOUND, campaign=None)
    if campaign.phase is Phase.FINISHED and expected_phase is Phase.FINISHED:
        return AdvanceResult(outcome=AdvanceOutcome.FINISHED, campaign=campaign)
    if (campaign.turn, campaign.phase) != (expected_turn, expected_phase):
        moved_on = (campaign.turn, _order(campaign.phase)) > (expected_turn, _order(expected_phase))
        outcome = AdvanceOutcome.ALREADY_DONE if moved_on else AdvanceOutcome.CONFLICT
        return AdvanceResult(outcome=outcome, campaign=campaign)
    if campaign.status is CampaignStatus.PAUSED:
        return AdvanceResult(outcome=AdvanceOutcome.CONFLICT, campaign=campaign)
    match campaign.phase:
        case Phase.SETUP:
            return await _open_deployment(store, campaign, actor, now)
        case Phase.DEPLOYMENT:
            return await _start_first_turn(store, campaign, actor, now)
        case Phase.ORDERS:
            if choices := await pending_choices(store, campaign):
                return AdvanceResult(
                    outcome=AdvanceOutcome.BLOCKED,
                    campaign=campaign,
                    reason=BlockReason.CHOICE_PENDING,
                    modules=tuple(dict.fromkeys(choice.module for choice in choices)),
                )
            if not force and (waiting := await waiting_for_gm(store, campaign)):
                return AdvanceResult(
                    outcome=AdvanceOutcome.BLOCKED,
                    campaign=campaign,
                    reason=BlockReason.ORDERS_MISSING,
                    sides=tuple(waiting),
                )
            await repeat_for_no_shows(store, campaign, now)
            async with store.atomic():
                result = await publish_battle_list(
                    store, campaign.id, campaign.turn, actor, now, post_at
                )
                if result.outcome is TransitionOutcome.APPLIED:
                    # A module's own steps (duel steps, MODULES.md W6) open with the list's post.
                    for module in BOT_MODULES.values():
                        await module.battle_list_published(
                            store, campaign.id, campaign.turn, post_at or now, now
                        )
            return AdvanceResult(outcome=_from_transition(result), campaign=result.campaign)
        case Phase.BATTLES | Phase.RESOLUTION:
            return await _resolve(store, campaign, actor, now, force)
        case Phase.FINISHED:
            return AdvanceResult(outcome=AdvanceOutcome.FINISHED, campaign=campaign)


_PHASE_ORDER = (
    Phase.SETUP,
    Phase.DEPLOYMENT,
    Phase.ORDERS,
    Phase.BATTLES,
    Phase.RESOLUTION,
    Phase.FINISHED,
)


def _order(phase: Phase) -> int:
    return _PHASE_ORDER.index(phase)


async def _open_deployment(
    store: Store, campaign: Campaign, actor: UserId | None, now: datetime
) -> AdvanceResult:
    sides = await store.sides(campaign.id)
    if len(sides) < MIN_SIDES:
        return AdvanceResult(
            outcome=AdvanceOutcome.BLOCKED, campaign=campaign, reason=BlockReason.TOO_FEW_SIDES
        )
    step = len(await store.phase_history(campaign.id)) + 1
    outbox = [
        phase_notice(campaign, 0, Phase.DEPLOYMENT, step),
        board_post(campaign, f"step:{step}"),
        *await _strategist_notices(store, campaign, 0, Phase.DEPLOYMENT, step),
    ]
    in_force = overrides_in_force(campaign.ruleset_overrides)
    async with store.atomic():
        if in_force != campaign.ruleset_overrides:
            # The wizard kept the settings of a module the GM switched off, for switching it
            # back on; the campaign is played (and exported) without them.
            await store.update_settings(
                campaign.id,
                CampaignSettings(ruleset_overrides=in_force),
                actor if actor is not None else campaign.created_by,
                now,
                "the settings of modules switched off are dropped",
            )
        result = await store.transition(
            campaign.id,
            0,
            Phase.SETUP,
            0,
            Phase.DEPLOYMENT,
            actor,
            "deployment opened",
            now,
            new_status=CampaignStatus.DEPLOYMENT,
            outbox=outbox,
        )
    return AdvanceResult(outcome=_from_transition(result), campaign=result.campaign)


async def _start_first_turn(
    store: Store,
    campaign: Campaign,
    actor: UserId | None,
    now: datetime,
) -> AdvanceResult:
    step = len(await store.phase_history(campaign.id)) + 1
    notices = await _strategist_notices(store, campaign, 1, Phase.ORDERS, step)
    started = await begin_first_turn(store, campaign.id, actor, now, notices)
    if started.outcome is FirstTurnOutcome.MISSING_PLACEMENTS:
        return AdvanceResult(
            outcome=AdvanceOutcome.BLOCKED,
            campaign=campaign,
            reason=BlockReason.SIDES_NOT_DEPLOYED,
            sides=started.missing,
        )
    if started.transition is None:
        return AdvanceResult(outcome=AdvanceOutcome.CONFLICT, campaign=campaign)
    return AdvanceResult(
        outcome=_from_transition(started.transition), campaign=started.transition.campaign
    )


async def _resolve(
    store: Store,
    campaign: Campaign,
    actor: UserId | None,
    now: datetime,
    force: bool,
) -> AdvanceResult:
    # The new turn's entry: two steps on from battles, one from a resolution (one that waited
    # for results, or was cut between its two transactions), so its keys are the same either way.
    ahead = 2 if campaign.phase is Phase.BATTLES else 1
    step = len(await store.phase_history(campaign.id)) + ahead
    notices = await _strategist_notices(store, campaign, campaign.turn + 1, Phase.ORDERS, step)
    # A module's steps still open at the resolution close with nothing played (W6).
    for module in BOT_MODULES.values():
        await module.before_resolution(store, campaign, now)
    resolved = await resolve_and_store(
        store,
        campaign.id,
        campaign.turn,
        actor,
        now,
        force=force,
        notices=notices,
    )
    after = await store.campaign(campaign.id)
    match resolved.outcome:
        case ResolveOutcome.RESOLVED:
            return AdvanceResult(outcome=AdvanceOutcome.ADVANCED, campaign=after)
        case ResolveOutcome.WAITING_FOR_RESULTS:
            return AdvanceResult(
                outcome=AdvanceOutcome.BLOCKED,
                campaign=after,
                reason=(
                    BlockReason.RESULTS_DISPUTED
                    if resolved.disputed
                    else BlockReason.RESULTS_MISSING
                ),
                battles=tuple(sorted({*resolved.unreported, *resolved.disputed})),
                disputed=resolved.disputed,
            )
        case ResolveOutcome.ALREADY_DONE:
            return AdvanceResult(outcome=AdvanceOutcome.ALREADY_DONE, campaign=after)
        case ResolveOutcome.NOT_FOUND:
            return AdvanceResult(outcome=AdvanceOutcome.NOT_FOUND, campaign=after)
        case ResolveOutcome.CONFLICT:
            return AdvanceResult(outcome=AdvanceOutcome.CONFLICT, campaign=after)
