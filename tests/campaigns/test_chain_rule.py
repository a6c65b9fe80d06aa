"""The chain rule of «who may report» (MODULES.md C6) read on its own: it must catch a
``battle_sides`` that gives a chain's battle 2 to its planned defender after battle 1's
attacker won (the defect of ``scratch/fuzzplayer-defect-chain``, which the check missed while
it asked ``battle_sides`` alone), and stay silent on the real one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from rules import Battle, BattleResult, Outcome, battle_sides
from tests.campaigns import invariants
from tests.campaigns.invariants import Broken, ChainFigures, Checks, _sides_now

KW: dict[str, Any] = {"sector": "3", "points": 1000, "foc": {}, "fortified": None}
FIRST = Battle(id=1, attacker="red", defender="blue", armies={"red": 4, "blue": 4}, **KW)
SECOND = Battle(
    id=2,
    attacker="green",
    defender="blue",
    armies={"green": 4, "red": 4, "blue": 4},
    defender_from=1,
    **KW,
)


@dataclass
class Reported:
    """Battle 1's report as the store gives it: red (the attacker) won, against blue."""

    result: BattleResult

    def effective(self) -> BattleResult:
        return self.result

    def effective_against(self) -> str:
        return "blue"


def _checks() -> Checks:
    checks = Checks.__new__(Checks)
    checks.count = 0
    checks.chain = ChainFigures()
    checks._turn = 1
    clock = SimpleNamespace(now=lambda: datetime(2026, 11, 6, tzinfo=UTC))
    checks.world = SimpleNamespace(step=1, clock=clock)  # type: ignore[assignment]
    return checks


def _attacker_won() -> dict[int, Any]:
    winning = next(outcome for outcome in Outcome if outcome.has_winner)
    return {1: Reported(BattleResult(battle=1, outcome=winning, winner="red"))}


def test_the_chain_rule_holds_for_the_rules_battle_sides() -> None:
    reports = _attacker_won()
    sides = _sides_now([FIRST, SECOND], reports)
    checks = _checks()
    checks._chain_rule([FIRST, SECOND], reports, sides)
    assert sides[2].defender == "red"
    assert checks.count == 1
    assert checks.chain.as_dict() == {
        "chains": 1,
        "chain battles checked": 1,
        "handed to the winner": 1,
    }


def test_the_chain_rule_catches_a_battle_sides_that_keeps_the_planned_defender(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = battle_sides

    def planned_defender(battles: Any, results: Any, **kwargs: Any) -> Any:
        found = real(battles, results, **kwargs)
        return {**found, 2: found[2].model_copy(update={"defender": "blue"})}

    monkeypatch.setattr(invariants, "battle_sides", planned_defender)
    reports = _attacker_won()
    sides = _sides_now([FIRST, SECOND], reports)
    with pytest.raises(Broken, match="battle 2 is defended by red"):
        _checks()._chain_rule([FIRST, SECOND], reports, sides)
