"""The glossary (docs/glossary.md): neither catalog uses a forbidden synonym of a term."""

import re
from itertools import combinations
from pathlib import Path

import pytest
from aiogram.utils.i18n import I18n
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.handlers.private.battles import margins_words
from bot.handlers.private.screens import result_words
from bot.screens.map_views import map_labels
from bot.texts.core import outcome_name
from bot.texts.i18n import DOMAIN, catalog_path
from rules import Outcome
from rules.table import ScoreMargins

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


# The one text that names the rules' English outcome names, for Russian readers (/rules), as
# docs/glossary.md says: the guide explains the other language's terms once.
RULEBOOK_NAMES = (
    "The rules' text names them in English: Draw, Bloody draw, Solid victory, Crushing "
    "victory, Slaughter."
)


def _texts(catalog: Catalog, language: str) -> list[str]:
    """The catalog's words in ``language``: translations for ru, message ids for en."""
    texts: list[str] = []
    for message in catalog:
        if not message.id or message.id == RULEBOOK_NAMES:
            continue
        if language == "en":
            texts += [message.id] if isinstance(message.id, str) else list(message.id)
        else:
            strings = message.string
            texts += [strings] if isinstance(strings, str) else [s for s in strings or () if s]
    return texts


def synonyms_used(texts: list[str], language: str) -> list[str]:
    """Every use of a forbidden synonym: "word in «text» (write: term)"; placeholders
    («{slaughter}») are the code's names, not words."""
    found = []
    for text in texts:
        plain = re.sub(r"\{\w*\}", "", text).replace("ё", "е").replace("Ё", "Е")
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
        "'Slaughter'",
    ]
    assert synonyms_used(["The Game Master decides"], "en") == [
        "'Game Master' in «The Game Master decides» (write: GM)"
    ]


def test_the_glossary_terms_are_the_catalogs_words() -> None:
    russian = " ".join(_texts(_catalog(), "ru")).lower()
    for term in ("мастер", "сектор", "армия", "атака", "перемещение", "укрепл", "с орбиты", "бой"):
        assert term in russian, term


WATCH_SOURCES = (
    "bot/modules/watch/texts.py",
    "bot/modules/watch/duel_texts.py",
    "bot/modules/watch/gm_texts.py",
    "bot/modules/watch/duel_screens.py",
    "bot/modules/watch/handlers/wizard.py",
    "bot/modules/watch/handlers/gm.py",
    "bot/modules/watch/handlers/duels_gm.py",
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


def outcome_terms() -> dict[str, dict[str, str]]:
    """The glossary's table of battle outcomes: language -> outcome value -> its term."""
    section = GLOSSARY.read_text(encoding="utf-8").split("## Battle outcomes", 1)[1]
    rows = [line for line in section.split("\n## ", 1)[0].splitlines() if line.startswith("| ")]
    values = ["draw", "bloody_draw", "solid", "crushing", "slaughter"]
    cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[1:]]
    return {
        "en": {value: row[1] for value, row in zip(values, cells, strict=True)},
        "ru": {value: row[2] for value, row in zip(values, cells, strict=True)},
    }


@pytest.mark.parametrize("language", ["ru", "en"])
def test_each_outcome_has_one_term_used_everywhere(i18n: I18n, language: str) -> None:
    """The outcome's name on buttons and posts, the map's legend, the Mini App's list and the
    score-margin line all use the glossary's term, and no term's words name another outcome."""
    terms = outcome_terms()[language]
    with i18n.context(), i18n.use_locale(language):
        names = {outcome.value: outcome_name(outcome) for outcome in Outcome}
        legend = map_labels().draw
        margins = margins_words(ScoreMargins(solid=1, crushing=5, slaughter=10))
        listed = [
            result_words(outcome, "red" if outcome.has_winner else None, {"red": "Red"})
            for outcome in Outcome
        ]
    for value, term in terms.items():
        assert names[value] == term or names[value].startswith(f"{term} ("), (value, names[value])
        assert any(term in label for label in listed), term
    assert legend == terms["draw"]
    assert margins.count(terms["draw"]) == 1
    for value in ("solid", "crushing", "slaughter"):
        assert f"{terms[value]}" in margins, (terms[value], margins)
    # A term's own words are never another's (only "draw" and "bloody draw" share theirs).
    words = {value: set(re.findall(r"\w+", term.lower())) for value, term in terms.items()}
    for first, second in combinations(["draw", "solid", "crushing", "slaughter"], 2):
        assert not (words[first] - {"victory", "победа"}) & words[second], (first, second)
    if language == "ru":
        catalog = " ".join(_texts(_catalog(), "ru")).lower()
        assert "разгромн" not in catalog
        assert "бойн" not in catalog
