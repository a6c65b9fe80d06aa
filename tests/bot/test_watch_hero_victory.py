"""watch's victory by heroes through the real dispatcher (issue 19, MODULES.md W7): with
``hero_victory`` on, a side whose heroes all fall while another side's live loses the campaign
at once, and the Monday summary says who won and why.

The settings are the ones the wizard stores (``test_group_watch_setup``): a deck of attack-2
spells only, one in hand, two wounds kill. So the duel in the Metro is certain: Larisa (Day,
initiative 2) lays her attack-2 on Andrey (Night), Night plays nothing for Andrey, and Andrey,
Night's only hero, falls while Larisa lives.
"""

from __future__ import annotations

from typing import Any

import pytest
from aiogram.types import User

from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from rules.modules.watch.state import load
from storage import CampaignSettings, Language, NewCampaign, NewSide, Phase, Role, Store
from tests.bot.private_campaign import GM, GROUP, Table, alert, screen
from tests.bot.telegram import FakeTelegram, Sent

DAY, NIGHT = 501, 502  # the two sides' strategists
NAMES: dict[str, dict[str, str]] = {
    "en": {"day": "Day", "night": "Night", "larisa": "Larisa", "andrey": "Andrey"},
    "ru": {"day": "Светлые", "night": "Тёмные", "larisa": "Лариса", "andrey": "Андрей"},
}
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "card": "Attack 2",
        "play": "✅ Play",
        "nothing": "Play nothing",
        "played": "🪄 Larisa: attack 2 on Andrey",
        "wounded": "🩸 Andrey: +2 wounds",
        "fallen": "✝ Andrey has fallen.",
        "won": "🏆 Side «Day» has the only living heroes: the campaign is over.",
        "seed": "Turn 1's deal seed",
    },
    "ru": {
        "card": "Атака-2",
        "play": "✅ Сыграть",
        "nothing": "Ничего не играть",
        "played": "🪄 Лариса: Атака-2, цель — «Андрей»",
        "wounded": "🩸 Андрей: +2 раны",
        "fallen": "✝ «Андрей» выбывает из игры.",
        "won": "🏆 Живые Иные остались только у стороны «Светлые»: кампания окончена.",
        "seed": "Зерно раздачи хода 1",
    },
}
PLACEMENTS = {
    "day": {"hairdresser": 4, "roof": 3, "metro": 3},
    "night": {"apartment": 4, "entrance": 3, "cafe": 3},
}


def _ruleset(names: dict[str, str]) -> dict[str, Any]:
    heroes = [
        {"id": "h1", "side": "day", "name": names["larisa"], "initiative": 2, "start": "metro"},
        {"id": "h2", "side": "night", "name": names["andrey"], "initiative": 4, "start": "metro"},
    ]
    return {
        "modules": ["watch"],
        "module_settings": {
            "watch": {
                "heroes": heroes,
                "hero_victory": True,
                "wounds_to_kill": 2,
                "hand_size": 1,
                "spell_deck": ["A2"],
            }
        },
    }


async def _table(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: Language
) -> Table:
    """A night-demo campaign with hero victory on, deployed, in its first orders window."""
    names = NAMES[language]
    now = clock.now()
    await store.see_person(GM, "Game Master", None, language, True, now)
    campaign = await store.create_campaign(
        NewCampaign(
            chat_id=GROUP,
            title="Night Watch",
            created_by=GM,
            creator_name="Game Master",
            ruleset_overrides=_ruleset(names),
            map="night-demo",
        ),
        now,
    )
    users: dict[int, User] = {GM: telegram.user(GM, "Game Master", language)}
    telegram.group(GROUP, "Night Moscow")
    for side_id, colour in (("day", "#e0b000"), ("night", "#202060")):
        await store.add_side(
            campaign.id, NewSide(id=side_id, name=names[side_id], colour=colour), GM, now
        )
    for user_id, name, side_id in ((DAY, "Dasha", "day"), (NIGHT, "Nikita", "night")):
        await store.see_person(user_id, name, None, language, True, now)
        await store.put_member(
            campaign.id, user_id, name, frozenset({Role.STRATEGIST}), side_id, GM, now
        )
        users[user_id] = telegram.user(user_id, name, language)
    await store.update_settings(campaign.id, CampaignSettings(language=language), GM, now)
    assert (await advance(store, campaign.id, 0, Phase.SETUP, GM, now)).advanced
    found = await store.campaign(campaign.id)
    assert found is not None
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, found, side, placement, GM, now)
    assert (await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    table = Table(found, telegram, store, clock, users)
    await telegram.deliver()
    table.take()
    return table


def _step_screens(sent: list[Sent], user: int) -> list[Sent]:
    return [s for s in sent if s.chat_id == user and any("wd:" in d for _t, d in s.buttons())]


async def _deliver(table: Table) -> list[Sent]:
    await table.telegram.deliver()
    return table.take()


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_the_side_whose_heroes_all_fall_loses_the_campaign(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: Language
) -> None:
    names, words = NAMES[language], WORDS[language]
    table = await _table(telegram, store, clock, language)
    campaign_id = table.campaign.id
    start = await store.turn_start(campaign_id, 1)
    assert start is not None
    assert {hero.id: hero.hand for hero in load(start.modules["watch"]).heroes} == {
        "h1": ("A2",),
        "h2": ("A2",),
    }
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, clock.now())).advanced

    # Larisa's step: her attack-2 on Andrey, played by buttons in Day's private chat.
    [larisa_screen] = _step_screens(await _deliver(table), DAY)
    assert names["larisa"] in larisa_screen.text.splitlines()[0]
    chosen = screen(await table.tap(DAY, larisa_screen, words["card"]))
    laid = screen(await table.tap(DAY, chosen, names["andrey"]))
    assert alert(await table.tap(DAY, laid, words["play"]))
    # Andrey's step opens for Night, who play nothing.
    [andrey_screen] = _step_screens(await _deliver(table), NIGHT)
    assert names["andrey"] in andrey_screen.text.splitlines()[0]
    assert alert(await table.tap(NIGHT, andrey_screen, words["nothing"]))
    await _deliver(table)

    # The resolution: Andrey falls, Night has no living hero, Day wins.
    assert (await advance(store, campaign_id, 1, Phase.BATTLES, GM, clock.now())).advanced
    [resolved] = await store.resolutions(campaign_id, 1)
    assert (resolved.report.winner, resolved.report.victory) == ("day", "watch_heroes")
    after = {hero.id: hero for hero in load(resolved.state_after.modules["watch"]).heroes}
    assert (after["h1"].alive, after["h1"].wounds) == (True, 0)
    assert (after["h2"].alive, after["h2"].wounds) == (False, 2)
    finished = await store.campaign(campaign_id)
    assert finished is not None
    assert finished.phase is Phase.FINISHED

    posts = [s.text for s in await _deliver(table) if s.chat_id == GROUP]
    [summary] = [text for text in posts if words["won"] in text]
    for line in (words["played"], words["wounded"], words["fallen"]):
        assert line in summary, summary
    assert summary.index(words["fallen"]) < summary.index(words["won"])
    assert any(words["seed"] in text for text in posts)  # the deal seeds, once it is over
