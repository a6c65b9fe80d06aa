"""A GM carries out a siege card's effect in the group (MODULES.md S7): typed, checked by the
rules (nothing below zero, refused as a whole), applied to the turn's start, audited, posted;
in English and Russian."""

from __future__ import annotations

import pytest

from bot.modules.siege.gm import AdjustmentInputError, parse_adjustment
from bot.texts.orders import Vocabulary
from rules import builtin_map
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import load
from storage import AuditAction, Language, Store
from tests.bot.group_helpers import say, tap
from tests.bot.telegram import FakeTelegram
from tests.storage.siege_script import GM, deploy, siege_campaign

VOCABULARY = Vocabulary.build(builtin_map("planet-5"), {"red": ["Red"], "blue": ["Синие"]})


def test_a_typed_card_effect_is_read_in_both_languages() -> None:
    read = parse_adjustment(
        "Red 2 -1\nСиние Северный полюс +2\nVP Red +2\nпогода -1\nпричина: Тёмный рынок",
        VOCABULARY,
    )
    assert [(c.side, c.sector, c.delta) for c in read.armies] == [
        ("red", "2", -1),
        ("blue", "4", 2),
    ]
    assert [(v.side, v.delta) for v in read.vp] == [("red", 2)]
    assert (read.weather_steps, read.reason) == (-1, "Тёмный рынок")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("Red Mars -1", 1),
        ("VP Green +1", 1),
        ("reason: only", 0),
        ("", 0),
        ("VP Red A5", 1),  # a letter is no sign: refused, not a crash in int()
        ("Red 2 -1\nRed 2 Я1", 2),
        ("Red 2 " + " " * 4000 + "x", 1),  # too long to read, answered at once
        ("VP Red" + " " * 4000 + "+1", 1),
    ],
)
def test_an_unreadable_change_names_its_line(text: str, line: int) -> None:
    with pytest.raises(AdjustmentInputError) as refused:
        parse_adjustment(text, VOCABULARY)
    assert refused.value.line == line


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_the_gm_carries_out_a_card_from_the_private_panel(
    telegram: FakeTelegram, store: Store, language: Language
) -> None:
    campaign = await siege_campaign(store, language)
    await deploy(store, campaign.id)
    gm = telegram.user(GM, "Game Master", language=language)
    group = telegram.group(-1001, "Wargamers")
    panel = await say(telegram, gm, gm.id, "/gm")
    label = "Carry out a card" if language == "en" else "Выполнить карту"
    asked = await tap(telegram, gm, panel, label)
    assert asked is not None
    refused = await say(telegram, gm, gm.id, "Red 2 -9\nVP Red +1\nreason: Market")
    assert refused is not None
    expected = {
        "en": "Red has 3 armies in 2 West: it cannot lose 9.",
        "ru": "У стороны «Red» в секторе 2 «Запад» 3 армии — потерять 9 нельзя.",
    }[language]
    assert expected in refused.text
    before = await store.turn_start(campaign.id, 1)
    assert before is not None
    assert before.armies["red"]["2"] == 3
    done = await say(telegram, gm, gm.id, "Red 2 -1\nVP Red +2\nweather +1\nreason: Market")
    assert done is not None
    after = await store.turn_start(campaign.id, 1)
    assert after is not None
    assert after.armies["red"]["2"] == 2
    siege = load(after.modules[SIEGE])
    assert (siege.vp, siege.weather) == ({"red": 2}, 3)
    entries = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.STATE_ADJUSTED
    ]
    assert len(entries) == 1
    assert entries[0].reason == "Market"
    posts = [s.text for s in await telegram.deliver() if s.chat_id == group.id]
    headline = {"en": "The GM carried out a card's effect", "ru": "Мастер выполнил действие карты"}
    adjusted = [text for text in posts if headline[language] in text]
    assert len(adjusted) == 1
    weather = {"en": "now South-East", "ru": "теперь Юго-восток"}[language]
    assert weather in adjusted[0]
