"""Night Watch orders in private, through the real dispatcher: a strategist moves heroes with
buttons (only the engine's legal destinations), changes a move (the last one counts) and takes
one back; a second strategist types moves in Russian and English, a refused one is explained
with its rule; /hand shows a side only its own heroes' spells, and no hand reaches the group or
another side's chat."""

from __future__ import annotations

from typing import Any

from aiogram.methods import AnswerCallbackQuery
from aiogram.utils.i18n import I18n

from bot.modules.watch import orders as watch_orders
from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import load
from storage import Phase, Store
from tests.bot.private_campaign import (
    GM,
    GROUP,
    Table,
    alert,
    open_table,
    rendered_outbox,
    screen,
)
from tests.bot.telegram import FakeTelegram


def _hero(hero: str, side: str, name: str, initiative: int, start: str) -> dict[str, Any]:
    return {"id": hero, "side": side, "name": name, "initiative": initiative, "start": start}


WATCH_RULES: dict[str, Any] = {
    "modules": [WATCH],
    "module_settings": {
        WATCH: {
            "heroes": [
                _hero("h1", "red", "Лариса", 2, "hairdresser"),
                _hero("h2", "blue", "Андрей", 4, "cafe"),
                _hero("h3", "blue", "Антон", 7, "metro"),
                _hero("h4", "red", "Zavulon", 9, "entrance"),
                {**_hero("h5", "red", "Igor", 5, "roof"), "enters_turn": 3},
            ],
            "npc": {"name": "Егор", "start": "apartment"},
        }
    },
}
PLACEMENTS = {
    "red": {"hairdresser": 6, "cafe": 2, "roof": 2},
    "blue": {"entrance": 5, "apartment": 3, "metro": 2},
    "green": {"cafe": 4, "roof": 3, "metro": 3},
}
RED_CHATS = {201, 202, 203}
"""Red's players: the only private chats that may see Red's hands (and the GM's)."""


async def _watch_table(telegram: FakeTelegram, store: Store, clock: ManualClock) -> Table:
    table = await open_table(telegram, store, clock, WATCH_RULES, "night-demo")
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    return table


def _hand_words(hand: tuple[str, ...], language: str = "en") -> str:
    """A hand as the bot writes it: «attack 3, defence 2», «Атака-3, Защита-2»."""
    if language == "ru":
        return ", ".join(f"{'Атака' if c[0] == 'A' else 'Защита'}-{c[1:]}" for c in hand)
    return ", ".join(f"{'attack' if c[0] == 'A' else 'defence'} {c[1:]}" for c in hand)


async def test_hero_moves_by_buttons_and_by_text(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock)
    campaign_id = table.campaign.id
    state = await store.turn_start(campaign_id, 1)
    assert state is not None
    hands = {hero.id: hero.hand for hero in load(state.modules[WATCH]).heroes}
    assert all(len(hands[hero]) == 3 for hero in ("h1", "h2", "h3", "h4"))

    home = screen(await table.say(201, "/orders"))
    heroes = screen(await table.tap(201, home, "Heroes and spells"))
    assert "Secret: the heroes of side «Red Legion» and their spells, turn 1." in heroes.text
    assert f"hand: {_hand_words(hands['h1'])}" in heroes.text
    assert "⏳ Igor (side «Red Legion»): enters on turn 3" in heroes.text
    assert "Андрей" not in heroes.text
    offered = [text for text, _data in heroes.buttons() if "→" in text]
    assert offered == [
        "Лариса → Metro",
        "Zavulon → Metro",
        "Zavulon → Egor's Apartment",
        "Zavulon → Roof",
    ]
    pressed = await table.tap(201, heroes, "Zavulon → Metro")
    assert alert(pressed) == "Saved: hero Zavulon to Metro"
    heroes = screen(pressed)
    assert "• hero Zavulon to Metro" in heroes.text
    assert "Zavulon → Metro" not in str(heroes.buttons())
    heroes = screen(await table.tap(201, heroes, "Zavulon → Roof"))
    assert "• hero Zavulon to Roof" in heroes.text
    assert "hero Zavulon to Metro" not in heroes.text

    refused = "\n".join(s.text for s in await table.say(203, "Иной Лариса в Кафе"))
    assert "не граничит" in refused
    assert "Выберите одну из локаций" in refused
    assert "Подъезд" not in refused  # the refusal names no other map's locations
    for typed_hero in ("Иная Лариса метро", "Иную Лариса в метро"):
        typed = "\n".join(s.text for s in await table.say(203, typed_hero))
        assert "Иной «Лариса» — в локацию «Метро»" in typed
    typed = "\n".join(s.text for s in await table.say(203, "герой Лариса метро"))
    assert "Иной «Лариса» — в локацию «Метро»" in typed
    unknown = "\n".join(s.text for s in await table.say(203, "герой Светлана метро"))
    assert "Иного «Светлана» нет. Ваши Иные: Лариса, Zavulon, Igor." in unknown
    others = "\n".join(s.text for s in await table.say(301, "hero Larisa metro"))
    assert "Иного «Larisa» нет" in others
    others = "\n".join(s.text for s in await table.say(301, "hero Лариса hairdresser"))
    assert "Лариса — Иной другой стороны" in others

    stored = await store.orders(campaign_id, 1, "red")
    assert stored is not None
    assert sorted((o.data["hero"], o.data["to"]) for o in stored.orders.extra) == [
        ("h1", "metro"),
        ("h4", "roof"),
    ]

    heroes = screen(await table.tap(201, screen(await table.say(201, "/orders")), "Heroes"))
    pressed = await table.tap(201, heroes, "✖ Zavulon stays")
    assert alert(pressed) == "Taken back."
    assert "• Zavulon stays where it is." in screen(pressed).text
    stored = await store.orders(campaign_id, 1, "red")
    assert stored is not None
    assert [(o.data["hero"], o.data["to"]) for o in stored.orders.extra] == [("h1", "metro")]


