"""A fourth rule module, supply (``tests/modules/supply``), written only in the tests and
registered at test time, played through the real dispatcher: the GM finds its button in the
wizard's modules menu and switches it on, its line joins the summary; a side's orders desk
names the sectors that will cost it an army; a turn is ordered and resolved, the Monday summary
says what supply cost, the Monday map marks where, and ``/map``'s caption says it too. Nothing
in the shared bot names it: the registries are the only place it is added."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from bot.modules import BOT_MODULES, BotModule
from bot.runtime.clock import ManualClock
from bot.screens.rendering import MapDrawer
from bot.services import campaigns
from bot.services.clockwork import advance
from rules.render import MapView
from rules.state import CampaignState
from storage import Campaign, CampaignSettings, Language, Phase, Role, Store
from tests.bot.group_helpers import say, set_up_campaign, tap
from tests.bot.private_campaign import GM, GROUP, Table
from tests.bot.telegram import FakeTelegram, Sent
from tests.modules.supply import NAME, registered

RED, BLUE = 201, 301
MONDAY = {
    "en": "📦 Out of supply, 1 army lost: Red — 1 Equator; Red — 2 West; Blue — 3 East.",
    "ru": "📦 Без снабжения, потеряно по 1 армии: Red — 1 «Экватор»; Red — 2 «Запад»; "
    "Blue — 3 «Восток».",
}
DESK = {"en": "📦 Out of supply: 3 East", "ru": "📦 Без снабжения: 3 «Восток»"}
ENTRY = {"en": "📦 Supply", "ru": "📦 Снабжение"}
DESK_NOW = {
    "en": "If your armies stay where they are, it costs you 1 army in each of: 3 East.",
    "ru": "Если ваши армии останутся на месте, вы потеряете по 1 армии в секторах: 3 «Восток».",
}
MARK = {
    "en": "out of supply last turn: 1 army of Red lost",
    "ru": "без снабжения в прошлый ход: Red теряет 1 армию",
}
CAPTION = {
    "en": "📦 Supply cost last turn: 3.",
    "ru": "📦 Снабжение стоило в прошлый ход: 3.",
}


class _Lantern(BotModule):
    """A test-only bot side whose only hook is a line of ``/map``'s caption (the turn)."""

    name = "lantern"

    async def map_caption(
        self, store: Store, campaign: Campaign, state: CampaignState, now: datetime
    ) -> str | None:
        return f"🏮 {state.turn}"


@pytest.fixture
def supply() -> Iterator[None]:
    """Supply registered in the rules' and the bot's registries for the test, then removed."""
    with registered():
        yield


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


def _labels(sent: Sent | None) -> list[str]:
    assert sent is not None
    return [text for text, _data in sent.buttons()]


