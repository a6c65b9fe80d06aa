"""Storage's boundaries: SQL only in ``storage/``, no rules logic in it, no clock in it (a lint
rule, ruff's banned-api, for storage and the rules core alike)."""

import ast
import json
import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from rules.modules import BUILTIN_MODULES
from storage import NewOutboxMessage, Store

ROOT = Path(__file__).parents[2]
# What storage may take from the rules core, by name: an allowlist, so a new import (a
# module's logic, a resolver) fails here until someone decides it belongs in storage.
STORAGE_FROM_RULES = {
    # the models storage keeps and gives back
    "rules.Battle",
    "rules.BattleResult",
    "rules.BattleSides",
    "rules.BattleStatus",
    "rules.CampaignMap",
    "rules.CampaignState",
    "rules.ModuleOrder",
    "rules.Rejection",
    "rules.Roll",
    "rules.SideOrders",
    "rules.TurnReport",
    "rules.TurnResolution",
    "rules.TurnSeeds",
    "rules.table.ScoreMargins",
    # pure views of stored rows: a result as fought, a battle's current sides (C6), the
    # results that count, the next turn's commitment read from a stored state
    "rules.as_fought",
    "rules.battle_sides",
    "rules.counted_results",
    "rules.commitment",
    # the registry, read when an export is written (``rules.modules.BUILTIN_MODULES``, so a
    # module registered later counts): the export shows each module's state as anyone may see
    # it (its ``public_state``: watch removes every hand, W4), never a module's own code
    "rules.modules",
}
# The packages storage may import at all, beside the standard library.
STORAGE_PACKAGES = {"storage", "rules", "aiosqlite", "asyncpg", "pydantic"}


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


def _from_imports(path: Path) -> set[str]:
    """``module.name`` for every ``from module import name`` (and ``module`` for ``import``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_storage_imports_only_what_it_is_allowed() -> None:
    for path in _python_files("storage"):
        imported = _from_imports(path)
        packages = {name.split(".")[0] for name in imported} - set(sys.stdlib_module_names)
        assert packages <= STORAGE_PACKAGES, (path, packages - STORAGE_PACKAGES)
        from_rules = {name for name in imported if name.split(".")[0] == "rules"}
        assert from_rules <= STORAGE_FROM_RULES, (path, from_rules - STORAGE_FROM_RULES)


def test_the_allowlist_refuses_what_is_not_on_it(tmp_path: Path) -> None:
    """A storage module taking a resolver or another module's view is refused (the check is
    not vacuous)."""
    module = tmp_path / "leaky.py"
    module.write_text(
        "from rules import resolve_turn\nfrom rules.modules.contact import public_view\n"
        "import aiogram\n",
        encoding="utf-8",
    )
    imported = _from_imports(module)
    assert {n for n in imported if n.startswith("rules")} - STORAGE_FROM_RULES == {
        "rules.resolve_turn",
        "rules.modules.contact.public_view",
    }
    assert {n.split(".")[0] for n in imported} - STORAGE_PACKAGES == {"aiogram"}


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
    assert _banned("bot/runtime/clock.py") == []
    assert _banned("bench/monday_bench.py") == []


async def test_naive_times_are_refused(store: Store) -> None:
    message = NewOutboxMessage(
        campaign_id=None, chat_id=1, kind="notice", payload={}, dedup_key="naive"
    )
    with pytest.raises(ValueError, match="naive"):
        await store.enqueue(message, datetime(2026, 1, 1, 12, 0))


MODULE_NAMES = {"siege", "contact", "watch", "supply"}
"""The rule modules' names as words (the built-in three and the tests' "supply")."""
# Where storage may name a module beside its own file: the registry of the modules' storage
# (as ``bot/modules/__init__.py`` and ``rules/modules/__init__.py`` are the others').
STORAGE_NAMING_MODULES = {"storage/modules/__init__.py"}


def _named_modules(path: Path) -> set[str]:
    words = set(re.findall(r"[a-z]+", path.read_text(encoding="utf-8").lower()))
    return words & MODULE_NAMES


def test_a_modules_records_live_in_its_own_file() -> None:
    files = {path.stem for path in (ROOT / "storage" / "modules").glob("*.py")}
    owned = files - {"__init__", "shared"}
    assert owned, "storage/modules/ holds the modules' own records"
    assert owned <= {module.name for module in BUILTIN_MODULES}
    for path in _python_files("storage"):
        where = path.relative_to(ROOT).as_posix()
        named = _named_modules(path)
        if where in STORAGE_NAMING_MODULES:
            continue
        if path.parent.name == "modules" and path.stem in owned:
            assert named <= {path.stem}, (where, named)
        else:
            assert not named, (where, named)
