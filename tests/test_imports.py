"""Modules that must import first, in a fresh interpreter: a circular import shows only when
its first module is the one imported (``import bot.texts.rules`` failed so, issue 35), and in
the suite something else has always been imported before."""

import subprocess
import sys

import pytest

FIRST = ("bot.texts.rules",)
"""Modules that one handler imports, and the handlers import them back (each costs a fresh
interpreter: aiogram's types take seconds to import)."""


@pytest.mark.parametrize("module", FIRST)
def test_a_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
