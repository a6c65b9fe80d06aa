"""Turn steps that need both the rules core and storage: start, battle list, resolution,
correction, undo.

Pure async functions over a :class:`~storage.CampaignStore`: no Telegram, no clock (``now`` is
passed in). Storage gives atomic primitives (compare-and-set on the campaign's clock, one
transaction per step); the rules core computes. Every step queues its public posts in the same
transaction as the change they announce, under a key that names the step, so a retried step
neither loses nor doubles a post.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, JsonValue

from bot.services.deployment import sides_to_place
from bot.services.posting import board_post, group_post, held_until, private_post
from bot.services.records import summary_post
from rules import (
    BattleResult,
    Game,
    Ruleset,
    RulesModule,
    TurnResolution,
    builtin_map,
    check_results,
    deployed_state,
    plan_battles,
    resolve_turn,
)
from storage import (
    Campaign,
    CampaignStatus,
    CampaignStore,
    CorrectionOutcome,
    CorrectionResult,
    NewOutboxMessage,
    Phase,
    Role,
    Store,
    TransitionOutcome,
    TransitionResult,
    TurnInputs,
    UnreportedPolicy,
)
from storage.models import SideId, UserId


def game_for(campaign: Campaign, modules: Iterable[RulesModule] = ()) -> Game:
    """The campaign's fixed rules: its map (built-in or its own) and its ruleset overrides."""
    campaign_map = builtin_map(campaign.map) if isinstance(campaign.map, str) else campaign.map
    return Game.create(campaign_map, Ruleset.with_overrides(campaign.ruleset_overrides), modules)


class FirstTurnOutcome(StrEnum):
    """What :func:`begin_first_turn` did."""

    STARTED = "started"
    MISSING_PLACEMENTS = "missing_placements"  # tell the GM; never place a side silently
    NOT_STARTED = "not_started"  # the clock did not move: see ``transition``


class FirstTurnResult(BaseModel):
    """The outcome of starting turn 1, the sides still to deploy, and the clock change."""

    model_config = ConfigDict(frozen=True)

    outcome: FirstTurnOutcome
    missing: tuple[SideId, ...] = ()
    transition: TransitionResult | None = None


async def begin_first_turn(
    store: CampaignStore,
    campaign_id: int,
    actor: UserId | None,
    now: datetime,
    modules: Iterable[RulesModule] = (),
    notices: Sequence[NewOutboxMessage] = (),
) -> FirstTurnResult:
    """End deployment: build turn 1's state from every side's placement and open the orders.

    Sides are in the order they were added (it numbers battles). If a side has not deployed
    (no placement, or only an unconfirmed draft from the +/- screen), nothing moves and the
    missing sides are named (the GM places them or accepts the default).
    A stored placement that breaks the deployment rules raises ``rules.DeploymentError``.
    ``notices`` (the strategists' "orders are open") are queued in the same transaction.
    """
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return FirstTurnResult(outcome=FirstTurnOutcome.NOT_STARTED)
    sides = await store.sides(campaign_id)
    placements = await store.placements(campaign_id)
    missing = tuple(side.id for side in sides_to_place(sides, placements))
    if missing:
        return FirstTurnResult(outcome=FirstTurnOutcome.MISSING_PLACEMENTS, missing=missing)
    state = deployed_state(
        game_for(campaign, modules), {side.id: placements[side.id].placement for side in sides}
    )
    step = len(await store.phase_history(campaign_id)) + 1
    transition = await store.transition(
        campaign_id,
        0,
        Phase.DEPLOYMENT,
        1,
        Phase.ORDERS,
        actor,
        "deployment closed",
        now,
        new_status=CampaignStatus.RUNNING,
        turn_start=state,
        outbox=[
            group_post(campaign, "map", f"step:{step}:map", turn=1),
            board_post(campaign, f"step:{step}"),
            *notices,
        ],
    )
    outcome = FirstTurnOutcome.STARTED if transition.applied else FirstTurnOutcome.NOT_STARTED
    return FirstTurnResult(outcome=outcome, transition=transition)


