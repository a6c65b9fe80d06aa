"""The Night Watch in the setup wizard: the GM switches it on, types heroes (name, side,
initiative, start, the turn a later one enters) and the NPC marker, changes initiatives, the
duel mode and a step's hours with buttons, is told which rule a bad line breaks, picks the
night-demo map; removing a side drops its heroes; the first turn's state holds the heroes."""

from __future__ import annotations

from bot.services import watch_setup
from bot.services.turns import game_for
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import WatchSettings
from rules.modules.watch.state import initiative_order
from storage import Store
from tests.bot.group_helpers import say, set_up_campaign, tap
from tests.bot.telegram import FakeTelegram


async def test_a_gm_lists_heroes_and_the_npc_marker(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    summary = telegram.sent[-1]
    assert "Night Watch: off" in summary.text
    screen = await tap(telegram, anna, summary, "🌃 Night Watch")
    screen = await tap(telegram, anna, screen, "Switch the Night Watch on")
    assert screen is not None
    assert "No heroes yet" in screen.text
    await tap(telegram, anna, screen, "Add heroes")
    screen = await say(
        telegram,
        anna,
        group,
        "Larisa, Red, 2, West\nAndrey; Blue; 4; East\nZavulon, red, 9, Equator, 3",
    )
    assert screen is not None
    assert "Larisa (side «Red»), initiative 2, starts in 2 West" in screen.text
    assert "Andrey (side «Blue»), initiative 4, starts in 3 East" in screen.text
    assert "Zavulon (side «Red»), initiative 9, starts in 1 Equator, enters on turn 3" in (
        screen.text
    )
    screen = await tap(telegram, anna, screen, "⚡ Andrey: 4")
    screen = await tap(telegram, anna, screen, "+")  # the first hero's +: Larisa
    assert screen is not None
    assert "Larisa (side «Red»), initiative 3" in screen.text
    await tap(telegram, anna, screen, "NPC marker")
    screen = await say(telegram, anna, group, "Egor, North Pole")
    assert screen is not None
    assert "NPC marker: Egor, starts in 4 North Pole." in screen.text
    screen = await tap(telegram, anna, screen, "Sealed duels")
    screen = await tap(telegram, anna, screen, "⏱ +")
    assert screen is not None
    assert "sealed: every hero's spells by one deadline" in screen.text
    assert "A duel step lasts at most 8 hours." in screen.text

    await tap(telegram, anna, screen, "Back")
    assert "Night Watch: on, 3 heroes, sealed duels" in telegram.sent[-1].text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    chosen = game_for(stored).settings_of(WATCH, WatchSettings)
    assert [(h.id, h.name, h.initiative, h.start, h.enters_turn) for h in chosen.heroes] == [
        ("h01", "Larisa", 3, "2", 1),
        ("h02", "Andrey", 4, "3", 1),
        ("h03", "Zavulon", 9, "1", 3),
    ]
    assert chosen.npc is not None
    assert (chosen.npc.name, chosen.npc.start) == ("Egor", "4")
    assert (chosen.duel_mode, chosen.duel_step_hours) == ("sealed", 8)

    screen = await tap(telegram, anna, telegram.sent[-1], "Sides")
    await tap(telegram, anna, screen, "✖ Remove Blue")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    left = watch_setup.heroes(stored.ruleset_overrides)
    assert [hero["name"] for hero in left] == ["Larisa", "Zavulon"]


async def test_a_bad_hero_line_names_the_rule(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    screen = await tap(telegram, anna, telegram.sent[-1], "🌃 Night Watch")
    screen = await tap(telegram, anna, screen, "Switch the Night Watch on")
    await tap(telegram, anna, screen, "Add heroes")
    reply = await say(telegram, anna, group, "Larisa, Red, 2, West\nAnton, Green, 7, West")
    assert reply is not None
    assert "Line 2: there is no side «Green»" in reply.text
    assert "Write one hero a line" in reply.text
    reply = await say(telegram, anna, group, "Anton, Blue, 150, West")
    assert reply is not None
    assert "the initiative «150» is not a whole number from 0 to 99" in reply.text
    reply = await say(telegram, anna, group, "Anton, Blue, 7, Moon")
    assert reply is not None
    assert "there is no location «Moon» on this map" in reply.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert watch_setup.heroes(stored.ruleset_overrides) == []
    screen = await say(telegram, anna, group, "Anton, Blue, 7, West")
    assert screen is not None
    assert "Anton (side «Blue»), initiative 7" in screen.text


async def test_the_night_demo_map_and_a_russian_gm(telegram: FakeTelegram, store: Store) -> None:
    boris = telegram.user(2, "Борис", language="ru")
    group = telegram.group(-200, "Варгеймеры")
    campaign = await set_up_campaign(
        telegram,
        store,
        boris,
        group,
        title="Ночной Дозор",
        sides=("Светлые", "Тёмные"),
        labels={
            "zone": "Москва",
            "add": "Добавить сторону",
            "next": "Дальше",
            "weekly": "Еженедельно",
            "draw": "Ничья без потерь",
        },
        open_deployment=False,
    )
    summary = telegram.sent[-1]
    assert "Ночной Дозор: выключен" in summary.text
    screen = await tap(telegram, boris, summary, "🌃 Ночной Дозор")
    screen = await tap(telegram, boris, screen, "Включить Ночной Дозор")
    screen = await tap(telegram, boris, screen, "Ночная демо-карта")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.map == watch_setup.DEMO_MAP
    await tap(telegram, boris, screen, "Добавить Иных")
    screen = await say(telegram, boris, group, "Лариса, Светлые, 2, Метро\nАнтон, Тёмные, 7, Кафе")
    assert screen is not None
    assert "Лариса (сторона «Светлые»), инициатива 2, начальная локация «Метро»" in (screen.text)
    assert "Егор" not in screen.text
    await tap(telegram, boris, screen, "Маркер NPC")
    screen = await say(telegram, boris, group, "Егор, Квартира Егора")
    assert screen is not None
    assert "Маркер NPC: Егор" in screen.text
    await tap(telegram, boris, screen, "Маркер NPC")
    reply = await say(telegram, boris, group, "Егор, Луна")
    assert reply is not None
    assert "на этой карте нет локации «Луна»" in reply.text


def _listed(count: int, start: int = 1) -> list[dict[str, object]]:
    return [
        {"name": f"Hero {n}", "side": "s1", "initiative": 5, "start": "1", "enters_turn": 1}
        for n in range(start, start + count)
    ]


def test_heroes_of_equal_initiative_step_in_the_order_the_gm_listed_them() -> None:
    overrides = watch_setup.with_heroes({}, _listed(12))
    ids = [hero["id"] for hero in watch_setup.heroes(overrides)]
    assert ids == [f"h{n:02d}" for n in range(1, 13)]
    chosen = WatchSettings.model_validate(watch_setup.settings(overrides))
    assert [hero.name for hero in initiative_order(chosen.heroes)] == [
        f"Hero {n}" for n in range(1, 13)
    ]
    # A hero removed and one added: the new one comes last, after every id taken.
    fewer = watch_setup.without_hero(overrides, "h03")
    assert fewer is not None
    more = watch_setup.with_heroes(fewer, _listed(1, start=13))
    assert [hero["id"] for hero in watch_setup.heroes(more)][-1] == "h13"


def test_a_stored_list_keeps_its_older_hero_ids() -> None:
    stored = [{"id": f"h{n}", **hero} for n, hero in enumerate(_listed(2), start=1)]
    overrides = {"modules": [WATCH], "module_settings": {WATCH: {"heroes": stored}}}
    more = watch_setup.with_heroes(overrides, _listed(1, start=3))
    assert [hero["id"] for hero in watch_setup.heroes(more)] == ["h1", "h2", "h3"]
    # The same ids for a hero a GM adds to a running campaign (bot.services.watch_gm).
    assert watch_setup.next_hero_id({"h1", "h2"}) == "h3"
    assert watch_setup.next_hero_id({"h01", "h02", "h07"}) == "h08"
    assert watch_setup.next_hero_id(set()) == "h01"


async def test_the_night_demo_map_picked_before_the_watch_is_on_shows(
    telegram: FakeTelegram, store: Store
) -> None:
    """The map button on the screen of a watch still off changes the screen too (found by the
    e2e campaign: the press stored the map but the screen stayed the same, so the GM saw
    nothing happen); the button is gone once the map is the night demo, on or off."""
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    screen = await tap(telegram, anna, telegram.sent[-1], "🌃 Night Watch")
    assert screen is not None
    assert "Night demo map" in str(screen.buttons())
    screen = await tap(telegram, anna, screen, "🗺 Night demo map")
    assert screen is not None
    assert "Night Watch: off" in screen.text
    assert "Night demo map" not in str(screen.buttons())
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.map == watch_setup.DEMO_MAP
    screen = await tap(telegram, anna, screen, "Switch the Night Watch on")
    assert screen is not None
    assert "Night demo map" not in str(screen.buttons())
