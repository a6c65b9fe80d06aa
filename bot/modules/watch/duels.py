"""Duel steps of rule module ``watch`` with their deadlines (MODULES.md W6, issue 19).

When the battle list is published with duels, each hero in a duel gets a step
(:func:`add_duel_steps`, in the publication's transaction). In ``initiative`` mode the first
step of each duel opens with the list and the next opens when one closes; in ``sealed`` mode
every step opens at once. A step's deadline is ``duel_step_hours`` after it opens, never after
the results deadline. A step closes when its side plays (or chooses to play nothing), when its
deadline passes (nothing played), when a GM closes it, or at the resolution (nothing played).
What a closed step played becomes the side's late order ``duel_step`` (checked by the rules
core like every late order, MODULES.md A2.9) that the resolution uses.

Posts: the side's screen when its step opens, a reminder an hour before a long enough step's
deadline, then in ``initiative`` mode each step's plays in the group as it closes (cards on the
table are public), in ``sealed`` mode all plays together once the last step closed. The
deadlines live in ``duel_steps``: the scheduler (:func:`run_duel_steps`, under the campaign's
``scheduled_run``) acts on them after a restart too, and every change is a compare-and-set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from pydantic import JsonValue

from bot.modules.watch.orders import as_listed
from bot.services.campaigns import battle_list_public_at
from bot.services.deadlines import phase_deadline, wall_shift
from bot.services.late import LATE_PHASES, LateRefusal, give_late_order, late_desk
from bot.services.no_shows import BOT_ACTOR
from bot.services.posting import group_post, private_post
from bot.services.turns import game_for
from rules import CampaignState, Game, Rejection, enter_late_order
from rules.modules.watch.orders import duel_step
from rules.modules.watch.plan import duels_of
from rules.modules.watch.settings import WatchSettings
from rules.modules.watch.state import NAME as WATCH
from rules.modules.watch.state import load, public_view
from storage import (
    Campaign,
    CampaignStatus,
    DuelCloser,
    DuelMode,
    DuelPlay,
    DuelStep,
    DuelStepState,
    NewDuelStep,
    NewOutboxMessage,
    Phase,
    Role,
    Store,
)
from storage.models import SideId, UserId

REMIND_BEFORE = timedelta(hours=1)
"""A step's side is reminded this long before its deadline..."""
REMIND_IF_LONGER = timedelta(hours=2)
"""...when the step lasts at least this long (a shorter one is still fresh in mind)."""
MAX_PASSES = 64  # a guard: each pass closes or opens at least one step


def watch_settings(game: Game) -> WatchSettings | None:
    """The campaign's watch settings, if it plays the module."""
    if WATCH not in game.ruleset.modules:
        return None
    return game.settings_of(WATCH, WatchSettings)


def duel_mode(game: Game) -> DuelMode | None:
    """How the campaign's duel steps run, if it plays ``watch``."""
    settings = watch_settings(game)
    return None if settings is None else DuelMode(settings.duel_mode)


def hero_sides(state: CampaignState) -> dict[str, SideId]:
    """Each hero's side in the turn's start (public)."""
    raw = state.modules.get(WATCH)
    if raw is None:
        return {}
    return {hero.id: hero.side for hero in load(raw).heroes}


async def add_duel_steps(
    store: Store,
    campaign: Campaign,
    turn: int,
    game: Game,
    state: CampaignState,
    plan_modules: JsonValue,
    opens_at: datetime,
) -> list[DuelStep]:
    """The steps of the duels the list just published names (``plan_modules``: its module
    data), opening at ``opens_at`` (the list's post); none without watch or duels."""
    mode = duel_mode(game)
    duels = duels_of(plan_modules)
    if mode is None or not duels:
        return []
    sides = hero_sides(state)
    steps = [
        NewDuelStep(
            sector=duel.sector,
            index=index,
            hero=hero,
            side_id=sides[hero],
            opens_at=opens_at if index == 0 or mode is DuelMode.SEALED else None,
        )
        for duel in duels
        for index, hero in enumerate(duel.steps)
        if hero in sides
    ]
    return await store.add_duel_steps(campaign.id, turn, mode, steps)