async def publish_battle_list(
    store: CampaignStore,
    campaign_id: int,
    turn: int,
    actor: UserId | None,
    now: datetime,
    modules: Iterable[RulesModule] = (),
    post_at: datetime | None = None,
) -> TransitionResult:
    """Close the orders window: plan the battles from the stored orders, publish the list to the
    group, tell each participating side's players their battles, and tell the strategists of a
    side whose orders were dropped (RULES 3.2: an order the rules refuse now, e.g. after a GM
    correction changed the turn's start) which orders and why, all in one step. With
    ``post_at`` (the Friday moment), the list and the notices wait until then in the outbox."""
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return TransitionResult(
            outcome=TransitionOutcome.NOT_FOUND, campaign=None, message=f"no campaign {campaign_id}"
        )
    if (campaign.turn, campaign.phase) != (turn, Phase.ORDERS):
        # Nothing to plan: the compare-and-set says whether it was done already or is a conflict.
        return await store.publish_battles(campaign_id, turn, (), (), actor, now)
    inputs = await store.turn_inputs(campaign_id, turn)
    plan = plan_battles(game_for(campaign, modules), inputs.state, inputs.orders)
    step = len(await store.phase_history(campaign_id)) + 1
    outbox = [
        held_until(
            group_post(campaign, "battle_list", f"step:{step}:battle_list", turn=turn), post_at
        ),
        board_post(campaign, f"step:{step}"),
        # The board shows the battle count once the list is public: refreshed after it, in
        # this same transaction (a refresh queued when the list is sent could be lost).
        held_until(board_post(campaign, f"step:{step}:battle_list"), post_at),
    ]
    members = await store.members(campaign_id)
    fighting = {side for battle in plan.battles for side in battle.participants()}
    for member in members:
        if member.side_id in fighting and member.roles & {Role.TACTICIAN, Role.STRATEGIST}:
            notice = private_post(
                campaign,
                member.user_id,
                "battle_notice",
                f"step:{step}:battle_notice",
                turn=turn,
                side=member.side_id,
            )
            outbox.append(held_until(notice, post_at))
    dropped = {rejection.side for rejection in plan.rejected}
    for member in members:
        if member.side_id in dropped and Role.STRATEGIST in member.roles:
            notice = private_post(
                campaign,
                member.user_id,
                "orders_dropped",
                f"step:{step}:orders_dropped",
                turn=turn,
                side=member.side_id,
            )
            outbox.append(held_until(notice, post_at))
    return await store.publish_battles(
        campaign_id, turn, plan.battles, plan.rejected, actor, now, outbox
    )


async def private_summaries(
    store: Store,
    campaign: Campaign,
    kind: str,
    key: str,
    sides: Iterable[SideId],
    **payload: JsonValue,
) -> list[NewOutboxMessage]:
    """A private post of ``kind`` to every player of ``sides`` the bot can write to (worded when
    sent, in each player's own language), each naming the player's side."""
    wanted = set(sides)
    members = [
        m
        for m in await store.members(campaign.id)
        if m.side_id in wanted and m.roles & {Role.STRATEGIST, Role.TACTICIAN}
    ]
    people = await store.people([m.user_id for m in members])
    return [
        private_post(campaign, m.user_id, kind, key, side=m.side_id, **payload)
        for m in members
        if (person := people.get(m.user_id)) is not None and person.can_receive_private
    ]


class ResolveOutcome(StrEnum):
    """What :func:`resolve_and_store` did."""

    RESOLVED = "resolved"
    ALREADY_DONE = "already_done"
    WAITING_FOR_RESULTS = "waiting_for_results"  # policy: wait for the GM
    CONFLICT = "conflict"
    NOT_FOUND = "not_found"


class ResolveResult(BaseModel):
    """The outcome of a resolution attempt, the battles without a result and the new state."""

    model_config = ConfigDict(frozen=True)

    outcome: ResolveOutcome
    message: str
    unreported: tuple[int, ...] = ()
    disputed: tuple[int, ...] = ()
    resolution: TurnResolution | None = None
    transition: TransitionResult | None = None


def unreported_battles(inputs: TurnInputs) -> tuple[int, ...]:
    """The battles of the turn's list that nobody reported (a disputed one is not among them)."""
    if inputs.battle_list is None:
        return ()
    given = {result.battle for result in inputs.results} | set(inputs.disputed)
    return tuple(battle.id for battle in inputs.battle_list.battles if battle.id not in given)


