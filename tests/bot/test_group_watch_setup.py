"""The Night Watch in the setup wizard: the GM switches it on, types heroes (name, side,
initiative, start, the turn a later one enters) and the NPC marker, changes initiatives, the
duel mode and a step's hours with buttons, is told which rule a bad line breaks, picks the
night-demo map; removing a side drops its heroes; the first turn's state holds the heroes."""

from __future__ import annotations

import pytest

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


async def test_a_gm_sets_hero_victory_wounds_hand_and_the_spell_deck(
    telegram: FakeTelegram, store: Store
) -> None:
    """The heroes' victory (a toggle), the wounds that kill and the spells in hand (− / + within
    the settings' bounds) and a typed spell deck (a bad card named; reset to the standard
    one); each stored only while it differs from the default, shown on the screen and in the
    summary, and the game built from them."""
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    screen = await tap(telegram, anna, telegram.sent[-1], "🌃 Night Watch")
    screen = await tap(telegram, anna, screen, "Switch the Night Watch on")
    assert screen is not None
    assert "A hero falls at 4 wounds." in screen.text
    assert "A hero holds 3 spells in hand." in screen.text
    assert "Spell deck, 12 spells: A1 A2×2 A3×2 A4 D1 D2×2 D3×2 D4. The standard deck." in (
        screen.text
    )
    assert "Victory by heroes: off." in screen.text
    assert "Standard deck" not in str(screen.buttons())

    screen = await tap(telegram, anna, screen, "Switch victory by heroes on")
    for _press in range(4):  # 4 -> 1, and no lower
        screen = await tap(telegram, anna, screen, "🩸 −")
    assert screen is not None
    assert "A hero falls at 1 wound." in screen.text
    assert "🩸 wounds: 1" in str(screen.buttons())
    screen = await tap(telegram, anna, screen, "🩸 +")
    for _press in range(4):  # 3 -> 6, and no higher
        screen = await tap(telegram, anna, screen, "🃏 +")
    assert screen is not None
    assert "Victory by heroes: on. When heroes of two sides or more were listed" in screen.text
    assert "A hero falls at 2 wounds." in screen.text
    assert "A hero holds 6 spells in hand." in screen.text

    await tap(telegram, anna, screen, "📜 Spell deck")
    assert "A and the power (0 to 99) for an attack" in telegram.sent[-1].text
    reply = await say(telegram, anna, group, "A1 A2 X2 D3")
    assert reply is not None
    assert reply.text.startswith("«X2» is not a spell.")
    assert "«default» restores the standard deck" in reply.text
    reply = await say(telegram, anna, group, "A1 A120")
    assert reply is not None
    assert reply.text.startswith("«A120» is not a spell.")
    reply = await say(telegram, anna, group, "A3×250")
    assert reply is not None
    assert "n from 1 to 200" in reply.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert "spell_deck" not in watch_setup.settings(stored.ruleset_overrides)
    screen = await say(telegram, anna, group, "D3 A2, a1 A2 d3x2 attack-5")
    assert screen is not None
    assert "Spell deck, 7 spells: A1 A2×2 A5 D3×3. The GM's own deck." in screen.text

    await tap(telegram, anna, screen, "Back")
    summary = telegram.sent[-1].text
    assert (
        "Night Watch: on, 0 heroes, duels step by step, 2 wounds kill, 6 spells in hand, "
        "a deck of 7 spells, victory by heroes"
    ) in summary
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert watch_setup.settings(stored.ruleset_overrides) == {
        "hero_victory": True,
        "wounds_to_kill": 2,
        "hand_size": 6,
        "spell_deck": ["A1", "A2", "A2", "A5", "D3", "D3", "D3"],
    }
    chosen = game_for(stored).settings_of(WATCH, WatchSettings)
    assert (chosen.hero_victory, chosen.wounds_to_kill, chosen.hand_size) == (True, 2, 6)
    assert chosen.spell_deck == ("A1", "A2", "A2", "A5", "D3", "D3", "D3")

    # Back to the defaults: nothing of them is stored any more.
    screen = await tap(telegram, anna, telegram.sent[-1], "🌃 Night Watch")
    screen = await tap(telegram, anna, screen, "Standard deck")
    screen = await tap(telegram, anna, screen, "Switch victory by heroes off")
    for label in ("🩸 +", "🩸 +", "🃏 −", "🃏 −", "🃏 −"):
        screen = await tap(telegram, anna, screen, label)
    assert screen is not None
    assert "The standard deck." in screen.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert watch_setup.settings(stored.ruleset_overrides) == {}
    await tap(telegram, anna, screen, "Back")
    assert "Night Watch: on, 0 heroes, duels step by step, 4 wounds kill, 3 spells in hand\n" in (
        telegram.sent[-1].text + "\n"
    )


