"""A siege week through the real dispatcher, with the group (and the GM) in English and in
Russian: the seeds' commitment and the weather choice as the orders open (the chooser named as
the last side in side order), siege orders by buttons and by text, a card played before the
battles (secret until the list, then shown to the GM with its text), the battle list with the
guarded assault's chain and the stormer's lost abilities (also on both sides' /battles),
results reported and confirmed with buttons (the chain's second battle only once the first is
won), and the Monday summary with the fallen fortification, VP, control, the weather and the
revealed roll seed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.services.schedule import CampaignScheduler
from bot.services.window import current_deadline
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
            "cards": {
                "O1": {
                    "text": "Blue reads the Market's ledgers.",
                    "texts": {"ru": "Синие читают книги Рынка."},
                }
            },
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
        "chooser": "🌬 Side «Green Horde» chooses the starting weather of the siege: it is the "
        "last side in the campaign's list of sides (the order the GM added them in).",
        "chosen": "The starting weather is chosen: North-East.",
        "weather": "🌬 Weather in force: North-East.",
        "guarded": "🏰 Red Legion assaults fortification F2 in 2 West: it is guarded, so Red "
        "Legion must win battles 2, 3 in turn for it to fall.",
        "guard": "  Синие guards it from 5 South Pole (battle 2).",
        "chain": "  Played only if the attacker of battle 2 wins it.",
        "abilities": "  An assault on a token: Red Legion's figures use none of their abilities "
        "in this battle; Синие's figures keep all of theirs.",
        "card": "🃏 Синие plays the card of O1 before the battles.",
        "card_text": "  The card: «Blue reads the Market's ledgers.»",
        "card_gm": "  Its effect is carried out by the GM: «🃏 Carry out a card (siege)» in /gm "
        "while the orders are open.",
        "fell": "🏰 Fortification F2 in 2 West fell to Red Legion: +1 VP.",
        "vp": "🏆 Siege VP: Red Legion 1 (+1).",
        "control": "🔮 Occult tokens: O1 — Синие.",
        "standing": "🏰 Fortifications standing: F1.",
        "stays": "🌬 The weather stays: North-East.",
        "seed": "🎲 Turn 1's roll seed is revealed: {seed}",
    },
    "ru": {
        "sealed": "Ход 1: кубы запечатаны до того, как отдан хоть один приказ.",
        "chooser": "🌬 Начальную погоду осады выбирает сторона «Green Horde»: она последняя в "
        "списке сторон кампании (в том порядке, в каком их добавил мастер).",
        "chosen": "Начальная погода выбрана: Северо-восток.",
        "weather": "🌬 Погода сейчас: Северо-восток.",
        "guarded": "🏰 Сторона «Red Legion» штурмует укрепление F2 в секторе 2 «Запад». Цель "
        "под охраной: для успеха штурма стороне «Red Legion» нужно по очереди выиграть бои 2, 3.",
        "guard": "  Охрана: сторона «Синие» из сектора 5 «Южный полюс» (бой 2).",
        "chain": "  Играется, только если в бою 2 победит атакующий.",
        "abilities": "  Штурм жетона: в этом бою фигуры стороны «Red Legion» не пользуются "
        "никакими своими способностями, а фигуры стороны «Синие» сохраняют все свои.",
        "card": "🃏 Сторона «Синие» играет карту O1 до боёв.",
        "card_text": "  Карта: «Синие читают книги Рынка.»",
        "card_gm": "  Её действие выполняет мастер: «🃏 Выполнить карту (осада)» в /gm, пока "
        "открыт приём приказов.",
        "fell": "🏰 Укрепление F2 в секторе 2 «Запад» пало под штурмом стороны «Red Legion»: "
        "+1 ПО.",
        "vp": "🏆 ПО осады: «Red Legion» — 1 (+1).",
        "control": "🔮 Оккультные жетоны: O1 — у стороны «Синие».",
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
    outcome = screen(await table.tap(reporter, picked, "Solid"))
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
    await store.see_person(GM, "Game Master", None, language, True, now)
    for side, placement in reversed(PLACEMENTS.items()):  # Green deploys first
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    await telegram.deliver()
    table.take()

    # Orders open: the seeds are sealed first; Green deployed first, but it is the last side in
    # side order, so it picks the weather (MODULES.md S8), and the group is told why.
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

    # Red assaults F2 with buttons; Blue and Green guard it by text; Blue attacks in 1 and
    # plays O1's card before the battles.
    home = screen(await table.say(201, "/orders"))
    siege = screen(await table.tap(201, home, "Siege orders"))
    assert alert(await table.tap(201, siege, "assault F2 in 2 West for VP")).startswith("Saved")
    await table.say(301, "охрана F2 из 5\nатака на Red Legion в 1\nсыграть карту O1 до боёв")
    await table.say(401, "guard F2 from 3 East")
    given = await store.orders_for_turn(campaign_id, 1)
    assert {side: len(record.orders.extra) for side, record in given.items()} == {
        "red": 1,
        "blue": 2,
        "green": 1,
    }
    before_list = await telegram.deliver()
    assert not any("O1" in s.text for s in before_list if s.chat_id in (GROUP, GM, 201, 401))

    # The battle list: the weather, the guarded assault and its chain, the stormer without its
    # figures' abilities; the GM alone is told the card's text, and what to do with it.
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, now)).advanced
    sent = await telegram.deliver()
    listed = _group_text(sent)
    for key in ("weather", "guarded", "guard", "chain", "abilities", "card"):
        assert words[key] in listed, (key, listed)
    assert words["card_text"].strip() not in listed
    [note] = [s.text for s in sent if s.chat_id == GM and "O1" in s.text]
    for key in ("card", "card_text", "card_gm"):
        assert words[key] in note.splitlines(), (key, note)

    # Both sides' battle screens say who fights without abilities (in each reader's language).
    stormer = screen(await table.say(202, "/battles"))
    assert GROUP_WORDS["en"]["abilities"] in stormer.text.splitlines()
    guard = screen(await table.say(302, "/battles"))
    assert GROUP_WORDS["ru"]["abilities"] in guard.text.splitlines()

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


PENDING = {
    "en": (
        "Not yet: the starting weather of the siege is not chosen. Choose it with the buttons I "
        "sent you in private, or wait for the side that chooses it.",
        "Siege: the orders deadline has passed, but the starting weather of the siege is not "
        "chosen, so the orders stay open. Choose it with the buttons I sent you.",
    ),
    "ru": (
        "Ещё нельзя: начальная погода осады не выбрана. Выберите её кнопками, которые я прислал "
        "вам в личные сообщения, или дождитесь выбора стороны.",
        "Siege: срок приказов прошёл, но начальная погода осады не выбрана, поэтому приём "
        "приказов продолжается. Выберите её кнопками, которые я вам прислал.",
    ),
}


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_the_gm_is_told_the_orders_wait_for_the_starting_weather(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: Language
) -> None:
    table = await open_table(telegram, store, clock, SIEGE)
    gm = telegram.user(GM, "Game Master", language)
    table.users[GM] = gm
    await store.see_person(GM, "Game Master", None, language, True, clock.now())
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    await telegram.deliver()
    table.take()

    # «Advance now» while Green has not chosen: refused with the real reason.
    panel = screen(await table.say(GM, "/gm"))
    asked = screen(await table.tap(GM, panel, "⏭"))
    refused = await table.tap(GM, asked, "⏭")
    pressed, alarm = PENDING[language]
    assert alert(refused) == pressed

    # The orders' deadline comes and goes: the GMs are told why the orders stay open.
    deadline = await current_deadline(store, await table.now_campaign())
    assert deadline is not None
    clock.set(deadline + timedelta(minutes=5))
    await CampaignScheduler(store, clock).run_due(clock.now())
    told = [s.text for s in await telegram.deliver() if s.chat_id == GM]
    assert alarm in told
