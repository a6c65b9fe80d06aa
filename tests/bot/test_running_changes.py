"""Changing a running campaign through the dispatcher (issue 23): the weekly schedule, the
current deadline and the language, from the GM panel; each shown with its dates, confirmed,
audited, announced in the group, with the board and the calendar following; refused to
anyone but the campaign's GM."""

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

from aiogram.methods import AnswerCallbackQuery
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.screens.callbacks import ChangePress
from storage import AuditAction, Role, Store, Weekday, WeeklyTime
from tests.bot.group_helpers import say, tap, to_orders
from tests.bot.private_campaign import rendered_outbox
from tests.bot.telegram import FakeTelegram, Sent
from tests.bot.test_group_gm import Table

MOSCOW = ZoneInfo("Europe/Moscow")


def _alert(sent: list[Sent]) -> str:
    answers = [s.method for s in sent if isinstance(s.method, AnswerCallbackQuery)]
    assert len(answers) == 1
    assert answers[0].show_alert
    return answers[0].text or ""


def _last(sent: list[Sent]) -> Sent:
    texts = [s for s in sent if s.text]
    assert texts, sent
    return texts[-1]


async def _group_posts(store: Store, i18n: I18n, campaign_id: int, kind: str) -> list[str]:
    return [
        text
        for message, text in await rendered_outbox(store, i18n, campaign_id)
        if message.kind == kind and message.chat_id < 0
    ]


