"""A chain battle as fought (MODULES.md C6): who may still defend it while it waits, a result
given against a defender the battle no longer has, the fortified advantage of a new defender,
and the week's map and the report's battles with the real defender."""

from __future__ import annotations

from rules import (
    Battle,
    BattleResult,
    BattleStatus,
    Outcome,
    Ruleset,
    as_fought,
    battle_sides,
    counted_results,
)
from rules.render import week_of
from rules.resolution import TurnReport


def _chain(fortified: str | None = "blue") -> list[Battle]:
    """Sector 3: blue (fortified) defends against red, then green, then yellow; each winner
    (or drawn defender) defends the next battle."""
    counts = {"blue": 6, "red": 4, "green": 4, "yellow": 4}
    return [
        Battle(
            id=number,
            sector="3",
            attacker=attacker,
            defender="blue",
            armies=counts,
            fortified=fortified,
            fortified_battles_in_sector=3 if fortified else 0,
            foc={},
            points=1000,
            module="contact",
            kind="chain",
            defender_from=number - 1 if number > 1 else None,
        )
        for number, attacker in enumerate(("red", "green", "yellow"), start=1)
    ]


def _won(battle: int, winner: str) -> BattleResult:
    return BattleResult(battle=battle, outcome=Outcome.SOLID, winner=winner)


def test_a_waiting_battle_names_every_side_that_may_still_defend_it() -> None:
    sides = battle_sides(_chain(), {})
    assert (sides[2].defender, sides[2].contenders) == (None, ("blue", "red"))
    assert sides[2].concerns() == ("green", "blue", "red")
    assert sides[3].contenders == ("blue", "red", "green")
    after_one = battle_sides(_chain(), {1: _won(1, "red")})
    assert (after_one[2].defender, after_one[2].contenders) == ("red", ())
    assert after_one[3].contenders == ("red", "green")  # blue lost battle 1: out of the chain


def test_a_result_given_against_another_defender_does_not_count() -> None:
    battles = _chain()
    given = {1: _won(1, "blue"), 2: _won(2, "green")}
    # Battle 2 was reported when red defended it; battle 1 now says blue won it.
    stale = battle_sides(battles, given, against={1: "blue", 2: "red"})
    assert (stale[2].defender, stale[2].stale) == ("blue", True)
    assert stale[3].status is BattleStatus.WAITING  # battle 2 has no result that counts
    assert counted_results(stale, given) == {1: given[1]}
    final = battle_sides(battles, given, against={1: "blue", 2: "red"}, final=True)
    assert (final[3].status, final[3].defender) == (BattleStatus.PLAYABLE, "blue")
    fresh = battle_sides(battles, given, against={1: "blue", 2: "blue"})
    assert (fresh[2].stale, fresh[3].defender) == (False, "green")
    assert counted_results(fresh, given) == given
    unknown = battle_sides(battles, given)  # results given before the defender was recorded
    assert counted_results(unknown, given) == given


def test_a_new_defender_has_no_fortified_advantage_of_the_first() -> None:
    battles = _chain()
    sides = battle_sides(battles, {1: _won(1, "red")})
    second = as_fought(battles[1], sides[2])
    assert (second.defender, second.fortified, second.fortified_battles_in_sector) == (
        "red",
        None,
        0,
    )
    kept = as_fought(battles[1], battle_sides(battles, {1: _won(1, "blue")})[2])
    assert (kept.defender, kept.fortified) == ("blue", "blue")
    waiting = as_fought(battles[1], battle_sides(battles, {})[2])
    assert waiting == battles[1]


def _report(battles: list[Battle], results: tuple[BattleResult, ...]) -> TurnReport:
    return TurnReport(
        turn=1,
        rejected=(),
        battles=tuple(battles[:2]),
        results=results,
        unreported=(),
        casualties=(),
        arrivals=(),
        captured={},
        gains=(),
        reinforcements=(),
        eliminated=(),
        winner=None,
        victory=None,
        game_over=False,
        log=(),
    )


def test_the_week_and_the_report_show_the_real_defender_of_a_chain_battle() -> None:
    battles = _chain()
    report = _report(battles, (_won(1, "red"), BattleResult(battle=2, outcome=Outcome.DRAW)))
    assert [(b.attacker, b.defender) for b in report.fought_battles()] == [
        ("red", "blue"),
        ("green", "red"),
    ]
    losses = Ruleset().losses.model_copy(update={"draw": 1})
    marks = {mark.id: mark for mark in week_of(report, losses, None).battles}
    assert (marks[2].attacker, marks[2].defender) == ("green", "red")
    assert marks[2].losses == {"green": 1, "red": 1}
