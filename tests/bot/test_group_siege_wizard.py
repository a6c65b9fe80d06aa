"""The siege wizard without editing the map file, in English and in Russian: the GM writes the
eight weather states (one at a time and all at once, in the campaign's language), sets each
token's strength with −/+ and typed, picks an occult token's starting holder among the sides by
name; a map file may name a side by its name as an owner (stored as the side's id when
deployment opens, refused when no side has that name); the settings the rules read are what the
wizard showed, and they are locked once the setup is over."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from aiogram.types import Chat, Update, User

from bot.handlers.group.setup import SetupPress
from bot.modules.siege import setup as siege_setup
from bot.services.clockwork import advance
from bot.services.turns import game_for
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import SiegeSettings, load
from storage import Campaign, CampaignSettings, Phase, Store
from tests.bot.group_helpers import RUSSIAN_WIZARD, say, set_up_campaign, tap
from tests.bot.telegram import FakeTelegram, Sent

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
MAP = """
id = "keep"
name = "The Keep"
names = {{ ru = "Крепость" }}
[[sectors]]
id = "1"
name = "Gate"
names = {{ ru = "Ворота" }}
neighbours = ["2", "3"]
x = 0.2
y = 0.5
[[sectors]]
id = "2"
name = "Yard"
names = {{ ru = "Двор" }}
neighbours = ["1", "3"]
x = 0.8
y = 0.5
[[sectors]]
id = "3"
name = "Tower"
names = {{ ru = "Башня" }}
neighbours = ["1", "2"]
x = 0.5
y = 0.2
[[features]]
id = "F1"
kind = "fortification"
sector = "1"
name = "Gatehouse"
names = {{ ru = "Надвратная башня" }}
[[features]]
id = "O1"
kind = "occult"
sector = "2"
name = "Dark Market"
names = {{ ru = "Тёмный рынок" }}
strength = 8
owner = "{first}"
text = "Read the Market's ledgers."
texts = {{ ru = "Прочтите книги Рынка." }}
[[features]]
id = "O2"
kind = "occult"
sector = "3"
strength = 8
owner = "{second}"
[[features]]
id = "D1"
kind = "defences"
sector = "1"
level = 1
owner = "{first}"
"""
WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "user": ("Anna", "en"),
        "sides": ("Eldar", "Orks"),
        "labels": {},
        "map": "Map",
        "upload": "Upload a map file",
        "siege": "Midnight Siege",
        "on": "Switch the siege on",
        "back": "Back",
        "open": "Open deployment",
        "line_o1": "• O1 «Dark Market»: occult token in 2 Yard, strength 8, held by «Eldar» "
        "(from the map)",
        "card_o1": "🃏 O1 «Dark Market»: «Read the Market's ledgers.»",
        "tokens": "Strength and holders",
        "line_f1": "• F1 «Gatehouse»: fortification in 1 Gate, strength 20 (from the map)",
        "not_a_number": "Send a whole number from 1 to 1000: the token's strength.",
        "holder": "🚩 O1: Eldar",
        "who": "Who holds O1 «Dark Market» at the start?",
        "line_o1_orks": "held by «Orks»",
        "weather": "Weather states",
        "north": "✏️ 1. North",
        "asked": "reply with weather state 1",
        "storm": "Storm: −1 to shooting",
        "storm_line": "1. Storm: −1 to shooting",
        "all": "Write all eight",
        "seven": 'Calm\nFog: no shooting beyond 12"\nRain\nWind\nSnow\nHail\nThunder',
        "not_eight": "Write eight lines, one a state, clockwise",
        "eight": '1. Calm\n2. Fog: no shooting beyond 12"\n3. Rain\n4. Wind\n5. Snow\n'
        "6. Hail\n7. Thunder\n8. Ash: −1 to charge",
        "fog": '2. Fog: no shooting beyond 12"',
        "standard": "Standard states",
        "summary": "Midnight Siege: on, 3 tokens, no sector steers the weather",
        "unknown": "O2 («Ghosts»)",
    },
    "ru": {
        "user": ("Анна", "ru"),
        "sides": ("Эльдары", "Орки"),
        "labels": RUSSIAN_WIZARD,
        "map": "Карта",
        "upload": "Загрузить файл карты",
        "siege": "Полуночная осада",
        "on": "Включить осаду",
        "back": "Назад",
        "open": "Открыть расстановку",
        "line_o1": "• O1 «Тёмный рынок»: оккультный жетон в секторе 2 «Двор», прочность 8, у "
        "стороны «Эльдары» (с карты)",
        "card_o1": "🃏 O1 «Тёмный рынок»: «Прочтите книги Рынка.»",
        "tokens": "Прочность и владельцы",
        "line_f1": "• F1 «Надвратная башня»: укрепление в секторе 1 «Ворота», прочность 20 "
        "(с карты)",
        "not_a_number": "Пришлите целое число от 1 до 1000 — прочность жетона.",
        "holder": "🚩 O1: Эльдары",
        "who": "У кого O1 «Тёмный рынок» в начале кампании?",
        "line_o1_orks": "у стороны «Орки»",
        "weather": "Положения погоды",
        "north": "✏️ 1. Север",
        "asked": "ответьте положением погоды 1",
        "storm": "Буря: −1 к стрельбе",
        "storm_line": "1. Буря: −1 к стрельбе",
        "all": "Написать все восемь",
        "seven": 'Штиль\nТуман: стрельба не дальше 12"\nДождь\nВетер\nСнег\nГрад\nГроза',
        "not_eight": "Напишите восемь строк, по положению в строке, по часовой стрелке",
        "eight": '1. Штиль\n2. Туман: стрельба не дальше 12"\n3. Дождь\n4. Ветер\n5. Снег\n'
        "6. Град\n7. Гроза\n8. Пепел: −1 к атаке",
        "fog": '2. Туман: стрельба не дальше 12"',
        "standard": "Стандартные положения",
        "summary": "Полуночная осада: включена, 3 жетона, погодой не управляет ни один сектор",
        "unknown": "O2 («Призраки»)",
    },
}


async def _with_map(
    telegram: FakeTelegram, store: Store, language: str, second: str
) -> tuple[User, Chat, Campaign, Sent]:
    """The wizard up to the summary, with the map whose O1 belongs to the first side by name
    and O2 to ``second``; the siege screen, switched on."""
    words = WORDS[language]
    name, code = words["user"]
    gm = telegram.user(1, str(name), language=str(code))
    group = telegram.group(-100, "Wargamers")
    await say(telegram, gm, gm.id, "/start")  # the GM can be written to in private
    first_side, other_side = words["sides"]
    campaign = await set_up_campaign(
        telegram,
        store,
        gm,
        group,
        sides=(str(first_side), str(other_side)),
        labels=words["labels"],
        open_deployment=False,
    )
    summary = telegram.sent[-1]
    map_step = await tap(telegram, gm, summary, str(words["map"]))
    await tap(telegram, gm, map_step, str(words["upload"]))
    content = MAP.format(first=first_side, second=second).encode()
    accepted = await telegram.feed(telegram.document(gm, group, "keep.toml", content))
    assert accepted is not None
    await say(telegram, gm, group, "/newcampaign")  # back to the summary
    screen = await tap(telegram, gm, telegram.sent[-1], str(words["siege"]))
    screen = await tap(telegram, gm, screen, str(words["on"]))
    assert screen is not None
    return gm, group, campaign, screen


def _press(
    telegram: FakeTelegram, gm: User, sent: Sent, campaign: Campaign, a: str, v: str
) -> Update:
    """``gm`` presses the wizard's button ``a``/``v`` under ``sent``."""
    return telegram.press(gm, sent, SetupPress(c=campaign.id, a=a, v=v).pack())


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_a_gm_sets_strength_holders_and_weather_without_the_map_file(
    telegram: FakeTelegram, store: Store, language: str
) -> None:
    words = WORDS[language]
    first_side, other_side = words["sides"]
    gm, group, campaign, screen = await _with_map(telegram, store, language, str(other_side))
    assert str(words["line_o1"]) in screen.text.splitlines()
    assert str(words["card_o1"]) in screen.text.splitlines()

    # Strength: −/+ by one, or typed (a word is refused with what to send).
    tokens = await tap(telegram, gm, screen, str(words["tokens"]))
    assert tokens is not None
    for _ in range(2):
        tokens = await telegram.feed(_press(telegram, gm, tokens, campaign, "sgs", "F1.+"))
        assert tokens is not None
    assert "💪 F1: 12" in str(tokens.buttons())
    await tap(telegram, gm, tokens, "💪 F1: 12")
    refused = await say(telegram, gm, group, "twenty")
    assert refused is not None
    assert str(words["not_a_number"]) in refused.text
    tokens = await say(telegram, gm, group, "20")
    assert tokens is not None
    assert str(words["line_f1"]) in tokens.text.splitlines()

    # The starting holder, picked among the sides by name.
    pick = await tap(telegram, gm, tokens, str(words["holder"]))
    assert pick is not None
    assert str(words["who"]) in pick.text
    assert [text for text, _data in pick.buttons()][:3] == [
        f"✔ {first_side}",
        str(other_side),
        "Nobody" if language == "en" else "Ничей",
    ]
    tokens = await tap(telegram, gm, pick, str(other_side))
    assert tokens is not None
    assert str(words["line_o1_orks"]) in tokens.text

    # The weather states: one written, then all eight, then the standard ones again.
    back = await tap(telegram, gm, tokens, str(words["back"]))
    weather = await tap(telegram, gm, back, str(words["weather"]))
    asked = await tap(telegram, gm, weather, str(words["north"]))
    assert asked is not None
    assert str(words["asked"]) in asked.text
    weather = await say(telegram, gm, group, str(words["storm"]))
    assert weather is not None
    assert str(words["storm_line"]) in weather.text.splitlines()
    await tap(telegram, gm, weather, str(words["all"]))
    refused = await say(telegram, gm, group, str(words["seven"]))
    assert refused is not None
    assert str(words["not_eight"]) in refused.text
    weather = await say(telegram, gm, group, str(words["eight"]))
    assert weather is not None
    assert str(words["fog"]) in weather.text.splitlines()

    stored = await store.campaign(campaign.id)
    assert stored is not None
    settings = game_for(stored).settings_of(SIEGE, SiegeSettings)
    fog = settings.weather_states[1]
    assert fog.names.get(language, fog.name) == str(words["fog"]).split(". ", 1)[1].split(":")[0]
    assert fog.texts.get(language, fog.text).startswith(str(words["fog"]).split(": ", 1)[1][:6])
    standard = await tap(telegram, gm, weather, str(words["standard"]))
    assert standard is not None
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert "weather_states" not in siege_setup.settings(stored.ruleset_overrides)
    await tap(telegram, gm, standard, str(words["north"]))
    await say(telegram, gm, group, str(words["storm"]))

    # Deployment opens: O2's owner, named by the side's name in the map, is stored as its id;
    # the rules start from what the wizard showed.
    await say(telegram, gm, group, "/newcampaign")
    summary = telegram.sent[-1]
    assert str(words["summary"]) in summary.text
    await tap(telegram, gm, summary, str(words["open"]))
    opened = await store.campaign(campaign.id)
    assert opened is not None
    assert opened.phase.value == "deployment"
    ids = {side.name: side.id for side in await store.sides(campaign.id)}
    assert not isinstance(opened.map, str)
    assert [(f.id, f.owner) for f in opened.map.features] == [
        ("F1", None),
        ("O1", ids[str(first_side)]),
        ("O2", ids[str(other_side)]),
        ("D1", ids[str(first_side)]),  # contact's defences read a side's name the same way
    ]
    for side_id, placement in zip(
        ids.values(), ({"1": 4, "2": 3, "3": 3}, {"1": 3, "2": 3, "3": 4}), strict=True
    ):
        await store.save_placement(campaign.id, side_id, placement, True, gm.id, NOW)
    assert (await advance(store, campaign.id, 0, Phase.DEPLOYMENT, gm.id, NOW)).advanced
    start = await store.turn_start(campaign.id, 1)
    assert start is not None
    siege = load(start.modules[SIEGE])
    assert [(t.id, t.strength, t.controller, t.ready) for t in siege.tokens] == [
        ("F1", 20, None, True),
        ("O1", 8, ids[str(other_side)], True),
        ("O2", 8, ids[str(other_side)], True),
    ]
    choices = [s for s in await telegram.deliver() if "wx:" in str(s.buttons())]
    assert choices
    assert str(words["storm"]).split(":")[0] in str(choices[0].buttons())

    # The settings are locked now: an old wizard button changes nothing.
    late = await telegram.feed(_press(telegram, gm, tokens, campaign, "sgs", "F1.+"))
    assert late is not None
    again = await store.campaign(campaign.id)
    assert again is not None
    assert again.ruleset_overrides == opened.ruleset_overrides


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_an_owner_no_side_is_called_is_refused_until_the_gm_picks_one(
    telegram: FakeTelegram, store: Store, language: str
) -> None:
    words = WORDS[language]
    ghosts = "Ghosts" if language == "en" else "Призраки"
    gm, group, campaign, _screen = await _with_map(telegram, store, language, ghosts)
    await say(telegram, gm, group, "/newcampaign")
    summary = telegram.sent[-1]
    refused = await tap(telegram, gm, summary, str(words["open"]))
    assert refused is not None
    assert str(words["unknown"]) in refused.text
    still = await store.campaign(campaign.id)
    assert still is not None
    assert still.phase.value == "setup"

    siege = await tap(telegram, gm, summary, str(words["siege"]))
    tokens = await tap(telegram, gm, siege, str(words["tokens"]))
    pick = await tap(telegram, gm, tokens, f"🚩 O2: {ghosts}")
    await tap(telegram, gm, pick, "Nobody" if language == "en" else "Ничей")
    await say(telegram, gm, group, "/newcampaign")
    await tap(telegram, gm, telegram.sent[-1], str(words["open"]))
    opened = await store.campaign(campaign.id)
    assert opened is not None
    assert opened.phase.value == "deployment"


