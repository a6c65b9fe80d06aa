"""``python -m rules battles|resolve`` (RULES.md Appendix A): answers and exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

from rules.cli import main

ROOT = Path(__file__).resolve().parents[2]
WORKED_EXAMPLE = ROOT / "examples" / "worked-example.json"


def worked_example() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(WORKED_EXAMPLE.read_text(encoding="utf-8"))
    return data


def run(command: str, text: str) -> tuple[int, str, str]:
    stdout, stderr = StringIO(), StringIO()
    status = main([command], stdin=StringIO(text), stdout=stdout, stderr=stderr)
    return status, stdout.getvalue(), stderr.getvalue()


def test_resolve_the_worked_example() -> None:
    status, out, err = run("resolve", WORKED_EXAMPLE.read_text(encoding="utf-8"))
    assert (status, err) == (0, "")
    answer = json.loads(out)
    assert set(answer) == {"rejected", "battles", "state", "captured", "winner", "log"}
    assert answer["state"] == {
        "turn": 4,
        "armies": {"red": {"1": 6, "2": 2, "4": 5}, "blue": {"2": 3, "3": 4, "5": 3}},
    }
    assert list(answer["state"]["armies"]) == ["red", "blue"]
    assert list(answer["state"]["armies"]["blue"]) == ["2", "3", "5"]
    assert answer["captured"] == {"red": ["1", "4"], "blue": []}
    assert answer["winner"] is None
    [rejected] = answer["rejected"]
    message = rejected.pop("message")
    assert rejected == {
        "side": "blue",
        "order": {"sector": "5", "target": "red"},
        "rule": "attack_without_opponent",
    }
    assert isinstance(message, str)
    assert "5" in message
    assert len(answer["log"]) == 6


def test_resolve_lists_the_worked_example_battles() -> None:
    status, out, _ = run("resolve", WORKED_EXAMPLE.read_text(encoding="utf-8"))
    assert status == 0
    battles = json.loads(out)["battles"]
    assert [(b["id"], b["sector"], b["attacker"], b["defender"]) for b in battles] == [
        (1, "1", "red", "blue"),
        (2, "1", "red", "blue"),
    ]
    assert battles[0] == {
        "id": 1,
        "sector": "1",
        "attacker": "red",
        "defender": "blue",
        "armies": {"red": 4, "blue": 3},
        "fortified": "blue",
        "foc": {
            "red": {
                "hq": 2,
                "troops": [2, 6],
                "elite": 2,
                "fast_attack": 2,
                "heavy_support": 2,
            },
            "blue": {
                "hq": 1,
                "troops": [2, 6],
                "elite": 2,
                "fast_attack": 2,
                "heavy_support": 2,
            },
        },
    }


def test_battles_answer_has_no_resolution() -> None:
    status, out, err = run("battles", WORKED_EXAMPLE.read_text(encoding="utf-8"))
    assert (status, err) == (0, "")
    answer = json.loads(out)
    assert set(answer) == {"rejected", "battles"}
    assert len(answer["battles"]) == 2
    assert [r["rule"] for r in answer["rejected"]] == ["attack_without_opponent"]


def test_battles_ignores_results() -> None:
    doc = worked_example()
    doc["results"] = [{"battle": 9, "outcome": "nonsense"}]
    status, _, err = run("battles", json.dumps(doc))
    assert (status, err) == (0, "")


def test_one_army_row_carries_the_cap() -> None:
    doc = {
        "state": {"turn": 1, "armies": {"red": {"1": 1}, "blue": {"1": 5}}},
        "orders": {"red": {"attacks": [{"sector": "1", "target": "blue"}]}},
    }
    status, out, _ = run("battles", json.dumps(doc))
    assert status == 0
    [battle] = json.loads(out)["battles"]
    assert battle["foc"]["red"] == {
        "hq": 1,
        "troops": [2, 6],
        "elite": 1,
        "fast_attack": 1,
        "heavy_support": 1,
        "elite_fa_hs_total": 1,
    }
    assert "elite_fa_hs_total" not in battle["foc"]["blue"]


def test_inline_map_and_ruleset_overrides() -> None:
    doc = {
        "map": {
            "id": "duo",
            "name": "Duo",
            "sectors": [
                {"id": "n", "name": "North", "neighbours": ["s"], "x": 0.5, "y": 0.2},
                {"id": "s", "name": "South", "neighbours": ["n"], "x": 0.5, "y": 0.8},
            ],
        },
        "ruleset": {"capture_min_armies": 1, "sectors_to_win": 1},
        "state": {"turn": 2, "armies": {"red": {"n": 2}, "blue": {"s": 2}}},
    }
    status, out, err = run("resolve", json.dumps(doc))
    assert (status, err) == (0, "")
    answer = json.loads(out)
    assert answer["captured"] == {"red": ["n"], "blue": ["s"]}
    assert answer["state"]["turn"] == 3
    assert answer["state"]["armies"] == {"red": {"n": 4}, "blue": {"s": 4}}
    assert answer["winner"] is None


@pytest.mark.parametrize(
    ("command", "document", "expected"),
    [
        pytest.param("resolve", "this is not json", "Invalid JSON", id="not-json"),
        pytest.param("battles", "", "malformed turn document", id="empty"),
        pytest.param("resolve", "[1, 2]", "malformed turn document", id="not-an-object"),
        pytest.param(
            "resolve",
            json.dumps({"state": {"turn": 1, "armies": {}}, "weather": "storm"}),
            "weather: Extra inputs are not permitted",
            id="unknown-key",
        ),
        pytest.param(
            "resolve", json.dumps({"map": "planet-5"}), "state: Field required", id="missing-state"
        ),
        pytest.param(
            "resolve",
            json.dumps(
                {
                    "state": {"turn": 1, "armies": {"red": {"1": 2}}},
                    "orders": {"red": {"moves": [{"from": "1", "to": "2", "count": "1"}]}},
                }
            ),
            "orders.red.moves.0.count",
            id="move-count-as-string",
        ),
        pytest.param(
            "battles",
            json.dumps({"map": "planet-6", "state": {"turn": 1, "armies": {}}}),
            "unknown built-in map 'planet-6'",
            id="unknown-map",
        ),
        pytest.param(
            "resolve",
            json.dumps(
                {
                    "map": {
                        "id": "bad",
                        "name": "Bad",
                        "sectors": [
                            {"id": "1", "name": "One", "neighbours": ["2"], "x": 0.5, "y": 0.5}
                        ],
                    },
                    "state": {"turn": 1, "armies": {}},
                }
            ),
            "map: sector 1 names neighbour 2, which is not on the map",
            id="bad-inline-map",
        ),
        pytest.param(
            "resolve",
            json.dumps({"ruleset": {"armies_per_attack": 0}, "state": {"turn": 1, "armies": {}}}),
            "ruleset: armies_per_attack",
            id="bad-ruleset-value",
        ),
        pytest.param(
            "resolve",
            json.dumps({"ruleset": {"dice": 6}, "state": {"turn": 1, "armies": {}}}),
            "ruleset: dice",
            id="bad-ruleset-key",
        ),
        pytest.param(
            "resolve",
            json.dumps({"ruleset": {"modules": ["supply"]}, "state": {"turn": 1, "armies": {}}}),
            "ruleset.modules",
            id="ruleset-with-modules",
        ),
        pytest.param(
            "resolve",
            json.dumps({"state": {"turn": 1, "armies": {"red": {"9": 3}}}}),
            "sector '9' is not on the map",
            id="state-sector-off-map",
        ),
        pytest.param(
            "resolve",
            json.dumps({"state": {"turn": 1, "armies": {"red": {"1": -3}}}}),
            "negative army count",
            id="negative-armies",
        ),
        pytest.param(
            "resolve",
            json.dumps({"state": {"turn": 1, "armies": {"red": {"1": "3"}}}}),
            "state.armies.red.1",
            id="count-as-string",
        ),
        pytest.param(
            "resolve",
            json.dumps(
                {
                    "state": {"turn": 1, "armies": {}},
                    "results": [{"battle": 1, "outcome": "solid"}],
                }
            ),
            "results[0]: Value error, outcome solid needs a winner",
            id="victory-without-winner",
        ),
        pytest.param(
            "resolve",
            json.dumps(
                {
                    "state": {"turn": 1, "armies": {}},
                    "results": [{"battle": 1, "outcome": "draw"}],
                }
            ),
            "unknown_battle",
            id="result-for-no-battle",
        ),
    ],
)
def test_malformed_documents_exit_2(command: str, document: str, expected: str) -> None:
    status, out, err = run(command, document)
    assert status == 2
    assert out == ""
    assert err.startswith(f"python -m rules {command}: malformed turn document: ")
    assert expected in err
    assert err.count("\n") == 1


def test_unknown_command_is_a_usage_error_on_the_given_stderr() -> None:
    stderr, stdout = StringIO(), StringIO()
    status = main(["adjudicate"], stdin=StringIO("{}"), stdout=stdout, stderr=stderr)
    assert (status, stdout.getvalue()) == (2, "")
    assert stderr.getvalue().startswith("usage: python -m rules")
    assert "invalid choice: 'adjudicate'" in stderr.getvalue()


def test_json_syntax_error_names_no_empty_location() -> None:
    status, _, err = run("resolve", '{"state":')
    assert status == 2
    assert "malformed turn document: Invalid JSON" in err


def test_the_command_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rules", "resolve"],
        input=WORKED_EXAMPLE.read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    answer = json.loads(done.stdout)
    assert answer["state"]["armies"] == {
        "red": {"1": 6, "2": 2, "4": 5},
        "blue": {"2": 3, "3": 4, "5": 3},
    }


def test_the_command_exits_2_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rules", "battles"],
        input="{",
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "malformed turn document" in done.stderr