@pytest.mark.usefixtures("supply")
@pytest.mark.parametrize("language", ["en", "ru"])
async def test_supply_is_set_up_in_the_wizard_and_costs_armies_at_resolution(
    telegram: FakeTelegram,
    store: Store,
    clock: ManualClock,
    language: Language,
    drawn: list[MapView],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gm, group = telegram.user(GM, "Game Master"), telegram.group(GROUP, "Wargamers")
    campaign = await set_up_campaign(
        telegram, store, gm, group, sides=("Red", "Blue"), open_deployment=False
    )
    summary = await say(telegram, gm, group, "/newcampaign")
    assert summary is not None
    assert "Supply: off" in summary.text
    # The modules menu lists the registry's modules in its order: supply, registered last, last.
    menu = [label for label in _labels(summary) if label[:1] in "🏰🧟🌃📦🎯"]
    assert menu == [
        "🏰 Midnight Siege",
        "🧟 Contact",
        "🌃 Watches",
        "📦 Supply",
        "🎯 Score margins",
    ]

    screen = await tap(telegram, gm, summary, "📦 Supply")
    assert screen is not None
    assert "Supply: off" in screen.text
    screen = await tap(telegram, gm, screen, "Switch supply on")
    assert screen is not None
    assert "Supply: on" in screen.text
    assert "Switch supply off" in _labels(screen)
    summary = await tap(telegram, gm, screen, "◀ Back")
    assert summary is not None
    assert "Supply: on, a side loses 1 army in each sector it has armies in" in summary.text
    campaign = await store.campaign(campaign.id) or campaign
    assert campaign.ruleset_overrides["modules"] == [NAME]

    # Two sectors a side to deploy in; then deployment opens, the group in ``language``.
    overrides = {**campaign.ruleset_overrides, "start_sectors": 2}
    changes = CampaignSettings(ruleset_overrides=overrides, language=language)
    campaign = await store.update_settings(campaign.id, changes, GM, clock.now())
    await tap(telegram, gm, summary, "Open deployment")
    now = clock.now()
    sides = {side.name: side.id for side in await store.sides(campaign.id)}
    users = {GM: gm}
    # Anna (Red) types her orders in English; Вера (Blue) reads her desk in ``language``.
    for user_id, name, side, speaks in (
        (RED, "Anna", "Red", "en"),
        (BLUE, "Вера", "Blue", language),
    ):
        await store.see_person(user_id, name, None, speaks, True, now)
        await store.put_member(
            campaign.id, user_id, name, frozenset({Role.STRATEGIST}), sides[side], GM, now
        )
        users[user_id] = telegram.user(user_id, name, speaks)
    campaign = await store.campaign(campaign.id) or campaign
    assert campaign.phase is Phase.DEPLOYMENT
    for side, placement in (("Red", {"4": 8, "2": 2}), ("Blue", {"5": 8, "3": 2})):
        _placed, problems = await campaigns.place_side(
            store, campaign, sides[side], placement, GM, now
        )
        assert not problems, problems
    assert (await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    await telegram.deliver()

    # Blue's desk ends with a line naming the sector its armies do not hold (2 in 3 East, fewer
    # than 3), and its supply button tells what it will cost there; Red's names 2 West.
    table = Table(campaign, telegram, store, clock, users)
    desk = next(s for s in await table.say(BLUE, "/orders") if s.buttons())
    assert desk.text.endswith("\n\n" + DESK[language]), desk.text
    about = "\n".join(s.text for s in await table.tap(BLUE, desk, ENTRY[language]))
    assert DESK_NOW[language] in about, about
    red_desk = next(s for s in await table.say(RED, "/orders") if s.buttons())
    assert red_desk.text.endswith("\n\n📦 Out of supply: 2 West"), red_desk.text
    assert "📦 Supply" in _labels(red_desk)

    # Red sends one army to the empty Equator: alone there with 1, it does not hold it.
    typed = "\n".join(s.text for s in await table.say(RED, "move 1 from 4 to 1"))
    assert "✓ move 1 army from 4 North Pole to 1 Equator" in typed
    assert (await advance(store, campaign.id, 1, Phase.ORDERS, GM, now)).advanced
    await telegram.deliver()
    assert (await advance(store, campaign.id, 1, Phase.BATTLES, GM, now)).advanced
    drawn.clear()
    monday = "\n".join(s.text for s in await telegram.deliver() if s.chat_id == GROUP)
    assert MONDAY[language] in monday, monday
    # The Monday map (the turn's week drawn) marks the sectors where supply cost an army.
    [monday_map] = [view for view in drawn if view.week is not None]
    assert monday_map.state.turn == 2
    assert {(mark.sector, mark.text, mark.side) for mark in monday_map.marks} == {
        ("1", "−1", sides["Red"]),
        ("2", "−1", sides["Red"]),
        ("3", "−1", sides["Blue"]),
    }
    assert MARK[language] in {mark.meaning for mark in monday_map.marks}

    # Each side lost one army in each sector it did not hold; the Equator's lone army is gone
    # (the others were alone in their sectors, so replenishment gave theirs back).
    after = await store.turn_start(campaign.id, 2)
    assert after is not None
    assert "1" not in after.armies[sides["Red"]]
    [resolution] = await store.resolutions(campaign.id, 1)
    assert resolution.report.modules[NAME] == {
        "cut_off": [
            {"side": sides["Red"], "sector": "1"},
            {"side": sides["Red"], "sector": "2"},
            {"side": sides["Blue"], "sector": "3"},
        ]
    }
    telegram.take()
    shown = await say(telegram, gm, group, "/map")
    assert shown is not None
    head, *lines = shown.text.split("\n")
    assert lines == [CAPTION[language]]

    # A module before supply in the registry adds its own line: both show, in the registry's
    # order, after the same shared sentence.
    supply_side = BOT_MODULES.pop(NAME)
    monkeypatch.setitem(BOT_MODULES, "lantern", _Lantern())
    BOT_MODULES[NAME] = supply_side
    shown = await say(telegram, gm, group, "/map")
    assert shown is not None
    assert shown.text.split("\n") == [head, "🏮 2", CAPTION[language]]
