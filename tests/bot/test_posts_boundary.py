"""The posts and the maps know the rule modules only through the registry (issue 35): the files
of ``bot/posts/``, ``bot/map_views.py``, ``bot/services/turns.py``, ``bot/rendering.py`` and
``bot/charts.py`` import no module's package, bot side (``bot.modules.<name>``) or rules side
(``rules.modules.<name>``); what a module adds comes from its ``BotModule`` hooks."""

import ast
from pathlib import Path

from bot.modules import BOT_MODULES

ROOT = Path(__file__).parents[2]
FILES = sorted(
    [
        *(ROOT / "bot" / "posts").glob("*.py"),
        *(ROOT / "bot" / name for name in ("map_views.py", "rendering.py", "charts.py")),
        ROOT / "bot" / "services" / "turns.py",
    ]
)


def _modules_imported(path: Path) -> set[str]:
    """The rule modules whose packages (either side) ``path`` imports."""
    named: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
            if node.module in ("bot.modules", "rules.modules"):
                names += [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            names = []
        for name in names:
            parts = name.split(".")
            if parts[0] in ("bot", "rules") and parts[1:2] == ["modules"] and parts[2:3]:
                named.add(parts[2])
    return named & set(BOT_MODULES)


def test_posts_and_maps_import_no_modules_package() -> None:
    assert len(FILES) > 10
    found = {
        str(path.relative_to(ROOT)): sorted(named)
        for path in FILES
        if (named := _modules_imported(path))
    }
    assert found == {}
