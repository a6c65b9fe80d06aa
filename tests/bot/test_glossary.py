"""The glossary (docs/glossary.md): neither catalog uses a forbidden synonym of a term."""

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.i18n import DOMAIN, catalog_path

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"
ROW = re.compile(r"^\|\s*(ru|en)\s*\|\s*`([^`]+)`[^|]*\|\s*([^|]+?)\s*\|$")


def forbidden_words() -> list[tuple[str, re.Pattern[str], str]]:
    """(language, pattern, the word to write instead) for each row of the forbidden table."""
    text = GLOSSARY.read_text(encoding="utf-8")
    section = text.split("## Forbidden synonyms", 1)[1]
    return [
        (m[1], re.compile(m[2], re.IGNORECASE), m[3])
        for m in (ROW.match(line) for line in section.splitlines())
        if m
    ]


def _texts(catalog: Catalog, language: str) -> list[str]:
    """The catalog's words in ``language``: translations for ru, message ids for en."""
    texts: list[str] = []
    for message in catalog:
        if not message.id:
            continue
        if language == "en":
            texts += [message.id] if isinstance(message.id, str) else list(message.id)
        else:
            strings = message.string
            texts += [strings] if isinstance(strings, str) else [s for s in strings or () if s]
    return texts


def synonyms_used(texts: list[str], language: str) -> list[str]:
    """Every use of a forbidden synonym: "word in «text» (write: term)"."""
    found = []
    for text in texts:
        plain = text.replace("ё", "е").replace("Ё", "Е")
        for lang, pattern, instead in forbidden_words():
            if lang == language and (hit := pattern.search(plain)):
                found.append(f"{hit[0]!r} in «{text}» (write: {instead})")
    return found


def _catalog() -> Catalog:
    with catalog_path("ru").open("rb") as source:
        return read_po(source, locale="ru", domain=DOMAIN)


def test_the_glossary_forbids_the_synonyms_the_issue_names() -> None:
    patterns = {(language, p.pattern) for language, p, _ in forbidden_words()}
    assert {("ru", "ведущ"), ("ru", "битв"), ("ru", "подсчет")} <= patterns
    assert len(patterns) >= 20


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_catalog_uses_no_forbidden_synonym(language: str) -> None:
    used = synonyms_used(_texts(_catalog(), language), language)
    assert not used, "\n".join(used)


def test_a_forbidden_synonym_is_found_in_any_case_and_with_yo() -> None:
    texts = ["Ведущий продлил срок", "итоги: ПОДСЧЁТ", "Бой 1", "Slaughter (разгром)"]
    assert [line.split(" in ")[0] for line in synonyms_used(texts, "ru")] == [
        "'Ведущ'",
        "'ПОДСЧЕТ'",
    ]
    assert synonyms_used(["The Game Master decides"], "en") == [
        "'Game Master' in «The Game Master decides» (write: GM)"
    ]


def test_the_glossary_terms_are_the_catalogs_words() -> None:
    russian = " ".join(_texts(_catalog(), "ru")).lower()
    for term in ("мастер", "сектор", "армия", "атака", "перемещение", "укрепл", "с орбиты", "бой"):
        assert term in russian, term


WATCH_SOURCES = (
    "bot/watch_texts.py",
    "bot/watch_duel_texts.py",
    "bot/watch_gm_texts.py",
    "bot/duel_screens.py",
    "bot/handlers/group/watch_wizard.py",
    "bot/handlers/group/watch_gm.py",
    "bot/handlers/group/duels_gm.py",
)


def test_night_watch_says_spell_in_english_as_the_glossary_does() -> None:
    """Night Watch's attack and defence cards are «spells» in English too (docs/glossary.md);
    «card» stays siege's and the zombies' word."""
    card = re.compile(r"\bcards?\b", re.IGNORECASE)
    found = [
        message.id
        for message in _catalog()
        if message.id
        and any(path in WATCH_SOURCES for path, _line in message.locations)
        and any(card.search(re.sub(r"\{\w+\}", "", text)) for text in _texts_of(message.id))
    ]
    assert not found, found
    assert any(path in WATCH_SOURCES for m in _catalog() for path, _line in m.locations)


def _texts_of(message_id: str | tuple[str, ...] | list[str]) -> list[str]:
    return [message_id] if isinstance(message_id, str) else list(message_id)


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide"


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_guide_uses_no_forbidden_synonym(language: str) -> None:
    """The players' and GMs' guide speaks the bot's words (its code blocks quote the bot)."""
    lines = (GUIDE / f"{language}.md").read_text(encoding="utf-8").splitlines()
    used = synonyms_used(lines, language)
    assert not used, "\n".join(used)
