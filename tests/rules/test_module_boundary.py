"""The rules core and storage know the rule modules only through the registry
(``rules.modules``: ``BUILTIN_MODULES``, ``module_maps()``) and the ``RulesModule`` protocol: no
file outside ``rules/modules/<name>/`` imports a module's package."""

import ast
from pathlib import Path

from rules.modules import BUILTIN_MODULES, module_maps

ROOT = Path(__file__).parents[2]
MODULES = sorted(module.name for module in BUILTIN_MODULES)


def _modules_imported(path: Path) -> set[str]:
    """The rule modules whose packages ``path`` imports."""
    named: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module]
            if isinstance(node, ast.ImportFrom) and node.module
            else []
        )
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["rules", "modules"] and len(parts) > 2:
                named.add(parts[2])
        if isinstance(node, ast.ImportFrom) and node.module == "rules.modules":
            named.update(alias.name for alias in node.names if alias.name in MODULES)
    return named


def test_the_core_and_storage_import_no_modules_package() -> None:
    files = [
        path
        for folder in ("rules", "storage")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.relative_to(ROOT).parts[:2] != ("rules", "modules")
    ]
    found = {
        str(path.relative_to(ROOT)): named for path in files if (named := _modules_imported(path))
    }
    assert found == {}


def test_the_probe_sees_a_modules_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from rules.modules.watch.state import public_view\nfrom rules.modules import contact\n"
        "import rules.modules.siege.dice\nfrom rules.modules import BUILTIN_MODULES\n",
        encoding="utf-8",
    )
    assert _modules_imported(probe) == {"watch", "contact", "siege"}


def test_a_modules_map_is_shipped_and_listed_by_its_module() -> None:
    assert module_maps() == {"night-demo": "watch"}