async def start_duels(
    store: Store, campaign_id: int, turn: int, opens_at: datetime, now: datetime
) -> None:
    """After the battle list of ``turn`` was published (in its transaction): its duels' steps,
    those due at ``opens_at`` opened now if that moment has come (else the scheduler opens
    them then)."""
    campaign = await store.campaign(campaign_id)
    listed = await store.battle_list(campaign_id, turn)
    state = await store.turn_start(campaign_id, turn)
    if campaign is None or listed is None or state is None:
        return
    added = await add_duel_steps(
        store, campaign, turn, game_for(campaign), state, listed.modules, opens_at
    )
    if added and opens_at <= now:
        await run_duel_steps(store, campaign_id, now)


async def results_deadline(store: Store, campaign: Campaign, since: datetime) -> datetime | None:
    """When the turn's results are due (the battles phase's deadline, with the GM's extensions
    if its clock is counted already); None when only a person ends the phase."""
    clock = await store.clock_state(campaign.id)
    if clock is not None and (clock.turn, clock.phase) == (campaign.turn, Phase.BATTLES):
        return clock.deadline
    return phase_deadline(Phase.BATTLES, since, campaign.schedule, ZoneInfo(campaign.time_zone))


async def _strategists(store: Store, campaign: Campaign, side: SideId) -> list[UserId]:
    members = [
        m.user_id
        for m in await store.members(campaign.id)
        if m.side_id == side and Role.STRATEGIST in m.roles
    ]
    people = await store.people(members)
    return [u for u in members if u in people and people[u].can_receive_private]


def _key(step: DuelStep, what: str) -> str:
    return f"duel:{step.id}:{what}"


async def _side_posts(
    store: Store, campaign: Campaign, step: DuelStep, kind: str, what: str
) -> list[NewOutboxMessage]:
    return [
        private_post(campaign, user, kind, _key(step, what), step=step.id)
        for user in await _strategists(store, campaign, step.side_id)
    ]


def step_deadline(opened: datetime, hours: int, results: datetime | None) -> datetime:
    """A step opened at ``opened`` ends ``hours`` later, or at the results deadline if sooner."""
    own = opened + timedelta(hours=hours)
    return own if results is None else min(own, results)


class StepRefusal(StrEnum):
    """Why a step's play or close was not taken (nothing changed)."""

    CLOSED = "closed"  # the step is closed, not current, or the turn moved on
    NOT_OPEN = "not_open"  # initiative mode: an earlier step is still being played
    STALE = "stale"  # the screen shown is older than the step's draft
    BUSY = "busy"
    NO_LATE_ORDERS = "no_late_orders"  # the side gives no late orders now: no card is played


@dataclass(frozen=True)
class StepResult:
    """What a play did: the step after it, or why not (a refusal, or the rules' rejection)."""

    step: DuelStep | None
    refusal: StepRefusal | None = None
    rejection: Rejection | None = None


async def _close(
    store: Store,
    campaign: Campaign,
    step: DuelStep,
    closed_by: DuelCloser,
    plays: Sequence[DuelPlay],
    actor: UserId | None,
    now: datetime,
    *,
    expected_edits: int | None = None,
) -> StepResult:
    """Close ``step`` with ``plays`` as the side's late order, the closing posts and the next
    step's opening in one transaction. Only the close of a step whose moment came (open, or due
    to open) moves the chain on: a waiting step a GM closes opens nothing, the chain skips it
    when the step before it closes."""
    order = duel_step(step.hero, [(play.card, play.target) for play in plays])
    async with store.atomic():
        given = await give_late_order(
            store,
            campaign.id,
            step.side_id,
            order,
            BOT_ACTOR if actor is None else actor,
            now,
            campaign.turn,
        )
        if given.rejection is not None and plays:
            return StepResult(None, rejection=given.rejection)
        if given.refusal is LateRefusal.BUSY:
            return StepResult(None, StepRefusal.BUSY)
        if given.refusal is not None and plays:
            return StepResult(step, StepRefusal.NO_LATE_ORDERS)
        outbox: list[NewOutboxMessage] = []
        if step.mode is DuelMode.INITIATIVE:
            outbox.append(group_post(campaign, "duel_played", _key(step, "played"), step=step.id))
        closed = await store.close_duel_step(
            step.id, closed_by, plays, actor, now, outbox, expected_edits=expected_edits
        )
        if closed is None:
            raise _StepMovedError
        steps = await store.duel_steps(campaign.id, campaign.turn)
        if step.mode is DuelMode.SEALED and all(s.state is DuelStepState.CLOSED for s in steps):
            await store.enqueue(
                group_post(
                    campaign,
                    "duel_reveal",
                    f"duel-list:{closed.list_id}:reveal",
                    list=closed.list_id,
                ),
                now,
            )
        if step.mode is DuelMode.INITIATIVE and (
            step.state is DuelStepState.OPEN or step.opens_at is not None
        ):
            following = next_in_duel(steps, step)
            settings = watch_settings(game_for(campaign))
            if following is not None and settings is not None:
                await store.schedule_duel_step(following.id, now)
                await _open(store, campaign, following, settings.duel_step_hours, now)
        return StepResult(closed)


