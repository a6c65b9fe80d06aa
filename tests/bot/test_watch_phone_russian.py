"""A Russian player on a phone walks every Night Watch screen (issue 19), as
test_gm_panel_russian does for the GM panel: the heroes screen on /orders, /hand, a duel step
screen and its target screen, the group's step post, the GM's duel steps and "-1" tools, and the
wizard's Night Watch screen. Every screen is in Russian (no English word but the glossary's
«NPC» and the commands), every row of buttons fits a phone, a screen a player opens from
another has a way back, and a long name is cut in a button, never the words around it."""

from __future__ import annotations

import re

from aiogram.methods import EditMessageText

from bot.runtime.clock import ManualClock
from bot.services.clockwork import advance
from storage import Phase, Store
from tests.bot.group_helpers import say, set_up_campaign, tap
from tests.bot.private_campaign import GM, GROUP, Table, alert, screen
from tests.bot.telegram import FakeTelegram, Sent
from tests.bot.test_gm_panel_russian import a_screen_with_a_way_back, fits_a_phone, rows
from tests.bot.test_watch_duels import DAY, NIGHT, _watch_table

LONG = "Александра Константиновна"
HEROES = [
    {"id": "larisa", "side": "day", "name": "Лариса", "initiative": 2, "start": "metro"},
    {"id": "andrey", "side": "night", "name": "Андрей", "initiative": 4, "start": "metro"},
    {"id": "long", "side": "night", "name": LONG, "initiative": 5, "start": "metro"},
    {"id": "anton", "side": "night", "name": "Антон", "initiative": 7, "start": "cafe"},
    {"id": "zavulon", "side": "day", "name": "Завулон", "initiative": 9, "start": "hairdresser"},
]
ALLOWED_LATIN = {"NPC", "UTC", "hand", "cancel", "orders", "Dasha", "Nikita", "Game", "Master"}
"""The glossary's «маркер NPC», the time zone, the commands a Russian text may name, and the
people's own names (``_watch_table``'s players and GM)."""


def in_russian(sent: Sent) -> None:
    """No English word in the text or on a button (the names here are all Russian)."""
    words = [sent.text, *(label for row in rows(sent) for label in row)]
    latin = {w for text in words for w in re.findall(r"[A-Za-z]{2,}", text)} - ALLOWED_LATIN
    assert not latin, (latin, sent.text)


def on_a_phone(sent: Sent | None) -> Sent:
    assert sent is not None
    fits_a_phone(sent)
    in_russian(sent)
    return sent


async def _table(telegram: FakeTelegram, store: Store, clock: ManualClock) -> Table:
    return await _watch_table(
        telegram, store, clock, "initiative", "ru", HEROES, ("Светлые", "Тёмные"), "Дозоры"
    )


