"""The week bends, never breaks, through the real dispatcher and the real scheduler.

The GM sees every date an extension or a pause moves, in the campaign's zone and language,
before confirming it (a stored proposal, answered once, refused once its dates are stale); an
extension past Friday keeps the whole battles phase and moves the resolution and the next turn
instead; extensions and pauses count on the campaign's wall clock across the March change; the
reminders and the group's posts follow the new dates.
"""

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from aiogram.methods import AnswerCallbackQuery
from aiogram.utils.i18n import I18n

from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.services.window import orders_opening
from storage import CampaignSettings, CampaignStatus, Phase, ProposalOutcome, Store
from tests.bot.group_helpers import button
from tests.bot.telegram import FakeTelegram, Sent
from tests.services.week import Week, start_week
from tests.storage.campaign_script import GM, strategist

CHAT = -1001  # the scripted campaign's group
MOSCOW_MONDAY = date(2026, 3, 2)  # no daylight saving in Moscow
BERLIN_MONDAY = date(2026, 3, 23)  # Berlin's clocks go forward on Sunday 29 March, 02:00


def _alert(sent: list[Sent]) -> str:
    answers = [s.method for s in sent if isinstance(s.method, AnswerCallbackQuery)]
    assert len(answers) == 1, "every press is answered once"
    return answers[0].text or ""


async def _table(
    store: Store, i18n: I18n, zone: str, monday: date, ready: tuple[str, ...] | None = None
) -> tuple[Week, FakeTelegram]:
    """Turn 1's orders in ``zone``, every side (or those ``ready`` names) ready on Tuesday;
    the bot and its group."""
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    week = await start_week(store, clock, zone, monday)
    await week.deploy()
    await week.run_until(week.at(1, 10))
    await week.give_orders(ready)
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n))
    telegram.group(CHAT, "Siege")
    telegram.user(GM, "Game Master")
    return week, telegram


async def _ask(telegram: FakeTelegram, text: str) -> Sent:
    """The GM writes ``text`` in the group; the bot's answer: the question it asked in the GM's
    private chat (the group is only told it went there), else its answer in the group."""
    telegram.take()
    await telegram.feed(telegram.message(telegram.users[GM], telegram.chats[CHAT], text))
    sent = telegram.take()
    private = [s for s in sent if s.chat_id == GM]
    if private:
        told = [s.text for s in sent if s.chat_id == CHAT]
        assert len(private) == 1
        assert len(told) == 1
        assert "private chat" in told[0] or "личном чате" in told[0]
        return private[0]
    assert len(sent) == 1, sent
    return sent[0]


async def _press(telegram: FakeTelegram, user: int, under: Sent, label: str) -> str:
    """``user`` presses the button ``label`` under ``under``; the alert they see."""
    telegram.take()
    await telegram.feed(telegram.press(telegram.users[user], under, button(under, label)))
    return _alert(telegram.take())


async def _deadline(week: Week) -> datetime:
    row = await week.store.clock_state(week.campaign.id)
    assert row is not None
    assert row.deadline is not None
    return row.deadline


