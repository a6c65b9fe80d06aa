"""``/calendar``: the campaign's deadlines as an .ics file in the campaign's time zone, in the
group and in private, sent again when the GM moves a deadline; through the real dispatcher."""

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from aiogram.methods import SendDocument
from aiogram.types import BufferedInputFile
from aiogram.utils.i18n import I18n
from icalendar import Calendar, Event

from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.services.timekeeping import extend
from storage import CampaignSettings, CampaignStatus, ExtendOutcome, Schedule, Store
from tests.bot.telegram import FakeTelegram, Sent
from tests.services.week import Week, start_week
from tests.storage.campaign_script import GM, strategist

CHAT = -1001
MONDAY = date(2026, 3, 23)  # Berlin goes to summer time on Sunday 29 March
BERLIN = ZoneInfo("Europe/Berlin")


async def _table(store: Store, i18n: I18n) -> tuple[Week, FakeTelegram]:
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(store, clock, "Europe/Berlin", MONDAY)
    await week.deploy()
    await week.run_until(week.at(1, 10))
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n))
    telegram.group(CHAT, "Siege")
    telegram.user(GM, "Game Master")
    telegram.user(strategist("red"), "Anna", "ru")
    return week, telegram


def _files(sent: list[Sent], chat: int) -> list[Calendar]:
    found = []
    for request in sent:
        if isinstance(request.method, SendDocument) and request.chat_id == chat:
            document = request.method.document
            assert isinstance(document, BufferedInputFile)
            assert document.filename is not None
            assert document.filename.endswith(".ics")
            found.append(Calendar.from_ical(document.data))
    return found


def _events(calendar: Calendar) -> dict[str, Event]:
    return {
        str(event["uid"]): event for event in calendar.walk("VEVENT") if isinstance(event, Event)
    }


async def test_the_group_gets_every_deadline_in_the_campaigns_zone_and_again_when_moved(
    store: Store, i18n: I18n
) -> None:
    week, telegram = await _table(store, i18n)
    answer = await telegram.feed(
        telegram.message(telegram.users[GM], telegram.chats[CHAT], "/calendar")
    )
    assert answer is not None
    assert answer.text.startswith("The calendar file is on its way")
    [first] = _files(await telegram.deliver(), CHAT)
    events = _events(first)
    close = events[f"campaign-{week.campaign.id}-turn-1-orders_close@strategium"]
    start = close.decoded("dtstart")
    assert isinstance(start.tzinfo, ZoneInfo)
    assert (start.tzinfo.key, start.replace(tzinfo=None)) == (
        "Europe/Berlin",
        datetime(2026, 3, 26, 23, 59),
    )
    assert str(close["summary"]) == "Siege of Planet Five: turn 1: orders close"
    assert [c.name for c in close.subcomponents] == ["VALARM"]
    # Eight orders windows ahead; the resolution of turn 2 is after the change to summer time,
    # still at noon on the wall clock.
    closes = [uid for uid in events if uid.endswith("orders_close@strategium")]
    assert len(closes) == 8
    resolution = events[f"campaign-{week.campaign.id}-turn-2-resolution@strategium"]
    noon = resolution.decoded("dtstart")
    assert noon.replace(tzinfo=None) == datetime(2026, 4, 6, 12, 0)
    assert noon.utcoffset() == timedelta(hours=2)
    # The GM extends the orders by a day: the file comes again, the same event one day later.
    week.clock.advance(timedelta(minutes=5))
    extended = await extend(store, week.campaign.id, 24, GM, week.clock.now())
    assert extended.outcome is ExtendOutcome.EXTENDED
    [again] = _files(await telegram.deliver(), CHAT)
    moved = _events(again)[f"campaign-{week.campaign.id}-turn-1-orders_close@strategium"]
    assert moved.decoded("dtstart").replace(tzinfo=None) == datetime(2026, 3, 27, 23, 59)
    assert int(str(moved["sequence"])) > int(str(close["sequence"]))


