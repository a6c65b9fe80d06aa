"""Turn steps that need both the rules core and storage: start, battle list, resolution,
correction, undo.

Pure async functions over a :class:`~storage.CampaignStore`: no Telegram, no clock (``now`` is
passed in). Storage gives atomic primitives (compare-and-set on the campaign's clock, one
transaction per step); the rules core computes. Every step queues its public posts in the same
transaction as the change they announce, under a key that names the step, so a retried step
neither loses nor doubles a post.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, JsonValue

import rules.modules
from bot.modules import BOT_MODULES
from bot.services.deployment import sides_to_place
from bot.services.dice import commitment_post, seeds_of
from bot.services.posting import board_post, group_post, held_until, private_post
from bot.services.records import summary_post
from bot.services.setup_map import campaign_map
from rules import (
    Battle,
    BattleResult,
    BattleStatus,
    CampaignState,
    DeploymentChoice,
    DeploymentChoiceError,
    Game,
    Roll,
    Ruleset,
    RulesModule,
    TurnResolution,
    TurnSeeds,
    battle_sides,
    check_results,
    counted_results,
    deployed_state,
    legal_late_orders,
    overrides_in_force,
    plan_battles,
    resolve_turn,
    start_turn,
)
from rules.edits import EditError, StateEdit, apply_edit, is_edit
from storage import (
    AuditAction,
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
    WriteOutcome,
)
from storage.models import SideId, UserId


def game_for(campaign: Campaign, modules: Iterable[RulesModule] | None = None) -> Game:
    """The campaign's fixed rules: its map (built-in or its own), its ruleset overrides and the
    rule modules it enables (MODULES.md), with their settings."""
    ruleset = Ruleset.with_overrides(overrides_in_force(campaign.ruleset_overrides))
    registered = rules.modules.BUILTIN_MODULES if modules is None else modules
    return Game.create(campaign_map(campaign), ruleset, registered)


def _in_late_window(module: str) -> bool:
    found = BOT_MODULES.get(module)
    return found is not None and found.late_window()


async def step_posts(
    store: Store,
    campaign: Campaign,
    turn: int,
    window: str,
    modules: Mapping[str, JsonValue],
    key: str,
) -> list[NewOutboxMessage]:
    """The rule modules' posts of a battle list's publication (``window`` "before") or of a
    resolution ("after"): ``BotModule.turn_step_posts``."""
    posts: list[NewOutboxMessage] = []
    for module in BOT_MODULES.values():
        posts += await module.turn_step_posts(store, campaign, turn, window, modules, key)
    return posts


async def over_posts(
    store: Store, campaign: Campaign, state: CampaignState, key: str
) -> list[NewOutboxMessage]:
    """The rule modules' posts of the step that finishes the campaign
    (``BotModule.campaign_over_posts``)."""
    posts: list[NewOutboxMessage] = []
    for module in BOT_MODULES.values():
        posts += await module.campaign_over_posts(store, campaign, state, key)
    return posts


def playable_results(
    battles: Sequence[Battle], results: Iterable[BattleResult]
) -> tuple[BattleResult, ...]:
    """``results`` without those of chain battles that are not played after all (an earlier
    battle of the chain was not won: its result changed after the later one was reported)."""
    given = {result.battle: result for result in results}
    sides = battle_sides(battles, given, final=True)
    return tuple(
        result
        for battle_id, result in given.items()
        if battle_id in sides and sides[battle_id].status is BattleStatus.PLAYABLE
    )


async def turn_seeds(
    store: Store, game: Game, campaign: Campaign, turn: int, now: datetime
) -> TurnSeeds | None:
    """The seeds a turn's rules draw from: made (and kept) when a module draws dice, else those
    a ``/roll`` made, if any."""
    if game.uses_dice():
        return (await seeds_of(store, campaign.id, turn, now)).seeds
    found = await store.turn_seeds(campaign.id, turn)
    return None if found is None else found.seeds


def apply_adjustments(
    game: Game, state: CampaignState, adjustments: Iterable[Mapping[str, JsonValue]]
) -> tuple[CampaignState, int]:
    """``state`` with the GM's stored adjustments applied again in order (a correction made the
    turn's start anew); those that no longer apply are left out. Returns the state and how many
    were left out."""
    dropped = 0
    for data in adjustments:
        try:
            if is_edit(data):
                edit = StateEdit.model_validate(data)
                named = (*state.armies, *(change.side for change in edit.armies))
                state = apply_edit(game, state, edit, (*named, *filter(None, [edit.retire])))
                continue
            replayed = next(
                (
                    found
                    for module in BOT_MODULES.values()
                    if (found := module.replay_adjustment(game, state, data)) is not None
                ),
                None,
            )
        except (EditError, ValueError):
            replayed = None
        if replayed is None:
            dropped += 1
        else:
            state = replayed
    return state, dropped


async def next_turn_start(
    store: Store,
    game: Game,
    campaign: Campaign,
    state: CampaignState,
    now: datetime,
    adjustments: Iterable[Mapping[str, JsonValue]] = (),
) -> tuple[CampaignState, tuple[Roll, ...], bool]:
    """A turn's start from the state a resolution (or deployment) left: the GM's adjustments of
    it applied again, then every module's ``begin_turn`` drawn from the turn's seeds (made now
    if a module draws dice). Returns the state, what was drawn, and whether seeds were made for
    it (their commitment is to be posted: the orders open with it, so before any order
    exists). A module's choice still pending after deployment leaves the state as it is: the
    turn starts when it is made (:func:`make_choice`), from the same seeds."""
    state, _dropped = apply_adjustments(game, state, adjustments)
    if not game.modules:
        return state, (), False
    seeds = await turn_seeds(store, game, campaign, state.turn, now)
    if game.pending_choices(game.upgraded(state)):
        return state, (), game.uses_dice()
    started = start_turn(game, state, seeds)
    return started.state, started.rolls, game.uses_dice()


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
    store: Store,
    campaign_id: int,
    actor: UserId | None,
    now: datetime,
    notices: Sequence[NewOutboxMessage] = (),
) -> FirstTurnResult:
    """End deployment: build turn 1's state from every side's placement and open the orders.

    Sides are in the order they were added (it numbers battles). If a side has not deployed
    (no placement, or only an unconfirmed draft from the +/- screen), nothing moves and the
    missing sides are named (the GM places them or accepts the default).
    A stored placement that breaks the deployment rules raises ``rules.DeploymentError``.
    ``notices`` (the strategists' "orders are open") are queued in the same transaction.
    With rule modules, turn 1 begins through ``rules.start_turn`` and the seeds' commitment is
    posted; a module's choice still to make after deployment is asked of the side that makes
    it, and the GMs are told.
    """
    campaign = await store.campaign(campaign_id)
    if campaign is None:
        return FirstTurnResult(outcome=FirstTurnOutcome.NOT_STARTED)
    sides = await store.sides(campaign_id)
    placements = await store.placements(campaign_id)
    missing = tuple(side.id for side in sides_to_place(sides, placements))
    if missing:
        return FirstTurnResult(outcome=FirstTurnOutcome.MISSING_PLACEMENTS, missing=missing)
    game = game_for(campaign)
    deployed = deployed_state(game, {side.id: placements[side.id].placement for side in sides})
    step = len(await store.phase_history(campaign_id)) + 1
    async with store.atomic():
        state, rolls, committed = await next_turn_start(store, game, campaign, deployed, now)
        choices = await choice_posts(store, game, campaign, state, f"step:{step}")
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
            turn_start_rolls=rolls,
            outbox=[
                group_post(campaign, "map", f"step:{step}:map", turn=1),
                *([commitment_post(campaign, 1, f"step:{step}")] if committed else []),
                board_post(campaign, f"step:{step}"),
                *notices,
                *choices,
            ],
        )
    outcome = FirstTurnOutcome.STARTED if transition.applied else FirstTurnOutcome.NOT_STARTED
    return FirstTurnResult(outcome=outcome, transition=transition)


async def publish_battle_list(
    store: Store,
    campaign_id: int,
    turn: int,
    actor: UserId | None,
    now: datetime,
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
    game = game_for(campaign)
    seeds = await turn_seeds(store, game, campaign, turn, now)
    plan = plan_battles(game, inputs.state, inputs.orders, seeds)
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
    for side in inputs.state.sides() if game.modules else ():
        # Only the modules whose late orders the late window offers (a module may open its
        # own screens for them, step by step: BotModule.run_steps).
        late = legal_late_orders(game, inputs.state, plan, side)
        if not any(orders for module, orders in late.items() if _in_late_window(module)):
            continue
        for member in members:
            if member.side_id == side and Role.STRATEGIST in member.roles:
                notice = private_post(
                    campaign,
                    member.user_id,
                    "late_window",
                    f"step:{step}:late_window",
                    turn=turn,
                    side=side,
                )
                outbox.append(held_until(notice, post_at))
    notes = await step_posts(store, campaign, turn, "before", plan.modules, f"step:{step}")
    outbox += [held_until(note, post_at) for note in notes]
    return await store.publish_battles(
        campaign_id,
        turn,
        plan.battles,
        plan.rejected,
        actor,
        now,
        outbox,
        rolls=plan.rolls,
        modules=dict(plan.modules),
    )


async def pending_choices(store: Store, campaign: Campaign) -> tuple[DeploymentChoice, ...]:
    """The rule-module choices the current turn's start still waits for (made after
    deployment); none without modules or before turn 1."""
    game = game_for(campaign)
    if not game.modules or campaign.turn < 1:
        return ()
    state = await store.turn_start(campaign.id, campaign.turn)
    return () if state is None else game.pending_choices(game.upgraded(state))


async def _reachable(store: Store, campaign: Campaign, members: Iterable[UserId]) -> list[UserId]:
    """Those of ``members`` the bot can write to in private."""
    wanted = list(members)
    people = await store.people(wanted)
    return [
        user
        for user in wanted
        if (person := people.get(user)) is not None and person.can_receive_private
    ]


async def choice_posts(
    store: Store, game: Game, campaign: Campaign, state: CampaignState, key: str
) -> list[NewOutboxMessage]:
    """For each rule-module choice ``state`` still waits for: the
    question to the choosing side's strategists (with the options as buttons), a note to the
    GMs (they choose if the side has not by the time orders open), and the group's news."""
    pending = game.pending_choices(game.upgraded(state)) if game.modules else ()
    posts: list[NewOutboxMessage] = []
    members = await store.members(campaign.id)
    gms = await _reachable(store, campaign, [m.user_id for m in members if m.is_gm])
    for choice in pending:
        payload: dict[str, JsonValue] = {
            "turn": state.turn,
            "module": choice.module,
            "choice": choice.key,
            "side": choice.side,
        }
        if choice.side is not None:
            deciders = [
                m.user_id
                for m in members
                if m.side_id == choice.side and Role.STRATEGIST in m.roles
            ]
            posts += [
                private_post(
                    campaign, user, "module_choice", f"{key}:choice:{choice.key}", **payload
                )
                for user in await _reachable(store, campaign, deciders)
            ]
        posts += [
            private_post(
                campaign, gm, "module_choice_gm", f"{key}:choice_gm:{choice.key}", **payload
            )
            for gm in gms
        ]
        posts.append(
            group_post(campaign, "module_choice_news", f"{key}:choice:{choice.key}", **payload)
        )
    return posts