def next_in_duel(steps: Sequence[DuelStep], step: DuelStep) -> DuelStep | None:
    """The step that comes after ``step`` in its duel (initiative mode): the first one after
    it not closed yet (a GM may have closed a waiting step: the chain skips it)."""
    return min(
        (
            s
            for s in steps
            if s.sector == step.sector
            and s.index > step.index
            and s.state is not DuelStepState.CLOSED
        ),
        key=lambda s: s.index,
        default=None,
    )


def following_step(steps: Sequence[DuelStep], step: DuelStep) -> DuelStep | None:
    """The step whose turn came when ``step`` closed (initiative mode), for its post: none for
    a step closed while it waited (a GM's close, or the resolution's: it never had its turn),
    else the first one after it that was not closed while waiting."""
    if step.opens_at is None:
        return None
    return min(
        (
            s
            for s in steps
            if s.sector == step.sector
            and s.index > step.index
            and not (s.state is DuelStepState.CLOSED and s.opens_at is None)
        ),
        key=lambda s: s.index,
        default=None,
    )


class _StepMovedError(Exception):
    """The step was closed by someone else meanwhile: the transaction is rolled back."""


async def close_step(
    store: Store,
    campaign: Campaign,
    step: DuelStep,
    closed_by: DuelCloser,
    plays: Sequence[DuelPlay],
    actor: UserId | None,
    now: datetime,
    *,
    expected_edits: int | None = None,
) -> StepResult:
    """Close ``step`` (see :func:`_close`); ``CLOSED`` when it was closed meanwhile."""
    try:
        return await _close(
            store, campaign, step, closed_by, plays, actor, now, expected_edits=expected_edits
        )
    except _StepMovedError:
        return StepResult(None, StepRefusal.CLOSED)


async def _open(
    store: Store, campaign: Campaign, step: DuelStep, hours: int, now: datetime
) -> bool:
    """Open a pending step whose moment came: its side's screen, its deadline; at or after the
    results deadline it closes at once with nothing played."""
    results = await results_deadline(store, campaign, now)
    if results is not None and results <= now:
        return (
            await close_step(store, campaign, step, DuelCloser.DEADLINE, (), None, now)
        ).step is not None
    deadline = step_deadline(now, hours, results)
    posts = await _side_posts(store, campaign, step, "duel_step", "open")
    return await store.open_duel_step(step.id, deadline, now, posts)


async def run_duel_steps(store: Store, campaign_id: int, now: datetime) -> bool:
    """Bring the campaign's duel steps up to ``now``: close those past their deadline, open
    those whose moment came, remind the sides an hour before. Run by the scheduler under the
    campaign's ``scheduled_run`` (each change is a compare-and-set anyway). True when it
    queued posts."""
    campaign = await store.campaign(campaign_id)
    if (
        campaign is None
        or campaign.status is not CampaignStatus.RUNNING
        or campaign.phase not in LATE_PHASES
    ):
        return False
    settings = watch_settings(game_for(campaign))
    if settings is None:
        return False
    queued = False
    for _ in range(MAX_PASSES):
        steps = await store.duel_steps(campaign.id, campaign.turn)
        changed = False
        for step in steps:
            if (
                step.state is DuelStepState.OPEN
                and step.deadline is not None
                and step.deadline <= now
            ):
                results = await results_deadline(store, campaign, now)
                closer = (
                    DuelCloser.DEADLINE
                    if results is not None and step.deadline >= results
                    else DuelCloser.TIMEOUT
                )
                done = await close_step(store, campaign, step, closer, (), None, now)
                changed |= done.step is not None
            elif (
                step.state is DuelStepState.PENDING
                and step.opens_at is not None
                and step.opens_at <= now
            ):
                changed |= await _open(store, campaign, step, settings.duel_step_hours, now)
            elif step.state is DuelStepState.OPEN and _reminder_due(step, now):
                posts = await _side_posts(store, campaign, step, "duel_reminder", "reminder")
                queued |= await store.remind_duel_step(step.id, now, posts)
        queued |= changed
        if not changed:
            break
    return queued


