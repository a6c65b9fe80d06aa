"""The rules core stays pure: it never imports the bot, storage, Telegram, a clock or a source
of randomness (it only draws from seeds it is given)."""

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "rules"
FORBIDDEN = frozenset(
    {
        "bot",
        "storage",
        "aiogram",
        "aiosqlite",
        "sqlite3",
        "apscheduler",
        "random",
        "secrets",
        "time",
    }
)


def imported_top_modules(source: str) -> set[str]:
    """Top-level names of the absolute imports in ``source``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", sorted(RULES.rglob("*.py")), ids=lambda p: p.name)
def test_rules_module_imports_nothing_impure(path: Path) -> None:
    assert imported_top_modules(path.read_text(encoding="utf-8")).isdisjoint(FORBIDDEN)


def test_import_scan_finds_nested_and_from_imports() -> None:
    source = "import os.path\nfrom storage.db import x\ndef f():\n    import bot\n"
    assert imported_top_modules(source) == {"os", "storage", "bot"}
