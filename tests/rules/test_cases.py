"""Adjudicator case files: each ``cases/**/*.json`` runs ``python -m rules`` on one turn document.

A case has ``description``, ``command`` (``resolve``, ``battles`` or ``start``), ``input`` (the
turn document, or a string sent as it is, for broken JSON) and either ``expected`` (keys the
answer must have, with these values) or ``expected_exit`` with ``expected_error`` (a part of the
stderr message).
A ``rejected`` entry's ``message`` is checked only where the case gives one. ``state`` is compared
in order too: sides in input order, sectors in map order.

Cases of rule modules live in ``cases/modules/<name>/``; their answers are exact: the answer has
no key the case does not give.
"""

import io
import json
from pathlib import Path
from typing import Any

import pytest

from rules.cli import main

CASES = Path(__file__).parent / "cases"
CASE_FILES = sorted(CASES.rglob("*.json"))
REQUIRED = {"description", "command", "input"}
OUTCOMES = ({"expected"}, {"expected_exit", "expected_error"})
ANSWER_KEYS = {
    "battles": {"rejected", "battles"},
    "resolve": {"rejected", "battles", "state", "captured", "winner"},
    "start": {"state", "rolls"},
}


def load_case(path: Path) -> dict[str, Any]:
    """The case in ``path``; fails the test if its top-level keys are not a known shape."""
    case: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if set(case) - REQUIRED not in OUTCOMES or not set(case) >= REQUIRED:
        pytest.fail(f"{path.name}: keys {sorted(case)}: need {sorted(REQUIRED)} plus {OUTCOMES}")
    return case


def run(command: str, document: object) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``python -m rules <command>`` on ``document``."""
    text = document if isinstance(document, str) else json.dumps(document)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main([command], stdin=io.StringIO(text), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def ordered(value: Any) -> Any:
    """``value`` with every object turned into a list of pairs, so key order counts."""
    if isinstance(value, dict):
        return [(key, ordered(item)) for key, item in value.items()]
    return value


def comparable(key: str, expected: Any, actual: Any) -> tuple[Any, Any]:
    """The two values of answer key ``key`` as the case means them to be compared."""
    if key == "state":
        return ordered(expected), ordered(actual)
    if key == "rejected" and isinstance(actual, list) and len(actual) == len(expected):
        actual = [
            {k: v for k, v in got.items() if k != "message" or "message" in want}
            for want, got in zip(expected, actual, strict=True)
        ]
    return expected, actual


def case_id(path: Path) -> str:
    """The case's path under ``cases/`` without ``.json``."""
    return path.relative_to(CASES).with_suffix("").as_posix()


@pytest.mark.parametrize("path", CASE_FILES, ids=case_id)
def test_case(path: Path) -> None:
    case = load_case(path)
    code, out, err = run(case["command"], case["input"])
    if "expected_exit" in case:
        assert (code, out) == (case["expected_exit"], "")
        assert case["expected_error"] in err
        return
    assert code == 0, err
    answer = json.loads(out)
    assert case["expected"], f"{path.name} says nothing about the answer it expects"
    if path.relative_to(CASES).parts[0] == "modules":
        assert set(answer) == set(case["expected"]), "a module case gives the whole answer"
    for key, want in case["expected"].items():
        assert key in answer, f"the answer has no {key!r}"
        expected, actual = comparable(key, want, answer[key])
        assert actual == expected, key


def test_every_case_file_loads() -> None:
    assert CASE_FILES, f"no case files in {CASES}"
    for path in CASE_FILES:
        case = load_case(path)
        assert case["command"] in ANSWER_KEYS, path.name
        if "expected" in case:
            assert ANSWER_KEYS[case["command"]] <= set(case["expected"]), path.name
        assert isinstance(case["description"], str), path.name
        assert case["description"].strip(), path.name
