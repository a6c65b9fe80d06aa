"""The build: setuptools reads everything from pyproject.toml; this adds one step to
``build_py``, the gettext catalogs compiled into the package (:mod:`bot.runtime.catalogs`), so a
wheel (and so the image, and any ``pip install``) carries each ``.mo`` beside its ``.po`` and the
bot never writes into its installed package. ``pip install -e .`` compiles them in the checkout."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _catalogs() -> ModuleType:
    """``bot/runtime/catalogs.py`` alone (Babel is installed for the build; the bot's other
    dependencies are not)."""
    spec = importlib.util.spec_from_file_location(
        "strategium_catalogs", HERE / "bot/runtime/catalogs.py"
    )
    if spec is None or spec.loader is None:
        raise RuntimeError("bot/runtime/catalogs.py cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithCatalogs(build_py):
    """``build_py`` that also writes ``bot/locales/*/LC_MESSAGES/strategium.mo``."""

    def run(self) -> None:
        super().run()
        # An editable install builds nothing: the checkout is the package.
        package = HERE / "bot" if self.editable_mode else Path(self.build_lib) / "bot"
        for written in _catalogs().compile_catalogs(package / "locales"):
            self.announce(f"compiled {written}", level=2)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        catalogs = _catalogs()
        compiled = [
            str(catalogs.catalog_path(language, ".mo", Path(self.build_lib) / "bot" / "locales"))
            for language in catalogs.LANGUAGES
        ]
        return [*super().get_outputs(include_bytecode), *compiled]


setup(cmdclass={"build_py": BuildWithCatalogs})
