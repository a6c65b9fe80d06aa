"""The players' and GMs' guide (docs/guide/): both languages say the same things in the same
order, every picture it shows is there (and nothing else, kept small), and its own map parses
as the bot parses an uploaded one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules.maps import parse_map_toml

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide"
LANGUAGES = ("en", "ru")
PICTURE = re.compile(r"!\[[^\]]*\]\((img/[^)]+)\)")
PICTURES_BUDGET = 700_000
"""Bytes for all the guide's pictures together (16 maps of about 30 KB each)."""


def _text(language: str) -> str:
    return (GUIDE / f"{language}.md").read_text(encoding="utf-8")


def _headings(language: str) -> list[str]:
    """Each heading's level and number (``## 5.``, ``###``): the chapters' shape."""
    return [
        line.split(" ", 1)[0] + (" " + line.split(" ")[1] if line.startswith("## ") else "")
        for line in _text(language).splitlines()
        if line.startswith("#")
    ]


def test_both_languages_have_the_same_chapters_screens_and_pictures() -> None:
    assert _headings("en") == _headings("ru")
    screens = {lang: re.findall(r"<!-- screen: ([\w-]+) -->", _text(lang)) for lang in LANGUAGES}
    assert screens["en"] == screens["ru"]
    assert screens["en"], "the module chapters show the bot's screens"
    pictures = {
        lang: [p.replace(f"img/{lang}-", "img/") for p in PICTURE.findall(_text(lang))]
        for lang in LANGUAGES
    }
    assert pictures["en"] == pictures["ru"]


def test_every_picture_shown_is_there_and_nothing_else() -> None:
    shown = {name for lang in LANGUAGES for name in PICTURE.findall(_text(lang))}
    present = {f"img/{path.name}" for path in (GUIDE / "img").iterdir()}
    assert shown == present
    assert sum((GUIDE / name).stat().st_size for name in present) < PICTURES_BUDGET


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_guides_own_map_is_a_map_the_bot_takes(language: str) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", _text(language), flags=re.S)
    assert len(blocks) == 1
    campaign_map = parse_map_toml(blocks[0])
    assert {feature.kind for feature in campaign_map.features} == {
        "fortification",
        "occult",
        "defences",
    }
    assert campaign_map.tagged("weather_control")