async def test_many_tokens_are_set_page_by_page(telegram: FakeTelegram, store: Store) -> None:
    gm = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, gm, group, open_deployment=False)
    placed = [
        {"id": f"F{n}", "kind": "fortification", "sector": str(1 + n % 5)} for n in range(1, 13)
    ]
    overrides = {"modules": ["siege"], "module_settings": {"siege": {"tokens": placed}}}
    await store.update_settings(
        campaign.id, CampaignSettings(ruleset_overrides=overrides), gm.id, NOW
    )
    await say(telegram, gm, group, "/newcampaign")
    siege = await tap(telegram, gm, telegram.sent[-1], "Midnight Siege")
    first = await tap(telegram, gm, siege, "Strength and holders")
    assert first is not None
    assert "Page 1 of 2." in first.text
    assert "💪 F10: 10" in str(first.buttons())
    assert "💪 F11" not in str(first.buttons())
    second = await tap(telegram, gm, first, "Page 2 ▶")
    assert second is not None
    assert "• F12: fortification in 3 East, strength 10" in second.text.splitlines()
    stronger = await telegram.feed(_press(telegram, gm, second, campaign, "sgs", "F12.+"))
    assert stronger is not None
    assert "Page 2 of 2." in stronger.text  # the press leaves the GM on the token's page
    assert "💪 F12: 11" in str(stronger.buttons())
    await tap(telegram, gm, stronger, "💪 F12: 11")
    typed = await say(telegram, gm, group, "15")
    assert typed is not None
    assert "💪 F12: 15" in str(typed.buttons())
    assert all(len(screen.buttons()) <= 100 for screen in (first, second, stronger, typed))
