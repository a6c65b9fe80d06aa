"""Night Watch's maps in the battles (issue 19): before the battle list is public every map shows
the heroes where the turn began; once it is public, the group's /map, the side's private map
(and the Mini App's, built by the same ``seat_map_view``) and Friday's list map show them where
the list put them, with this turn's hero moves as arrows, as /status and /hand do."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from aiogram.methods import SendPhoto
from aiogram.utils.i18n import I18n

from bot.handlers.private.orders import seat_map_view
from bot.modules import BOT_MODULES, BotModule
from bot.runtime.clock import ManualClock
from bot.screens.map_views import turn_map
from bot.services.clockwork import advance
from bot.services.orders import seat_in
from rules import Battle, CampaignState
from rules.render import HeroMark, MapFigures, MapView, NpcMark
from storage import Campaign, Phase, Store
from tests.bot.private_campaign import GM, GROUP, Table
from tests.bot.telegram import FakeTelegram
from tests.bot.test_watch_duels import DAY, HEROES, NIGHT, _watch_table

OLGA = {"id": "olga", "side": "night", "name": "Olga", "initiative": 3, "start": "hairdresser"}


def _olga(view: MapView) -> str:
    """Where the map draws Olga."""
    return next(hero.sector for hero in view.heroes if hero.id == "olga")


def _moves(view: MapView) -> list[tuple[str, str, str]]:
    return [(move.hero, move.source, move.to) for move in view.hero_moves]


async def _maps(table: Table, campaign: Campaign, i18n: I18n, *, late: bool) -> list[MapView]:
    """The group's /map view and each side's private map view at the clock's time (``late``:
    a day later)."""
    store = table.store
    now = table.clock.now() + (timedelta(days=1, minutes=1) if late else timedelta())
    state = await store.turn_start(campaign.id, campaign.turn)
    assert state is not None
    sides = await store.sides(campaign.id)
    views = []
    with i18n.context(), i18n.use_locale("en"):
        views.append(await turn_map(store, campaign, state, sides, "T", week=True, now=now))
        for user in (DAY, NIGHT):
            seat = await seat_in(store, user, campaign.id)
            assert seat is not None
            seen = await seat_map_view(store, seat, now)
            assert seen is not None
            views.append(seen[0])
    return views


async def _group_map_caption(table: Table) -> str:
    table.take()
    group = table.telegram.group(GROUP, "Night Moscow")
    await table.telegram.feed(table.telegram.message(table.user(GM), group, "/map"))
    [photo] = [s for s in table.take() if s.chat_id == GROUP and isinstance(s.method, SendPhoto)]
    return photo.text


async def test_the_maps_show_the_heroes_where_the_public_list_put_them(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await _watch_table(telegram, store, clock, "initiative", "en", [*HEROES, OLGA])
    assert "Saved" in "\n".join(s.text for s in await table.say(NIGHT, "hero Olga metro"))

    # The orders window: every map has Olga at her start, no arrow of a hero.
    campaign = await table.now_campaign()
    for view in await _maps(table, campaign, i18n, late=False):
        assert _olga(view) == "hairdresser"
        assert _moves(view) == []

    # The orders close; the list is held until tomorrow: still the turn's start everywhere.
    post_at = clock.now() + timedelta(days=1)
    closed = await advance(store, campaign.id, 1, Phase.ORDERS, GM, clock.now(), post_at=post_at)
    assert closed.advanced
    campaign = await table.now_campaign()
    for view in await _maps(table, campaign, i18n, late=False):
        assert _olga(view) == "hairdresser"
        assert _moves(view) == []
    assert await _group_map_caption(table) == "Night Watch: the map at the start of turn 1."

    # Once the list is public: Olga in the Metro, her move an arrow; the others stayed.
    for view in await _maps(table, campaign, i18n, late=True):
        assert _olga(view) == "metro"
        assert _moves(view) == [("olga", "hairdresser", "metro")]
        assert [(h.id, h.sector) for h in view.heroes if h.id != "olga"] == [
            ("larisa", "metro"),
            ("andrey", "metro"),
            ("anton", "cafe"),
            ("zavulon", "cafe"),
        ]
        assert '"hand"' not in view.model_dump_json(exclude={"state"})
    clock.set(post_at + timedelta(minutes=1))
    assert await _group_map_caption(table) == (
        "Night Watch: the map at the start of turn 1; the heroes stand where the battle list "
        "put them, with this turn's moves."
    )

    # Friday's list map (posted with the list) shows the same.
    listed = await store.battle_list(campaign.id, 1)
    state = await store.turn_start(campaign.id, 1)
    assert listed is not None
    assert state is not None
    with i18n.context(), i18n.use_locale("en"):
        friday = await turn_map(
            store, campaign, state, await store.sides(campaign.id), "T", battles=listed.battles
        )
    assert _olga(friday) == "metro"
    assert _moves(friday) == [("olga", "hairdresser", "metro")]


class _Beacon(BotModule):
    """A test-only bot side that puts one figure and an NPC of its own on every map."""

    name = "beacon"

    async def map_figures(
        self,
        store: Store,
        campaign: Campaign,
        state: CampaignState,
        *,
        week: bool,
        battles: tuple[Battle, ...] | None,
        now: datetime | None,
    ) -> MapFigures | None:
        beacon = HeroMark(
            id="beacon",
            name="Beacon",
            side="night",
            sector="cafe",
            initiative=0,
            wounds=0,
            wounds_to_kill=1,
        )
        return MapFigures(heroes=(beacon,), npc=NpcMark(name="Keeper", sector="metro"))


async def test_every_modules_figures_are_drawn_beside_the_watches(
    telegram: FakeTelegram,
    store: Store,
    clock: ManualClock,
    i18n: I18n,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A module registered after the Watches adds its figure beside their heroes on every map
    (the group's and each side's); the NPC is the first module's that gives one."""
    table = await _watch_table(telegram, store, clock, "initiative", "en", [*HEROES, OLGA])
    campaign = await table.now_campaign()
    alone = await _maps(table, campaign, i18n, late=False)
    monkeypatch.setitem(BOT_MODULES, "beacon", _Beacon())
    for before, view in zip(alone, await _maps(table, campaign, i18n, late=False), strict=True):
        assert before.heroes
        assert view.heroes[:-1] == before.heroes
        assert (view.heroes[-1].id, view.heroes[-1].sector) == ("beacon", "cafe")
        assert view.hero_moves == before.hero_moves
        assert view.npc == (before.npc or NpcMark(name="Keeper", sector="metro"))
