"""The Night Watch in the setup wizard: the GM switches it on, types heroes (name, side,
initiative, start, the turn a later one enters) and the NPC marker, changes initiatives, the
duel mode and a step's hours with buttons, is told which rule a bad line breaks, picks the
night-demo map; removing a side drops its heroes; the first turn's state holds the heroes."""

from __future__ import annotations

import pytest

from bot.modules.watch import setup as watch_setup
from bot.services.turns import game_for
from rules import captures_at_once
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import WatchSettings
from rules.modules.watch.state import initiative_order
from storage import Phase, Store
from tests.bot.group_helpers import say, set_up_campaign, tap
from tests.bot.telegram import FakeTelegram, Sent

RUSSIAN_WIZARD = {
    "zone": "Москва",
    "add": "Добавить сторону",
    "next": "Дальше",
    "weekly": "Еженедельно",
    "draw": "Ничья без потерь",
}
"""The wizard's buttons a Russian GM presses in :func:`set_up_campaign`."""


async def test_a_gm_lists_heroes_and_the_npc_marker(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    summary = telegram.sent[-1]
    assert "Watches: off" in summary.text
    screen = await tap(telegram, anna, summary, "🌃 Watches")
    screen = await tap(telegram, anna, screen, "Switch the Watches on")
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
    assert "Watches: on, 3 heroes, sealed duels" in telegram.sent[-1].text
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
    screen = await tap(telegram, anna, telegram.sent[-1], "🌃 Watches")
    screen = await tap(telegram, anna, screen, "Switch the Watches on")
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
    assert "Дозоры: выключены" in summary.text
    screen = await tap(telegram, boris, summary, "🌃 Дозоры")
    screen = await tap(telegram, boris, screen, "Включить Дозоры")
    screen = await tap(telegram, boris, screen, "Ночная демо-карта")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.map == watch_setup.DEMO_MAP
    await tap(telegram, boris, screen, "Добавить Иных")
    screen = await say(telegram, boris, group, "Лариса, Светлые, 2, Метро\nАнтон, Тёмные, 7, Кафе")
    assert screen is not None
    assert "Лариса (сторона «Светлые»), инициатива 2, начальная локация «Метро»" in (screen.text)
    assert "Маркер NPC: нет." in screen.text
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
    # The same ids for a hero a GM adds to a running campaign (bot.modules.watch.gm).
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
    screen = await tap(telegram, anna, telegram.sent[-1], "🌃 Watches")
    assert screen is not None
    assert "Night demo map" in str(screen.buttons())
    screen = await tap(telegram, anna, screen, "🗺 Night demo map")
    assert screen is not None
    assert "Watches: off" in screen.text
    assert "Night demo map" not in str(screen.buttons())
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.map == watch_setup.DEMO_MAP
    screen = await tap(telegram, anna, screen, "Switch the Watches on")
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
    screen = await tap(telegram, anna, telegram.sent[-1], "🌃 Watches")
    screen = await tap(telegram, anna, screen, "Switch the Watches on")
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
        "Watches: on, 0 heroes, duels step by step, 2 wounds kill, 6 spells in hand, "
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
    screen = await tap(telegram, anna, telegram.sent[-1], "🌃 Watches")
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
    assert "Watches: on, 0 heroes, duels step by step, 4 wounds kill, 3 spells in hand\n" in (
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
    screen = await tap(telegram, boris, telegram.sent[-1], "🌃 Дозоры")
    screen = await tap(telegram, boris, screen, "Включить Дозоры")
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
        "Дозоры: включены, 0 Иных, поединки по шагам, смерть от 3 ран, 2 заклинания на "
        "руке, колода из 7 заклинаний, победа Иных"
    ) in telegram.sent[-1].text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    chosen = game_for(stored).settings_of(WATCH, WatchSettings)
    assert chosen.spell_deck == ("A1", "A2", "A2", "A4", "D1", "D3", "D3")
    assert (chosen.hero_victory, chosen.wounds_to_kill, chosen.hand_size) == (True, 3, 2)

    # «по умолчанию» typed restores the standard deck.
    screen = await tap(telegram, boris, telegram.sent[-1], "🌃 Дозоры")
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


async def test_a_watches_campaign_the_core_would_end_at_once_is_warned_and_fixed(
    telegram: FakeTelegram, store: Store
) -> None:
    """Issue 30, played in Russian: on the night map (six locations) two sides of three
    sectors each can each hold three captured sectors at the first resolution, so the core's
    victory could end the campaign before any duel mattered. The map step offers the night
    map; the module («Дозоры») is not named like the seed's side «Ночной Дозор»; its screen
    says where heroes go as the map's passages say (the apartment and the roof through the
    entrance, not «только через Метро»); the summary warns and one button lets only the heroes
    decide."""
    boris = telegram.user(2, "Борис", language="ru")
    group = telegram.group(-200, "Варгеймеры")
    campaign = await set_up_campaign(
        telegram,
        store,
        boris,
        group,
        title="Москва ночью",
        sides=("Ночной Дозор", "Дневной Дозор"),
        labels=RUSSIAN_WIZARD,
        open_deployment=False,
    )
    summary: Sent | None = telegram.sent[-1]
    assert summary is not None
    assert "⚠" not in summary.text  # the rules' planet: two sides always share a sector
    map_step = await tap(telegram, boris, summary, "Карта")
    assert map_step is not None
    assert "ночную карту «Ночная Москва» для Дозоров" in map_step.text
    await tap(telegram, boris, map_step, "🌃 Ночная Москва (6 секторов)")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.map == watch_setup.DEMO_MAP
    summary = await say(telegram, boris, group, "/newcampaign")  # back to the summary
    assert summary is not None
    assert "Дозоры: выключены" in summary.text
    warning = (
        "⚠ Кампания может закончиться на первом же подведении итогов, раньше, чем что-то ещё "
        "успеет сыграть роль: на этой карте у стороны к этому времени может быть 3 армии или "
        "больше в каждом из 3 секторов, где нет других сторон, — это захват, а для победы "
        "достаточно 3 захваченных секторов."
    )
    assert warning in summary.text  # the core alone: a goal the first resolution cannot reach
    assert (
        "«🏆 Захваченных секторов для победы: 4» — больше, чем может дать первое подведение итогов."
    ) in summary.text
    assert "Только победа Иных" not in str(summary.buttons())

    screen = await tap(telegram, boris, summary, "🌃 Дозоры")
    assert screen is not None
    assert "только через Метро" not in screen.text
    assert (
        "Переходы на этой карте: «Метро» — «Парикмахерская», «Кафе», «Подъезд»; «Подъезд» — "
        "«Квартира Егора», «Крыша»."
    ) in screen.text
    screen = await tap(telegram, boris, screen, "Включить Дозоры")
    summary = await tap(telegram, boris, screen, "◀ Назад")
    assert summary is not None
    assert "Дозоры: включены" in summary.text
    assert warning in summary.text
    assert (
        "«🌃 Только победа Иных» включает победу Иных, а захваченные секторы принесут победу, "
        "только когда у стороны будут все 6 секторов карты"
    ) in summary.text
    labels = [text for text, _data in summary.buttons()]
    assert "🏆 Захваченных секторов для победы: 4" in labels
    assert "🌃 Только победа Иных" in labels
    # The module's button and line never read like a side's name.
    assert "🌃 Дозоры" in labels
    assert not any(label.endswith("Ночной Дозор") for label in labels if "🌃" in label)

    warned = summary
    summary = await tap(telegram, boris, warned, "🌃 Только победа Иных")
    assert summary is not None
    assert "⚠" not in summary.text
    assert "Только победа Иных" not in str(summary.buttons())
    assert "Захваченных секторов для победы: 6" in summary.text
    assert "победа Иных" in summary.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.ruleset_overrides["sectors_to_win"] == 6
    assert watch_setup.effective(stored.ruleset_overrides).hero_victory is True
    game = game_for(stored)
    assert captures_at_once(game.ruleset, game.map) < game.ruleset.sectors_to_win
    # The button of the warning that is gone now changes nothing.
    again = await tap(telegram, boris, warned, "🌃 Только победа Иных")
    assert again is not None
    assert again.text == "Эта кнопка больше не действует."
    assert (await store.campaign(campaign.id)) == stored


async def test_the_watches_switched_off_keep_their_heroes_until_the_campaign_starts(
    telegram: FakeTelegram, store: Store
) -> None:
    """Switching a module off keeps its settings for switching it back on (found with issue
    30: the rules refused settings of a module not enabled, so «Switch the Watches off» was
    refused once a hero was listed); the campaign starts without them."""
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    screen = await tap(telegram, anna, telegram.sent[-1], "🌃 Watches")
    screen = await tap(telegram, anna, screen, "Switch the Watches on")
    await tap(telegram, anna, screen, "Add heroes")
    screen = await say(telegram, anna, group, "Larisa, Red, 2, West")
    screen = await tap(telegram, anna, screen, "Switch the Watches off")
    assert screen is not None
    assert "Watches: off" in screen.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert not watch_setup.is_on(stored.ruleset_overrides)
    assert game_for(stored).module(WATCH) is None
    screen = await tap(telegram, anna, screen, "Switch the Watches on")
    assert screen is not None
    assert "Larisa (side «Red»), initiative 2, starts in 2 West" in screen.text
    screen = await tap(telegram, anna, screen, "Switch the Watches off")
    summary = await tap(telegram, anna, screen, "◀ Back")
    await tap(telegram, anna, summary, "Open deployment")
    started = await store.campaign(campaign.id)
    assert started is not None
    assert started.phase is Phase.DEPLOYMENT
    assert started.ruleset_overrides == {}
