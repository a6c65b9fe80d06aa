"""Contact in the setup wizard: the GM switches it on with buttons, sets each sector's defences
(level and owner, the owner's ground), the transports a turn and the VP that win; the first
turn's state holds those defences; removing a side leaves its defences neutral."""

from __future__ import annotations

from bot.modules.contact import setup as contact_setup
from bot.services.turns import game_for
from rules.modules.contact import NAME as CONTACT
from rules.modules.contact import ContactSettings, load
from storage import Store
from tests.bot.group_helpers import set_up_campaign, tap
from tests.bot.telegram import FakeTelegram
from tests.bot.test_gm_panel_russian import RUSSIAN as RUSSIAN_WIZARD


async def test_a_gm_sets_up_contact_with_buttons(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    summary = telegram.sent[-1]
    assert "Contact: off" in summary.text
    screen = await tap(telegram, anna, summary, "🧟 Contact")
    assert screen is not None
    assert "zombies" in screen.text
    screen = await tap(telegram, anna, screen, "Switch contact on")
    screen = await tap(telegram, anna, screen, "🧱 West")  # a barricade, neutral
    screen = await tap(telegram, anna, screen, "🚩 West: neutral")
    assert screen is not None
    assert "Who owns the defences in West?" in screen.text
    assert [text for text, _data in screen.buttons()] == [
        "Red",
        "Blue",
        "✔ Neutral: nobody's ground",
        "◀ Back",
    ]
    screen = await tap(telegram, anna, screen, "Red")
    assert screen is not None
    assert "🚩 West: Red" in str(screen.buttons())
    screen = await tap(telegram, anna, screen, "🧱 East")
    screen = await tap(telegram, anna, screen, "🧱 East")  # a blockpost
    screen = await tap(telegram, anna, screen, "🏆 +5 VP")
    screen = await tap(telegram, anna, screen, "🏆 +5 VP")
    screen = await tap(telegram, anna, screen, "🏆 +1 VP")
    screen = await tap(telegram, anna, screen, "🏆 −1 VP")
    screen = await tap(telegram, anna, screen, "🚚 +1")
    assert screen is not None
    assert "West: barricade (+1) of side «Red»" in screen.text
    assert "East: blockpost (+2), neutral" in screen.text
    assert "North Pole: no defences" in screen.text
    assert "Victory points that win: 10." in screen.text
    assert "Transports a turn for each side: 2." in screen.text

    await tap(telegram, anna, screen, "Back")
    summary = telegram.sent[-1]
    assert "Contact: on, 2 sectors with defences, 10 VP win" in summary.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    game = game_for(stored)
    settings = game.settings_of(CONTACT, ContactSettings)
    assert settings.vp_to_win == 10
    assert settings.transports_per_turn == 2
    red = next(side.id for side in await store.sides(campaign.id) if side.name == "Red")
    module = game.module(CONTACT)
    assert module is not None
    defences = load(module.initial_state(game)).defences
    assert [(d.sector, d.level, d.owner) for d in defences] == [("2", 1, red), ("3", 2, None)]

    screen = await tap(telegram, anna, summary, "Sides")
    await tap(telegram, anna, screen, "✖ Remove Red")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    specs = game_for(stored).settings_of(CONTACT, ContactSettings).defences
    assert [(s.sector, s.level, s.owner) for s in specs] == [("2", 1, None), ("3", 2, None)]


async def test_a_blockpost_goes_back_to_none_and_contact_switches_off(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    screen = await tap(telegram, anna, telegram.sent[-1], "🧟 Contact")
    screen = await tap(telegram, anna, screen, "Switch contact on")
    for _press in range(3):
        screen = await tap(telegram, anna, screen, "🧱 Equator")
    assert screen is not None
    assert "Equator: no defences" in screen.text
    assert "🚩 Equator" not in str(screen.buttons())
    screen = await tap(telegram, anna, screen, "🏆 +1 VP")
    screen = await tap(telegram, anna, screen, "🏆 −1 VP")
    assert screen is not None
    assert "Victory points that win: off." in screen.text
    screen = await tap(telegram, anna, screen, "Switch contact off")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert not contact_setup.is_on(stored.ruleset_overrides)
    assert stored.ruleset_overrides.get("module_settings") is None


async def test_the_owner_is_picked_by_name_in_russian_and_a_stale_pick_changes_nothing(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna", language="ru")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(
        telegram,
        store,
        anna,
        group,
        sides=("Красные", "Синие"),
        labels=RUSSIAN_WIZARD,
        open_deployment=False,
    )
    screen = await tap(telegram, anna, telegram.sent[-1], "🧟 Сближение")
    screen = await tap(telegram, anna, screen, "Включить сближение")
    screen = await tap(telegram, anna, screen, "🧱 Запад")
    pick = await tap(telegram, anna, screen, "🚩 Запад: без владельца")
    assert pick is not None
    assert "Чьи заграждения в секторе «Запад»?" in pick.text
    screen = await tap(telegram, anna, pick, "Синие")
    assert screen is not None
    assert "Запад: баррикада (+1), сторона «Синие»" in screen.text
    assert "🚩 Запад: Синие" in str(screen.buttons())
    blue = next(side.id for side in await store.sides(campaign.id) if side.name == "Синие")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert contact_setup.defences(stored)["2"] == (1, blue)

    # The defences are removed; the old owner screen's button then changes nothing.
    screen = await tap(telegram, anna, screen, "🧱 Запад")
    screen = await tap(telegram, anna, screen, "🧱 Запад")
    assert screen is not None
    assert "Запад: без заграждений" in screen.text
    await tap(telegram, anna, pick, "Красные")
    assert "больше не действует" in str(telegram.sent[-1].method)
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert "2" not in contact_setup.defences(stored)
