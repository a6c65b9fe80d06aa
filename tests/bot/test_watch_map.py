"""Watch on the bot's maps (issue 19): the heroes where they stand with initiative and wounds,
the NPC, the hub explained, in the reader's language, and never a hand (the map is drawn from
the public view of the state)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from aiogram.utils.i18n import I18n

from bot.screens.map_views import turn_map
from rules import CampaignState
from rules.render import render_map
from rules.svg import map_svg
from storage import Campaign, NewCampaign, NewSide, Store

CASE = Path(__file__).resolve().parents[1] / "rules/cases/modules/watch/w8-example-a-list.json"
GM = 9001
NOW = datetime(2026, 3, 2, tzinfo=UTC)


async def _campaign(store: Store) -> tuple[Campaign, CampaignState]:
    """A watch campaign on the night-demo map (MODULES W8's heroes and Egor) and its turn-1
    state with every hero's hand dealt."""
    case = json.loads(CASE.read_text(encoding="utf-8"))["input"]
    await store.see_person(GM, "Game Master", None, "en", True, NOW)
    campaign = await store.create_campaign(
        NewCampaign(
            chat_id=-1009,
            title="Night Watch",
            time_zone="UTC",
            map=case["map"],
            ruleset_overrides=case["ruleset"],
            created_by=GM,
            creator_name="Game Master",
        ),
        NOW,
    )
    await store.add_side(
        campaign.id, NewSide(id="day", name="Дневной Дозор", colour="#e69f00"), GM, NOW
    )
    await store.add_side(
        campaign.id, NewSide(id="night", name="Ночной Дозор", colour="#0072b2"), GM, NOW
    )
    return campaign, CampaignState.model_validate(case["state"])


async def test_the_map_shows_heroes_and_egor_and_no_hand(store: Store, i18n: I18n) -> None:
    campaign, state = await _campaign(store)
    sides = await store.sides(campaign.id)
    with i18n.context(), i18n.use_locale("en"):
        view = await turn_map(store, campaign, state, sides, campaign.title)
    assert [(h.id, h.sector, h.initiative, h.wounds, h.wounds_to_kill) for h in view.heroes] == [
        ("larisa", "hairdresser", 2, 0, 4),
        ("andrey", "cafe", 4, 0, 4),
        ("anton", "metro", 7, 0, 4),
        ("zavulon", "entrance", 9, 0, 4),
    ]
    assert view.npc is not None
    assert view.npc.sector == "apartment"
    assert view.hero_moves == ()
    assert view.labels.hub == "hub: the way between the other sectors"
    picture, svg = render_map(view), map_svg(view)
    assert picture.startswith(b"\x89PNG")
    for card in ("D1", "A4", "A2", "D3", "A3", "D2"):
        assert card not in view.model_dump_json(exclude={"state"})
        assert f">{card}<" not in svg
    with i18n.context(), i18n.use_locale("ru"):
        russian = await turn_map(store, campaign, state, sides, campaign.title, battles=())
    assert russian.labels.hub == "узел: путь между другими локациями"
    assert russian.labels.hero == "Иной: инициатива, имя, раны"
    assert russian.labels.npc == "маркер NPC: его перемещает мастер"
    assert [h.name for h in russian.heroes] == ["Лариса", "Андрей", "Антон Городецкий", "Завулон"]
    assert russian.hero_moves == ()
    assert render_map(russian) != picture


async def test_a_map_without_watch_has_no_figures(store: Store, i18n: I18n) -> None:
    campaign, state = await _campaign(store)
    plain = state.model_copy(update={"modules": {}})
    with i18n.context(), i18n.use_locale("en"):
        view = await turn_map(store, campaign, plain, await store.sides(campaign.id), "T")
    assert (view.heroes, view.hero_moves, view.npc) == ((), (), None)
