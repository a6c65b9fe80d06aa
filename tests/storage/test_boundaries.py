"""Storage's boundaries: SQL only in ``storage/``, no rules logic in it, no clock in it."""

import ast
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
    return sorted((ROOT / folder).rglob("*.py"))


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


def test_storage_never_reads_the_clock() -> None:
    for path in _python_files("storage"):
        text = path.read_text(encoding="utf-8")
        for call in ("datetime.now", "datetime.utcnow", "time.time", "date.today"):
            assert call not in text, (path, call)


async def test_naive_times_are_refused(store: Store) -> None:
    message = NewOutboxMessage(
        campaign_id=None, chat_id=1, kind="notice", payload={}, dedup_key="naive"
    )
    with pytest.raises(ValueError, match="naive"):
        await store.enqueue(message, datetime(2026, 1, 1, 12, 0))
