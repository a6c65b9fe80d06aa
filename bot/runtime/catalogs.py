"""The gettext catalogs compiled: each ``bot/locales/<lang>/LC_MESSAGES/strategium.po`` into the
``.mo`` gettext reads, with Babel and the standard library only.

The build (``setup.py``) loads this file by itself, where nothing but Babel and setuptools is
installed, and writes the ``.mo`` files into the wheel: an installed bot finds them compiled and
never writes into its package (:mod:`bot.texts.i18n`). Each ``.mo`` carries the SHA-256 of the
``.po`` it was compiled from (a message of its own context, :data:`SOURCE_CONTEXT`), so a reader can
tell a ``.mo`` left behind by an older ``.po`` whatever the files' times say (an installer does not
keep them).
"""

from __future__ import annotations

import gettext
import hashlib
import io
import os
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES_DIR = Path(__file__).resolve().parents[1] / "locales"
DOMAIN = "strategium"
LANGUAGES = ("en", "ru")
SOURCE_CONTEXT = "strategium-catalog"
SOURCE_KEY = "source-sha256"


def catalog_path(language: str, suffix: str = ".po", root: Path = LOCALES_DIR) -> Path:
    """Where a language's catalog lives."""
    return root / language / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


def source_digest(source: bytes) -> str:
    """The SHA-256 of a ``.po`` file's bytes, as its ``.mo`` records it."""
    return hashlib.sha256(source).hexdigest()


def compile_catalog(source: bytes, language: str) -> bytes:
    """The ``.mo`` of a ``.po`` file's bytes, recording their digest."""
    catalog = read_po(io.BytesIO(source), locale=language, domain=DOMAIN)
    catalog.add(SOURCE_KEY, source_digest(source), context=SOURCE_CONTEXT)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    return compiled.getvalue()


def compiled_from(translations: gettext.GNUTranslations) -> str | None:
    """The digest of the ``.po`` a loaded ``.mo`` was compiled from (``None``: not recorded)."""
    digest = translations.pgettext(SOURCE_CONTEXT, SOURCE_KEY)
    return None if digest == SOURCE_KEY else digest


def compile_catalogs(root: Path = LOCALES_DIR) -> list[Path]:
    """Write each ``.mo`` that is missing or was compiled from another ``.po``; returns the files
    written. For the build and ``scripts/i18n.py``: the running bot never calls it."""
    written: list[Path] = []
    for language in LANGUAGES:
        source = catalog_path(language, ".po", root).read_bytes()
        mo = catalog_path(language, ".mo", root)
        try:
            with mo.open("rb") as existing:
                if compiled_from(gettext.GNUTranslations(existing)) == source_digest(source):
                    continue
        except (OSError, ValueError):  # missing, unreadable, or not a .mo
            pass
        # A name of this process's own: two builds writing at once each rename a whole file.
        temporary = mo.with_suffix(f".mo.{os.getpid()}.tmp")
        temporary.write_bytes(compile_catalog(source, language))
        temporary.replace(mo)
        written.append(mo)
    return written
