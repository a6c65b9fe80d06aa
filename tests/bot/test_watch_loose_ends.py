"""Night Watch's loose ends: the side's private map (and the Mini App's, built the same way)
draws the heroes and the NPC without any hand; the campaign export leaves hands and the deal's
rolls out until the deal seed is revealed (the campaign finished); a GM's kept watch change is
applied again when a correction makes the turn's start anew."""

from __future__ import annotations

import json
from typing import Any

from aiogram.utils.i18n import I18n

from bot.clock import ManualClock
from bot.handlers.private import screens
from bot.services.campaigns import end_campaign
from bot.services.turns import apply_adjustments, game_for
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import WatchChange, load
from storage import Store
from tests.bot.private_campaign import GM
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
    with i18n.context(), i18n.use_locale("en"):
        view = screens.map_view(table.campaign, game.map, state, sides, None)
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
