"""Redraw the guide's pictures and screens (docs/guide/): ``python scripts/guide_pictures.py``.

The core's worked turn is drawn by ``python -m rules render`` from ``examples/worked-example.json``
(the battle list and the resolved map, in both languages). Each module's chapter shows the
group's maps and posts of its demo (``python -m bot.demo --module <name> --lang <language>``,
offline): the battle list of turn 1 and its resolution. The screens go between the guide's
``<!-- screen: <name> -->`` and ``<!-- /screen -->`` markers, the maps to
``docs/guide/img/<language>-<module>-friday.png`` and ``-monday.png``. Takes a few minutes (six
demos).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
IMAGES = GUIDE / "img"
MODULES = ("siege", "contact", "watch")
LIST_HEAD = {"en": "Turn 1: the battle list.", "ru": "Ход 1: список боёв."}
MONDAY_HEAD = {"en": "Turn 1 resolved.", "ru": "Итоги хода 1 подведены."}
DUEL_STEP = {"en": "⚔️ Duel in", "ru": "⚔️ Поединок в"}
FOC_LEGEND = ("Force organisation limits", "Схема организации войск", "• ")
"""The force organisation limits the list states once, under its battles (``foc_legend``)."""
LIST_KEEP = {
    # The lines of the battle list each chapter shows (the rest is on the picture).
    "siege": ("Battle", "Бой", "  ", "🌬", "🏰", "🎲", *FOC_LEGEND),
    "contact": (
        "Battle",
        "Бой",
        "Бои",
        "  ",
        "🧟",
        "Movement",
        "Перемещение",
        "Step",
        "Шаг",
        "⛓",
        *FOC_LEGEND,
    ),
    "watch": ("👤", "Heroes", "Иные", "⚡", "1.", "2.", "3."),
}
MONDAY_KEEP = {
    "siege": ("Battle", "Бой", "🏰", "🌬", "🎲 Assault", "🎲 Штурм"),
    "contact": ("Battle", "Бой", "↩", "🧟", "🏚", "😮", "🏆"),
    "watch": ("🪄", "🩸", "✝"),
}


def _posts(chat: Path) -> list[tuple[str | None, list[str]]]:
    """The group's new posts in a demo's chat file: (the map's file, if any; the post's
    lines). Edits (the board's) are left out."""
    posts: list[tuple[str | None, list[str]]] = []
    picture: str | None = None
    lines: list[str] | None = None
    for line in chat.read_text(encoding="utf-8").splitlines():
        if line.startswith("Strategium edits "):
            lines = None  # the board's edits: not a post of the turn
        elif line.startswith("Strategium "):
            lines = []
            picture = None
            posts.append((None, lines))
        elif line.startswith("  🖼 ") and lines is not None:
            picture = line.removeprefix("  🖼 ").strip()
            posts[-1] = (picture, lines)
        elif line.startswith("  | ") and lines is not None:
            lines.append(line.removeprefix("  | "))
        elif not line.startswith("  "):
            lines = None
    return posts


def _pick(lines: list[str], keep: tuple[str, ...]) -> list[str]:
    return [line for line in lines if line.startswith(keep)]


def _screen(lines: list[str]) -> str:
    return "```text\n" + "\n".join(lines) + "\n```"


def _demo(module: str, language: str, out: Path) -> dict[str, str]:
    """Run one module's demo; copy its two maps; its screens by marker name."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.demo",
            "--module",
            module,
            "--lang",
            language,
            "--quiet",
            "--width",
            "0",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        check=True,
        timeout=600,
    )
    posts = _posts(out / "chats" / "Wargamers.txt")
    screens: dict[str, str] = {}
    for index, (picture, lines) in enumerate(posts):
        if lines and lines[0] == LIST_HEAD[language] and picture is not None:
            shutil.copy(picture, IMAGES / f"{language}-{module}-friday.png")
            shown = _pick(lines, LIST_KEEP[module])
            for _picture, more in posts[index + 1 : index + 3]:  # a long list goes on
                if more and not more[0].startswith(
                    ("⚔️", "Turn", "Ход", "🎲 Turn", "🎲 Ход", MONDAY_HEAD[language])
                ):
                    shown += _pick(more, LIST_KEEP[module])
            screens[f"{module}-list"] = _screen(shown)
        if lines and lines[0] == MONDAY_HEAD[language] and picture is not None:
            shutil.copy(picture, IMAGES / f"{language}-{module}-monday.png")
            shown = [lines[0], *_pick(lines[1:], MONDAY_KEEP[module])]
            for _picture, more in posts[index + 1 : index + 2]:
                if _picture is None:
                    shown += _pick(more, MONDAY_KEEP[module])
            screens[f"{module}-monday"] = _screen(shown)
    if module == "watch":
        steps = [
            lines for _picture, lines in posts if lines and lines[0].startswith(DUEL_STEP[language])
        ]
        screens["watch-duel"] = _screen(
            [
                *_pick(screens.get("watch-list", "").splitlines(), ("⚡", "1.", "2.", "3.")),
                *(line for step in steps for line in step),
            ]
        )
    return screens


def _render(language: str) -> None:
    """The core's worked turn: its battle list and its resolved map."""
    document = (ROOT / "examples" / "worked-example.json").read_text(encoding="utf-8")
    title = "Пример хода" if language == "ru" else "Worked example"
    if language == "ru":  # the sides as the Russian chapter names them
        document = document.replace('"red"', '"красные"').replace('"blue"', '"синие"')
    for variant, name in (("friday", "friday"), ("resolved", "resolved")):
        picture = subprocess.run(
            [
                sys.executable,
                "-m",
                "rules",
                "render",
                "--variant",
                variant,
                "--lang",
                language,
                "--title",
                title,
            ],
            input=document.encode(),
            capture_output=True,
            cwd=ROOT,
            check=True,
            timeout=120,
        ).stdout
        (IMAGES / f"{language}-core-{name}.png").write_bytes(picture)


def _fill(language: str, screens: dict[str, str]) -> None:
    path = GUIDE / f"{language}.md"
    text = path.read_text(encoding="utf-8")
    for name, screen in screens.items():
        marker = re.compile(rf"(<!-- screen: {re.escape(name)} -->\n).*?(<!-- /screen -->)", re.S)
        found = marker.search(text)
        if found is not None:
            text = text[: found.start()] + f"{found[1]}{screen}\n{found[2]}" + text[found.end() :]
    path.write_text(text, encoding="utf-8")


def main() -> int:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="strategium-guide-") as scratch:
        for language in ("en", "ru"):
            _render(language)
            screens: dict[str, str] = {}
            for module in MODULES:
                screens |= _demo(module, language, Path(scratch) / f"{language}-{module}")
            _fill(language, {k: v for k, v in screens.items() if not k.startswith("watch-list")})
    return 0


if __name__ == "__main__":
    sys.exit(main())