async def test_an_extension_past_friday_keeps_the_whole_battles_phase(
    store: Store, i18n: I18n
) -> None:
    week, telegram = await _table(store, i18n, "Europe/Moscow", MOSCOW_MONDAY)
    await week.run_until(week.at(3, 20))  # Thursday evening, the close at 23:59
    asked = await _ask(telegram, "/extend 72")
    assert asked.text.splitlines() == [
        "Extend the deadline by 72 hours? These dates move (Moscow):",
        "• turn 1: orders close: Thu 5 Mar, 23:59 → Sun 8 Mar, 23:59",
        "• turn 1: battle list: Fri 6 Mar, 12:00 → Sun 8 Mar, 23:59",
        "• turn 1: resolution: Mon 9 Mar, 12:00 → Wed 11 Mar, 23:59",
        "• turn 2: orders open: Tue 10 Mar, 00:00 → Wed 11 Mar, 23:59",
        "• turn 2: orders close: Thu 12 Mar, 23:59 → Sat 14 Mar, 23:59",
        "• turn 2: orders window: still 72 h",
    ]
    assert await _deadline(week) == week.at(3, 23, 59), "nothing moves before «Yes»"

    done = await _press(telegram, GM, asked, "Yes, extend by 72 h")
    assert done == "Deadline extended. The group is told the new dates."
    assert await _deadline(week) == week.at(6, 23, 59)
    told = [s.text for s in await telegram.deliver() if s.chat_id == CHAT]
    extended = next(text for text in told if text.startswith("The GM extended the deadline"))
    assert "• turn 1: resolution: Mon 9 Mar, 12:00 → Wed 11 Mar, 23:59" in extended
    boards = [text for text in told if text.startswith("Siege of Planet Five\nTurn 1: orders")]
    assert boards, "the pinned board is refreshed"
    assert "Deadline: Sun 8 Mar, 23:59 (Moscow, UTC+3)." in boards[-1]

    await week.run_until(week.at(6, 23, 58))
    assert (await week.current()).phase is Phase.ORDERS
    await week.run_until(week.at(6, 23, 59))
    assert (await week.current()).phase is Phase.BATTLES
    lists = [m for m in await store.outbox_messages(week.campaign.id) if m.kind == "battle_list"]
    assert [m.not_before for m in lists] == [week.at(6, 23, 59)], "posted when orders closed"
    assert await _deadline(week) == week.at(9, 23, 59), "72 hours of battles after the list"

    # Under the draw policy the unplayed battles would be settled at the resolution: not on
    # the Monday of the week, when nobody could have played them yet.
    await week.run_until(week.at(9, 23, 58))
    assert (await week.current()).phase is Phase.BATTLES
    record = await store.turn_record(week.campaign.id, 1)
    assert record is not None
    assert record.resolution is None
    await week.run_until(week.at(9, 23, 59))
    campaign = await week.current()
    assert (campaign.turn, campaign.phase) == (2, Phase.ORDERS)
    assert await orders_opening(store, campaign, week.clock.now()) is None, "open at once"
    # The next turn starts from there, its orders open for the schedule's 72 hours (to 23:59).
    assert await _deadline(week) == week.at(12, 23, 59)


async def test_a_three_day_extension_across_the_march_change_closes_at_2359_local(
    store: Store, i18n: I18n
) -> None:
    week, telegram = await _table(store, i18n, "Europe/Berlin", BERLIN_MONDAY)
    await week.run_until(week.at(3, 12))
    asked = await _ask(telegram, "/extend 72")
    assert "• turn 1: orders close: Thu 26 Mar, 23:59 → Sun 29 Mar, 23:59" in asked.text
    await _press(telegram, GM, asked, "Yes, extend by 72 h")
    close = await _deadline(week)
    berlin = close.astimezone(ZoneInfo("Europe/Berlin"))
    assert (berlin.weekday(), berlin.hour, berlin.minute) == (6, 23, 59)
    assert close == datetime(2026, 3, 29, 21, 59, tzinfo=UTC)  # summer time, UTC+2
    assert close - week.at(3, 23, 59) == timedelta(hours=71), "the night was an hour short"
    await week.run_until(close)
    assert (await week.current()).phase is Phase.BATTLES
    resolution = (await _deadline(week)).astimezone(ZoneInfo("Europe/Berlin"))
    assert resolution.replace(tzinfo=None) == datetime(2026, 4, 1, 23, 59)


async def test_a_pause_across_the_change_moves_the_close_by_the_days_on_the_wall(
    store: Store, i18n: I18n
) -> None:
    week, telegram = await _table(store, i18n, "Europe/Berlin", BERLIN_MONDAY)
    await week.run_until(week.at(3, 20))
    asked = await _ask(telegram, "/pause")
    assert asked.text.splitlines()[:3] == [
        "Pause «Siege of Planet Five»? Until you resume, no deadline passes.",
        "On resume these move later by as long as the pause lasted (Berlin):",
        "• turn 1: orders close: Thu 26 Mar, 23:59",
    ]
    assert "at least 72 hours after the battle list" in asked.text
    assert await _press(telegram, GM, asked, "Yes, pause") == "Paused. The group is told."
    await week.run_until(week.at(7, 20))  # four days on the wall, 95 hours: Monday 20:00
    assert (await week.current()).phase is Phase.ORDERS, "no deadline passes while paused"
    resumed = await _ask(telegram, "/resume")
    assert resumed.text == "Resumed."
    close = (await _deadline(week)).astimezone(ZoneInfo("Europe/Berlin"))
    assert close.replace(tzinfo=None) == datetime(2026, 3, 30, 23, 59)
    told = [s.text for s in await telegram.deliver() if s.chat_id == CHAT]
    again = next(text for text in told if text.startswith("The campaign runs again."))
    assert "• turn 1: orders close: Mon 30 Mar, 23:59" in again
    # A close on Monday night waits for the next Friday's list: the weekend stays for battles.
    assert "• turn 1: battle list: Fri 3 Apr, 12:00" in again
    assert "• turn 1: resolution: Mon 6 Apr, 12:00" in again


