"""Storage's boundaries: SQL only in ``storage/``, no rules logic in it, no clock in it (a lint
rule, ruff's banned-api, for storage and the rules core alike)."""

import ast
import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from storage import NewOutboxMessage, Store

ROOT = Path(__file__).parents[2]
RULES_LOGIC = {
    "resolve_turn",
    "plan_battles",
    "accept_orders",
    "enter_order",
    "validate_order",
    "legal_orders",
    "check_results",
    "deployed_state",
    "default_deployment",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _python_files(folder: str) -> list[Path]:
    found = sorted((ROOT / folder).rglob("*.py"))
    assert len(found) > 3, f"{folder}/ holds the package's modules"
    return found


def test_only_storage_talks_to_sqlite() -> None:
    for folder in ("bot", "rules"):
        for path in _python_files(folder):
            found = {name.split(".")[0] for name in _imports(path)}
            assert not found & {"sqlite3", "aiosqlite"}, path


def test_storage_uses_rules_models_but_no_rules_logic() -> None:
    for path in _python_files("storage"):
        imported = {name.rsplit(".", 1)[-1] for name in _imports(path) if name.startswith("rules")}
        assert not imported & RULES_LOGIC, path
        assert not {name for name in _imports(path) if name.startswith(("bot", "aiogram"))}, path


READS_THE_CLOCK = """\
import datetime as dt
import time
from datetime import date, datetime
from time import monotonic

stamps = (datetime.now(), dt.datetime.utcnow(), date.today(), time.time(), monotonic())
"""
"""Five ways to read the wall clock, spelled as code spells them: imported, aliased, bare."""


def _banned(path: str) -> list[str]:
    """What ruff's banned-api (TID251, configured in ``pyproject.toml``) refuses in
    :data:`READS_THE_CLOCK` when that code is at ``path``: the banned names, in order."""
    ruff = [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "TID251"]
    checked = subprocess.run(
        [*ruff, "--output-format", "json", "--stdin-filename", path, "-"],
        input=READS_THE_CLOCK,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode in (0, 1), checked.stderr
    return [finding["message"].split("`")[1] for finding in json.loads(checked.stdout)]


@pytest.mark.parametrize("folder", ["storage", "rules"])
def test_the_lint_refuses_every_clock_read_in_storage_and_rules(folder: str) -> None:
    # ``./test`` runs ruff over the tree, so storage/ and rules/ hold none of these.
    every_read = [
        "time.monotonic",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.date.today",
        "time.time",
    ]
    assert _banned(f"{folder}/anything.py") == every_read
    assert _banned(f"{folder}/deep/inside/module.py") == every_read


def test_the_rest_of_the_code_may_read_the_clock() -> None:
    assert _banned("bot/clock.py") == []
    assert _banned("bench/monday_bench.py") == []


async def test_naive_times_are_refused(store: Store) -> None:
    message = NewOutboxMessage(
        campaign_id=None, chat_id=1, kind="notice", payload={}, dedup_key="naive"
    )
    with pytest.raises(ValueError, match="naive"):
        await store.enqueue(message, datetime(2026, 1, 1, 12, 0))
