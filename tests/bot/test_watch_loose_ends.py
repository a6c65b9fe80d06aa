"""Night Watch's loose ends: the side's private map (and the Mini App's, built the same way)
draws the heroes and the NPC without any hand; the campaign export leaves hands and the deal's
rolls out until the deal seed is revealed (the campaign finished); a GM's kept watch change is
applied again when a correction makes the turn's start anew."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiogram.utils.i18n import I18n

from bot.handlers.private import screens
from bot.modules.watch.setup import HeroInputError, HeroInputProblem, Names, parse_heroes
from bot.modules.watch.texts import ambiguous_location
from bot.modules.watch.typed import hero_names
from bot.runtime.clock import ManualClock
from bot.screens.map_views import module_figures
from bot.services.campaigns import end_campaign
from bot.services.turns import apply_adjustments, game_for
from bot.texts.orders import LineProblem, Vocabulary, parse_line
from rules import builtin_map
from rules.maps import parse_map
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import WatchChange, hero_move, load
from storage import Store
from tests.bot.private_campaign import GM, screen
from tests.bot.telegram import FakeTelegram
from tests.bot.test_watch_gm_tools import _watch_table


async def test_the_private_map_draws_heroes_and_the_npc_without_hands(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await _watch_table(telegram, store, clock)
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    sides = await store.sides(table.campaign.id)
    game = game_for(table.campaign)
    figures = await module_figures(store, table.campaign, state)
    with i18n.context(), i18n.use_locale("en"):
        view = screens.map_view(table.campaign, game.map, state, sides, None, figures)
    assert [(hero.name, hero.sector, hero.wounds_to_kill) for hero in view.heroes] == [
        ("Лариса", "metro", 4),
        ("Андрей", "metro", 4),
        ("Антон", "cafe", 4),
    ]
    assert view.npc is not None
    assert (view.npc.name, view.npc.sector) == ("Егор", "apartment")
    hands = [card for hero in load(state.modules[WATCH]).heroes for card in hero.hand]
    assert len(hands) == 9
    drawn = view.model_dump_json(exclude={"state"})
    assert '"hand"' not in drawn


def _hands(exported: dict[str, Any]) -> list[object]:
    """Every hand anywhere in an export."""
    found: list[object] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            if "hand" in value:
                found.append(value["hand"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(exported)
    return found


async def test_the_export_keeps_hands_and_deals_secret_until_the_campaign_ends(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock)
    for _step in range(3):  # orders, battles, resolution: turn 1 is resolved
        await table.step()
    campaign = await table.now_campaign()
    assert campaign.turn == 2
    exported = json.loads(json.dumps(await store.export_campaign(campaign.id)))
    assert _hands(exported) == []
    rolls = [roll for turn in exported["turns"] for roll in turn["rolls"]]
    assert not [roll for roll in rolls if "/watch/deal" in roll["label"]]
    heroes = exported["turns"][0]["state"]["modules"][WATCH]["heroes"]
    assert [hero["name"] for hero in heroes] == ["Лариса", "Андрей", "Антон"]

    ended = await end_campaign(store, campaign, GM, clock.now(), "the end")
    assert ended is not None
    revealed = await store.export_campaign(campaign.id)
    assert _hands(revealed)
    deals = [
        roll
        for turn in revealed["turns"]
        for roll in turn["rolls"]
        if "/watch/deal" in roll["label"]
    ]
    assert deals
    assert all(roll["seed"] == "deal" for roll in deals)
    assert revealed["turns"][0]["seeds"]["deal"] is not None


async def test_a_correction_applies_the_gms_watch_changes_again(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock)
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    game = game_for(table.campaign)
    kept = [
        WatchChange(change="npc", to="entrance", reason="shots").model_dump(mode="json"),
        WatchChange(change="npc", to="cafe", reason="not adjacent").model_dump(mode="json"),
        WatchChange(change="card", hero="h1", play=0, lowered_by=2).model_dump(mode="json"),
    ]
    again, dropped = apply_adjustments(game, game.upgraded(state), kept)
    watch = load(again.modules[WATCH])
    assert watch.npc is not None
    assert watch.npc.sector == "entrance"
    assert dropped == 1
    assert [(m.hero, m.play, m.lowered_by) for m in watch.modifiers] == [("h1", 0, 2)]


HIVE = parse_map(
    {
        "id": "hive",
        "name": "Hive",
        "sectors": [
            {"id": "c", "name": "Central Plain", "neighbours": ["ne", "np"], "x": 0.5, "y": 0.5},
            {"id": "ne", "name": "North-East", "neighbours": ["c", "np"], "x": 0.8, "y": 0.2},
            {"id": "np", "name": "North Pole", "neighbours": ["c", "ne"], "x": 0.5, "y": 0.1},
        ],
    }
)


@pytest.mark.parametrize(
    ("text", "to"),
    [
        ("герой Лариса Квартира", "apartment"),
        ("Иной Лариса в квартиру Егора", "apartment"),
        ("герой Лариса егора", "apartment"),
        ("hero Лариса apart", "apartment"),
        ("hero Лариса EGOR", "apartment"),
        ("hero Лариса hair", "hairdresser"),
        ("герой Лариса парикмахерскую", "hairdresser"),
    ],
)
def test_a_location_is_named_by_the_beginning_of_its_name(text: str, to: str) -> None:
    words = Vocabulary.build(builtin_map("night-demo"), {}, [hero_names({"h1": ["Лариса"]})])
    line = parse_line(text, words)
    assert (line.orders, line.problem) == ((hero_move("h1", to),), None)


def test_an_ambiguous_beginning_is_refused_with_the_candidates(i18n: I18n) -> None:
    words = Vocabulary.build(HIVE, {}, [hero_names({"h1": ["Лариса"]})])
    line = parse_line("hero Лариса north", words)
    assert (line.problem, line.word) == (LineProblem.AMBIGUOUS_LOCATION, "north")
    with i18n.context(), i18n.use_locale("en"):
        english = ambiguous_location(HIVE, "north", "en")
    with i18n.context(), i18n.use_locale("ru"):
        russian = ambiguous_location(HIVE, "north", "ru")
    assert english == (
        "«north» could be any of these locations: ne North-East, np North Pole. "
        "Type more of the name."
    )
    assert russian == (
        "«north» подходит к нескольким локациям: ne «North-East», np «North Pole». "
        "Напишите название полнее."
    )
    names = Names.build(HIVE, [("s1", "Red")])
    with pytest.raises(HeroInputError) as refused:
        parse_heroes("Лариса, Red, 2, North", names)
    assert (refused.value.problem, refused.value.word) == (
        HeroInputProblem.SECTOR_AMBIGUOUS,
        "North",
    )
    assert parse_heroes("Лариса, Red, 2, north p", names)[0]["start"] == "np"


async def test_players_and_the_gm_type_short_location_names(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock)
    typed = "\n".join(s.text for s in await table.say(203, "герой Лариса парик"))
    assert "Иной «Лариса» — в локацию «Парикмахерская»" in typed
    typed = "\n".join(s.text for s in await table.say(201, "hero Лариса Entr"))
    assert "hero Лариса to Entrance" in typed
    orders = await store.orders(table.campaign.id, 1, "red")
    assert orders is not None
    assert [order.data for order in orders.orders.extra] == [
        {"order": "hero_move", "hero": "h1", "to": "entrance"}
    ]
    panel = screen(await table.say(GM, "/gm"))
    editor = screen(await table.tap(GM, panel, "Correct the state"))
    await table.tap(GM, editor, "Add a hero")
    done = screen(await table.say(GM, "Завулон, Red Legion, 9, квартира\nhe was always there"))
    assert done.text.startswith("Done:")
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    added = load(state.modules[WATCH]).hero("h4")
    assert added is not None
    assert added.sector == "apartment"