async def test_a_russian_player_walks_the_watch_screens_on_a_phone(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _table(telegram, store, clock)

    # /orders: the heroes screen, its moves, a move changed, and back to the orders.
    home = on_a_phone(screen(await table.say(NIGHT, "/orders")))
    assert home.text.startswith("«Дозоры», ход 1: приказы стороны «Тёмные»")
    heroes = on_a_phone(screen(await table.tap(NIGHT, home, "🧙 Иные и заклинания")))
    a_screen_with_a_way_back(heroes)
    assert rows(heroes)[-1] == ["◀ Назад"]
    assert heroes.text.startswith("Секретно: Иные стороны «Тёмные» и их заклинания, ход 1.")
    assert "• Андрей остаётся на месте." in heroes.text
    moves = [label for row in rows(heroes) for label in row if "→" in label]
    assert "Андрей → «Парикмахерская»" in moves
    # The long name is cut, the destination never: each move button names where it goes.
    assert "Александра Константи… → «Парикмахерская»" in moves
    assert all(label.endswith("»") for label in moves)
    moved = on_a_phone(screen(await table.tap(NIGHT, heroes, "Андрей → «Кафе»")))
    assert "• Иной «Андрей» — в локацию «Кафе»" in moved.text
    assert ["✖ Андрей остаётся на месте"] in rows(moved)
    back = on_a_phone(screen(await table.tap(NIGHT, moved, "◀ Назад")))
    assert back.text.startswith("«Дозоры», ход 1: приказы стороны «Тёмные»")
    assert "Иной «Андрей» — в локацию «Кафе»" in back.text

    # /hand: the side's own heroes and spells, in Russian.
    hand = on_a_phone(screen(await table.say(NIGHT, "/hand")))
    assert f"🧙 {LONG} (сторона «Тёмные», инициатива 5): «Метро», 0 ран из 4" in hand.text
    assert "на руке: " in hand.text

    # The battles: Day's duel step screen, the target screen and back, a spell laid and played.
    assert (await advance(store, table.campaign.id, 1, Phase.ORDERS, GM, clock.now())).advanced
    await telegram.deliver()
    [step] = [s for s in table.take() if s.chat_id == DAY and s.markup is not None]
    on_a_phone(step)
    assert step.text.startswith("⚔️ Поединок в локации «Метро», ход 1: шаг Иного «Лариса».")
    assert f"Иные здесь: Лариса (0 ран), {LONG} (0 ран)." in step.text
    assert rows(step)[-1] == ["Ничего не играть"]
    spell = rows(step)[0][0]  # the hand's first spell (the deal is random)
    assert spell.startswith(("Атака-", "Защита-"))
    target = on_a_phone(screen(await table.tap(DAY, step, spell)))
    a_screen_with_a_way_back(target)
    assert target.text == f"На какого Иного сыграть заклинание «{spell}»?"
    assert [LONG] in rows(target)
    again = on_a_phone(screen(await table.tap(DAY, target, "◀ Назад")))
    assert again.text == step.text
    target = screen(await table.tap(DAY, again, spell))
    laid = on_a_phone(screen(await table.tap(DAY, target, LONG)))
    assert f"Уже выложено: {spell} → {LONG}." in laid.text
    assert ["↩ Убрать последнее заклинание"] in rows(laid)
    assert rows(laid)[-1] == ["✅ Сыграть", "Ничего не играть"]
    assert alert(await table.tap(DAY, laid, "✅ Сыграть")) == "Сохранено."
    await telegram.deliver()
    posts = [s for s in table.take() if s.chat_id == GROUP]
    [played] = [s for s in posts if s.text.startswith("⚔️ Поединок")]
    in_russian(played)
    assert played.text == (
        "⚔️ Поединок в локации «Метро», ход 1: шаг Иного «Лариса».\n"
        f"Сыграно: {spell} → {LONG}.\n"
        f"Следующий шаг: Иной «{LONG}»."
    )

    # The GM's duel steps and "-1" tools: each a screen of the panel with a way back.
    panel = on_a_phone(screen(await table.say(GM, "/gm")))
    assert ["⚔️ Шаги поединков"] in rows(panel)
    assert ["🃏 Ослабить сыгранное заклинание (−1)"] in rows(panel)
    steps = on_a_phone(screen(await table.tap(GM, panel, "⚔️ Шаги поединков")))
    a_screen_with_a_way_back(steps)
    assert rows(steps)[0] == ["✖ Александра Констант…, «Метро» (открыт)"]
    assert rows(steps)[-1] == ["◀ Инструменты мастера"]
    panel = screen(await table.say(GM, "/gm"))
    spells = on_a_phone(screen(await table.tap(GM, panel, "(−1)")))
    a_screen_with_a_way_back(spells)
    [[laid_spell], back_row] = rows(spells)
    assert laid_spell.startswith(f"Лариса: {spell} → Александра")
    assert back_row == ["◀ Инструменты мастера"]
    tokens = on_a_phone(screen(await table.tap(GM, spells, "Лариса")))
    a_screen_with_a_way_back(tokens)
    assert tokens.text == (
        f"Иной «Лариса»: {spell}, цель — «{LONG}». Сколько жетонов «−1» положить на это "
        "заклинание (• — сейчас; −0 снимает их)?"
    )
    assert rows(tokens)[-1] == ["◀ Сыгранные заклинания"]
    listed = on_a_phone(screen(await table.tap(GM, tokens, "◀ Сыгранные заклинания")))
    assert isinstance(listed.method, EditMessageText)
    assert listed.text == spells.text


async def test_the_wizard_s_night_watch_screen_fits_a_phone_in_russian(
    telegram: FakeTelegram, store: Store
) -> None:
    boris = telegram.user(2, "Борис", language="ru")
    group = telegram.group(-200, "Варгеймеры")
    labels = {"zone": "Москва", "add": "Добавить сторону", "next": "Дальше"}
    labels |= {"weekly": "Еженедельно", "draw": "Ничья без потерь"}
    await set_up_campaign(
        telegram,
        store,
        boris,
        group,
        title="Дозоры",
        sides=("Светлые", "Тёмные"),
        labels=labels,
        open_deployment=False,
    )
    summary = telegram.sent[-1]
    fits_a_phone(summary)
    assert ["🌃 Дозоры", "🎯 Перевес по очкам"] in rows(summary)
    off = on_a_phone(await tap(telegram, boris, summary, "🌃 Дозоры"))
    a_screen_with_a_way_back(off)
    assert "Дозоры: за ход каждый Иной стороны может перейти в соседнюю локацию" in off.text
    watch = on_a_phone(await tap(telegram, boris, off, "Включить Дозоры"))
    watch = on_a_phone(await tap(telegram, boris, watch, "Ночная демо-карта"))
    await tap(telegram, boris, watch, "Добавить Иных")
    asked = telegram.sent[-1]
    assert asked.text.startswith("Борис, ответьте списком Иных, по одному в строке")
    typed = f"Лариса, Светлые, 2, Метро\n{LONG} Воронцова-Дашкова, Тёмные, 17, Кафе, 2"
    listed = await say(telegram, boris, group, typed)
    assert listed is not None
    on_a_phone(listed)
    assert rows(listed)[-1] == ["◀ Назад"]  # a new message after the typed answer
    assert (
        f"• {LONG} Воронцова-Дашкова (сторона «Тёмные»), инициатива 17, начальная локация "
        "«Кафе», входит в игру на ходу 2"
    ) in listed.text
    # A long name is cut in both of its buttons, so that the row with −/+ still fits.
    [long_row] = [row for row in rows(listed) if row[-1].startswith("✖ Александра")]
    assert long_row[0] == "−"
    assert long_row[1].startswith("⚡ Александра")
    assert long_row[1].endswith("…: 17")
    await tap(telegram, boris, listed, "Маркер NPC")
    marker = await say(telegram, boris, group, "Егор, Квартира Егора")
    assert marker is not None
    on_a_phone(marker)
    assert "Маркер NPC: Егор, начальная локация «Квартира Егора»." in marker.text
    sealed = on_a_phone(await tap(telegram, boris, marker, "Тайные поединки"))
    assert "Поединки: тайные — заклинания всех Иных к одному сроку" in sealed.text
    assert rows(sealed)[-1] == ["◀ Назад"]
    back = await tap(telegram, boris, sealed, "◀ Назад")
    assert back is not None
    fits_a_phone(back)
    assert back.text.startswith("Новая кампания «Дозоры»: проверьте и подтвердите.")
