"""The catalogs: every message id of the code is in both languages, with its placeholders."""

import os
import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from bot.texts.i18n import (
    DOMAIN,
    LANGUAGES,
    build_i18n,
    catalog_path,
    compile_catalogs,
    extract_messages,
)

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
    _sources_in(tmp_path)
    assert len(compile_catalogs(tmp_path)) == len(LANGUAGES)
    assert compile_catalogs(tmp_path) == []
    i18n = build_i18n(tmp_path)
    forms = [
        i18n.gettext("{n} army", "{n} armies", n, locale="ru").format(n=n) for n in (1, 3, 5, 21)
    ]
    assert forms == ["1 армия", "3 армии", "5 армий", "21 армия"]
    assert i18n.gettext("{n} army", "{n} armies", 5, locale="en").format(n=5) == "5 armies"


def _sources_in(root: Path) -> None:
    """The ``.po`` files alone under ``root``, as a package before its catalogs are compiled."""
    for language in LANGUAGES:
        target = catalog_path(language, root=root)
        target.parent.mkdir(parents=True)
        target.write_bytes(catalog_path(language).read_bytes())


def _files(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(root)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
    }


def test_the_bot_reads_uncompiled_catalogs_without_writing(tmp_path: Path) -> None:
    """A package whose ``.po`` files were never compiled (or cannot be written: an installed
    package) still speaks Russian, and nothing is written beside the catalogs."""
    _sources_in(tmp_path)
    before = _files(tmp_path)
    i18n = build_i18n(tmp_path)
    assert i18n.gettext("{n} army", "{n} armies", 3, locale="ru").format(n=3) == "3 армии"
    assert _files(tmp_path) == before


def test_a_mo_compiled_from_another_po_is_not_used_even_when_newer(tmp_path: Path) -> None:
    """A translation changed in the ``.po`` reaches the bot at its next start (in memory) though
    the ``.mo`` beside it is older by content and newer by time (an installer sets file times as
    it likes); ``compile_catalogs`` then writes that ``.mo`` again and only that one."""
    _sources_in(tmp_path)
    compile_catalogs(tmp_path)
    po = catalog_path("ru", root=tmp_path)
    with po.open("rb") as source:
        catalog = read_po(source, locale="ru", domain=DOMAIN)
    catalog["{n} army"].string = ("{n} полк", "{n} полка", "{n} полков")
    with po.open("wb") as target:
        write_po(target, catalog)
    mo = catalog_path("ru", ".mo", tmp_path)
    later = po.stat().st_mtime_ns + 3_600 * 10**9
    os.utime(mo, ns=(later, later))
    i18n = build_i18n(tmp_path)
    assert i18n.gettext("{n} army", "{n} armies", 5, locale="ru").format(n=5) == "5 полков"
    assert mo.stat().st_mtime_ns == later
    assert compile_catalogs(tmp_path) == [mo]
    assert build_i18n(tmp_path).gettext("{n} army", "{n} armies", 2, locale="ru") == "{n} полка"


def test_placeholder_check_sees_a_dropped_placeholder() -> None:
    assert _placeholders("{side} lost {armies}") == {"side", "armies"}
    assert _placeholders("lost {armies}") != _placeholders("{side} lost {armies}")