async def test_the_gm_changes_the_weekly_schedule_after_seeing_the_dates(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    campaign = await to_orders(store, campaign, clock.now())
    await say(telegram, table.boris, table.group, "/calendar")  # the group wants calendars
    menu = await tap(telegram, table.anna, await table.panel(), "Schedule, deadline, language")
    assert menu is not None
    assert "Schedule: orders open Tue 00:00, close Thu 23:59" in menu.text
    week = await tap(telegram, table.anna, menu, "Change the weekly schedule")
    await tap(telegram, table.anna, week, "Type the four times")
    shown = await say(
        telegram, table.anna, table.anna.id, "Wed 00:00; пт 20:00; Sat 12:00; Tue 12:00"
    )
    assert shown is not None
    assert "Change the schedule to: orders open Wed 00:00, close Fri 20:00" in shown.text
    assert "• turn 1: orders close: Thu 5 Mar, 23:59 → Fri 6 Mar, 20:00" in shown.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.schedule.orders_close.weekday is Weekday.THURSDAY  # nothing yet
    done = await tap(telegram, table.anna, shown, "Yes, change")
    assert done is not None
    changed = await store.campaign(campaign.id)
    assert changed is not None
    assert changed.schedule.orders_close == WeeklyTime(weekday=Weekday.FRIDAY, at=time(20, 0))
    clock_row = await store.clock_state(campaign.id)
    assert clock_row is not None
    assert clock_row.deadline == datetime(2026, 3, 6, 17, 0, tzinfo=UTC)  # Fri 20:00 MSK
    audit = [e for e in await store.audit_log(campaign.id) if e.action == "settings_changed"]
    assert audit[-1].actor == table.anna.id
    posts = await _group_posts(store, i18n, campaign.id, "schedule_changed")
    assert len(posts) == 1
    assert posts[0].startswith("GM Anna changed the campaign's schedule: orders open Wed 00:00")
    assert "• turn 1: orders close: Thu 5 Mar, 23:59 → Fri 6 Mar, 20:00" in posts[0]
    kinds = [(m.kind, m.chat_id) for m in await store.outbox_messages(campaign.id)]
    assert kinds.count(("calendar", campaign.chat_id)) == 2  # asked once, sent again
    assert ("status_board", campaign.chat_id) in kinds


async def test_a_schedule_out_of_order_is_refused_with_the_rule(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await to_orders(store, campaign, clock.now())
    audit_before = await store.audit_log(campaign.id)
    menu = await tap(telegram, table.anna, await table.panel(), "Schedule, deadline, language")
    week = await tap(telegram, table.anna, menu, "Change the weekly schedule")
    await tap(telegram, table.anna, week, "Type the four times")
    refused = await say(
        telegram, table.anna, table.anna.id, "Thu 23:59; Tue 00:00; Fri 12:00; Mon 12:00"
    )
    assert refused is not None
    assert "out of order" in refused.text
    unread = await say(telegram, table.anna, table.anna.id, "someday soon")
    assert unread is not None
    assert "could not read four times" in unread.text
    stopped = await say(telegram, table.anna, table.anna.id, "/cancel")
    assert stopped is not None
    assert "nothing was changed" in stopped.text
    assert await store.audit_log(campaign.id) == audit_before


async def test_the_gm_sets_an_earlier_deadline_typed_in_russian(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    campaign = await to_orders(store, campaign, clock.now())
    await say(telegram, table.boris, table.boris.id, "/calendar")  # Boris keeps one too
    menu = await tap(telegram, table.anna, await table.panel(), "Schedule, deadline, language")
    deadline = await tap(telegram, table.anna, menu, "Set the current deadline")
    assert deadline is not None
    assert "The current deadline: Thu 5 Mar, 23:59" in deadline.text
    await tap(telegram, table.anna, deadline, "Type a day and time")
    shown = await say(telegram, table.anna, table.anna.id, "завтра 21:00")
    assert shown is not None
    assert "Set the deadline of turn 1 to Tue 3 Mar, 21:00" in shown.text
    assert "• turn 1: orders close: Thu 5 Mar, 23:59 → Tue 3 Mar, 21:00" in shown.text
    await tap(telegram, table.anna, shown, "Yes, change")
    clock_row = await store.clock_state(campaign.id)
    assert clock_row is not None
    assert clock_row.deadline == datetime(2026, 3, 3, 18, 0, tzinfo=UTC)
    audit = [e for e in await store.audit_log(campaign.id) if e.action is AuditAction.DEADLINE_SET]
    assert [e.actor for e in audit] == [table.anna.id]
    posts = await _group_posts(store, i18n, campaign.id, "deadline_set")
    assert posts == [
        "GM Anna moved the deadline of turn 1.\nNew dates (Moscow):\n"
        "• turn 1: orders close: Thu 5 Mar, 23:59 → Tue 3 Mar, 21:00"
    ]
    calendars = [
        m.chat_id for m in await store.outbox_messages(campaign.id) if m.kind == "calendar"
    ]
    assert calendars == [table.boris.id, table.boris.id]
    # The same «Yes» again changes nothing more.
    telegram.take()
    await telegram.feed(telegram.press(table.anna, shown, _yes(shown)))
    assert "has that already; nothing changed" in _alert(telegram.take())
    assert len(await _group_posts(store, i18n, campaign.id, "deadline_set")) == 1


def _yes(sent: Sent) -> str:
    return next(data for text, data in sent.buttons() if "Yes" in text)


async def test_a_deadline_in_the_past_or_unreadable_is_refused(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await to_orders(store, campaign, clock.now())
    menu = await tap(telegram, table.anna, await table.panel(), "Schedule, deadline, language")
    deadline = await tap(telegram, table.anna, menu, "Set the current deadline")
    await tap(telegram, table.anna, deadline, "Type a day and time")
    past = await say(telegram, table.anna, table.anna.id, "1.03 12:00")
    assert past is not None
    # 1 March has passed: read as next year's, which is too far ahead.
    assert "too far ahead" in past.text
    soon = await say(telegram, table.anna, table.anna.id, "12:05")
    assert soon is not None
    assert "too soon" in soon.text
    nonsense = await say(telegram, table.anna, table.anna.id, "next week maybe")
    assert nonsense is not None
    assert "could not read a day and a time" in nonsense.text
    assert [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.DEADLINE_SET
    ] == []


async def test_the_gm_changes_the_language_and_the_group_is_told_in_it(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    menu = await tap(telegram, table.anna, await table.panel(), "Schedule, deadline, language")
    await tap(telegram, table.anna, menu, "Русский")
    changed = await store.campaign(campaign.id)
    assert changed is not None
    assert changed.language == "ru"
    posts = await _group_posts(store, i18n, campaign.id, "language_changed")
    assert posts == ["Мастер Anna: язык сообщений кампании теперь — русский."]
    audit = [e for e in await store.audit_log(campaign.id) if e.action == "settings_changed"]
    assert audit[-1].actor == table.anna.id


async def test_the_tools_are_refused_to_anyone_but_the_gm(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await to_orders(store, campaign, clock.now())
    stamp = str(int(datetime(2026, 3, 4, 18, 0, tzinfo=UTC).timestamp()) // 60)
    outbox_before = await store.outbox_messages(campaign.id)
    for action, value in (
        ("menu", ""),
        ("sch", "m"),
        ("sch!", "m"),
        ("dlset", stamp),
        ("dl!", stamp),
        ("lang", "ru"),
        ("askd", ""),
    ):
        data = ChangePress(c=campaign.id, a=action, v=value).pack()
        for chat in (table.boris.id, table.group.id):
            telegram.take()
            await telegram.feed(telegram.forged_press(table.boris, chat, data))
            sent = telegram.take()
            assert _alert(sent), (action, chat)
            assert all(s.chat_id is None for s in sent), "nothing is posted to any chat"
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert (stored.schedule.mode, stored.language) == ("weekly", "en")
    assert await store.outbox_messages(campaign.id) == outbox_before
    assert await store.prompt(table.boris.id, table.boris.id) is None


async def test_a_yes_shown_before_another_gm_moved_the_deadline_is_out_of_date(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    """Anna is shown a new deadline and a new schedule; before she taps «Yes», Dmitri (a co-GM)
    sets another deadline. Both of her «Yes» are refused as out of date: Dmitri's stands."""
    table = Table(telegram)
    campaign = await table.start(store, clock)
    campaign = await to_orders(store, campaign, clock.now())
    dmitri = telegram.user(5, "Dmitri")
    await store.put_member(
        campaign.id, 5, "Dmitri", frozenset({Role.CO_GM}), None, table.anna.id, clock.now()
    )
    await say(telegram, dmitri, dmitri.id, "/start")
    menu = await tap(telegram, table.anna, await table.panel(), "Schedule, deadline, language")
    deadline = await tap(telegram, table.anna, menu, "Set the current deadline")
    await tap(telegram, table.anna, deadline, "Type a day and time")
    annas_deadline = await say(telegram, table.anna, table.anna.id, "завтра 21:00")
    assert annas_deadline is not None
    assert "Set the deadline of turn 1 to Tue 3 Mar, 21:00" in annas_deadline.text
    menu = await tap(telegram, table.anna, await table.panel(), "Schedule, deadline, language")
    week = await tap(telegram, table.anna, menu, "Change the weekly schedule")
    await tap(telegram, table.anna, week, "Type the four times")
    annas_week = await say(
        telegram, table.anna, table.anna.id, "Wed 00:00; Fri 20:00; Sat 12:00; Tue 12:00"
    )
    assert annas_week is not None
    assert "Change the schedule to" in annas_week.text
    # Dmitri moves the deadline to Wednesday 18:00 meanwhile.
    menu = await tap(telegram, dmitri, await table.panel(dmitri), "Schedule, deadline, language")
    deadline = await tap(telegram, dmitri, menu, "Set the current deadline")
    await tap(telegram, dmitri, deadline, "Type a day and time")
    dmitris = await say(telegram, dmitri, dmitri.id, "4.03 18:00")
    await tap(telegram, dmitri, dmitris, "Yes, change")
    dmitris_deadline = datetime(2026, 3, 4, 15, 0, tzinfo=UTC)
    clock_row = await store.clock_state(campaign.id)
    assert clock_row is not None
    assert clock_row.deadline == dmitris_deadline
    outbox_before = await store.outbox_messages(campaign.id)
    for shown in (annas_deadline, annas_week):
        telegram.take()
        await telegram.feed(telegram.press(table.anna, shown, _yes(shown)))
        sent = telegram.take()
        assert _alert(sent) == (
            "Out of date: the campaign or its deadline moved since these dates were shown. "
            "Nothing was done; ask again to see the new dates."
        )
        assert all(s.chat_id is None for s in sent), "nothing is posted"
    clock_row = await store.clock_state(campaign.id)
    assert clock_row is not None
    assert clock_row.deadline == dmitris_deadline
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.schedule.orders_close.weekday is Weekday.THURSDAY
    audit = [e for e in await store.audit_log(campaign.id) if e.action is AuditAction.DEADLINE_SET]
    assert [e.actor for e in audit] == [dmitri.id]
    assert await store.outbox_messages(campaign.id) == outbox_before


async def test_a_russian_gm_reads_the_schedule_and_dates_in_russian(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Found by the random campaigns (issue 31, seed 8): in an English campaign a GM who
    reads Russian saw «приказы открываются Tue 00:00» and English dates on these screens."""
    table = Table(telegram)
    campaign = await table.start(store, clock)
    campaign = await to_orders(store, campaign, clock.now())
    await store.set_language(table.anna.id, "ru", clock.now())
    menu = await tap(telegram, table.anna, await table.panel(), "Расписание, срок, язык")
    assert menu is not None
    assert "Расписание: приказы открываются вт 00:00, закрываются чт 23:59" in menu.text
    assert "Текущий срок: чт, 5 марта, 23:59" in menu.text
    week = await tap(telegram, table.anna, menu, "недельное расписание")
    assert week is not None
    assert "вт 00:00" in week.text
    assert "Tue 00:00" not in week.text.split("«")[0]
    deadline = await tap(telegram, table.anna, menu, "Назначить текущий срок")
    assert deadline is not None
    assert "чт, 5 марта, 23:59" in deadline.text
