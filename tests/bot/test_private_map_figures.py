"""The side's private orders map (the desk's «🗺 Map» button) draws the rule modules' figures
(``BotModule.map_figures`` through ``bot.screens.map_views.module_figures``): the Watches'
heroes and NPC where the turn began, with the side's own orders, in each reader's language."""

from __future__ import annotations

import pytest

from bot.runtime.clock import ManualClock
from bot.screens.rendering import MapDrawer
from rules.render import MapView
from storage import Store
from tests.bot.private_campaign import screen
from tests.bot.telegram import FakeTelegram
from tests.bot.test_private_watch_orders import _watch_table


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[MapView]:
    """Every map view handed to the renderer, in order (the picture is still drawn)."""
    views: list[MapView] = []
    draw = MapDrawer.draw

    async def recording(self: MapDrawer, view: MapView) -> bytes:
        views.append(view)
        return await draw(self, view)

    monkeypatch.setattr(MapDrawer, "draw", recording)
    return views


async def test_the_orders_map_draws_the_heroes_where_the_turn_began(
    telegram: FakeTelegram, store: Store, clock: ManualClock, drawn: list[MapView]
) -> None:
    table = await _watch_table(telegram, store, clock)
    for chat, label, legend in (
        (201, "🗺 Map", "hero: initiative, name, wounds"),
        (203, "🗺 Карта", "Иной: инициатива, имя, раны"),
    ):
        home = screen(await table.say(chat, "/orders"))
        drawn.clear()
        await table.tap(chat, home, label)
        [view] = drawn
        assert view.private is not None
        assert view.private.side == "red"
        heroes = {(hero.name, hero.sector) for hero in view.heroes}
        assert heroes >= {("Лариса", "hairdresser"), ("Андрей", "cafe"), ("Zavulon", "entrance")}
        assert view.npc is not None
        assert (view.npc.name, view.npc.sector) == ("Егор", "apartment")
        assert view.hero_moves == ()
        assert view.labels.hero == legend
