"""Nothing a user reads points at what they cannot see: the bot's texts (both catalogs), the
README and the players' and GMs' guide name no file outside the project (the rules' and
modules' specifications, the original texts), no issue number, no clause id of those
specifications and no internal side id such as ``s3`` where a name exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "bot" / "locales"
READ_BY_PEOPLE = (
    ROOT / "README.md",
    ROOT / "docs" / "guide" / "en.md",
    ROOT / "docs" / "guide" / "ru.md",
)
INTERNAL = {
    "a specification outside the project": re.compile(r"\b(?:RULES|MODULES|STYLE)\.md\b"),
    "the original texts' folder": re.compile(r"\bseeds/"),
    "an original text by number": re.compile(r"\bseed\s*\d{3}\b", re.IGNORECASE),
    "an issue number": re.compile(r"\b(?:issue|задач[аеи])\s*#?\d+", re.IGNORECASE),
    "a clause id of the specifications": re.compile(
        r"[(\s](?:RULES\s+)?(?:[SCWG]\d{1,2}|A2\.\d+|Appendix A|3\.[1-4])[)\s:,]"
    ),
    "an internal side id": re.compile(r"(?<![\w/.-])s\d{1,2}\b"),
}


def _catalog_texts() -> list[tuple[str, str]]:
    """(where, text) of every English message id and every Russian translation."""
    texts: list[tuple[str, str]] = []
    for language in ("en", "ru"):
        path = LOCALES / language / "LC_MESSAGES" / "strategium.po"
        with path.open("rb") as source:
            catalog = read_po(source)
        for message in catalog:
            if not message.id:
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            for text in (*ids, *strings) if language == "ru" else ids:
                texts.append((f"{language} catalog: {str(ids[0])[:60]!r}", str(text)))
    return texts


def _found(text: str) -> list[str]:
    return [what for what, pattern in INTERNAL.items() if pattern.search(f" {text} ")]


def test_the_catalogs_name_nothing_internal() -> None:
    problems = [(where, found) for where, text in _catalog_texts() if (found := _found(text))]
    assert problems == []


@pytest.mark.parametrize("path", READ_BY_PEOPLE, ids=lambda path: path.name)
def test_the_readme_and_the_guide_name_nothing_internal(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    problems = [
        (number, line.strip()[:100], found)
        for number, line in enumerate(lines, start=1)
        if (found := _found(line))
    ]
    assert problems == []


def test_the_scan_finds_what_it_looks_for() -> None:
    for text in (
        "Полуночная осада (MODULES.md): укрепления",
        "silence never turns a defeat into a draw (RULES.md 3.4)",
        "Midnight Siege (seed 000)",
        "the Mini App (issue 21)",
        "the winner of battle k defends battle k+1 (C6)",
        'owner = "s3"',
    ):
        assert _found(text), text
    for text in (
        "Battle 2: Green against the winner of battle 1",
        "attack A3 on Андрей, D2 on Лариса",
        "SHA-256 of the roll seed: 3f9a",
        "O1 «Dark Market» in 5 South Pole",
        "/roll 2d6 3",
    ):
        assert not _found(text), text