async def test_hands_stay_in_their_side_private_chat(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock)
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    hands = {hero.id: hero.hand for hero in load(state.modules[WATCH]).heroes}

    own = "\n".join(s.text for s in await table.say(301, "/hand"))
    assert "Секретно: Иные стороны «Синие» и их заклинания, ход 1." in own
    assert f"на руке: {_hand_words(hands['h2'], 'ru')}" in own
    assert "Лариса" not in own
    master = "\n".join(s.text for s in await table.say(GM, "/hand"))
    assert "Лариса" in master
    assert "Андрей" in master
    misplaced = await telegram.feed(telegram.message(table.user(201), GROUP, "/hand"))
    assert misplaced is not None
    assert "works in a private chat" in misplaced.text
    status = await telegram.feed(telegram.message(table.user(201), GROUP, "/status"))
    assert status is not None
    assert "Лариса (side «Red Legion», initiative 2): Hairdresser's" in status.text
    assert "👤 Егор: Egor's Apartment" in status.text
    assert "hand:" not in status.text
    await table.say(201, "/orders")
    await table.say(203, "/hand")
    await table.say(302, "/orders")
    table.take()

    words = {
        hero: {_hand_words(hands[hero], language) for language in ("en", "ru")} for hero in hands
    }
    # The deal is random: a Red hand written as a Blue hand is (or inside one) is no leak when a
    # Blue chat shows it, so only the Red hands no other hand contains are looked for.
    others = [text for hero, texts in words.items() if hero not in ("h1", "h4") for text in texts]
    red_hands = {
        text
        for hero in ("h1", "h4")
        for text in words[hero]
        if not any(text in other for other in others)
    }
    assert red_hands  # at least one Red hand to look for: two alike are rare
    leaks = [
        sent
        for sent in table.log
        if sent.chat_id not in RED_CHATS | {GM}
        and not isinstance(sent.method, AnswerCallbackQuery)
        and any(words in sent.text for words in red_hands)
    ]
    assert leaks == []
    assert watch_orders.public(state.modules) != state.modules[WATCH]


async def test_the_list_and_the_turn_posts_tell_heroes_and_duels(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await _watch_table(telegram, store, clock)
    campaign_id = table.campaign.id
    opening = [
        text
        for message, text in await rendered_outbox(store, i18n, campaign_id)
        if message.kind == "map" and message.payload.get("turn") == 1
    ]
    assert opening
    assert "👤 Егор is in Egor's Apartment." in opening[0]
    await table.say(201, "hero Лариса metro")
    await table.say(301, "герой Андрей метро")
    now = clock.now()
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, None, now)).advanced
    listed = [
        text
        for message, text in await rendered_outbox(store, i18n, campaign_id)
        if message.kind == "battle_list"
    ]
    assert len(listed) == 1
    assert "👤 The NPC marker stands in Egor's Apartment." in listed[0]
    assert (
        "Hero moves, in initiative order:\n"
        "1. Лариса: Hairdresser's → Metro\n"
        "2. Андрей: Cafe → Metro"
    ) in listed[0]
    assert "⚡ Duel in Metro; steps: Лариса, Андрей, Антон." in listed[0]
    assert "hand:" not in listed[0]
