"""Contact's battle list and Monday summary in words, in English and Russian, on MODULES.md
C11-C12 (the ``day-demo`` map, Example A's orders and the G4 seed): the movement log round by
round, the zombies with their cards, the plan-time retreat, the chain with who defends each
battle; after Example B's results: the retreat, ruined defences, VP and exhaustion."""

from __future__ import annotations

import pytest
from aiogram.utils.i18n import I18n

from bot.modules.contact.map_view import contact_moves
from bot.modules.contact.texts import describe_contact_plan, describe_contact_report
from bot.texts.core import describe_unplayed
from rules import (
    BattleResult,
    Move,
    Outcome,
    SideOrders,
    TurnSeeds,
    plan_battles,
    resolve_turn,
)
from rules.modules.contact import ContactPlan, ContactReport, transport
from tests.rules.contact_day_demo import contact_game, example_a_state

SEEDS = TurnSeeds(roll="9f2c4e7a1b3d5f6081a2c3e4f5061728")
NAMES = {"bikers": "Bikers", "party": "Party", "bees": "Пчёлы"}
ORDERS = {
    "bikers": SideOrders(extra=(transport("bb", ["ph", "hb"], 4),)),
    "party": SideOrders(
        moves=(Move(source="pb", to="ph", count=2), Move(source="pb", to="hb", count=2))
    ),
    "bees": SideOrders(moves=(Move(source="hb", to="ps", count=1),)),
}
EXPECTED = {
    "en": {
        "order": "🧟 Contact. Turn order: Bikers, Party, Пчёлы.",
        "transport": "🚚 Bikers: group 1 (4 armies) from bb Bikers' base stops in hb Hive, "
        "arrival 1. Passed through: ph Pharmacy.",
        "zombies": "🧟 Party: 2 armies in ph Pharmacy against zombie card 5: strength 4, the "
        "zombies win and the armies retreat.",
        "bonus": "against zombie card 6 +1 for the defences = 7: strength 8, the zombies are "
        "beaten.",
        "retreat": "↩ Party: 2 armies retreat from ph Pharmacy to pb Party base, exhausted.",
        "chain": "⛓ Chain in hb Hive: Пчёлы defends first; each winner defends the next battle.",
        "second": "  Battle 2: Party against the winner of battle 1; it opens for reporting "
        "once that result is in.",
        "ruined": "🏚 The defences in hb Hive are ruined; Bikers gains 1 VP.",
        "warlord": "🏆 Bikers: +3 VP, the warlord of Party was slain in battle 2.",
        "vp": "🏆 Victory points: Bikers 4.",
    },
    "ru": {
        "order": "🧟 Сближение. Очерёдность сторон: Bikers, Party, Пчёлы.",
        "transport": "🚚 Сторона «Bikers»: группа 1 (4 армии) из bb «Bikers' base» "
        "останавливается в hb «Hive», прибытие 1. По пути: ph «Pharmacy».",
        "zombies": "🧟 Сторона «Party»: 2 армии в ph «Pharmacy» против карты зомби 5: сила 4, "
        "зомби побеждают, армии отступают.",
        "bonus": "против карты зомби 6 +1 за заграждения = 7: сила 8, зомби разбиты.",
        "retreat": "↩ Сторона «Party»: 2 армии отступают из ph «Pharmacy» в pb «Party base» "
        "измотанными.",
        "chain": "⛓ Цепочка в hb «Hive»: первой защищается сторона «Пчёлы»; победитель каждого "
        "боя защищается в следующем.",
        "second": "  Бой 2: сторона «Party» против победителя боя 1; о нём можно сообщить, "
        "когда известен результат боя 1.",
        "ruined": "🏚 Заграждения в hb «Hive» разрушены; сторона «Bikers» получает 1 ПО.",
        "warlord": "🏆 Сторона «Bikers»: +3 ПО, военачальник стороны «Party» убит в бою 2.",
        "vp": "🏆 Победные очки: Bikers 4.",
    },
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_list_and_the_summary_of_examples_a_and_b(i18n: I18n, language: str) -> None:
    game = contact_game()
    state = example_a_state(game)
    plan = plan_battles(game, state, ORDERS, SEEDS)
    contact_plan = ContactPlan.model_validate(plan.modules["contact"])
    results = [
        BattleResult(battle=1, outcome=Outcome.SOLID, winner="bikers"),
        BattleResult(
            battle=2,
            outcome=Outcome.CRUSHING,
            winner="bikers",
            modules={"contact": {"warlord_slain": ["party"]}},
        ),
    ]
    report = resolve_turn(game, state, ORDERS, results, SEEDS).report
    contact_report = ContactReport.model_validate(report.modules["contact"])
    with i18n.context(), i18n.use_locale(language):
        listed = describe_contact_plan(contact_plan, game.map, NAMES, language)
        summary = describe_contact_report(contact_report, game.map, NAMES, language)
    text = "\n".join(listed + summary)
    for key, line in EXPECTED[language].items():
        assert line in text, (key, text)


def test_the_weeks_arrows_follow_each_groups_path() -> None:
    game = contact_game()
    state = example_a_state(game)
    plan = plan_battles(game, state, ORDERS, SEEDS)
    results = [
        BattleResult(battle=1, outcome=Outcome.SOLID, winner="bikers"),
        BattleResult(battle=2, outcome=Outcome.CRUSHING, winner="bikers"),
    ]
    report = resolve_turn(game, state, ORDERS, results, SEEDS).report
    moves = contact_moves(
        ContactPlan.model_validate(plan.modules["contact"]),
        ContactReport.model_validate(report.modules["contact"]),
    )
    assert [(m.side, m.source, m.to, m.count) for m in moves] == [
        ("bikers", "bb", "ph", 4),  # the transport, leg by leg
        ("bikers", "ph", "hb", 4),
        ("party", "pb", "ph", 2),
        ("party", "pb", "hb", 2),
        ("party", "ph", "pb", 2),  # beaten by the zombies at the list
        ("bees", "hb", "ph", 3),  # beaten in battle 1 on Monday
    ]


WIPED = {
    "en": (
        "  A defender left with no armies by a draw defends no more: the next battle is not "
        "played, and its attacker stands in the sector unopposed and defends the battle after it.",
        "⛓ Battle 2 in hb Hive was not played: Пчёлы has no armies left after battle 1; Party "
        "stands there unopposed.",
    ),
    "ru": (
        "  Защищающаяся сторона, у которой после ничьей не осталось армий, больше не "
        "защищается: следующий бой не играется, атакующая сторона этого боя занимает сектор без "
        "боя и защищается в бою после него.",
        "⛓ Бой 2 в hb «Hive» не игрался: у стороны «Пчёлы» не осталось армий после боя 1; сторона "
        "«Party» заняла сектор без боя.",
    ),
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_chain_defender_wiped_out_by_a_draw_is_told_on_friday_and_monday(
    i18n: I18n, language: str
) -> None:
    game = contact_game()
    start = example_a_state(game)
    state = start.model_copy(update={"armies": {**start.armies, "bees": {"hb": 1}}})
    orders = {
        "bikers": ORDERS["bikers"],
        "party": SideOrders(moves=(Move(source="pb", to="hb", count=3),)),
    }
    plan = plan_battles(game, state, orders, SEEDS)
    contact_plan = ContactPlan.model_validate(plan.modules["contact"])
    results = [BattleResult(battle=1, outcome=Outcome.BLOODY_DRAW)]
    report = resolve_turn(game, state, orders, results, SEEDS).report
    contact_report = ContactReport.model_validate(report.modules["contact"])
    assert report.unplayed == (2,)
    with i18n.context(), i18n.use_locale(language):
        listed = describe_contact_plan(contact_plan, game.map, NAMES, language)
        summary = describe_contact_report(contact_report, game.map, NAMES, language)
        told = describe_unplayed(report, [item.battle for item in contact_report.unopposed])
        untold = describe_unplayed(report)
    chain_line, summary_line = WIPED[language]
    assert chain_line in listed
    assert summary_line in summary
    assert told == []
    assert len(untold) == 1
