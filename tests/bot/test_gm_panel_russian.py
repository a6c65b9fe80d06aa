"""A GM running a campaign in Russian walks every screen of the GM panel on their phone
(issue 23): the panel's rows in their groups, every screen in Russian, each one edited in the
panel's message with a way back, and no row of buttons wider than a phone shows; /help lists
every GM command and every panel tool, in Russian and in English."""

from __future__ import annotations

from aiogram.methods import AnswerCallbackQuery, EditMessageText
from aiogram.types import User

from bot.runtime.clock import ManualClock
from bot.services.campaigns import ask_to_join, join_side
from bot.services.clockwork import advance
from bot.texts.limits import BUTTON_ROW, button_label
from rules import Attack, SideOrders
from storage import Campaign, CampaignSettings, JoiningPolicy, Phase, Role, Store
from tests.bot.group_helpers import RUSSIAN_WIZARD, say, set_up_campaign, tap, to_orders
from tests.bot.telegram import FakeTelegram, Sent

ROW_WIDTH = BUTTON_ROW

RUSSIAN = RUSSIAN_WIZARD


class RussianTable:
    """GM Анна and player Борис (Красные), both in Russian, in a Russian group."""

    def __init__(self, telegram: FakeTelegram) -> None:
        self.telegram = telegram
        self.anna = telegram.user(1, "Анна", language="ru")
        self.boris = telegram.user(2, "Борис", language="ru")
        self.group = telegram.group(-100, "Варгеймеры")

    async def start(self, store: Store, clock: ManualClock) -> Campaign:
        campaign = await set_up_campaign(
            self.telegram,
            store,
            self.anna,
            self.group,
            title="Осада Вракса",
            sides=("Красные", "Синие"),
            labels=RUSSIAN,
        )
        for user in (self.anna, self.boris):
            await say(self.telegram, user, user.id, "/start")
        await store.request_join(campaign.id, 2, "Борис", clock.now())
        await join_side(store, campaign, 2, "Борис", "s1", Role.STRATEGIST, clock.now())
        return campaign

    async def open(self, *path: str, user: User | None = None) -> Sent:
        """/gm in private, then each button of ``path`` in turn; every screen on the way is
        checked to fit a phone. The last screen."""
        who = user or self.anna
        sent = await say(self.telegram, who, who.id, "/gm")
        assert sent is not None
        fits_a_phone(sent)
        for label in path:
            pressed = await tap(self.telegram, who, sent, label)
            assert pressed is not None, (path, label)
            sent = pressed
            fits_a_phone(sent)
        return sent


def rows(sent: Sent) -> list[list[str]]:
    """The labels of a message's buttons, row by row."""
    if sent.markup is None:
        return []
    return [[button.text for button in row] for row in sent.markup.inline_keyboard]


def fits_a_phone(sent: Sent) -> None:
    for row in rows(sent):
        assert sum(len(label) for label in row) <= ROW_WIDTH, row


def a_screen_with_a_way_back(sent: Sent) -> None:
    """A screen of the panel: the panel's message edited in place, with a «◀» button."""
    assert isinstance(sent.method, EditMessageText), sent.text
    assert any(label.startswith("◀") for row in rows(sent) for label in row), rows(sent)


