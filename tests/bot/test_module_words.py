"""The shared texts word a module's orders, refusals, results and rolls through its hooks
(issue 35): a module that words nothing gets the shared words, the built-in ones their own,
in English and Russian."""

from __future__ import annotations

import pytest
from aiogram.utils.i18n import I18n

from bot.modules import BOT_MODULES, BotModule
from bot.texts.core import describe_order, describe_rejection, full_result_words
from bot.texts.dice import describe_rolls
from rules import BattleResult, ModuleOrder, OrderRule, Outcome, Rejection, Roll, builtin_map

PLANET = builtin_map("planet-5")
SIDES = {"red": "Red", "blue": "Blue"}
TAKEN = {
    ("supply", "en"): "2 West already has a rule module's order this turn; fortify 2 West first "
    "to give it another order.",
    ("supply", "ru"): "У сектора 2 «Запад» уже есть приказ модуля правил на этот ход; чтобы "
    "отдать другой приказ, сначала прикажите 2 «Запад» укрепиться.",
    ("siege", "en"): "2 West already has a siege order this turn (an assault or steering); "
    "fortify 2 West first to give it another order.",
    ("siege", "ru"): "У сектора 2 «Запад» уже есть приказ осады на этот ход (штурм или поворот "
    "погоды); чтобы отдать другой приказ, сначала прикажите 2 «Запад» укрепиться.",
}


@pytest.fixture
def supply(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fourth module registered with every hook's default: it words nothing."""
    monkeypatch.setitem(BOT_MODULES, "supply", BotModule("supply"))


@pytest.mark.parametrize("language", ["en", "ru"])
@pytest.mark.parametrize("module", ["supply", "siege"])
def test_a_sector_taken_by_a_module_order_is_worded_by_its_module(
    i18n: I18n, supply: None, module: str, language: str
) -> None:
    rejection = Rejection(
        side="red",
        rule=OrderRule.SECTOR_HAS_MODULE_ORDER,
        params={"sector": "2", "module": module},
    )
    with i18n.context(), i18n.use_locale(language):
        words = describe_rejection(rejection, PLANET, SIDES, language)
    assert words == TAKEN[module, language]


def test_a_module_that_words_nothing_gets_the_shared_words(i18n: I18n, supply: None) -> None:
    order = ModuleOrder(module="supply", data={"convoy": 1})
    result = BattleResult(
        battle=1,
        outcome=Outcome.SOLID,
        winner="red",
        modules={"supply": {"lost": 1}, "contact": {"warlord_slain": ["blue"]}},
    )
    rolls = [
        Roll(label="1/supply/convoy/2", sides=6, value=3),
        Roll(label="1/supply/convoy/3", sides=6, value=5),
        Roll(label="1/contact/zombies/0", sides=5, value=2),
    ]
    with i18n.context(), i18n.use_locale("en"):
        assert describe_order(order, PLANET, SIDES, "en") == "supply order"
        assert full_result_words(result, SIDES) == "Red: solid victory; warlord slain: Blue"
        assert describe_rolls(rolls, PLANET, SIDES, "en") == [
            "🎲 2 rolls, in the export",
            "🎲 The zombie deck shuffled: 1 roll, in the export",
        ]
    with i18n.context(), i18n.use_locale("ru"):
        assert full_result_words(result, SIDES) == (
            "уверенная победа в пользу стороны «Red»; убит военачальник: Blue"
        )
