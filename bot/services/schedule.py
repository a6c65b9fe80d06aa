"""The weekly schedule: runs each campaign's due steps and reminders, on time and across restarts.

The database is the truth and the scheduler only a clock. :class:`CampaignScheduler` keeps no
state of its own that matters: each run re-reads the campaign, brings its clock row up to date
(:func:`sync_clock`: the deadline of the phase entry it is in), sends the reminders that are due
(once per person, recorded in storage), and runs the step whose deadline has come through
:func:`bot.services.clockwork.advance` (compare-and-set, so a duplicate run does nothing).

APScheduler is the production clock: per campaign, cron jobs at the weekly moments in the
campaign's own time zone and a date job at its next computed moment (reminder, extended
deadline), plus a sweep every minute that finds anything overdue. Every job carries only the
campaign id and calls :meth:`CampaignScheduler.run_campaign`; tests call :meth:`run_due` after
moving a :class:`~bot.runtime.clock.ManualClock` and never sleep.

Several processes on one PostgreSQL database (webhook mode) each run this scheduler: a
campaign's run is one process's at a time (``Store.scheduled_run``), so each step is computed
and stored once, whichever process's job fires first.

Lateness: a deadline run more than ``grace`` after it passed ran late. At start (catch-up) the
group is told; while the bot runs (a stuck job) the GMs get an overdue alarm and the log a
warning. Either way it runs, once, and the next phase's deadline is counted from the missed
deadline, so further missed deadlines run too, in order. A step blocked at its deadline (sides
not placed, results missing) is neither: the GMs were told then, it runs at the first sweep
once what held it is settled, and the next phase counts from then (from the missed deadline,
a week's orders window would be over at once).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler  # type: ignore[import-untyped]
from apscheduler.triggers.cron import CronTrigger  # type: ignore[import-untyped]
from apscheduler.triggers.date import DateTrigger  # type: ignore[import-untyped]
from apscheduler.triggers.interval import IntervalTrigger  # type: ignore[import-untyped]
from pydantic import JsonValue

from bot.modules import BOT_MODULES
from bot.runtime.clock import Clock
from bot.runtime.logs import log_context
from bot.services.clockwork import AdvanceOutcome, AdvanceResult, advance
from bot.services.deadlines import battle_list_time, phase_deadline, reminder_times, wall_shift
from bot.services.orders import battle_duties
from bot.services.posting import group_post, private_post
from bot.services.reopening import active_reopening
from bot.services.turns import holding_battles
from bot.services.vacations import away_users
from bot.services.window import current_entry, held_by, reopening_of
from storage import (
    Campaign,
    CampaignStatus,
    ClockNoteKind,
    ClockState,
    NewOutboxMessage,
    Phase,
    Role,
    Store,
    WeeklyTime,
)
from storage.models import SideId, UserId

log = logging.getLogger(__name__)


class Step(Protocol):
    """One phase step (:func:`bot.services.clockwork.advance`'s signature)."""

    def __call__(
        self,
        store: Store,
        campaign_id: int,
        expected_turn: int,
        expected_phase: Phase,
        actor: UserId | None,
        now: datetime,
        /,
        *,
        post_at: datetime | None = None,
    ) -> Awaitable[AdvanceResult]: ...


"""Runs one phase step: (store, campaign, expected turn, expected phase, actor, now)."""

GRACE = timedelta(minutes=5)
SWEEP_EVERY = timedelta(minutes=1)
MAX_STEPS_PER_RUN = 16  # a guard: a month of missed deadlines is 12 steps
RUNS_AT_ONCE = 8  # campaigns a sweep runs at the same time (each under its own lock)


_LATER_FIELDS = {"deployment_ends_when_placed": True, "min_orders_hours": None}
"""Schedule fields added after campaigns stored their clock's basis (issue 30), with their
defaults: left out of the basis while they have them, so a stored row's basis still matches
and its deadline (one a GM set by hand included) is not worked out anew by an upgrade."""


def clock_basis(campaign: Campaign) -> str:
    """The settings a deadline depends on, as text: a change makes the deadline recomputed."""
    schedule = campaign.schedule
    unset = {name for name, default in _LATER_FIELDS.items() if getattr(schedule, name) == default}
    return f"{campaign.time_zone}|{schedule.model_dump_json(exclude=unset)}"


async def sync_clock(
    store: Store, campaign: Campaign, now: datetime, anchor: datetime | None = None
) -> ClockState:
    """The campaign's clock row for the phase entry it is in, computed now if it is new.

    ``anchor`` (the scheduled moment of the step that entered the phase) replaces the entry time
    as the moment the deadline counts from, so a late run keeps the week in step.
    """
    entry = await current_entry(store, campaign)
    seq, entered = entry.seq, entry.began
    clock = await store.clock_state(campaign.id)
    basis = clock_basis(campaign)
    zone = ZoneInfo(campaign.time_zone)
    bent = timedelta(0)
    if clock is not None and clock.entry_seq == seq:
        if clock.basis == basis:
            return clock
        # The settings changed: the deadline is worked out anew, and the extension used and
        # the time paused move it again, on the new wall clock.
        anchor = clock.anchor
        bent = timedelta(hours=clock.extension_hours, seconds=clock.paused_seconds)
    start = anchor if anchor is not None and anchor <= entered else entered
    deadline = phase_deadline(campaign.phase, start, campaign.schedule, zone)
    if deadline is not None:
        deadline = wall_shift(deadline, bent, zone)
    reopening = await reopening_of(store, campaign, entry)
    if reopening is not None and campaign.phase is Phase.ORDERS:
        # A GM reopened one side's orders in this entry: its short deadline holds whatever
        # the schedule says (``bot.services.reopening``).
        deadline = reopening.deadline
    return await store.set_clock(
        campaign.id, seq, campaign.turn, campaign.phase, start, deadline, basis, now
    )


async def reachable(store: Store, user_ids: list[UserId]) -> list[UserId]:
    """Those of ``user_ids`` who opened a private chat with the bot, in the given order."""
    people = await store.people(user_ids)
    return [u for u in user_ids if u in people and people[u].can_receive_private]


async def gm_posts(
    store: Store, campaign: Campaign, kind: str, key: str, **payload: JsonValue
) -> list[NewOutboxMessage]:
    """A private post to every GM who can be reached; to the group when none can."""
    gms = [m.user_id for m in await store.members(campaign.id) if m.is_gm]
    found = await reachable(store, gms)
    if not found:
        return [group_post(campaign, kind, key, **payload)]
    return [private_post(campaign, user, kind, key, **payload) for user in found]


async def sides_in_play(store: Store, campaign: Campaign) -> list[SideId]:
    """The sides that give orders this turn (still on the map), or every side before turn 1."""
    if campaign.turn >= 1:
        state = await store.turn_start(campaign.id, campaign.turn)
        if state is not None:
            return list(state.sides())
    return [side.id for side in await store.sides(campaign.id)]


async def unready_sides(store: Store, campaign: Campaign) -> list[SideId]:
    """Sides in play whose orders (or placement, in deployment) are not marked ready."""
    if campaign.phase is Phase.DEPLOYMENT:
        placements = await store.placements(campaign.id)
        return [
            side.id
            for side in await store.sides(campaign.id)
            if side.id not in placements or not placements[side.id].ready
        ]
    if campaign.phase is Phase.ORDERS:
        orders = await store.orders_for_turn(campaign.id, campaign.turn)
        return [
            side
            for side in await sides_in_play(store, campaign)
            if side not in orders or not orders[side].ready
        ]
    return []


async def concerned(store: Store, campaign: Campaign, now: datetime) -> list[UserId]:
    """Who a reminder of the current phase is for: strategists of sides not ready (orders,
    deployment); players of sides with a battle nobody reported, or with the other side's
    report still to answer (battles); never a player on vacation today."""
    members = await store.members(campaign.id)
    if campaign.phase in (Phase.ORDERS, Phase.DEPLOYMENT):
        waiting = set(await unready_sides(store, campaign))
        reopening = await active_reopening(store, campaign)
        if reopening is not None:
            waiting &= {reopening.side_id}
        users = [m.user_id for m in members if m.side_id in waiting and Role.STRATEGIST in m.roles]
    elif campaign.phase is Phase.BATTLES:
        waiting = set(await battle_duties(store, campaign))
        players = {Role.STRATEGIST, Role.TACTICIAN}
        users = [m.user_id for m in members if m.side_id in waiting and m.roles & players]
    else:
        users = []
    away = await away_users(store, campaign, now)
    return await reachable(store, [user for user in users if user not in away])


def _weekly_cron(when: WeeklyTime, zone: ZoneInfo) -> CronTrigger:
    return CronTrigger(
        day_of_week=int(when.weekday),
        hour=when.at.hour,
        minute=when.at.minute,
        second=when.at.second,
        timezone=zone,
    )


class CampaignScheduler:
    """Runs every campaign's due steps and reminders; APScheduler only says when to look.

    ``step`` runs one phase step (default :func:`~bot.services.clockwork.advance`);
    ``on_queued`` is called after a run queued posts (the outbox sender's wake-up).
    """

    def __init__(
        self,
        store: Store,
        clock: Clock,
        step: Step = advance,
        *,
        scheduler: AsyncIOScheduler | None = None,
        grace: timedelta = GRACE,
        sweep_every: timedelta = SWEEP_EVERY,
        on_queued: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.step = step
        self.grace = grace
        self.sweep_every = sweep_every
        self.on_queued = on_queued
        self.scheduler = scheduler or AsyncIOScheduler(
            job_defaults={"coalesce": True, "misfire_grace_time": None, "max_instances": 1},
        )
        self._locks: dict[int, asyncio.Lock] = {}

    # ---- production --------------------------------------------------------------------------

    async def start(self) -> None:
        """Catch up from the database, plan every campaign's jobs, then start the clock."""
        await self.rebuild()
        self.scheduler.add_job(
            self.run_due,
            IntervalTrigger(seconds=self.sweep_every.total_seconds()),
            id="sweep",
            replace_existing=True,
        )
        self.scheduler.start()

    def shutdown(self) -> None:
        """Stop the clock (jobs are rebuilt from the database at the next start)."""
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    async def rebuild(self) -> None:
        """At start: every unfinished campaign catches up (deadlines passed while the bot was
        down run once, in order, and the group is told they ran late) and gets its jobs."""
        now = self.clock.now()
        for campaign in await self.store.unfinished_campaigns():
            await self._run_logged(campaign.id, now, catching_up=True)

    async def run_due(self, now: datetime | None = None, *, at_once: int = RUNS_AT_ONCE) -> None:
        """Run everything due in every unfinished campaign (the sweep; tests call it too),
        ``at_once`` campaigns at a time: one campaign's rules and posts overlap another's
        database writes."""
        moment = now or self.clock.now()
        campaigns = iter(await self.store.unfinished_campaigns())

        async def take_turns() -> None:
            for campaign in campaigns:
                await self._run_logged(campaign.id, moment)

        await asyncio.gather(*(take_turns() for _ in range(max(at_once, 1))))

    async def _job(self, campaign_id: int) -> None:
        await self._run_logged(campaign_id, self.clock.now())

    async def _run_logged(self, campaign_id: int, now: datetime, catching_up: bool = False) -> None:
        """One campaign's run; a failure is logged and retried at the next sweep, and never
        stops the other campaigns."""
        try:
            await self.run_campaign(campaign_id, now, catching_up=catching_up)
        except Exception:
            log.exception("campaign %s: scheduled run failed; tried again next sweep", campaign_id)

    # ---- one campaign -----------------------------------------------------------------------

    async def run_campaign(
        self, campaign_id: int, now: datetime, *, catching_up: bool = False
    ) -> list[AdvanceResult]:
        """Bring one campaign up to ``now``: reminders, due or early steps, in order; then plan
        its next jobs. Returns the steps it ran."""
        with log_context(campaign_id):
            return await self._run_campaign(campaign_id, now, catching_up)

    async def _run_campaign(
        self, campaign_id: int, now: datetime, catching_up: bool
    ) -> list[AdvanceResult]:
        lock = self._locks.setdefault(campaign_id, asyncio.Lock())
        # This process's tasks take turns on the asyncio lock, the processes sharing a
        # PostgreSQL database on the store's (one run of a campaign at a time in all of them:
        # the next one finds its step done). The compare-and-set on the phase holds either way.
        async with lock, self.store.scheduled_run(campaign_id):
            ran: list[AdvanceResult] = []
            # The modules' own steps first (duel steps): those past their deadline close
            # before the phase's own deadline step resolves the turn.
            queued = False
            for module in BOT_MODULES.values():
                queued = await module.run_steps(self.store, campaign_id, now) or queued
            for _ in range(MAX_STEPS_PER_RUN):
                campaign = await self.store.campaign(campaign_id)
                if campaign is None or campaign.status is CampaignStatus.FINISHED:
                    self._unplan(campaign_id)
                    break
                clock = await sync_clock(self.store, campaign, now)
                if campaign.status is CampaignStatus.PAUSED or campaign.schedule.mode == "manual":
                    break
                queued |= await self._remind(campaign, clock, now)
                due = clock.deadline is not None and clock.deadline <= now
                early = not due and await self._ready_early(campaign)
                if not due and not early:
                    break
                # The step and its bookkeeping (the next deadline, a note that it ran early or
                # late) are one transaction: a crash between them would lose the note for good.
                async with self.store.atomic():
                    result = await self.step(
                        self.store,
                        campaign.id,
                        campaign.turn,
                        campaign.phase,
                        None,
                        now,
                        post_at=await self._battle_list_moment(campaign, clock, now, due),
                    )
                    if result.outcome is AdvanceOutcome.ADVANCED:
                        await self._after_step(campaign, clock, now, due, catching_up)
                if result.outcome is AdvanceOutcome.ADVANCED:
                    ran.append(result)
                    queued = True
                    continue
                if result.outcome is AdvanceOutcome.BLOCKED:
                    queued |= await self._blocked(campaign, clock, result, now)
                    break
                if result.outcome is not AdvanceOutcome.ALREADY_DONE:
                    break
            await self._plan(campaign_id, now)
        if queued and self.on_queued is not None:
            self.on_queued()
        return ran

    async def _battle_list_moment(
        self, campaign: Campaign, clock: ClockState, now: datetime, due: bool
    ) -> datetime | None:
        """When a battle list made by closing the orders now is posted: the schedule's Friday
        moment after a due close (``None``: at once, e.g. an early close); after a reopening,
        the moment planned before it, if still ahead."""
        if campaign.phase is not Phase.ORDERS or clock.deadline is None:
            return None
        reopening = await active_reopening(self.store, campaign)
        if reopening is not None:
            planned = reopening.list_at
            return planned if planned is not None and planned > now else None
        if not due:
            return None
        posted = battle_list_time(clock.deadline, campaign.schedule, ZoneInfo(campaign.time_zone))
        return posted if posted is not None and posted > now else None

    async def _after_step(
        self, before: Campaign, clock: ClockState, now: datetime, due: bool, catching_up: bool
    ) -> None:
        """Deadline bookkeeping after a step this scheduler ran: the next phase counts from the
        scheduled moment; a late run is noted."""
        after = await self.store.campaign(before.id)
        if after is None:
            return
        deadline = clock.deadline
        late = due and deadline is not None and now - deadline > self.grace
        # A step that waited for the sides (placements, results, a choice) starts the next
        # phase now: counted from the missed deadline, its window would be over at once.
        held = late and await held_by(self.store, before, clock.entry_seq) is not None
        await sync_clock(self.store, after, now, anchor=deadline if due and not held else now)
        if not due and before.phase is Phase.RESOLUTION:
            return
        if not due:
            await self.store.note_clock(
                before.id,
                ClockNoteKind.EARLY_CLOSE,
                before.turn,
                before.phase,
                deadline,
                None,
                {},
                now,
                dedup=f"campaign:{before.id}:entry:{clock.entry_seq}:early",
            )
            return
        if deadline is None or not late:
            return
        if held:
            # Late because it waited, as the GMs were told at the deadline: not a stuck job
            # and not a bot that was down.
            log.info(
                "campaign %s: %s of turn %s ran once what held it since %s was settled",
                before.id,
                before.phase.value,
                before.turn,
                deadline.isoformat(),
            )
            return
        key = f"entry:{clock.entry_seq}:late"
        detail: dict[str, JsonValue] = {"ran_at": now.isoformat()}
        payload: dict[str, JsonValue] = {
            "turn": before.turn,
            "phase": before.phase.value,
            "deadline": deadline.isoformat(),
            "ran_at": now.isoformat(),
        }
        if catching_up:
            log.info(
                "campaign %s: %s of turn %s was due %s; ran late at %s",
                before.id,
                before.phase.value,
                before.turn,
                deadline.isoformat(),
                now.isoformat(),
            )
            await self.store.note_clock(
                before.id,
                ClockNoteKind.RAN_LATE,
                before.turn,
                before.phase,
                deadline,
                None,
                detail,
                now,
                dedup=f"campaign:{before.id}:{key}",
                outbox=[group_post(before, "ran_late", key, **payload)],
            )
        else:
            log.warning(
                "campaign %s: %s of turn %s overdue since %s (a stuck job?); run at %s",
                before.id,
                before.phase.value,
                before.turn,
                deadline.isoformat(),
                now.isoformat(),
            )
            await self.store.note_clock(
                before.id,
                ClockNoteKind.OVERDUE,
                before.turn,
                before.phase,
                deadline,
                None,
                detail,
                now,
                dedup=f"campaign:{before.id}:{key}",
                outbox=await gm_posts(self.store, before, "overdue_alarm", key, **payload),
            )

    async def _blocked(
        self, campaign: Campaign, clock: ClockState, result: AdvanceResult, now: datetime
    ) -> bool:
        """Tell the GMs once per phase entry why the deadline's step cannot happen."""
        reason = result.reason.value if result.reason is not None else "blocked"
        key = f"entry:{clock.entry_seq}:blocked:{reason}"
        payload: dict[str, JsonValue] = {
            "turn": campaign.turn,
            "phase": campaign.phase.value,
            "reason": reason,
            "sides": list(result.sides),
            "battles": list(result.battles),
        }
        logged = await self.store.note_clock(
            campaign.id,
            ClockNoteKind.BLOCKED,
            campaign.turn,
            campaign.phase,
            clock.deadline,
            None,
            {"reason": reason, "entry": clock.entry_seq},
            now,
            dedup=f"campaign:{campaign.id}:{key}",
            outbox=await gm_posts(self.store, campaign, "blocked_alarm", key, **payload),
        )
        if logged:
            log.warning("campaign %s: step blocked at its deadline: %s", campaign.id, reason)
        return logged

    async def _ready_early(self, campaign: Campaign) -> bool:
        """Deployment ends when every side has placed (RULES.md 3.1), unless the GM chose to end
        it alone (``deployment_ends_when_placed``); orders close early when
        the campaign asks for it and every side in play is ready; a resolution left half-way
        is finished. None of them once the GM's undo brought the campaign back to the phase:
        the GM went back to change something there, and the placements, orders or results
        still stored would end it again at once, with every post of the step sent again; it
        ends at its deadline or by the GM. A side the GM reopens after the undo still closes
        its orders early (a reopening made before it is over: ``window.reopening_of``)."""
        returned = (await current_entry(self.store, campaign)).returned
        if campaign.phase is Phase.DEPLOYMENT:
            if not campaign.schedule.deployment_ends_when_placed or returned:
                return False
            sides = await self.store.sides(campaign.id)
            return bool(sides) and not await unready_sides(self.store, campaign)
        reopening = await active_reopening(self.store, campaign)
        if reopening is not None:
            # Closed early once the reopened side confirms orders given after the reopening.
            orders = await self.store.orders_for_turn(campaign.id, campaign.turn)
            record = orders.get(reopening.side_id)
            return record is not None and record.ready and record.updated_at > reopening.reopened_at
        if returned:
            return False
        if campaign.phase is Phase.ORDERS and campaign.schedule.close_orders_early:
            return not await unready_sides(self.store, campaign)
        if campaign.phase is Phase.RESOLUTION:
            # Resolving is two transactions (battles -> resolution, then the new turn): after a
            # crash between them, or once the last result or decision a waiting resolution
            # needed came in, finish it; while it waits for the GM (open disputes, or missing
            # results under the wait-for-the-GM policy), do not.
            inputs = await self.store.turn_inputs(campaign.id, campaign.turn)
            return not holding_battles(inputs, campaign.unreported_policy)
        return False

    async def _remind(self, campaign: Campaign, clock: ClockState, now: datetime) -> bool:
        """Send the latest reminder that is due (never one whose deadline passed), to those it
        concerns who have not had it."""
        if clock.deadline is None or now >= clock.deadline:
            return False
        zone = ZoneInfo(campaign.time_zone)
        due = [
            kind
            for kind, moment in reminder_times(clock.phase, clock.anchor, clock.deadline, zone)
            if moment <= now
        ]
        if not due:
            return False
        kind = due[-1]
        # A deadline moved later sets its reminders ahead again (storage forgets they went):
        # the key names the deadline, so the reminder for the new one is queued anew.
        stamp = clock.deadline.isoformat(timespec="seconds")
        key = f"turn:{campaign.turn}:{campaign.phase.value}:reminder:{kind}:{stamp}"
        messages = [
            (
                user,
                private_post(
                    campaign,
                    user,
                    "reminder",
                    key,
                    turn=campaign.turn,
                    phase=campaign.phase.value,
                    reminder=kind,
                ),
            )
            for user in await concerned(self.store, campaign, now)
        ]
        sent = await self.store.send_reminders(
            campaign.id, campaign.turn, campaign.phase, kind, messages, now
        )
        return bool(sent)

    # ---- planning ----------------------------------------------------------------------------

    async def next_moment(self, campaign_id: int, now: datetime) -> datetime | None:
        """The campaign's next moment after ``now`` that may need a run: a reminder or its
        deadline (``None`` when paused, manual, finished, or nothing is ahead)."""
        campaign = await self.store.campaign(campaign_id)
        if campaign is None:
            return None
        duel = min(
            [
                moment
                for module in BOT_MODULES.values()
                if (moment := await module.next_step_moment(self.store, campaign, now)) is not None
            ],
            default=None,
        )
        if (
            campaign.status in (CampaignStatus.FINISHED, CampaignStatus.PAUSED)
            or campaign.schedule.mode == "manual"
        ):
            return duel
        clock = await sync_clock(self.store, campaign, now)
        if clock.deadline is None:
            return duel
        zone = ZoneInfo(campaign.time_zone)
        moments = [m for _, m in reminder_times(clock.phase, clock.anchor, clock.deadline, zone)]
        ahead = [moment for moment in (*moments, clock.deadline, duel) if moment and moment > now]
        return min(ahead, default=None)

    async def next_due(self, now: datetime | None = None) -> datetime | None:
        """The earliest next moment over every unfinished campaign (tests step through it)."""
        moment = now or self.clock.now()
        found = [
            nxt
            for campaign in await self.store.unfinished_campaigns()
            if (nxt := await self.next_moment(campaign.id, moment)) is not None
        ]
        return min(found, default=None)

    def _unplan(self, campaign_id: int) -> None:
        for job in self.scheduler.get_jobs():
            if job.id.startswith(f"campaign:{campaign_id}:"):
                self.scheduler.remove_job(job.id)

    async def _plan(self, campaign_id: int, now: datetime) -> None:
        """(Re)place the campaign's jobs: cron at its weekly moments in its time zone, and a
        date job at its next computed moment. Jobs carry only the campaign id."""
        campaign = await self.store.campaign(campaign_id)
        if (
            campaign is None
            or campaign.status is CampaignStatus.FINISHED
            or campaign.schedule.mode == "manual"
        ):
            self._unplan(campaign_id)
            return
        zone = ZoneInfo(campaign.time_zone)
        schedule = campaign.schedule
        for name, when in (
            ("orders_close", schedule.orders_close),
            ("battle_list", schedule.battle_list),
            ("resolution", schedule.resolution),
        ):
            self._put(f"campaign:{campaign_id}:{name}", campaign_id, _weekly_cron(when, zone))
        moment = await self.next_moment(campaign_id, now)
        job_id = f"campaign:{campaign_id}:next"
        if moment is None:
            self._drop(job_id)
            return
        self._put(job_id, campaign_id, DateTrigger(run_date=moment.astimezone(zone)))

    def _drop(self, job_id: str) -> None:
        if self.scheduler.get_job(job_id) is not None:
            self.scheduler.remove_job(job_id)

    def _put(self, job_id: str, campaign_id: int, trigger: CronTrigger | DateTrigger) -> None:
        """One job per id, its only argument the campaign id (before and after ``start``)."""
        self._drop(job_id)
        self.scheduler.add_job(self._job, trigger, args=[campaign_id], id=job_id)
