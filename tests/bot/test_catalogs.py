"""The catalogs: every message id of the code is in both languages, with its placeholders."""

import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.i18n import DOMAIN, LANGUAGES, build_i18n, catalog_path, compile_catalogs, extract_messages

CODE = extract_messages()


def _catalog(language: str) -> Catalog:
    with catalog_path(language).open("rb") as source:
        return read_po(source, locale=language, domain=DOMAIN)


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def _ids(catalog: Catalog) -> set[str]:
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}


def test_the_code_has_message_ids() -> None:
    assert len(_ids(CODE)) > 50


@pytest.mark.parametrize("language", LANGUAGES)
def test_catalog_has_every_message_id_of_the_code(language: str) -> None:
    missing = _ids(CODE) - _ids(_catalog(language))
    assert not missing, f"run scripts/i18n.py; {language} misses {sorted(missing)}"


def test_every_russian_message_is_translated_with_the_same_placeholders() -> None:
    problems = []
    for message in _catalog("ru"):
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = (
            [message.string] if isinstance(message.string, str) else list(message.string or ())
        )
        if message.fuzzy or not all(strings):
            problems.append(f"untranslated: {ids[0]!r}")
            continue
        wanted = set().union(*(_placeholders(i) for i in ids))
        for text in strings:
            if _placeholders(text) != wanted:
                problems.append(f"placeholders differ: {ids[0]!r} -> {text!r}")
    assert not problems, "\n".join(problems)


def test_compiled_catalogs_translate_with_russian_plurals(tmp_path: Path) -> None:
    for language in LANGUAGES:
        target = catalog_path(language, root=tmp_path)
        target.parent.mkdir(parents=True)
        target.write_bytes(catalog_path(language).read_bytes())
    assert len(compile_catalogs(tmp_path)) == len(LANGUAGES)
    assert compile_catalogs(tmp_path) == []
    i18n = build_i18n(tmp_path)
    forms = [
        i18n.gettext("{n} army", "{n} armies", n, locale="ru").format(n=n) for n in (1, 3, 5, 21)
    ]
    assert forms == ["1 армия", "3 армии", "5 армий", "21 армия"]
    assert i18n.gettext("{n} army", "{n} armies", 5, locale="en").format(n=5) == "5 armies"


def test_placeholder_check_sees_a_dropped_placeholder() -> None:
    assert _placeholders("{side} lost {armies}") == {"side", "armies"}
    assert _placeholders("lost {armies}") != _placeholders("{side} lost {armies}")