async def test_a_confirmation_counts_once_from_a_gm_and_never_when_stale(
    store: Store, i18n: I18n
) -> None:
    week, telegram = await _table(store, i18n, "Europe/Moscow", MOSCOW_MONDAY)
    telegram.user(strategist("red"), "Red")
    await week.run_until(week.at(2, 12))
    twelve = await _ask(telegram, "/extend 12")
    day = await _ask(telegram, "/extend 24")
    refused = await _press(telegram, strategist("red"), twelve, "Yes, extend by 12 h")
    assert refused == "That button is not valid any more.", "the GM's private question"
    assert await _deadline(week) == week.at(3, 23, 59)

    assert await _press(telegram, GM, twelve, "Yes, extend") == (
        "Deadline extended. The group is told the new dates."
    )
    again = await _press(telegram, GM, twelve, "Yes, extend")
    assert again == "That was answered already: nothing more was done."
    stale = await _press(telegram, GM, day, "Yes, extend")
    assert stale.startswith("Out of date: the campaign or its deadline moved since")
    assert await _deadline(week) == week.at(4, 11, 59), "12 hours, once"
    row = await store.clock_state(week.campaign.id)
    assert row is not None
    assert row.extension_hours == 12

    no = await _ask(telegram, "/extend 6")
    assert await _press(telegram, GM, no, "No") == "Cancelled: nothing changed."
    assert await _press(telegram, GM, no, "Yes") == (
        "That was answered already: nothing more was done."
    )
    late = await _ask(telegram, "/pause")
    await week.run_until(week.at(4, 12))  # the close passes: the campaign moved on
    assert (await week.current()).phase is Phase.BATTLES
    refused_late = await _press(telegram, GM, late, "Yes, pause")
    assert refused_late.startswith("Out of date")
    assert (await week.current()).status is CampaignStatus.RUNNING
    outcomes = [await store.clock_proposal(number) for number in range(1, 5)]  # as asked
    assert [p.outcome if p else None for p in outcomes] == [
        ProposalOutcome.CONFIRMED,
        ProposalOutcome.STALE,
        ProposalOutcome.CANCELLED,
        ProposalOutcome.STALE,
    ]
    kinds = [m.kind for m in await store.outbox_messages(week.campaign.id)]
    assert kinds.count("deadline_extended") == 1
    assert kinds.count("clock_paused") == 0


async def test_reminders_follow_the_new_deadline(store: Store, i18n: I18n) -> None:
    week, telegram = await _table(
        store, i18n, "Europe/Moscow", MOSCOW_MONDAY, ready=("red", "green")
    )
    blue = strategist("blue")
    await week.run_until(week.at(3, 20))
    sent = await store.reminders_sent(week.campaign.id)
    assert [(r.kind, r.user_id, r.sent_at) for r in sent] == [
        ("deadline_24h", blue, week.at(2, 23, 59))
    ]
    asked = await _ask(telegram, "/extend 48")
    await _press(telegram, GM, asked, "Yes, extend by 48 h")
    await week.run_until(week.at(5, 23))
    reminders = [
        (m.chat_id, m.payload["reminder"], m.created_at)
        for m in await store.outbox_messages(week.campaign.id)
        if m.kind == "reminder"
    ]
    assert reminders == [
        (blue, "deadline_24h", week.at(2, 23, 59)),
        (blue, "deadline_24h", week.at(4, 23, 59)),  # 24 hours before the new close, again
        (blue, "deadline_2h", week.at(5, 21, 59)),
    ]
    told = [s.text for s in await telegram.deliver() if "not marked ready" in s.text]
    assert len(told) == 3, "each is worded when sent, with the deadline as it is then"
    assert all(text.endswith("Deadline: Sat 7 Mar, 23:59 (Moscow, UTC+3).") for text in told)