def holding_battles(inputs: TurnInputs, policy: UnreportedPolicy) -> tuple[int, ...]:
    """The battles the resolution waits for: every open dispute (RULES.md 3.4: the GMs decide
    it), and under the "wait for the GM" policy every unreported battle; in battle order."""
    waiting = set(inputs.disputed)
    if policy is UnreportedPolicy.WAIT_FOR_GM:
        waiting |= set(unreported_battles(inputs))
    return tuple(sorted(waiting))


def _forced_reason(unreported: Sequence[int], disputed: Sequence[int]) -> str:
    """The audit's words for what a forced resolution settled by the unreported policy."""
    parts = []
    if disputed:
        parts.append("disputed battles " + ", ".join(map(str, disputed)))
    if unreported:
        parts.append("unreported battles " + ", ".join(map(str, unreported)))
    if not parts:
        return ""
    return "forced by the GM: " + " and ".join(parts) + " counted as draws without losses"


async def resolve_and_store(
    store: Store,
    campaign_id: int,
    turn: int,
    actor: UserId | None,
    now: datetime,
    *,
    force: bool = False,
    modules: Iterable[RulesModule] = (),
    notices: Sequence[NewOutboxMessage] = (),
) -> ResolveResult:
    """Resolve ``turn`` from what is stored and start the next turn (or finish the game).

    Moves (turn, battles) to (turn, resolution) first. With a dispute still open, or with the
    "wait for the GM" policy and battles still unreported, stops there unless ``force`` (the
    GM's "resolve now"): those battles then count as draws without losses, and the audit says
    which. Safe to run twice: the second run finds the turn resolved and does nothing.
    ``notices`` (the next orders window, the players' private summaries) are queued with the
    resolution.
    """
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return ResolveResult(outcome=ResolveOutcome.NOT_FOUND, message=f"no campaign {campaign_id}")
    if campaign.turn > turn:
        return ResolveResult(
            outcome=ResolveOutcome.ALREADY_DONE, message=f"turn {turn} is already resolved"
        )
    if campaign.turn != turn or campaign.phase not in (Phase.BATTLES, Phase.RESOLUTION):
        where = f"turn {campaign.turn} {campaign.phase.value}"
        return ResolveResult(
            outcome=ResolveOutcome.CONFLICT, message=f"turn {turn} cannot resolve at {where}"
        )
    if campaign.phase is Phase.BATTLES:
        step = len(await store.phase_history(campaign_id)) + 1
        moved = await store.transition(
            campaign_id,
            turn,
            Phase.BATTLES,
            turn,
            Phase.RESOLUTION,
            actor,
            "results due",
            now,
            outbox=[board_post(campaign, f"step:{step}")],
        )
        if moved.outcome not in (TransitionOutcome.APPLIED, TransitionOutcome.ALREADY_DONE):
            return ResolveResult(
                outcome=ResolveOutcome.CONFLICT, message=moved.message, transition=moved
            )
    inputs = await store.turn_inputs(campaign_id, turn)
    unreported = unreported_battles(inputs)
    holding = holding_battles(inputs, campaign.unreported_policy)
    if holding and not force:
        return ResolveResult(
            outcome=ResolveOutcome.WAITING_FOR_RESULTS,
            message=f"waiting for the GM: battles {', '.join(map(str, holding))}",
            unreported=tuple(b for b in holding if b not in inputs.disputed),
            disputed=inputs.disputed,
        )
    resolution = resolve_turn(
        game_for(campaign, modules), inputs.state, inputs.orders, inputs.results
    )
    revision = len(await store.resolutions(campaign_id, turn, include_retired=True)) + 1
    summaries = await private_summaries(
        store,
        campaign,
        "turn_result",
        f"turn:{turn}:resolution:{revision}:summary",
        inputs.state.sides(),
        turn=turn,
    )
    stored = await store.store_resolution(
        campaign_id,
        Phase.RESOLUTION,
        inputs,
        resolution,
        revision,
        actor,
        now,
        [
            group_post(campaign, "map", f"turn:{turn}:resolution:{revision}:map", turn=turn + 1),
            board_post(campaign, f"turn:{turn}:resolution:{revision}"),
            *(
                (summary_post(campaign, f"turn:{turn}"),)
                if resolution.report.game_over
                else notices
            ),
            *summaries,
        ],
        reason=_forced_reason(unreported, inputs.disputed) if force else "",
    )
    if stored.applied:
        outcome = ResolveOutcome.RESOLVED
    elif stored.outcome is TransitionOutcome.ALREADY_DONE or (
        stored.campaign is not None and stored.campaign.turn > turn
    ):
        outcome = ResolveOutcome.ALREADY_DONE
    else:
        outcome = ResolveOutcome.CONFLICT
    return ResolveResult(
        outcome=outcome,
        message=stored.message,
        unreported=unreported,
        resolution=resolution if stored.applied else None,
        transition=stored,
    )


