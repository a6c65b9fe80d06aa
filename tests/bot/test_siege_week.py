"""A siege week through the real dispatcher, with the group in English and in Russian: the
seeds' commitment and the weather choice as the orders open, siege orders by buttons and by
text, the battle list with the guarded assault's chain, results reported and confirmed with
buttons (the chain's second battle only once the first is won), and the Monday summary with the
fallen fortification, VP, control, the weather and the revealed roll seed."""

from __future__ import annotations

from typing import Any

import pytest

from bot.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from rules import commitment
from storage import CampaignSettings, Language, Phase, Store
from tests.bot.private_campaign import GM, GROUP, Table, alert, open_table, screen
from tests.bot.telegram import FakeTelegram, Sent

SIEGE: dict[str, Any] = {
    "modules": ["siege"],
    "module_settings": {
        "siege": {
            "weather_control": ["1"],
            "tokens": [
                {"id": "F1", "kind": "fortification", "sector": "3"},
                {"id": "F2", "kind": "fortification", "sector": "2"},
                {"id": "O1", "kind": "occult", "sector": "5", "owner": "blue"},
            ],
        }
    },
}
PLACEMENTS = {
    "red": {"1": 4, "2": 3, "4": 3},
    "blue": {"1": 3, "3": 5, "5": 2},
    "green": {"2": 4, "3": 3, "5": 3},
}
GROUP_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "sealed": "Turn 1: the dice are sealed before any order is given.",
        "chooser": "Green Horde chooses the starting weather of the siege",
        "chosen": "The starting weather is chosen: North-East.",
        "weather": "🌬 Weather in force: North-East.",
        "guarded": "🏰 Red Legion assaults fortification F2 in 2 West: it is guarded, so Red "
        "Legion must win battles 2, 3 in turn for it to fall.",
        "guard": "  Синие guards it from 5 South Pole (battle 2).",
        "chain": "  Played only if the attacker of battle 2 wins it.",
        "fell": "🏰 fortification F2 in 2 West fell to Red Legion: +1 VP.",
        "vp": "🏆 Siege VP: Red Legion 1 (+1).",
        "control": "🔮 Occult tokens: O1 — Синие.",
        "standing": "🏰 Fortifications standing: F1.",
        "stays": "🌬 The weather stays: North-East.",
        "seed": "🎲 Turn 1's roll seed is revealed: {seed}",
    },
    "ru": {
        "sealed": "Ход 1: кубы запечатаны до того, как отдан хоть один приказ.",
        "chooser": "Начальную погоду осады выбирает сторона «Green Horde»",
        "chosen": "Начальная погода выбрана: Северо-восток.",
        "weather": "🌬 Погода сейчас: Северо-восток.",
        "guarded": "🏰 Сторона «Red Legion» штурмует укрепление F2 в секторе 2 «Запад». Цель "
        "под охраной: для успеха штурма стороне «Red Legion» нужно по очереди выиграть бои 2, 3.",
        "guard": "  Охрана: сторона «Синие» из сектора 5 «Южный полюс» (бой 2).",
        "chain": "  Играется, только если в бою 2 победит атакующий.",
        "fell": "🏰 укрепление F2 в секторе 2 «Запад»: штурм стороны «Red Legion» удался: +1 ПО.",
        "vp": "🏆 ПО осады: Red Legion 1 (+1).",
        "control": "🔮 Оккультные жетоны: O1 — Синие.",
        "standing": "🏰 Стоят укрепления: F1.",
        "stays": "🌬 Погода не изменилась: Северо-восток.",
        "seed": "🎲 Раскрываем зерно бросков хода {seed_turn}: {seed}",
    },
}


def _group_text(sent: list[Sent]) -> str:
    return "\n".join(s.text for s in sent if s.chat_id == GROUP)


async def _report(table: Table, reporter: int, confirmer: int, battle: int, winner: str) -> None:
    """``reporter`` reports ``winner``'s solid victory in ``battle``; ``confirmer`` confirms."""
    listing = screen(await table.say(reporter, "/battles"))
    picked = screen(await table.tap(reporter, listing, f"Report battle {battle}"))
    outcome = screen(await table.tap(reporter, picked, "solid"))
    done = await table.tap(reporter, outcome, f"{winner} won")
    assert alert(done)
    listing = screen(await table.say(confirmer, "/battles"))
    label = "Confirm battle" if table.users[confirmer].language_code == "en" else "Подтвердить бой"
    confirmed = await table.tap(confirmer, listing, f"{label} {battle}")
    assert alert(confirmed)


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_a_siege_week_through_the_dispatcher(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: Language
) -> None:
    words = GROUP_WORDS[language]
    table = await open_table(telegram, store, clock, SIEGE)
    campaign_id = table.campaign.id
    await store.update_settings(campaign_id, CampaignSettings(language=language), GM, clock.now())
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    await telegram.deliver()
    table.take()

    # Orders open: the seeds are sealed first, Green (the last side) picks the weather.
    assert (await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    opened = await telegram.deliver()
    group = _group_text(opened)
    seeds = await store.turn_seeds(campaign_id, 1)
    assert seeds is not None
    assert words["sealed"] in group
    assert commitment(seeds.roll) in group
    assert words["chooser"] in group
    [ask] = [s for s in opened if s.chat_id == 401 and "wx:" in str(s.buttons())]
    picked = await table.tap(401, ask, "North-East")
    assert "the starting weather is North-East" in screen(picked).text
    assert words["chosen"] in _group_text(await telegram.deliver())

    # Red assaults F2 with buttons; Blue and Green guard it by text; Blue attacks in 1.
    home = screen(await table.say(201, "/orders"))
    siege = screen(await table.tap(201, home, "Siege orders"))
    assert alert(await table.tap(201, siege, "assault F2 in 2 West for VP")).startswith("Saved")
    await table.say(301, "охрана F2 из 5\nатака на Red Legion в 1")
    await table.say(401, "guard F2 from 3 East")
    given = await store.orders_for_turn(campaign_id, 1)
    assert {side: len(record.orders.extra) for side, record in given.items()} == {
        "red": 1,
        "blue": 1,
        "green": 1,
    }

    # The battle list: the weather, the guarded assault and its chain.
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, now)).advanced
    listed = _group_text(await telegram.deliver())
    for key in ("weather", "guarded", "guard", "chain"):
        assert words[key] in listed, (key, listed)

    # Battle 3 waits for battle 2: nobody can report it yet.
    waiting = screen(await table.say(401, "/battles"))
    assert "It waits for the result of battle 2." in waiting.text
    assert "Report battle 3" not in str(waiting.buttons())
    await _report(table, 202, 302, 1, "Синие")
    await _report(table, 202, 302, 2, "Red Legion")
    await _report(table, 202, 401, 3, "Red Legion")

    # Monday: F2 fell to Red, +1 VP; O1 still Blue's; the roll seed revealed.
    assert (await advance(store, campaign_id, 1, Phase.BATTLES, GM, now)).advanced
    monday = _group_text(await telegram.deliver())
    for key in ("fell", "vp", "control", "standing", "stays"):
        assert words[key] in monday, (key, monday)
    assert words["seed"].format(seed=seeds.roll, seed_turn=1) in monday
    [resolution] = await store.resolutions(campaign_id, 1)
    assert resolution.report.winner is None