async def test_the_dates_are_shown_in_the_gms_language(store: Store, i18n: I18n) -> None:
    week, telegram = await _table(store, i18n, "Europe/Moscow", MOSCOW_MONDAY)
    await store.update_settings(
        week.campaign.id, CampaignSettings(language="ru"), GM, week.clock.now()
    )
    await store.set_language(GM, "ru", week.clock.now())  # the GM's private chat: in Russian
    await week.run_until(week.at(3, 12))
    asked = await _ask(telegram, "/extend 24")
    assert asked.text.splitlines()[:2] == [
        "Продлить срок на 24 часа? Сдвинутся эти даты (Москва):",
        "• ход 1: конец приёма приказов: чт, 5 марта, 23:59 → пт, 6 марта, 23:59",
    ]
    assert await _press(telegram, GM, asked, "Да, продлить на 24 ч") == (
        "Срок продлён. Группа получила новые даты."
    )


async def _panel_press(telegram: FakeTelegram, label: str) -> Sent:
    """The GM opens /gm in their private chat and presses ``label``; what the bot asked."""
    gm = telegram.users[GM]
    telegram.take()
    await telegram.feed(telegram.message(gm, GM, "/gm"))
    [panel] = [s for s in telegram.take() if s.chat_id == GM]
    await telegram.feed(telegram.press(gm, panel, button(panel, label)))
    [asked] = [s for s in telegram.take() if s.chat_id == GM and s.buttons()]
    return asked


async def test_extending_the_results_shows_and_keeps_the_next_orders_window(
    store: Store, i18n: I18n
) -> None:
    """Issue 30: an extension of the results phase moved turn 2's opening, and the GM was not
    told that its orders window shrank. It keeps the schedule's 72 hours by a later close, and
    the GM (asked in private, from the panel's +48 h) and the group see it."""
    week, telegram = await _table(store, i18n, "Europe/Moscow", MOSCOW_MONDAY)
    await week.run_until(week.at(5, 10))  # Saturday: the battles
    assert (await week.current()).phase is Phase.BATTLES
    asked = await _panel_press(telegram, "+48 h")
    assert asked.text.splitlines() == [
        "Extend the deadline by 48 hours? These dates move (Moscow):",
        "• turn 1: resolution: Mon 9 Mar, 12:00 → Wed 11 Mar, 12:00",
        "• turn 2: orders open: Tue 10 Mar, 00:00 → Wed 11 Mar, 12:00",
        "• turn 2: orders close: Thu 12 Mar, 23:59 → Sat 14 Mar, 11:59",
        "• turn 2: orders window: still 72 h",
    ]
    done = await _press(telegram, GM, asked, "Yes, extend by 48 h")
    assert done == "Deadline extended. The group is told the new dates."
    told = [s.text for s in await telegram.deliver() if s.chat_id == CHAT]
    extended = next(text for text in told if text.startswith("The GM extended the deadline"))
    assert "• turn 2: orders window: still 72 h" in extended
    await week.report_results()
    await week.run_until(week.at(9, 12))
    campaign = await week.current()
    assert (campaign.turn, campaign.phase) == (2, Phase.ORDERS)
    assert await _deadline(week) == week.at(12, 11, 59), "72 hours for turn 2's orders"


async def test_a_shorter_least_window_shows_how_much_it_shrinks_in_russian(
    store: Store, i18n: I18n
) -> None:
    """With ``min_orders_hours`` at 24, the next window may shrink to that (its close at the
    schedule's minute, xx:59): the GM is shown by how much, in Russian; the longest extension
    is asked in private too."""
    week, telegram = await _table(store, i18n, "Europe/Moscow", MOSCOW_MONDAY)
    schedule = (await week.current()).schedule.model_copy(update={"min_orders_hours": 24})
    await store.update_settings(
        week.campaign.id, CampaignSettings(schedule=schedule), GM, week.clock.now()
    )
    await store.set_language(GM, "ru", week.clock.now())
    await week.run_until(week.at(5, 10))
    asked = await _ask(telegram, "/extend 72")
    assert asked.chat_id == GM, "asked in the GM's private chat, not in the group"
    assert asked.text.splitlines() == [
        "Продлить срок на 72 часа? Сдвинутся эти даты (Москва):",
        "• ход 1: подведение итогов: пн, 9 марта, 12:00 → чт, 12 марта, 12:00",
        "• ход 2: начало приёма приказов: вт, 10 марта, 00:00 → чт, 12 марта, 12:00",
        "• ход 2: конец приёма приказов: чт, 12 марта, 23:59 → пт, 13 марта, 12:59",
        "• ход 2: приём приказов длится 72 ч → 25 ч",
    ]
    assert await _press(telegram, GM, asked, "Да, продлить на 72 ч") == (
        "Срок продлён. Группа получила новые даты."
    )