def _long_enough(step: DuelStep) -> bool:
    """Whether the step lasts long enough for a reminder."""
    if step.deadline is None or step.opens_at is None:
        return False
    return step.deadline - step.opens_at >= REMIND_IF_LONGER


def _reminder_due(step: DuelStep, now: datetime) -> bool:
    if step.reminded_at is not None or step.deadline is None or not _long_enough(step):
        return False
    return step.deadline - REMIND_BEFORE <= now < step.deadline


async def next_duel_moment(store: Store, campaign: Campaign, now: datetime) -> datetime | None:
    """The campaign's next duel moment after ``now``: a step's deadline, reminder or opening."""
    if campaign.status is not CampaignStatus.RUNNING or campaign.phase not in LATE_PHASES:
        return None
    moments: list[datetime] = []
    for step in await store.duel_steps(campaign.id, campaign.turn):
        if step.state is DuelStepState.PENDING and step.opens_at is not None:
            moments.append(step.opens_at)
        if step.state is DuelStepState.OPEN and step.deadline is not None:
            moments.append(step.deadline)
            if step.reminded_at is None and _long_enough(step):
                moments.append(step.deadline - REMIND_BEFORE)
    return min((m for m in moments if m > now), default=None)


async def shift_duel_steps(
    store: Store,
    campaign: Campaign,
    by: timedelta,
    results: datetime | None,
    now: datetime,
) -> None:
    """The results deadline moved ``by`` (a pause that lasted that long, a GM's extension or a
    new deadline; now ``results``): the current steps not closed yet move as much on the
    campaign's wall clock (a waiting step's set opening too), never past ``results``. A move
    earlier only caps them at ``results``. A moved step's reminder is due again."""
    if watch_settings(game_for(campaign)) is None:
        return
    zone = ZoneInfo(campaign.time_zone)
    later = by > timedelta(0)
    for step in await store.duel_steps(campaign.id, campaign.turn):
        if step.state is DuelStepState.CLOSED:
            continue
        opens_at, deadline = step.opens_at, step.deadline
        if later and step.state is DuelStepState.PENDING and opens_at is not None:
            opens_at = wall_shift(opens_at, by, zone)
        if deadline is not None:
            if later:
                deadline = wall_shift(deadline, by, zone)
            if results is not None:
                deadline = min(deadline, results)
        if (opens_at, deadline) == (step.opens_at, step.deadline):
            continue
        rearm = deadline is not None and deadline - REMIND_BEFORE > now
        await store.reschedule_duel_step(step.id, step.state, opens_at, deadline, rearm=rearm)


async def close_remaining_steps(store: Store, campaign: Campaign, now: datetime) -> None:
    """At the resolution: every step still open or pending closes with nothing played (the
    results deadline came, or the GM resolved early)."""
    for step in await store.duel_steps(campaign.id, campaign.turn):
        if step.state is not DuelStepState.CLOSED:
            await close_step(store, campaign, step, DuelCloser.DEADLINE, (), None, now)


# ---- the side's screen ----------------------------------------------------------------------


@dataclass(frozen=True)
class StepDesk:
    """An open or closed step with what its side may see: its hero's hand (``public_view`` for
    the side), the heroes of the duel and where they stand."""

    campaign: Campaign
    game: Game
    step: DuelStep
    hand: tuple[str, ...]
    heroes: tuple[tuple[str, str, int], ...]  # (id, name, wounds) in the duel, step order
    names: dict[str, str]  # hero id -> name

    def free_cards(self) -> list[str]:
        """The hand's cards not laid in the draft yet, once each kind (a duplicate shows once
        per copy left)."""
        left = list(self.hand)
        for play in self.step.plays:
            if play.card in left:
                left.remove(play.card)
        return left


