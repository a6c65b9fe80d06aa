"""Vacations under the scheduler and the fake clock (issue 23): reminders skip a player who is
away, across a restart; a silent side whose player is away meets the no-show policy, and the
GMs' notice says the player is on vacation."""

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from bot.runtime.clock import ManualClock
from bot.services import vacations
from bot.services.vacations import VacationRefusal
from bot.texts.i18n import build_i18n
from storage import CampaignSettings, NoShowPolicy, Phase, SqliteCampaignStore, Store
from tests.bot.private_campaign import rendered_outbox
from tests.services.week import Week, start_week
from tests.storage.campaign_script import GM, strategist

MONDAY = date(2026, 2, 2)
BERLIN = "Europe/Berlin"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A store on a fresh file."""
    opened = await SqliteCampaignStore.open(tmp_path / "vacations.sqlite3")
    yield opened
    await opened.close()


@pytest.fixture
def clock() -> ManualClock:
    """Time that moves only when a test says so."""
    return ManualClock(datetime(2026, 1, 1, tzinfo=UTC))


async def _week(store: Store, clock: ManualClock, policy: NoShowPolicy) -> Week:
    week = await start_week(store, clock, BERLIN, MONDAY)
    await store.update_settings(
        week.campaign.id, CampaignSettings(no_show_policy=policy), GM, clock.now()
    )
    await week.deploy()
    await week.run_until(week.at(1, 10))
    return week


async def _reminded(store: Store, campaign_id: int) -> set[int]:
    return {m.chat_id for m in await store.outbox_messages(campaign_id) if m.kind == "reminder"}


async def test_reminders_skip_a_player_on_vacation_and_the_alarm_says_so(
    store: Store, clock: ManualClock
) -> None:
    week = await _week(store, clock, NoShowPolicy.WAIT_FOR_GM)
    campaign = await week.current()
    green = await store.member(campaign.id, strategist("green"))
    assert green is not None
    first, last = MONDAY + timedelta(days=1), MONDAY + timedelta(days=8)
    result = await vacations.set_vacation(store, campaign, green, first, last, clock.now())
    assert result.vacation is not None
    told = [m for m in await store.outbox_messages(campaign.id) if m.kind == "vacation_set"]
    assert strategist("green") not in {m.chat_id for m in told}
    assert GM in {m.chat_id for m in told}
    await week.give_orders(("red",))
    await week.run_until(week.at(3, 12))
    await week.restart()  # the vacation is in the database
    await week.run_until(week.at(4, 9))
    campaign = await week.current()
    assert (campaign.turn, campaign.phase) == (1, Phase.ORDERS)  # waits for the GM
    reminded = await _reminded(store, campaign.id)
    assert strategist("blue") in reminded
    assert strategist("green") not in reminded
    alarms = [
        text
        for message, text in await rendered_outbox(store, build_i18n(), campaign.id)
        if message.kind == "blocked_alarm" and message.chat_id == GM
    ]
    assert len(alarms) == 1
    assert f"{green.display_name} is on vacation until Tue 10 Feb." in alarms[0]


async def test_a_cancelled_vacation_brings_the_reminders_back(
    store: Store, clock: ManualClock
) -> None:
    week = await _week(store, clock, NoShowPolicy.HOLD)
    campaign = await week.current()
    green = await store.member(campaign.id, strategist("green"))
    assert green is not None
    result = await vacations.set_vacation(
        store, campaign, green, MONDAY + timedelta(days=1), MONDAY + timedelta(days=2), clock.now()
    )
    assert result.vacation is not None
    cancelled = await vacations.cancel_vacation(
        store, campaign, green, result.vacation.id, clock.now()
    )
    assert cancelled is not None
    again = await vacations.cancel_vacation(store, campaign, green, result.vacation.id, clock.now())
    assert again is None
    await week.run_until(week.at(3, 23))
    assert strategist("green") in await _reminded(store, campaign.id)


async def test_a_vacation_is_checked_before_it_is_stored(store: Store, clock: ManualClock) -> None:
    week = await _week(store, clock, NoShowPolicy.HOLD)
    campaign = await week.current()
    green = await store.member(campaign.id, strategist("green"))
    assert green is not None
    today = vacations.today_in(campaign, clock.now())
    cases = (
        (today - timedelta(days=1), today, VacationRefusal.PAST),
        (today + timedelta(days=3), today + timedelta(days=2), VacationRefusal.BACKWARDS),
        (today, today + timedelta(days=vacations.MAX_DAYS), VacationRefusal.TOO_LONG),
        (today + timedelta(days=400), today + timedelta(days=401), VacationRefusal.TOO_FAR),
    )
    for first, last, refusal in cases:
        result = await vacations.set_vacation(store, campaign, green, first, last, clock.now())
        assert result.refusal is refusal
    stored = await vacations.set_vacation(
        store, campaign, green, today, today + timedelta(days=3), clock.now()
    )
    assert stored.vacation is not None
    overlapping = await vacations.set_vacation(
        store, campaign, green, today + timedelta(days=2), today + timedelta(days=5), clock.now()
    )
    assert overlapping.refusal is VacationRefusal.OVERLAPS
    assert overlapping.overlapping == stored.vacation
    assert len(await store.vacations(campaign.id)) == 1
