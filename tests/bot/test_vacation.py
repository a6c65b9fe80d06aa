"""``/vacation`` through the dispatcher (issue 23): a player sets their absence by buttons or
typed dates, sees and cancels it; teammates and the GM are told; nobody else can touch it."""

from datetime import timedelta

from aiogram.utils.i18n import I18n

from bot.handlers.private.vacation import VacationPress
from bot.runtime.clock import ManualClock
from storage import Store
from tests.bot.private_campaign import GM, alert, open_table, rendered_outbox, screen
from tests.bot.telegram import FakeTelegram

ANNA, BORIS, CARL, VERA, DORA = 201, 203, 202, 301, 401


async def test_a_player_sets_an_absence_by_buttons_and_the_team_and_gm_are_told(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    shown = screen(await table.say(ANNA, "/vacation"))
    assert "None set" in shown.text
    first = screen(await table.tap(ANNA, shown, "Set an absence"))
    assert "From which day are you away?" in first.text
    last = screen(await table.tap(ANNA, first, "Tomorrow"))
    assert "Away from Tue 3 Mar. Until which day (included)?" in last.text
    done = screen(await table.tap(ANNA, last, "3 days"))
    assert done.text.startswith("Set: you are away from Tue 3 Mar to Thu 5 Mar.")
    [vacation] = await store.vacations(table.campaign.id)
    assert (vacation.user_id, vacation.first_day.day, vacation.last_day.day) == (ANNA, 3, 5)
    told = {
        message.chat_id: text
        for message, text in await rendered_outbox(store, i18n, table.campaign.id)
        if message.kind == "vacation_set"
    }
    assert set(told) == {BORIS, CARL, GM}  # her teammates and the GM; not Blue's Вера
    assert told[GM].startswith("«Siege»: Anna is away from Tue 3 Mar to Thu 5 Mar.")
    again = screen(await table.say(ANNA, "/vacation"))
    assert "• Tue 3 Mar to Thu 5 Mar" in again.text
    cancelled = await table.tap(ANNA, again, "Cancel Tue 3 Mar to Thu 5 Mar")
    assert "Cancelled" in alert(cancelled)
    assert await store.vacations(table.campaign.id) == []
    kinds = [m.kind for m in await store.outbox_messages(table.campaign.id)]
    assert kinds.count("vacation_cancelled") == 3


async def test_a_player_types_the_dates(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    shown = screen(await table.say(BORIS, "/vacation"))
    first = screen(await table.tap(BORIS, shown, "🏖"))  # Борис reads Russian
    asked = screen(await table.tap(BORIS, first, "⌨️"))
    assert "/cancel" in asked.text
    unread = screen(await table.say(BORIS, "когда-нибудь"))
    assert "/cancel" in unread.text
    last = screen(await table.say(BORIS, "10 марта"))
    screen(await table.tap(BORIS, last, "⌨️"))
    backwards = screen(await table.say(BORIS, "9.03"))
    assert "/cancel" in backwards.text
    done = screen(await table.say(BORIS, "+12"))
    assert done.text.startswith("Готово: вас нет с вт, 10 марта по сб, 14 марта.")
    [vacation] = await store.vacations(table.campaign.id)
    assert (vacation.user_id, str(vacation.first_day), str(vacation.last_day)) == (
        BORIS,
        "2026-03-10",
        "2026-03-14",
    )
    assert await store.prompt(BORIS, BORIS) is None


async def test_a_player_sets_only_their_own_vacation(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    shown = screen(await table.say(ANNA, "/vacation"))
    first = screen(await table.tap(ANNA, shown, "Set an absence"))
    last = screen(await table.tap(ANNA, first, "Today"))
    screen(await table.tap(ANNA, last, "1 day"))
    [vacation] = await store.vacations(table.campaign.id)
    # Вера (Blue) presses a cancel button made for Anna's absence: refused, it stays.
    data = VacationPress(c=table.campaign.id, a="del", d=vacation.id).pack()
    refused = await table.forged(VERA, data)
    assert alert(refused) == "Этот отъезд не ваш или уже отменён."
    assert await store.vacations(table.campaign.id) == [vacation]
    # Anna's own «set» button pressed by Вера sets Вера's absence, never Anna's.
    day = vacation.first_day.toordinal()
    await table.forged(VERA, VacationPress(c=table.campaign.id, a="set", f=day, d=day + 1).pack())
    owners = sorted(v.user_id for v in await store.vacations(table.campaign.id))
    assert owners == [ANNA, VERA]
    # Someone outside the campaign is refused.
    table.users[999] = telegram.user(999, "Nina")
    stranger = await table.forged(999, data)
    assert alert(stranger)
    assert len(await store.vacations(table.campaign.id)) == 2


async def test_a_first_day_that_passed_while_typing_the_last_is_chosen_again(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    shown = screen(await table.say(ANNA, "/vacation"))
    first = screen(await table.tap(ANNA, shown, "Set an absence"))
    last = screen(await table.tap(ANNA, first, "Today"))
    screen(await table.tap(ANNA, last, "⌨️"))
    clock.advance(timedelta(days=2))
    again = screen(await table.say(ANNA, "+3"))
    assert again.text.startswith("The first day you chose has passed. Choose it again.")
    assert "From which day are you away?" in again.text
    assert await store.vacations(table.campaign.id) == []
    assert await store.prompt(ANNA, ANNA) is None


async def test_a_command_ends_the_wait_for_a_typed_day(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    # The player asked to type a day, then went on with deployment: the placement they type
    # after /deploy is their placement, not an unreadable day (both languages).
    table = await open_table(telegram, store, clock)
    for player, label, placement, confirmed in (
        (VERA, "🏖", "экватор:3 восток=5, 5:2", "Расстановка подтверждена."),
        (DORA, "Set an absence", "West=4 East=3 South Pole=3", "Deployment confirmed."),
    ):
        shown = screen(await table.say(player, "/vacation"))
        first = screen(await table.tap(player, shown, label))
        asked = screen(await table.tap(player, first, "⌨️"))
        assert "/cancel" in asked.text
        screen(await table.say(player, "/deploy"))
        placed = screen(await table.say(player, placement))
        assert placed.text.startswith(confirmed), placed.text
    assert await store.vacations(table.campaign.id) == []
    ready = {side for side, p in (await store.placements(table.campaign.id)).items() if p.ready}
    assert ready == {"blue", "green"}


async def test_a_typed_day_is_no_longer_awaited_once_the_campaign_moves_on(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    shown = screen(await table.say(BORIS, "/vacation"))
    first = screen(await table.tap(BORIS, shown, "🏖"))
    screen(await table.tap(BORIS, first, "⌨️"))
    for side, placement in (
        ("red", {"1": 4, "2": 3, "4": 3}),
        ("blue", {"1": 3, "3": 5, "5": 2}),
        ("green", {"2": 4, "3": 3, "5": 3}),
    ):
        await store.save_placement(table.campaign.id, side, placement, True, GM, clock.now())
    await table.step()  # turn 1's orders open
    # What Борис types now is his side's orders, not the day the deployment's question asked.
    read = screen(await table.say(BORIS, "2 -> 1 x2"))
    assert not read.text.startswith("Отъезд"), read.text
    record = await store.orders(table.campaign.id, 1, "red")
    assert record is not None
    assert [(m.source, m.to, m.count) for m in record.orders.moves] == [("2", "1", 2)]
    assert await store.vacations(table.campaign.id) == []
    assert await store.prompt(BORIS, BORIS) is None
