"""A fourth rule module, supply (``tests/modules/supply``), written only in the tests and
registered at test time, played through the real dispatcher: the GM finds its button in the
wizard's modules menu and switches it on, its line joins the summary; a turn is ordered and
resolved, the Monday summary says what supply cost and ``/map``'s caption says it too. Nothing
in the shared bot names it: the registries are the only place it is added."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from storage import CampaignSettings, Language, Phase, Role, Store
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
CAPTION = {
    "en": "📦 Supply cost last turn: 3.",
    "ru": "📦 Снабжение стоило в прошлый ход: 3.",
}


@pytest.fixture
def supply() -> Iterator[None]:
    """Supply registered in the rules' and the bot's registries for the test, then removed."""
    with registered():
        yield


def _labels(sent: Sent | None) -> list[str]:
    assert sent is not None
    return [text for text, _data in sent.buttons()]


@pytest.mark.usefixtures("supply")
@pytest.mark.parametrize("language", ["en", "ru"])
async def test_supply_is_set_up_in_the_wizard_and_costs_armies_at_resolution(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: Language
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
    for user_id, name, side in ((RED, "Anna", "Red"), (BLUE, "Вера", "Blue")):
        await store.see_person(user_id, name, None, "en", True, now)
        await store.put_member(
            campaign.id, user_id, name, frozenset({Role.STRATEGIST}), sides[side], GM, now
        )
        users[user_id] = telegram.user(user_id, name, "en")
    campaign = await store.campaign(campaign.id) or campaign
    assert campaign.phase is Phase.DEPLOYMENT
    for side, placement in (("Red", {"4": 8, "2": 2}), ("Blue", {"5": 8, "3": 2})):
        _placed, problems = await campaigns.place_side(
            store, campaign, sides[side], placement, GM, now
        )
        assert not problems, problems
    assert (await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    await telegram.deliver()

    # Red sends one army to the empty Equator: alone there with 1, it does not hold it.
    table = Table(campaign, telegram, store, clock, users)
    typed = "\n".join(s.text for s in await table.say(RED, "move 1 from 4 to 1"))
    assert "✓ move 1 army from 4 North Pole to 1 Equator" in typed
    assert (await advance(store, campaign.id, 1, Phase.ORDERS, GM, now)).advanced
    await telegram.deliver()
    assert (await advance(store, campaign.id, 1, Phase.BATTLES, GM, now)).advanced
    monday = "\n".join(s.text for s in await telegram.deliver() if s.chat_id == GROUP)
    assert MONDAY[language] in monday, monday

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
    assert CAPTION[language] in shown.text
