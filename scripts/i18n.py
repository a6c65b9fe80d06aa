"""Bring the catalogs up to date with the code: ``.venv/bin/python scripts/i18n.py``.

New message ids are added to every catalog (English needs no translation: the id is the text);
Russian entries without a translation are listed so they can be written in
``bot/locales/ru/LC_MESSAGES/strategium.po``. Ids no longer in the code are dropped.
"""

from __future__ import annotations

import sys

from babel.messages.pofile import read_po, write_po

from bot.texts.i18n import DOMAIN, LANGUAGES, catalog_path, compile_catalogs, extract_messages


def main() -> int:
    """Update every catalog from the code; print what still needs a Russian translation."""
    template = extract_messages()
    for language in LANGUAGES:
        path = catalog_path(language)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            with path.open("rb") as source:
                catalog = read_po(source, locale=language, domain=DOMAIN)
        else:
            catalog = type(template)(locale=language, domain=DOMAIN, project="strategium")
        catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
        catalog.obsolete.clear()
        catalog.fuzzy = False
        with path.open("wb") as target:
            write_po(target, catalog, width=100, include_lineno=False, sort_output=True)
        missing = [m.id for m in catalog if m.id and language != "en" and not _translated(m.string)]
        for message_id in missing:
            print(f"{language}: needs a translation: {message_id!r}")
    compile_catalogs()
    return 0


def _translated(string: object) -> bool:
    if isinstance(string, tuple | list):
        return all(string)
    return bool(string)


if __name__ == "__main__":
    sys.exit(main())
