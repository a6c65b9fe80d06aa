"""The map renderer as it was before issue 20, for the benchmarks' side-by-side figures only.

The module is read from git (``rules/render.py`` at :data:`OLD_COMMIT`) and imported under the
name ``old_render``; :func:`draw_old` draws a view of today's :class:`rules.render.MapView`
with it, showing what it showed then (no week, no progress; the captures on Monday's map).
It is a module of its own so that drawing processes can import it by name.
"""

from __future__ import annotations

import subprocess
import sys
import types
from functools import cache
from pathlib import Path
from typing import Any

from rules.render import MapView

ROOT = Path(__file__).resolve().parents[1]
OLD_COMMIT = "68364e8"
"""main before issue 20's map work."""


@cache
def old_render() -> Any:
    """The old ``rules/render.py``, imported as ``old_render``."""
    source = subprocess.run(
        ["git", "show", f"{OLD_COMMIT}:rules/render.py"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    module = types.ModuleType("old_render")
    module.__file__ = f"{OLD_COMMIT}:rules/render.py"
    sys.modules["old_render"] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def old_view(view: MapView) -> Any:
    """``view`` as the old renderer's ``MapView``: the same map, state, sides and battles."""
    old = old_render()
    private = None
    if view.private is not None:
        private = old.PrivateOrders(side=view.private.side, orders=view.private.orders)
    return old.MapView(
        map=view.map,
        state=view.state,
        sides=tuple(old.SideView(**side.model_dump()) for side in view.sides),
        title=view.title,
        language=view.language,
        labels=old.RUSSIAN_LABELS if view.language == "ru" else old.MapLabels(),
        captured=view.captured if view.week is not None else None,
        battles=view.battles,
        private=private,
    )


def draw_old(view: MapView) -> bytes:
    """The PNG the old renderer draws for ``view``."""
    return bytes(old_render().render_map(old_view(view)))