async def test_the_panel_in_russian_its_groups_and_every_screen_with_a_way_back(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = RussianTable(telegram)
    campaign = await table.start(store, clock)
    # Deployment: the panel's own tool for a side that did not deploy.
    deployment = await table.open()
    assert deployment.text == "Инструменты мастера: «Осада Вракса»\nРасстановка"
    assert rows(deployment) == [
        ["⏭ Перейти дальше", "⏸ Пауза"],
        ["+12 ч", "+24 ч", "+48 ч", "+72 ч"],
        ["📍 Расставить опоздавшую сторону"],
        ["👥 Участники", "🙋 Заявки"],
        ["🪑 Заменить игрока"],
        ["⚙️ Настройки и стороны"],
        ["🗓 Расписание, срок, язык"],
        ["↩️ Отменить последний шаг"],
        ["🏁 Завершить кампанию"],
    ]
    place = await table.open("Расставить опоздавшую сторону")
    assert place.text == "Стороны, которые не расставились: выберите, какую расставить."
    a_screen_with_a_way_back(place)
    blue = await table.open("Расставить опоздавшую сторону", "Синие")
    a_screen_with_a_way_back(blue)
    assert rows(blue)[-1] == ["◀ Назад"]

    # Turn 1's orders: the tools of the turn first, then people, the campaign, undo, the end.
    campaign = await to_orders(store, campaign, clock.now())
    panel = await table.open()
    assert panel.text == "Инструменты мастера: «Осада Вракса»\nХод 1: приказы"
    assert rows(panel) == [
        ["⏭ Перейти дальше", "⏸ Пауза"],
        ["+12 ч", "+24 ч", "+48 ч", "+72 ч"],
        ["🔓 Открыть приказы стороне заново"],
        ["✏️ Исправить положение"],
        ["👥 Участники", "🙋 Заявки"],
        ["🪑 Заменить игрока"],
        ["⚙️ Настройки и стороны"],
        ["🗓 Расписание, срок, язык"],
        ["↩️ Отменить последний шаг"],
        ["🏁 Завершить кампанию"],
    ]
    members = await table.open("Участники")
    a_screen_with_a_way_back(members)
    boris = await table.open("Участники", "Борис")
    a_screen_with_a_way_back(boris)
    assert boris.text.startswith("Борис: сторона «Красные»; стратег.\nНажмите на сторону (→)")
    assert rows(boris)[-1] == ["◀ Участники"]
    remove = await table.open("Участники", "Борис", "Исключить из кампании")
    a_screen_with_a_way_back(remove)
    a_screen_with_a_way_back(await table.open("Заявки"))
    a_screen_with_a_way_back(await table.open("Заменить игрока"))
    reopen = await table.open("Открыть приказы стороне заново")
    a_screen_with_a_way_back(reopen)
    assert reopen.text.startswith("Чьи приказы открыть заново?")
    hours = await table.open("Открыть приказы стороне заново", "Красные")
    a_screen_with_a_way_back(hours)
    assert rows(hours) == [["1 ч", "3 ч", "6 ч", "12 ч"], ["◀ Назад"]]
    for path in (
        ("Исправить положение",),
        ("Исправить положение", "Красные"),
        ("Исправить положение", "Красные", "2 «Запад»"),
        ("Исправить положение", "Вывести сторону из игры"),
    ):
        a_screen_with_a_way_back(await table.open(*path))
    settings = await table.open("Настройки и стороны")
    a_screen_with_a_way_back(settings)
    assert rows(settings) == [
        ["⚔️ Бой без результата"],
        ["🙋 Вступление"],
        ["🪑 Сторона без приказов"],
        ["✏️ Переименовать сторону"],
        ["◀ Инструменты мастера"],
    ]
    no_show = await table.open("Настройки и стороны", "Сторона без приказов")
    a_screen_with_a_way_back(no_show)
    assert no_show.text == (
        "Сторона без приказов к сроку:\n"
        "• стоит на месте: все её сектора укрепляются\n"
        "повторяет приказы прошлого хода (те, что ещё верны)\n"
        "приказы ждут мастера\n"
        "Нажмите на вариант, чтобы выбрать его; группе сообщу."
    )
    assert rows(no_show) == [
        ["• Стоять на месте"],
        ["Повторить прошлые приказы"],
        ["Ждать мастера"],
        ["◀ Настройки"],
    ]
    for path in (
        ("Настройки и стороны", "Бой без результата"),
        ("Настройки и стороны", "Вступление"),
        ("Настройки и стороны", "Переименовать сторону"),
        ("Расписание, срок, язык",),
        ("Расписание, срок, язык", "Изменить недельное расписание"),
        ("Расписание, срок, язык", "Назначить текущий срок"),
    ):
        a_screen_with_a_way_back(await table.open(*path))
    undo = await table.open("Отменить последний шаг")
    a_screen_with_a_way_back(undo)
    assert undo.text.startswith("«Осада Вракса»\nХод 1: приказы\nОтменить последний шаг?")
    end = await table.open("Завершить кампанию")
    a_screen_with_a_way_back(end)
    assert rows(end) == [["🏁 Да, завершить: указать причину"], ["◀ Инструменты мастера"]]
    await table.open("Перейти дальше")
    question = telegram.sent[-1]  # a question under the panel, answered yes or no
    assert question.text.splitlines()[:2] == [
        "Закончить приём приказов хода 1 сейчас?",
        "Приказы отдали 0 из 2 сторон.",
    ]
    assert rows(question) == [["⏭ Да, закончить приём приказов", "✖ Нет"]]

    # An open seat: its screen, with the withdrawal and its confirmation.
    await store.vacate_seat(campaign.id, 2, "молчит две недели", 1, clock.now())
    seat = await table.open("Заменить игрока", "«Красные»: место игрока Борис")
    a_screen_with_a_way_back(seat)
    assert rows(seat)[-2:] == [["✖ Снять место: замены не будет"], ["◀ Назад"]]
    withdraw = await table.open("Заменить игрока", "«Красные»: место игрока Борис", "Снять место")
    a_screen_with_a_way_back(withdraw)
    assert withdraw.text.startswith("Снять свободное место стороны «Красные»?")

    # The battles: results, one battle, its winner.
    red_orders = SideOrders(attacks=(Attack(sector="1", target="s2"),), reinforce="4")
    await store.save_orders(campaign.id, 1, "s1", red_orders, True, 1, clock.now())
    closed = await advance(store, campaign.id, 1, Phase.ORDERS, 1, clock.now())
    assert closed.advanced
    battles = await table.open()
    assert battles.text == "Инструменты мастера: «Осада Вракса»\nХод 1: бои"
    assert ["⚔️ Результаты боёв"] in rows(battles)
    results = await table.open("Результаты боёв")
    a_screen_with_a_way_back(results)
    battle = await table.open("Результаты боёв", "Бой 1")
    a_screen_with_a_way_back(battle)
    assert rows(battle) == [
        ["Ничья", "Ничья с потерями"],
        ["🏆 Победа стороны «Красные»"],
        ["🏆 Победа стороны «Синие»"],
        ["◀ Результаты боёв"],
    ]
    won = await table.open("Результаты боёв", "Бой 1", "Победа стороны «Красные»")
    a_screen_with_a_way_back(won)
    assert won.text.endswith("Победа стороны «Красные»: насколько крупная?")


async def test_help_for_a_gm_lists_every_gm_command_and_panel_tool_in_both_languages(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = RussianTable(telegram)
    campaign = await table.start(store, clock)
    # Every label the panel shows in deployment, in the orders and in the battles; a turn
    # waiting for the GM adds «⚖ Resolve now», a pause «▶️ Resume».
    panel_labels = {label for row in rows(await table.open()) for label in row}
    campaign = await to_orders(store, campaign, clock.now())
    panel_labels |= {label for row in rows(await table.open()) for label in row}
    red_orders = SideOrders(attacks=(Attack(sector="1", target="s2"),), reinforce="4")
    await store.save_orders(campaign.id, 1, "s1", red_orders, True, 1, clock.now())
    await advance(store, campaign.id, 1, Phase.ORDERS, 1, clock.now())
    panel_labels |= {label for row in rows(await table.open()) for label in row}
    # the clock's line of the help names them with the rest
    panel_labels -= {"+12 ч", "+24 ч", "+48 ч", "+72 ч"}
    panel_labels |= {"⚖ Подвести итоги сейчас", "▶️ Продолжить", "+12 ч, +24 ч, +48 ч, +72 ч"}
    commands = ["/gm", "/orders", "/battles", "/cancel", "/advance", "/pause", "/resume"]
    commands += ["/extend", "/lang", "/newcampaign"]
    for chat in (table.anna.id, table.group):
        shown = await say(telegram, table.anna, chat, "/help")
        assert shown is not None
        help_text = shown.text
        assert "Для вас как мастера:" in help_text
        for label in panel_labels:
            assert label in help_text, label
        for command in commands:
            assert command in help_text, command
    in_private = await say(telegram, table.anna, table.anna.id, "/help")
    assert in_private is not None
    assert "/gm — инструменты мастера, здесь, в личном чате" in in_private.text
    # The same in English, for an English-speaking co-GM; a player's help has none of it.
    gleb = telegram.user(4, "Gleb")
    await say(telegram, gleb, gleb.id, "/start")
    await store.put_member(
        campaign.id, 4, "Gleb", frozenset({Role.CO_GM}), None, table.anna.id, clock.now()
    )
    english = await say(telegram, gleb, gleb.id, "/help")
    assert english is not None
    for label in (
        "⏭ Advance now, ⏸ Pause, ▶️ Resume, +12 h, +24 h, +48 h, +72 h, ⚖ Resolve now",
        "⚔️ Battle results",
        "🔓 Reopen a side's orders",
        "📍 Place a side that did not deploy",
        "✏️ Correct the state",
        "🃏 Carry out a card (siege)",
        "👥 Members, 🙋 Join requests",
        "🪑 Replace a player",
        "⚙️ Settings and sides",
        "🗓 Schedule, deadline, language",
        "↩️ Undo the last step",
        "🏁 End the campaign",
    ):
        assert f"• {label}: " in english.text, label
    for command in commands:
        assert command in english.text, command
    telegram.take()
    player = await say(telegram, table.boris, table.boris.id, "/help")
    assert player is not None
    assert "/gm" not in player.text
    assert not any(isinstance(s.method, AnswerCallbackQuery) for s in telegram.take())


def test_a_long_label_is_cut_to_a_row_with_an_ellipsis() -> None:
    assert button_label("🟧 Красные") == "🟧 Красные"
    cut = button_label("Александра Константиновна: 🟧 Адептус Механикус, стратег")
    assert (len(cut), cut[-1]) == (BUTTON_ROW, "…")
    assert cut.startswith("Александра Константиновна: 🟧 Адептус")


async def test_long_names_do_not_widen_the_panel(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """A member and a side with long typed names: the Members, Join requests and Place
    screens still fit a phone."""
    table = RussianTable(telegram)
    campaign = await table.start(store, clock)
    long_name = "Александра Константиновна Воронцова-Дашкова"
    await store.request_join(campaign.id, 5, long_name, clock.now())
    await join_side(store, campaign, 5, long_name, "s2", Role.TACTICIAN, clock.now())
    members = await table.open("Участники")
    assert any(label.startswith("Александра Константиновна") for [label] in rows(members)[:-1])
    await store.update_settings(
        campaign.id, CampaignSettings(joining=JoiningPolicy.APPROVAL), 1, clock.now()
    )
    campaign = await store.campaign(campaign.id) or campaign
    await store.request_join(campaign.id, 6, long_name + " II", clock.now())
    await ask_to_join(store, campaign, 6, "s1", Role.STRATEGIST, clock.now())
    requests = await table.open("Заявки")
    [(approve, refuse)] = rows(requests)[:-1]
    assert (approve[-1], refuse) == ("…", "✖ Отказать")
    await table.open("Расставить опоздавшую сторону")