async def correct_result(
    store: Store,
    campaign_id: int,
    turn: int,
    results: Sequence[BattleResult],
    actor: UserId,
    reason: str,
    now: datetime,
    modules: Iterable[RulesModule] = (),
) -> CorrectionResult:
    """Fix battle results of the latest resolved turn and re-resolve it from its stored inputs.

    The stored turn-start state, orders and results of the current resolution are replayed with
    ``results`` put in place (as GM overrides); the new state replaces the next turn's start,
    the old revision is kept as superseded, and a corrected map is queued. Raises
    ``rules.ResultsError`` for a result that does not fit the turn's battle list.
    """
    campaign = await store.campaign(campaign_id)
    current = await store.resolutions(campaign_id, turn)
    battle_list = await store.battle_list(campaign_id, turn)
    if campaign is None or not current:
        return CorrectionResult(
            outcome=CorrectionOutcome.NOT_FOUND,
            resolution=None,
            campaign=campaign,
            message=f"turn {turn} of campaign {campaign_id} has no resolution",
        )
    old = current[-1]
    check_results(old.report.battles, results)
    fixed = {result.battle: result for result in old.results}
    fixed.update({result.battle: result for result in results})
    ordered = tuple(fixed[battle.id] for battle in old.report.battles if battle.id in fixed)
    inputs = TurnInputs(
        campaign_id=campaign_id,
        turn=turn,
        state=old.state,
        orders=old.orders,
        results=ordered,
        battle_list=battle_list,
    )
    resolution = resolve_turn(game_for(campaign, modules), old.state, old.orders, ordered)
    revision = len(await store.resolutions(campaign_id, turn, include_retired=True)) + 1
    summaries = await private_summaries(
        store,
        campaign,
        "turn_result",
        f"turn:{turn}:resolution:{revision}:summary",
        old.state.sides(),
        turn=turn,
        corrected=True,
    )
    return await store.supersede_resolution(
        campaign_id,
        turn,
        old.revision,
        results,
        inputs,
        resolution,
        actor,
        reason,
        now,
        [
            group_post(
                campaign,
                "corrected_map",
                f"turn:{turn}:resolution:{revision}:map",
                turn=turn + 1,
                corrects=turn,
            ),
            board_post(campaign, f"turn:{turn}:resolution:{revision}:corrected"),
            *summaries,
            # A correction that ends the game (or changes how it ended) sums it up anew; the
            # post says nothing if the campaign is not over when it is sent.
            *(
                (summary_post(campaign, f"turn:{turn}:resolution:{revision}"),)
                if resolution.report.game_over
                else ()
            ),
        ],
    )


async def undo_last_step(
    store: CampaignStore,
    campaign_id: int,
    expected_turn: int,
    expected_phase: Phase,
    actor: UserId,
    reason: str,
    now: datetime,
) -> TransitionResult:
    """Roll the campaign back to the start of its previous phase and tell the group.

    Compare-and-set on (expected_turn, expected_phase): a repeated undo does nothing. What is
    kept and what is retired is described in :meth:`storage.CampaignStore.undo_last_step`.
    """
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return TransitionResult(
            outcome=TransitionOutcome.NOT_FOUND, campaign=None, message=f"no campaign {campaign_id}"
        )
    step = len(await store.phase_history(campaign_id))
    notice = group_post(
        campaign,
        "undo_notice",
        f"undo:{step}:{expected_turn}:{expected_phase.value}",
        turn=expected_turn,
        phase=expected_phase.value,
    )
    board = board_post(campaign, f"undo:{step}:{expected_turn}:{expected_phase.value}")
    return await store.undo_last_step(
        campaign_id, expected_turn, expected_phase, actor, reason, now, [notice, board]
    )