async def test_a_russian_gm_types_the_deck_in_russian_letters(
    telegram: FakeTelegram, store: Store
) -> None:
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
    screen = await tap(telegram, boris, telegram.sent[-1], "🌃 Ночной Дозор")
    screen = await tap(telegram, boris, screen, "Включить Ночной Дозор")
    assert screen is not None
    assert "Иной погибает от 4 ран." in screen.text
    assert "У Иного на руке 3 заклинания." in screen.text
    assert "Колода: 12 заклинаний — А1 А2×2 А3×2 А4 З1 З2×2 З3×2 З4. Стандартная колода." in (
        screen.text
    )
    assert "(А — атака, З — защита, число — сила заклинания.)" in screen.text
    assert "Победа Иных: выключена." in screen.text
    screen = await tap(telegram, boris, screen, "Включить победу Иных")
    screen = await tap(telegram, boris, screen, "🩸 −")
    screen = await tap(telegram, boris, screen, "🃏 −")
    assert screen is not None
    assert "Победа Иных: включена." in screen.text
    assert "Иной погибает от 3 ран." in screen.text
    assert "У Иного на руке 2 заклинания." in screen.text
    assert "🩸 раны: 3" in str(screen.buttons())

    await tap(telegram, boris, screen, "Колода заклинаний")
    assert "А и сила (от 0 до 99) — атака" in telegram.sent[-1].text
    reply = await say(telegram, boris, group, "А1 А2 Б2 З3")
    assert reply is not None
    assert reply.text.startswith("«Б2» — не заклинание.")
    assert "«по умолчанию» возвращает стандартную колоду" in reply.text
    screen = await say(telegram, boris, group, "А1 А2×2 Атака-4 З3 з3 Защита-1")
    assert screen is not None
    assert "Колода: 7 заклинаний — А1 А2×2 А4 З1 З3×2. Колоду составил мастер." in screen.text
    await tap(telegram, boris, screen, "Назад")
    assert (
        "Ночной Дозор: включён, 0 Иных, поединки по шагам, смерть от 3 ран, 2 заклинания на "
        "руке, колода из 7 заклинаний, победа Иных"
    ) in telegram.sent[-1].text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    chosen = game_for(stored).settings_of(WATCH, WatchSettings)
    assert chosen.spell_deck == ("A1", "A2", "A2", "A4", "D1", "D3", "D3")
    assert (chosen.hero_victory, chosen.wounds_to_kill, chosen.hand_size) == (True, 3, 2)

    # «по умолчанию» typed restores the standard deck.
    screen = await tap(telegram, boris, telegram.sent[-1], "🌃 Ночной Дозор")
    await tap(telegram, boris, screen, "Колода заклинаний")
    screen = await say(telegram, boris, group, "по умолчанию")
    assert screen is not None
    assert "Стандартная колода." in screen.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert "spell_deck" not in watch_setup.settings(stored.ruleset_overrides)


@pytest.mark.parametrize(
    ("typed", "deck"),
    [
        ("A1 A2 A2", ("A1", "A2", "A2")),
        ("d2, a3; A1", ("A1", "A3", "D2")),
        ("А2х2 З0", ("A2", "A2", "D0")),  # Cyrillic А, х and З
        ("Атака-3 ×3 защита-1", ("A3", "A3", "A3", "D1")),
        ("attack-4 defence-2 defense-2*2", ("A4", "D2", "D2", "D2")),
        ("по умолчанию", None),
        ("default", None),
    ],
)
def test_a_typed_deck_reads_as_its_cards(typed: str, deck: tuple[str, ...] | None) -> None:
    assert watch_setup.parse_deck(typed) == deck


@pytest.mark.parametrize(
    ("typed", "problem", "word"),
    [
        (" , ", watch_setup.DeckInputProblem.EMPTY, ""),
        ("×2 A1", watch_setup.DeckInputProblem.COPIES, "×2"),
        ("A1 x2", watch_setup.DeckInputProblem.CARD, "x2"),
        ("A1 Щ2", watch_setup.DeckInputProblem.CARD, "Щ2"),
        ("A1 A", watch_setup.DeckInputProblem.CARD, "A"),
        ("A1x150 D1x51", watch_setup.DeckInputProblem.TOO_MANY, "201"),
    ],
)
def test_a_bad_deck_names_the_word(
    typed: str, problem: watch_setup.DeckInputProblem, word: str
) -> None:
    with pytest.raises(watch_setup.DeckInputError) as raised:
        watch_setup.parse_deck(typed)
    assert (raised.value.problem, raised.value.word) == (problem, word)
