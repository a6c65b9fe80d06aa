"""The list of the bot's tests that run on PostgreSQL too names real modules that use a store
(a name left behind by a rename would quietly take a module off PostgreSQL)."""

from pathlib import Path

from tests.bot.conftest import ON_POSTGRESQL

HERE = Path(__file__).parent


def test_every_module_on_postgresql_exists_and_uses_a_store() -> None:
    for name in sorted(ON_POSTGRESQL):
        source = (HERE / f"{name}.py").read_text(encoding="utf-8")
        assert "store" in source or "telegram" in source, name