class ChoiceOutcome(StrEnum):
    """What :func:`make_choice` did."""

    MADE = "made"
    NOT_ASKED = "not_asked"  # no such choice is pending (made already, or not this module's)
    NOT_YOURS = "not_yours"  # neither the choosing side's strategist nor a GM
    BAD_CHOICE = "bad_choice"  # not one of the options
    CLOSED = "closed"  # the campaign moved on meanwhile (or another choice was stored first)


async def make_choice(
    store: Store,
    campaign_id: int,
    module: str,
    value: JsonValue,
    actor: UserId,
    now: datetime,
) -> ChoiceOutcome:
    """Make a rule module's deployment choice (a JSON value the module checks) for turn 1.

    The choosing side's strategist makes it, or a GM; turn 1's start is built again from the
    stored placements with the choice, begun from the turn's seeds (made when the orders
    opened), and replaces the pending start (audited, compare-and-set). The group is told."""
    campaign = await store.campaign(campaign_id)
    if campaign is None or campaign.turn != 1 or campaign.phase is not Phase.ORDERS:
        return ChoiceOutcome.CLOSED
    game = game_for(campaign)
    current = await store.turn_start(campaign_id, 1)
    if current is None:
        return ChoiceOutcome.CLOSED
    pending = {choice.module: choice for choice in game.pending_choices(game.upgraded(current))}
    choice = pending.get(module)
    if choice is None:
        return ChoiceOutcome.NOT_ASKED
    member = await store.member(campaign_id, actor)
    allowed = member is not None and (
        member.is_gm or (member.side_id == choice.side and Role.STRATEGIST in member.roles)
    )
    if not allowed:
        return ChoiceOutcome.NOT_YOURS
    if not isinstance(value, dict) or value.get(choice.key) not in choice.options:
        return ChoiceOutcome.BAD_CHOICE
    sides = await store.sides(campaign_id)
    placements = await store.placements(campaign_id)
    try:
        deployed = deployed_state(
            game,
            {side.id: placements[side.id].placement for side in sides if side.id in placements},
            {module: value},
        )
    except DeploymentChoiceError:
        return ChoiceOutcome.BAD_CHOICE
    if deployed.armies != current.armies:
        return ChoiceOutcome.CLOSED  # turn 1's start was changed since deployment
    async with store.atomic():
        state, rolls, _committed = await next_turn_start(store, game, campaign, deployed, now)
        written = await store.replace_turn_start(
            campaign_id,
            1,
            (Phase.ORDERS,),
            current,
            state,
            actor,
            AuditAction.DEPLOYMENT_CHOICE,
            f"{module}: {choice.key}",
            now,
            rolls=rolls,
            outbox=[
                group_post(
                    campaign,
                    "module_choice_made",
                    f"turn:1:choice:{module}:{choice.key}",
                    module=module,
                    choice=choice.key,
                    chosen_by=actor,
                ),
                board_post(campaign, f"turn:1:choice:{module}"),
            ],
        )
    return ChoiceOutcome.MADE if written is WriteOutcome.SAVED else ChoiceOutcome.CLOSED


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
        async with store.atomic():
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
            if moved.outcome is TransitionOutcome.APPLIED:
                # The battles ended before the Friday list was out (the GM advanced): the
                # list goes out now, before the turn's result, not on Friday after it.
                await store.release_battle_list(campaign_id, now)
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
    game = game_for(campaign)
    results = playable_results(
        inputs.battle_list.battles if inputs.battle_list else (), inputs.results
    )
    resolution = resolve_turn(game, inputs.state, inputs.orders, results, inputs.seeds, inputs.late)
    inputs = inputs.model_copy(update={"results": results})
    revision = len(await store.resolutions(campaign_id, turn, include_retired=True)) + 1
    key = f"turn:{turn}:resolution:{revision}"
    summaries = await private_summaries(
        store, campaign, "turn_result", f"{key}:summary", inputs.state.sides(), turn=turn
    )
    summaries += await step_posts(store, campaign, turn, "after", resolution.report.modules, key)
    over = resolution.report.game_over
    rewards = await over_posts(store, campaign, resolution.state, key) if over else []
    async with store.atomic():
        start, rolls, committed = (
            (resolution.state, (), False)
            if over
            else await next_turn_start(store, game, campaign, resolution.state, now)
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
                group_post(campaign, "map", f"{key}:map", turn=turn + 1),
                *([commitment_post(campaign, turn + 1, key)] if committed else []),
                board_post(campaign, key),
                *((summary_post(campaign, f"turn:{turn}"), *rewards) if over else notices),
                *summaries,
            ],
            reason=_forced_reason(unreported, inputs.disputed) if force else "",
            next_start=start,
            next_rolls=rolls,
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
) -> CorrectionResult:
    """Fix battle results of the latest resolved turn and re-resolve it from its stored inputs.

    The stored turn-start state, orders, late orders and results of the current resolution are
    replayed with ``results`` put in place (as GM overrides) and the turn's seeds (the same
    rolls); results of chain battles no longer played are dropped. The new state, with the GM's
    adjustments of the next turn applied again, replaces the next turn's start, the old
    revision is kept as superseded, and a corrected map is queued. Raises
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
    game = game_for(campaign)
    battles = old.report.battles
    ordered, dropped = corrected_results(battles, old.results, results)
    check_results(battles, ordered, game)
    sides = battle_sides(battles, {result.battle: result for result in ordered}, final=True)
    against = {
        result.battle: defender
        for result in results
        if result.battle in sides and (defender := sides[result.battle].defender) is not None
    }
    seeds = await store.turn_seeds(campaign_id, turn)
    inputs = TurnInputs(
        campaign_id=campaign_id,
        turn=turn,
        state=old.state,
        orders=old.orders,
        results=ordered,
        battle_list=battle_list,
        late=old.late,
        seeds=None if seeds is None else seeds.seeds,
    )
    resolution = resolve_turn(game, old.state, old.orders, ordered, inputs.seeds, inputs.late)
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
    adjustments = [record.adjustment for record in await store.adjustments(campaign_id, turn + 1)]
    over = resolution.report.game_over
    rewards = (
        await over_posts(store, campaign, resolution.state, f"turn:{turn}:resolution:{revision}")
        if over
        else []
    )
    start, rolls, _committed = (
        (resolution.state, (), False)
        if over
        else await next_turn_start(store, game, campaign, resolution.state, now, adjustments)
    )
    corrected = await store.supersede_resolution(
        campaign_id,
        turn,
        old.revision,
        results,
        inputs,
        resolution,
        actor,
        reason,
        now,
        next_start=start,
        next_rolls=rolls,
        against=against,
        outbox=[
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
                (summary_post(campaign, f"turn:{turn}:resolution:{revision}"), *rewards)
                if over
                else ()
            ),
        ],
    )
    return corrected.model_copy(update={"dropped": dropped})


def corrected_results(
    battles: Sequence[Battle], old: Iterable[BattleResult], fixes: Iterable[BattleResult]
) -> tuple[tuple[BattleResult, ...], tuple[int, ...]]:
    """A resolved turn's results with a GM's ``fixes`` put in place: the results that count
    (in battle order), and the battles whose old result no longer does because the fixes gave
    that chain battle another defender (its sides changed: it counts as unreported) or made it
    not played. The fixes themselves are kept as given (``check_results`` judges them)."""
    before = {result.battle: result for result in old}
    given = {result.battle: result for result in fixes}
    old_sides = battle_sides(battles, before, final=True)
    against = {
        battle: defender
        for battle in before
        if battle not in given
        and battle in old_sides
        and (defender := old_sides[battle].defender) is not None
    }
    merged = {**before, **given}
    sides = battle_sides(battles, merged, final=True, against=against)
    counted = counted_results(sides, merged)
    dropped = tuple(
        sorted(battle for battle in before if battle not in given and battle not in counted)
    )
    kept = [
        merged[battle.id] for battle in battles if battle.id in counted and battle.id not in given
    ]
    return tuple(sorted([*kept, *given.values()], key=lambda result: result.battle)), dropped


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