async def step_desk(store: Store, step: DuelStep) -> StepDesk | None:
    """The desk of ``step`` for its own side (None when its campaign or turn is gone)."""
    campaign = await store.campaign(step.campaign_id)
    if campaign is None:
        return None
    state = await store.turn_start(campaign.id, step.turn)
    listed = await store.battle_list(campaign.id, step.turn)
    if state is None or listed is None:
        return None
    raw = state.modules.get(WATCH)
    if raw is None:
        return None
    mine = load(public_view(raw, step.side_id))
    everyone = {hero.id: hero for hero in mine.heroes}
    own = everyone.get(step.hero)
    duel = next((d for d in duels_of(listed.modules) if d.sector == step.sector), None)
    in_duel = () if duel is None else duel.steps
    return StepDesk(
        campaign=campaign,
        game=game_for(campaign),
        step=step,
        hand=() if own is None else tuple(own.hand),
        heroes=tuple(
            (hero, everyone[hero].name, everyone[hero].wounds)
            for hero in in_duel
            if hero in everyone
        ),
        names={hero.id: hero.name for hero in mine.heroes},
    )


async def hero_names(store: Store, campaign_id: int, turn: int) -> dict[str, str]:
    """Each hero's name in the turn's start (public)."""
    state = await store.turn_start(campaign_id, turn)
    raw = None if state is None else state.modules.get(WATCH)
    return {} if raw is None else {hero.id: hero.name for hero in load(raw).heroes}


async def _current_open(store: Store, step_id: int, side: SideId) -> DuelStep | StepRefusal:
    step = await store.duel_step(step_id)
    if step is None or step.side_id != side:
        return StepRefusal.CLOSED
    campaign = await store.campaign(step.campaign_id)
    if campaign is None or campaign.turn != step.turn or campaign.phase not in LATE_PHASES:
        return StepRefusal.CLOSED
    current = {s.id for s in await store.duel_steps(campaign.id, campaign.turn)}
    if step.id not in current or step.state is DuelStepState.CLOSED:
        return StepRefusal.CLOSED
    if step.state is DuelStepState.PENDING:
        return StepRefusal.NOT_OPEN
    return step


async def check_plays(
    store: Store, step: DuelStep, plays: Sequence[DuelPlay]
) -> Rejection | StepRefusal | None:
    """The rules' verdict on ``step``'s hero laying ``plays`` (card in hand, target in the
    duel's location, one step per hero), against the turn's start and the list;
    ``NO_LATE_ORDERS`` when the side has no late orders to check them against (nothing may be
    laid then: only «Play nothing»)."""
    desk = await late_desk(store, step.campaign_id, step.side_id, step.turn)
    if desk is None:
        return StepRefusal.NO_LATE_ORDERS
    order = duel_step(step.hero, [(play.card, play.target) for play in plays])
    _after, rejection = enter_late_order(
        desk.game, desk.state, desk.plan, step.side_id, desk.current, order
    )
    return rejection


async def draft_play(
    store: Store, step_id: int, side: SideId, shown_edits: int, play: DuelPlay | None
) -> StepResult:
    """Add ``play`` to the step's draft (None: take the last one back), if the screen shown
    is the step's latest (``shown_edits``) and the rules take the plays."""
    found = await _current_open(store, step_id, side)
    if isinstance(found, StepRefusal):
        return StepResult(None, found)
    if found.edits != shown_edits:
        return StepResult(found, StepRefusal.STALE)
    plays = found.plays[:-1] if play is None else (*found.plays, play)
    if play is not None:
        verdict = await check_plays(store, found, plays)
        if isinstance(verdict, StepRefusal):
            return StepResult(found, verdict)
        if verdict is not None:
            return StepResult(found, rejection=verdict)
    saved = await store.draft_duel_step(found.id, plays, shown_edits)
    if saved is None:
        return StepResult(await store.duel_step(step_id), StepRefusal.STALE)
    return StepResult(saved)