async def test_a_player_gets_the_file_in_private_in_their_language(
    store: Store, i18n: I18n
) -> None:
    week, telegram = await _table(store, i18n)
    anna = strategist("red")
    await store.see_person(anna, "Anna", None, "ru", True, week.clock.now())
    answer = await telegram.feed(telegram.message(telegram.users[anna], anna, "/calendar"))
    assert answer is not None
    assert answer.text.startswith("Файл календаря уже в пути")
    sent = await telegram.deliver()
    [file] = _files(sent, anna)
    summaries = {str(event["summary"]) for event in file.walk("VEVENT")}
    assert "Siege of Planet Five: ход 1: конец приёма приказов" in summaries
    [caption] = [s.text for s in sent if isinstance(s.method, SendDocument)]
    assert caption.startswith("«Siege of Planet Five»: все сроки ближайших недель")


async def test_no_file_without_dated_deadlines_or_once_the_campaign_is_over(
    store: Store, i18n: I18n
) -> None:
    week, telegram = await _table(store, i18n)
    weekly = (await week.current()).schedule
    await store.update_settings(
        week.campaign.id, CampaignSettings(schedule=Schedule(mode="manual")), GM, week.clock.now()
    )
    said = await _calendar(telegram, CHAT)
    assert said == [
        "«Siege of Planet Five» has no dated deadlines: the GM ends every phase by hand, so "
        "there is no calendar to send."
    ], "one honest answer, no promise of a file"
    assert _files(await telegram.deliver(), CHAT) == []
    assert await _calendars_queued(store, week) == 0
    # The file queued before the campaign ended is not sent.
    await store.update_settings(
        week.campaign.id, CampaignSettings(schedule=weekly), GM, week.clock.now()
    )
    [on_its_way] = await _calendar(telegram, CHAT)
    assert on_its_way.startswith("The calendar file is on its way")
    campaign = await week.current()
    await store.set_status(
        campaign.id, campaign.status, CampaignStatus.FINISHED, GM, "over", week.clock.now()
    )
    assert _files(await telegram.deliver(), CHAT) == []


async def test_a_phase_the_gm_ends_or_a_pause_gets_one_honest_answer_in_both_languages(
    store: Store, i18n: I18n
) -> None:
    """Issue 30: «the file is on its way», then «no dated deadlines» and no file. Now one
    answer: why there are no dates, and when to ask again; nothing is queued."""
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(store, clock, "Europe/Berlin", MONDAY)
    gm_ends_it = week.campaign.schedule.model_copy(update={"deployment_ends_when_placed": False})
    await store.update_settings(
        week.campaign.id, CampaignSettings(schedule=gm_ends_it, language="ru"), GM, clock.now()
    )
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n))
    telegram.group(CHAT, "Осада")
    telegram.user(GM, "Мастер", "ru")
    anna = strategist("red")
    telegram.user(anna, "Anna", "en")
    await store.see_person(anna, "Anna", None, "en", True, clock.now())
    assert await _calendar(telegram, CHAT) == [
        "У кампании «Siege of Planet Five» сейчас нет срока по дате: эту фазу завершает мастер. "
        "Дальше даты идут по неделе: запросите /calendar снова, когда эта фаза закончится."
    ]
    assert await _calendar(telegram, anna) == [
        "«Siege of Planet Five» has no dated deadline now: the GM advances this phase. The "
        "weekly dates follow from then: ask /calendar again once this phase has ended."
    ]
    await store.pause_clock(week.campaign.id, GM, "", clock.now())
    assert await _calendar(telegram, CHAT) == [
        "Кампания «Siege of Planet Five» на паузе: её даты неизвестны, пока мастер её не "
        "продолжит. Тогда запросите /calendar снова."
    ]
    assert _files(await telegram.deliver(), CHAT) == []
    assert await _calendars_queued(store, week) == 0


async def _calendar(telegram: FakeTelegram, chat: int) -> list[str]:
    """``/calendar`` in ``chat`` (the group, or a person's private chat): what the bot said."""
    user = telegram.users[GM] if chat == CHAT else telegram.users[chat]
    telegram.take()
    await telegram.feed(telegram.message(user, telegram.chats[chat], "/calendar"))
    return [sent.text for sent in telegram.take() if sent.chat_id == chat]


async def _calendars_queued(store: Store, week: Week) -> int:
    return sum(1 for m in await store.outbox_messages(week.campaign.id) if m.kind == "calendar")
