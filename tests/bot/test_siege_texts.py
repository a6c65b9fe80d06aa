"""The siege parts of the battle list and the Monday summary, worded in English and Russian:
guarded assaults with their chain battles, cards, fallen and taken tokens, the weather, VP and
who controls the occult tokens; tokens by their names in the reader's language (the map names
them in both), sectors by their labels, and every post line beginning as a sentence does."""

from __future__ import annotations

import pytest
from aiogram.utils.i18n import I18n

from bot.modules.siege.texts import (
    describe_adjustment,
    describe_siege_plan,
    describe_siege_rejection,
    describe_siege_report,
)
from bot.texts.dice import describe_rolls
from rules import Roll, builtin_map
from rules.maps import Feature
from rules.modules.siege import SiegePlan, SiegeReport, SiegeState
from rules.modules.siege.adjust import Adjustment

PLANET = builtin_map("planet-5").model_copy(
    update={
        "features": (
            Feature(
                id="F1",
                kind="fortification",
                sector="2",
                name="Fort Grim",
                names={"ru": "Мрачный форт"},
            ),
            Feature(id="F2", kind="fortification", sector="3"),
            Feature(
                id="O1", kind="occult", sector="5", name="Dark Market", names={"ru": "Тёмный рынок"}
            ),
        )
    }
)
SIDES = {"red": "Red", "blue": "Синие"}
PLAN = SiegePlan.model_validate(
    {
        "weather": 3,
        "assaults": [
            {
                "token": "F1",
                "kind": "fortification",
                "sector": "2",
                "side": "red",
                "reward": "vp",
                "force": 3,
                "strength": 6,
                "defence": 10,
                "guards": [{"side": "blue", "from": "1", "distance": 1, "battle": 2}],
            }
        ],
        "cards_before": [{"token": "O1", "side": "blue", "strength": 8}],
    }
)
REPORT = SiegeReport.model_validate(
    {
        "assaults": [
            {
                "token": "F1",
                "kind": "fortification",
                "sector": "2",
                "side": "red",
                "verdict": "fell",
                "loss": 0,
                "battles": [2],
                "reward": "weather_lost",
            },
            {
                "token": "O1",
                "kind": "occult",
                "sector": "5",
                "side": "red",
                "verdict": "taken",
                "loss": 0,
                "battles": [],
                "reward": None,
            },
        ],
        "cards": [{"token": "O1", "side": "blue", "window": "after", "void": True}],
        "weather": {"before": 3, "after": 4, "steps": {"red": 1}},
        "vp_gained": {"red": 2},
        "vp": {"red": 5, "blue": 1},
    }
)
STATE = SiegeState.model_validate(
    {
        "weather": 4,
        "tokens": [
            {"id": "F2", "kind": "fortification", "sector": "3", "strength": 10},
            {"id": "O1", "kind": "occult", "sector": "5", "strength": 8, "controller": "red"},
        ],
        "vp": {"red": 5, "blue": 1},
    }
)
NAMES = ("North", "North-East", "East", "South-East", "South", "South-West", "West", "NW")
EXPECTED = {
    "en": [
        "🌬 Weather in force: South-East.",
        "🃏 Синие plays the card of O1 «Dark Market» before the battles.",
        "🏰 Red assaults fortification F1 «Fort Grim» in 2 West: it is guarded, so Red must win "
        "battle 2 for it to fall.",
        "  Синие guards it from 1 Equator (battle 2).",
        "🏰 Fortification F1 «Fort Grim» in 2 West fell to Red: +1 VP (the weather could move "
        "no further).",
        "🔮 Red took occult token O1 «Dark Market» in 5 South Pole: it controls it now.",
        "🃏 The card of O1 «Dark Market» (Синие) was void: the token changed hands.",
        "🌬 The weather turned: South-East → South.",
        "🏆 Siege VP: Red 5 (+2), Синие 1.",
        "🔮 Occult tokens: O1 «Dark Market» — Red.",
        "🏰 Fortifications standing: F2.",
    ],
    "ru": [
        "🌬 Погода сейчас: South-East.",
        "🃏 Сторона «Синие» играет карту O1 «Тёмный рынок» до боёв.",
        "🏰 Сторона «Red» штурмует укрепление F1 «Мрачный форт» в секторе 2 «Запад». Цель под "
        "охраной: для успеха штурма стороне «Red» нужно выиграть бой 2.",
        "  Охрана: сторона «Синие» из сектора 1 «Экватор» (бой 2).",
        "🏰 Укрепление F1 «Мрачный форт» в секторе 2 «Запад» пало под штурмом стороны «Red»: "
        "+1 ПО (дальше погода сдвинуться не могла).",
        "🔮 Сторона «Red» захватила оккультный жетон O1 «Тёмный рынок» в секторе 5 «Южный "
        "полюс»: теперь он под её контролем.",
        "🃏 Карта O1 «Тёмный рынок» (сторона «Синие») не сработала: жетон сменил владельца.",
        "🌬 Погода сменилась: South-East → South.",
        "🏆 ПО осады: «Red» — 5 (+2), «Синие» — 1.",
        "🔮 Оккультные жетоны: O1 «Тёмный рынок» — у стороны «Red».",
        "🏰 Стоят укрепления: F2.",
    ],
}
HELD = SiegeReport.model_validate(
    {
        "assaults": [
            {
                "token": "F1",
                "kind": "fortification",
                "sector": "2",
                "side": "red",
                "verdict": "held",
                "loss": 1,
                "battles": [],
            },
            {
                "token": "O1",
                "kind": "occult",
                "sector": "5",
                "side": "blue",
                "verdict": "held",
                "loss": 2,
                "battles": [],
            },
            {
                "token": "F1",
                "kind": "fortification",
                "sector": "2",
                "side": "blue",
                "verdict": "already_fallen",
                "loss": 0,
                "battles": [],
            },
        ],
        "cards": [{"token": "O1", "side": "red", "window": "after", "weather_step": False}],
        "weather": {"before": 3, "after": 3, "steps": {}},
        "vp_gained": {},
        "vp": {},
    }
)
BARE = SiegeState.model_validate(
    {
        "weather": 3,
        "tokens": [{"id": "O1", "kind": "occult", "sector": "5", "strength": 8}],
        "vp": {},
    }
)
HELD_EXPECTED = {
    "en": [
        "🏰 Fortification F1 «Fort Grim» in 2 West held against Red. Red loses 1 army there.",
        "🔮 Occult token O1 «Dark Market» in 5 South Pole held against Синие. Синие loses 2 "
        "armies there.",
        "🏰 Fortification F1 «Fort Grim» had already fallen this turn: Синие's assault came "
        "too late.",
        "🃏 The card of O1 «Dark Market» (Red) could not move the weather: the side's steps for "
        "this turn were used up.",
        "🔮 Occult tokens: O1 «Dark Market» — nobody's.",
        "🏰 No fortification stands any more.",
    ],
    "ru": [
        "🏰 Укрепление F1 «Мрачный форт» в секторе 2 «Запад» устояло: штурм стороны «Red» "
        "отбит. Сторона «Red» теряет там 1 армию.",
        "🔮 Оккультный жетон O1 «Тёмный рынок» в секторе 5 «Южный полюс» устоял: штурм "
        "стороны «Синие» отбит. Сторона «Синие» теряет там 2 армии.",
        "🏰 Штурм стороны «Синие» опоздал: укрепление F1 «Мрачный форт» уже пало в этом ходу.",
        "🃏 Карта O1 «Тёмный рынок» (сторона «Red») не сдвинула погоду: шаги погоды этой "
        "стороны на этот ход уже исчерпаны.",
        "🔮 Оккультные жетоны: O1 «Тёмный рынок» — ничей.",
        "🏰 Укреплений больше не осталось.",
    ],
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_siege_list_and_summary_in_words(i18n: I18n, language: str) -> None:
    def weather(index: int) -> tuple[str, str]:
        return NAMES[index], ""

    with i18n.context(), i18n.use_locale(language):
        lines = describe_siege_plan(PLAN, PLANET, SIDES, language, weather)
        lines += describe_siege_report(REPORT, STATE, PLANET, SIDES, language, weather)
        held = describe_siege_report(HELD, BARE, PLANET, SIDES, language, weather)
    for expected in EXPECTED[language]:
        assert expected in lines, (expected, lines)
    for expected in HELD_EXPECTED[language]:
        assert expected in held, (expected, held)
    for line in lines + held:
        if not line.startswith(" "):
            words = line.split(" ", 1)[1]
            assert words[0] == words[0].upper(), line  # a post's line begins as a sentence


@pytest.mark.parametrize(
    ("n", "limit_ru", "steps_ru"),
    [
        (1, "не больше чем на 1 шаг.", "• погода: −1 шаг, теперь Север"),
        (3, "не больше чем на 3 шага.", "• погода: −3 шага, теперь Север"),
        (5, "не больше чем на 5 шагов.", "• погода: −5 шагов, теперь Север"),
    ],
)
def test_weather_steps_meet_their_noun_in_its_plural_form(
    i18n: I18n, n: int, limit_ru: str, steps_ru: str
) -> None:
    planet = builtin_map("planet-5")
    params: dict[str, str | int] = {"rule": "steer_limit", "limit": n}
    adjustment = Adjustment(weather_steps=-n, reason="")
    with i18n.context(), i18n.use_locale("ru"):
        assert describe_siege_rejection(params, planet, "ru").endswith(limit_ru)
        lines = describe_adjustment(adjustment, planet, {}, "ru", lambda _: ("Север", ""), 0)
    assert steps_ru.replace("−", "-") in lines
    with i18n.context(), i18n.use_locale("en"):
        english = describe_siege_rejection(params, planet, "en")
    assert english == f"The weather moves at most {n} step{'s' if n > 1 else ''} a turn."


@pytest.mark.parametrize(
    ("language", "assault", "lots", "zombies"),
    [
        (
            "en",
            "🎲 Assault on F1 by side «Red»: d6 = 4",
            "🎲 Lots for the order of assaults of equal strength: 2 rolls, in the export",
            "🎲 The zombie deck shuffled: 3 rolls, in the export",
        ),
        (
            "ru",
            "🎲 Штурм F1 стороной «Red»: к6 = 4",
            "🎲 Жребий очерёдности штурмов равной силы: 2 броска, в выгрузке кампании",
            "🎲 Колода зомби перемешана: 3 броска, в выгрузке кампании",
        ),
    ],
)
def test_rolls_are_told_in_words_a_shuffle_on_one_line(
    i18n: I18n, language: str, assault: str, lots: str, zombies: str
) -> None:
    rolls = [
        Roll(label="t1/siege/lots/1/6/2", sides=3, value=2),
        Roll(label="t1/siege/lots/1/6/1", sides=2, value=1),
        Roll(label="t1/siege/assault/F1/red", sides=6, value=4),
        *(
            Roll(label=f"t1/contact/zombies/{i}", sides=i + 1, value=value)
            for i, value in zip((9, 8, 7), (7, 3, 1), strict=True)
        ),
    ]
    with i18n.context(), i18n.use_locale(language):
        lines = describe_rolls(rolls, builtin_map("planet-5"), {"red": "Red"}, language)
    assert lines == [lots, assault, zombies]