async def submit_step(
    store: Store,
    step_id: int,
    side: SideId,
    shown_edits: int,
    play_them: bool,
    actor: UserId,
    now: datetime,
) -> StepResult:
    """Close the step with its draft (``play_them``) or with nothing played, if the screen shown
    is the step's latest."""
    found = await _current_open(store, step_id, side)
    if isinstance(found, StepRefusal):
        return StepResult(None, found)
    if found.edits != shown_edits:
        return StepResult(found, StepRefusal.STALE)
    campaign = await store.campaign(found.campaign_id)
    if campaign is None:
        return StepResult(None, StepRefusal.CLOSED)
    plays = found.plays if play_them else ()
    return await close_step(
        store, campaign, found, DuelCloser.SUBMIT, plays, actor, now, expected_edits=shown_edits
    )


async def gm_close_step(
    store: Store, campaign: Campaign, step_id: int, actor: UserId, now: datetime
) -> StepResult:
    """A GM closes a current step now with nothing played (audited). The caller checked that
    ``actor`` is a GM of ``campaign``."""
    step = await store.duel_step(step_id)
    if step is None or step.campaign_id != campaign.id:
        return StepResult(None, StepRefusal.CLOSED)
    found = await _current_open(store, step_id, step.side_id)
    if isinstance(found, StepRefusal) and found is not StepRefusal.NOT_OPEN:
        return StepResult(None, found)
    return await close_step(store, campaign, step, DuelCloser.GM, (), actor, now)


async def open_steps(store: Store, campaign: Campaign) -> list[DuelStep]:
    """The current turn's steps not closed yet (the GM panel's list)."""
    if campaign.phase not in LATE_PHASES:
        return []
    return [
        s
        for s in await store.duel_steps(campaign.id, campaign.turn)
        if s.state is not DuelStepState.CLOSED
    ]


async def sealed_unrevealed(store: Store, campaign_id: int, turn: int) -> bool:
    """Whether the turn's battle list has sealed duels not shown yet (a step still open or
    waiting): until the last step closes and the reveal is queued, no spell of theirs may reach
    the group, not even through the GM's "-1" tokens."""
    steps = await store.duel_steps(campaign_id, turn)
    return any(s.mode is DuelMode.SEALED for s in steps) and any(
        s.state is not DuelStepState.CLOSED for s in steps
    )


# ---- the heroes as the turn stands -------------------------------------------------------------


@dataclass(frozen=True)
class HeroesNow:
    """The turn's heroes as they stand now: ``modules`` is the turn start's module data with
    the public battle list's positions and the closed steps' cards out of the hands (secret:
    read it through ``watch_orders.public`` or ``side_view``); ``played``: hero -> the cards
    its closed step played this turn."""

    modules: dict[str, JsonValue]
    played: dict[str, tuple[str, ...]]


async def public_watch_plan(
    store: Store, campaign: Campaign, state: CampaignState, now: datetime
) -> JsonValue:
    """The watch data (this turn's hero moves and positions) of the current turn's battle list
    once it is public and ``state`` is that turn's start; ``None`` before (or without watch):
    the maps then show the heroes where the turn began."""
    if (
        WATCH not in state.modules
        or campaign.phase not in LATE_PHASES
        or state.turn != campaign.turn
    ):
        return None
    listed = await store.battle_list(campaign.id, campaign.turn)
    if listed is None or await battle_list_public_at(store, campaign, now) is not None:
        return None
    return listed.modules.get(WATCH)


async def heroes_now(
    store: Store, campaign: Campaign, state: CampaignState, now: datetime
) -> HeroesNow:
    """``state`` (the current turn's start) as the turn stands at ``now``: once the battle
    list is public, the heroes stand where it put them (after this turn's moves) and the cards
    of closed duel steps are no longer in hand; before that, the turn's start."""
    start = HeroesNow(dict(state.modules), {})
    if WATCH not in state.modules or campaign.phase not in LATE_PHASES:
        return start
    listed = await store.battle_list(campaign.id, campaign.turn)
    if listed is None or await battle_list_public_at(store, campaign, now) is not None:
        return start
    played = {
        step.hero: tuple(play.card for play in step.plays)
        for step in await store.list_duel_steps(listed.id)
        if step.state is DuelStepState.CLOSED and step.plays
    }
    return HeroesNow(as_listed(state.modules, listed.modules.get(WATCH), played), played)
