"""``python -m rules`` with rule modules (MODULES.md A2.13): what the contract adds, and the
documents it refuses."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rules.cli import COMMANDS, RENDER, main

S9: dict[str, Any] = json.loads(
    (Path(__file__).parent / "cases" / "modules" / "siege" / "s9-example-a.json").read_text(
        encoding="utf-8"
    )
)["input"]


def run(command: str, document: Any) -> tuple[int, dict[str, Any] | None, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main([command], stdin=io.StringIO(json.dumps(document)), stdout=stdout, stderr=stderr)
    return code, json.loads(stdout.getvalue()) if stdout.getvalue() else None, stderr.getvalue()


def test_module_orders_without_the_module_are_refused_in_the_plain_contract() -> None:
    document = {
        "state": {"turn": 1, "armies": {"red": {"1": 2}, "blue": {"2": 2}}},
        "orders": {"red": {"modules": [{"module": "siege", "data": {"order": "steer"}}]}},
    }
    code, answer, _ = run("resolve", document)
    assert code == 0
    assert answer is not None
    assert set(answer) == {"rejected", "battles", "state", "captured", "winner", "log"}
    assert answer["rejected"] == [
        {
            "side": "red",
            "order": {"module": "siege", "data": {"order": "steer"}},
            "rule": "unknown_module",
            "message": "rule module siege is not enabled",
        }
    ]
    assert set(answer["state"]) == {"turn", "armies"}


def test_the_answers_grow_only_with_a_module_enabled() -> None:
    code, answer, _ = run("battles", S9)
    assert code == 0
    assert answer is not None
    assert list(answer) == ["rejected", "battles", "rolls", "modules"]
    code, answer, _ = run("resolve", S9)
    assert answer is not None
    assert list(answer) == [
        "rejected",
        "battles",
        "state",
        "captured",
        "winner",
        "log",
        "late_rejected",
        "unplayed",
        "rolls",
        "modules",
    ]
    assert list(answer["state"]) == ["turn", "armies", "modules"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"ruleset": {"modules": ["siege"], "module_settings": {"siege": {"die": 1}}}},
            "ruleset.module_settings.siege: die:",
        ),
        (
            {
                "ruleset": {
                    "modules": ["siege"],
                    "module_settings": {"siege": {"weather_control": ["9"]}},
                }
            },
            "map: siege: weather_control names sector 9",
        ),
        (
            {"ruleset": {"modules": ["siege", "patrol"]}},
            "unknown rule module 'patrol' (built-in: siege, contact, watch)",
        ),
        ({"ruleset": {"module_settings": {"siege": {}}}}, "not enabled in modules"),
        ({"seeds": {"roll": ""}}, "seeds.roll"),
        ({"results": [{"battle": 1, "outcome": "draw"}]}, "battle 1: unknown_battle"),
    ],
)
def test_bad_module_documents_exit_2(change: dict[str, Any], expected: str) -> None:
    document = copy.deepcopy(S9) | change
    code, answer, err = run("resolve", document)
    assert (code, answer) == (2, None)
    assert expected in err


def test_a_result_carrying_data_siege_does_not_take_is_refused() -> None:
    document = json.loads(
        (Path(__file__).parent / "cases" / "modules" / "siege" / "s10-example-b.json").read_text(
            encoding="utf-8"
        )
    )["input"]
    document["results"][0]["modules"] = {"siege": {"note": "x"}}
    code, _, err = run("resolve", document)
    assert code == 2
    assert "battle 1: module_result (siege: siege takes no data with a battle result)" in err


def test_late_orders_are_read_per_side() -> None:
    document = copy.deepcopy(S9)
    document["orders"]["blue"]["late"] = [
        {"module": "siege", "data": {"order": "play_card", "token": "O1", "window": "after"}}
    ]
    code, answer, _ = run("resolve", document)
    assert code == 0
    assert answer is not None
    assert [(r["side"], r["rule"], r["params"]["rule"]) for r in answer["late_rejected"]] == [
        ("blue", "module_rule", "not_your_card")
    ]


def test_usage_names_verify_rolls() -> None:
    stderr = io.StringIO()
    assert main(["dance"], stdin=io.StringIO(""), stdout=io.StringIO(), stderr=stderr) == 2
    assert "verify-rolls" in stderr.getvalue()


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("name", "module"),
    [("siege-turn.json", "siege"), ("contact-turn.json", "contact"), ("watch-turn.json", "watch")],
)
def test_each_module_has_an_example_turn_that_resolve_answers(name: str, module: str) -> None:
    document = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    assert document["ruleset"]["modules"] == [module]
    code, answer, error = run("resolve", document)
    assert (code, error) == (0, "")
    assert answer is not None
    assert answer["rejected"] == []
    assert module in answer["state"]["modules"]
    assert module in answer["modules"]


def test_help_lists_every_subcommand_and_render_answers_through_main() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "rules", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=EXAMPLES.parent,
    ).stdout
    commands = shown.split("commands:", 1)[1]
    for name in (*COMMANDS, RENDER):
        assert f"\n  {name} " in commands
    picture = io.BytesIO()
    stdout = io.TextIOWrapper(picture)
    stdin = io.StringIO((EXAMPLES / "siege-turn.json").read_text(encoding="utf-8"))
    assert main(["render"], stdin=stdin, stdout=stdout, stderr=io.StringIO()) == 0
    stdout.flush()
    assert picture.getvalue().startswith(b"\x89PNG\r\n\x1a\n")
