"""The posts and the maps know the rule modules only through the registry (issue 35): the files
of ``bot/posts/``, ``bot/screens/map_views.py``, ``bot/services/turns.py``,
``bot/screens/rendering.py`` and ``bot/screens/charts.py`` import no module's package, bot side
(``bot.modules.<name>``) or rules side (``rules.modules.<name>``); what a module adds comes from its
``BotModule`` hooks. (A test may name a module: it checks that the hooks carry its part.)"""

import ast
from pathlib import Path

from pydantic import JsonValue

from bot.modules import BOT_MODULES
from bot.services.turns import apply_adjustments
from rules import CampaignState, Game, Ruleset, builtin_map
from rules.modules import BUILTIN_MODULES
from rules.modules.siege import load as load_siege

ROOT = Path(__file__).parents[2]
FILES = sorted(
    [
        *(ROOT / "bot" / "posts").glob("*.py"),
        *(
            ROOT / "bot" / "screens" / name
            for name in ("map_views.py", "rendering.py", "charts.py")
        ),
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


def test_a_correction_replays_each_modules_own_adjustments() -> None:
    """``apply_adjustments`` hands each stored adjustment to the module that claims it
    (``BotModule.replay_adjustment``): the siege's (no ``kind``) applies again, one that no
    longer applies and one nobody claims are left out and counted."""
    ruleset = Ruleset(modules=("siege",))
    game = Game.create(builtin_map("planet-5"), ruleset, BUILTIN_MODULES)
    tokens = [{"id": "F1", "kind": "fortification", "sector": "2", "strength": 10}]
    state = CampaignState(
        turn=2,
        armies={"red": {"1": 3, "2": 4}, "blue": {"3": 3, "4": 2}},
        modules={"siege": {"v": 1, "weather": 6, "tokens": tokens, "vp": {"red": 2}}},
    )
    stored: list[dict[str, JsonValue]] = [
        {"armies": [{"side": "red", "sector": "4", "delta": 2}], "weather_steps": 3},
        {"armies": [{"side": "red", "sector": "9", "delta": 1}]},  # no sector 9 on the map
        {"kind": "nobody's", "reason": "a module that is not enabled"},
    ]
    replayed, dropped = apply_adjustments(game, state, stored)
    assert dropped == 2
    assert replayed.armies["red"] == {"1": 3, "2": 4, "4": 2}
    assert load_siege(replayed.modules["siege"]).weather == 1
