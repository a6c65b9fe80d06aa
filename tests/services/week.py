"""A scheduled campaign for schedule tests: players act, the scheduler does the rest.

Times are local wall-clock moments in the campaign's zone (``local(day, hh, mm)`` from a
Monday), so a test reads like a week. :class:`Week` holds the scheduler, which a test may
replace at any moment to simulate a restart (a new one rebuilt from the database).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.runtime.clock import ManualClock
from bot.services.clockwork import advance
from bot.services.schedule import CampaignScheduler
from bot.services.turns import game_for
from storage import (
    Campaign,
    CampaignSettings,
    Phase,
    PhaseEntry,
    Schedule,
    Store,
    WriteOutcome,
)
from tests.storage.campaign_script import (
    CO_GM,
    GM,
    PLACEMENTS,
    PLAYERS,
    new_campaign,
    pick_orders,
    pick_result,
    strategist,
    tactician,
)


def local(zone: str, monday: date, day: int, hour: int, minute: int = 0) -> datetime:
    """``day`` days after ``monday`` at ``hour:minute`` on the wall clock of ``zone``."""
    wall = datetime.combine(monday + timedelta(days=day), time(hour, minute), ZoneInfo(zone))
    return wall.astimezone(ZoneInfo("UTC"))


async def open_private_chats(store: Store, now: datetime) -> None:
    """Every player and the GMs have started the bot in private."""
    for user in (GM, CO_GM, *(user for user, _, _ in PLAYERS)):
        await store.see_person(user, f"Person {user}", None, "en", True, now)


@dataclass
class Week:
    """A campaign, its clock and its (replaceable) scheduler."""

    store: Store
    clock: ManualClock
    zone: str
    monday: date
    campaign: Campaign
    scheduler: CampaignScheduler = field(init=False)
    seed: int = 7

    def __post_init__(self) -> None:
        self.scheduler = CampaignScheduler(self.store, self.clock)

    def at(self, day: int, hour: int, minute: int = 0) -> datetime:
        """A wall-clock moment of the campaign's zone, ``day`` days after the first Monday."""
        return local(self.zone, self.monday, day, hour, minute)

    async def restart(self) -> None:
        """The bot restarts: a new scheduler, rebuilt from the database."""
        self.scheduler = CampaignScheduler(self.store, self.clock)
        await self.scheduler.rebuild()

    async def run_until(self, moment: datetime) -> None:
        """Let the clock run to ``moment``, the scheduler acting at every moment it is due."""
        while True:
            due = await self.scheduler.next_due(self.clock.now())
            if due is None or due > moment:
                break
            self.clock.set(due)
            await self.scheduler.run_due(due)
        self.clock.set(moment)
        await self.scheduler.run_due(moment)

    async def current(self) -> Campaign:
        """The campaign as stored now."""
        campaign = await self.store.campaign(self.campaign.id)
        assert campaign is not None
        return campaign

    async def deploy(self, *, sweep: bool = True) -> None:
        """Every side places its armies (ready), and (``sweep``) the minute's sweep that follows
        ends the deployment (a test clock jumping ahead would end it only when it lands,
        later)."""
        for side, placement in PLACEMENTS.items():
            saved = await self.store.save_placement(
                self.campaign.id, side, placement, True, strategist(side), self.clock.now()
            )
            assert saved.outcome is WriteOutcome.SAVED
        if sweep:
            await self.scheduler.run_due(self.clock.now())

    async def give_orders(self, sides: tuple[str, ...] | None = None) -> None:
        """Sides in play (or ``sides``) save seeded orders, marked ready."""
        campaign = await self.current()
        state = await self.store.turn_start(campaign.id, campaign.turn)
        assert state is not None
        game = game_for(campaign)
        rng = random.Random(self.seed * 100 + campaign.turn)
        for side in state.sides():
            orders = pick_orders(game, state, side, rng)
            if sides is not None and side not in sides:
                continue
            saved = await self.store.save_orders(
                campaign.id, campaign.turn, side, orders, True, strategist(side), self.clock.now()
            )
            assert saved.outcome is WriteOutcome.SAVED

    async def report_results(self) -> None:
        """Every battle of the current list is reported by the attacker and confirmed."""
        campaign = await self.current()
        battle_list = await self.store.battle_list(campaign.id, campaign.turn)
        assert battle_list is not None
        rng = random.Random(self.seed * 1000 + campaign.turn)
        now = self.clock.now()
        for battle in battle_list.battles:
            result = pick_result(battle, rng)
            await self.store.report_result(
                campaign.id, campaign.turn, result, tactician(battle.attacker), now
            )
            confirmed = await self.store.confirm_result(
                campaign.id, campaign.turn, result, tactician(battle.defender), now
            )
            assert confirmed.outcome is WriteOutcome.SAVED


async def start_week(
    store: Store,
    clock: ManualClock,
    zone: str,
    monday: date,
    schedule: Schedule | None = None,
) -> Week:
    """A campaign in ``zone`` whose GM opened deployment on ``monday`` at 10:00 local."""
    clock.set(local(zone, monday, 0, 9))
    await open_private_chats(store, clock.now())
    created = await new_campaign(store)
    campaign = await store.update_settings(
        created.id,
        CampaignSettings(time_zone=zone, schedule=schedule or Schedule()),
        GM,
        clock.now(),
    )
    clock.set(local(zone, monday, 0, 10))
    opened = await advance(store, campaign.id, 0, Phase.SETUP, GM, clock.now())
    assert opened.advanced
    return Week(store=store, clock=clock, zone=zone, monday=monday, campaign=campaign)


def history_of(entries: list[PhaseEntry]) -> list[tuple[int, str, datetime, int | None, str]]:
    """Phase history without row ids: what happened, when, by whom."""
    return [(e.turn, e.phase.value, e.entered_at, e.actor, e.reason) for e in entries]
