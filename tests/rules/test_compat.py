"""With no rule module enabled, ``python -m rules`` answers exactly as it did before modules.

``compat_answers.json`` holds the exit status, standard output and standard error of both
commands (``battles`` and ``resolve``) on the input of every case file in ``cases/``, made by the
code before the extension point existed (its commit is named in the file). Each answer must
come back byte for byte. The file is never regenerated: a difference is a broken contract.
"""

import io
import json
from pathlib import Path
from typing import Any

import pytest

from rules import (
    Attack,
    BattleResult,
    CampaignState,
    Game,
    LegalOrders,
    ModuleOrder,
    Outcome,
    Ruleset,
    SideOrders,
    builtin_map,
    legal_orders,
    resolve_turn,
)
from rules.cli import main

HERE = Path(__file__).parent
ANSWERS: dict[str, Any] = json.loads((HERE / "compat_answers.json").read_text(encoding="utf-8"))[
    "answers"
]
CASE_FILES = sorted((HERE / "cases").glob("*.json"))


def test_every_top_level_case_has_its_recorded_answers() -> None:
    recorded = {key.rsplit(" ", 1)[0] for key in ANSWERS}
    assert recorded == {path.stem for path in CASE_FILES}


@pytest.mark.parametrize("key", sorted(ANSWERS))
def test_answer_is_byte_identical(key: str) -> None:
    stem, command = key.rsplit(" ", 1)
    case = json.loads((HERE / "cases" / f"{stem}.json").read_text(encoding="utf-8"))
    document = case["input"]
    text = document if isinstance(document, str) else json.dumps(document)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main([command], stdin=io.StringIO(text), stdout=stdout, stderr=stderr)
    want = ANSWERS[key]
    assert (code, stdout.getvalue(), stderr.getvalue()) == (
        want["exit"],
        want["stdout"],
        want["stderr"],
    )


def test_models_dump_as_before_without_modules() -> None:
    """Storage keeps these models as JSON: the fields added for modules are left out of a dump
    while they are at their defaults, so stored and exported data keep their shape."""
    game = Game.create(builtin_map("planet-5"))
    state = CampaignState(turn=1, armies={"red": {"1": 4}, "blue": {"1": 3}})
    orders = {"red": SideOrders(attacks=(Attack(sector="1", target="blue"),))}
    result = BattleResult(battle=1, outcome=Outcome.SOLID, winner="red")
    report = resolve_turn(game, state, orders, [result]).report
    assert set(report.model_dump()) == {
        "turn", "rejected", "battles", "results", "unreported", "casualties", "arrivals",
        "captured", "gains", "reinforcements", "eliminated", "winner", "victory", "game_over",
        "log",
    }  # fmt: skip
    assert set(report.battles[0].model_dump()) == {
        "id", "sector", "attacker", "defender", "armies", "fortified",
        "fortified_battles_in_sector", "foc", "points",
    }  # fmt: skip
    assert result.model_dump(mode="json") == {"battle": 1, "outcome": "solid", "winner": "red"}
    planet = builtin_map("planet-5").model_dump()
    assert "features" not in planet
    assert all("tags" not in sector for sector in planet["sectors"])
    module_order = ModuleOrder(module="kill-test", data={"n": 1})
    assert module_order.model_dump() == {"kind": "module", "module": "kill-test", "data": {"n": 1}}
    assert "module_settings" not in Ruleset().model_dump()
    listing: LegalOrders = legal_orders(game, state, "red")
    assert "modules" not in listing.model_dump()
