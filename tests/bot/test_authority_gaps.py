"""The last authority gaps, through the real dispatcher: the GM's «set result» before the
battle list is public is refused like every other early look, and a typed wizard answer counts
only from someone who is a GM of the campaign when it arrives."""

from datetime import UTC, date, datetime

from aiogram.methods import AnswerCallbackQuery
from aiogram.utils.i18n import I18n

from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.screens.callbacks import GmPress
from storage import Phase, Role, Store
from tests.bot.group_helpers import say, tap
from tests.bot.telegram import FakeTelegram, Sent
from tests.services.week import start_week
from tests.storage.campaign_script import GM

CHAT = -1001


def _alerts(sent: list[Sent]) -> list[str]:
    return [s.method.text or "" for s in sent if isinstance(s.method, AnswerCallbackQuery)]


async def test_a_replayed_early_set_result_is_refused(store: Store, i18n: I18n) -> None:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(store, clock, "Europe/Moscow", date(2026, 3, 2))
    await week.deploy()
    await week.run_until(week.at(1, 10))
    await week.give_orders()
    await week.run_until(week.at(3, 23, 59))  # orders close; the list waits for Friday noon
    campaign = await week.current()
    assert (campaign.turn, campaign.phase) == (1, Phase.BATTLES)
    listed = await store.battle_list(campaign.id, 1)
    assert listed is not None
    assert listed.battles, "the seeded orders make battles"
    battle = listed.battles[0]
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n))
    group = telegram.group(CHAT, "Siege")
    gm = telegram.user(GM, "Game Master")
    before = await store.outbox_messages(campaign.id)
    press = GmPress(
        c=campaign.id, t=1, p="battles", a="set", v=f"1.{battle.id}.-1.crushing.{battle.attacker}"
    ).pack()
    for _delivery in range(2):  # the press, and the same press delivered again
        await telegram.feed(telegram.forged_press(gm, group, press))
        assert _alerts(telegram.take()) == [
            "The battle list is posted on Fri 6 Mar, 12:00 (Moscow, UTC+3); set results after that."
        ]
    reports = await store.battle_reports(campaign.id, 1)
    assert [r.override for r in reports if r.battle == battle.id] == [None]
    assert await store.outbox_messages(campaign.id) == before, "nothing announced, no board"

    await week.run_until(week.at(4, 12))  # Friday noon: the list is public
    await telegram.feed(telegram.forged_press(gm, group, press))
    [done] = _alerts(telegram.take())
    assert done.startswith(f"GM Game Master set the result of battle {battle.id}: ")
    reports = await store.battle_reports(campaign.id, 1)
    assert [r.override is not None for r in reports if r.battle == battle.id] == [True]


async def test_a_typed_wizard_answer_counts_only_from_a_gm_now(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    anna = telegram.user(1, "Anna")
    boris = telegram.user(2, "Boris")
    group = telegram.group(-100, "Wargamers")
    zone = await say(telegram, anna, group, "/newcampaign Hive War")
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    co_gm = frozenset({Role.CO_GM})
    await store.put_member(campaign.id, 2, "Boris", co_gm, None, 1, clock.now())
    map_step = await tap(telegram, anna, zone, "UTC")
    sides = await tap(telegram, anna, map_step, "🪐")

    asked = await tap(telegram, boris, sides, "Add a side")
    assert asked is not None
    assert "Boris, reply with the new side's name" in asked.text
    assert await store.remove_member(campaign.id, 2, 1, clock.now())  # no longer a GM
    refused = await say(telegram, boris, group, "Chaos")
    assert refused is not None
    assert refused.text.startswith("Only this campaign's GM can do that.")
    assert await store.sides(campaign.id) == []
    assert await store.prompt(-100, 2) is None, "the wait is over"

    await store.put_member(campaign.id, 2, "Boris", co_gm, None, 1, clock.now())
    asked = await tap(telegram, boris, map_step, "Upload a map file")
    assert asked is not None
    assert "map as a TOML file" in asked.text
    assert await store.remove_member(campaign.id, 2, 1, clock.now())
    upload = telegram.document(boris, group, "moons.toml", TWIN_MOONS)
    refused = await telegram.feed(upload)
    assert refused is not None
    assert refused.text.startswith("Only this campaign's GM can do that.")
    kept = await store.campaign(campaign.id)
    assert kept is not None
    assert kept.map == "planet-5"
    assert await store.prompt(-100, 2) is None


TWIN_MOONS = b"""
id = "pair"
name = "Twin moons"
[[sectors]]
id = "1"
name = "North"
neighbours = ["2"]
x = 0.2
y = 0.5
[[sectors]]
id = "2"
name = "South"
neighbours = ["1"]
x = 0.8
y = 0.5
"""
