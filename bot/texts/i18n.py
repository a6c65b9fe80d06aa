"""Languages: gettext catalogs (Babel) wired through aiogram's ``I18n``.

The catalogs are ``bot/locales/<lang>/LC_MESSAGES/strategium.po``; message ids are the English
text. The build compiles them into ``.mo`` files in the package (:mod:`bot.runtime.catalogs`), and
so do ``pip install -e`` and ``scripts/i18n.py`` in a checkout; the bot reads them and never writes
(a package is often read-only: containers, distributions). A ``.po`` changed since its ``.mo``
was compiled is compiled in memory at start, so a checkout needs no build step.
``scripts/i18n.py`` extracts new message ids from the code into both catalogs; a test fails if a
catalog misses one or a translation drops a placeholder.
"""

from __future__ import annotations

import gettext
import io
import logging
from contextvars import Token
from pathlib import Path

from aiogram.utils.i18n import I18n
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir

from bot.runtime.catalogs import (
    DOMAIN,
    LANGUAGES,
    LOCALES_DIR,
    catalog_path,
    compile_catalog,
    compile_catalogs,
    compiled_from,
    source_digest,
)

SOURCE_DIR = Path(__file__).resolve().parents[1]
DEFAULT_LANGUAGE = "en"

__all__ = [
    "DEFAULT_LANGUAGE",
    "DOMAIN",
    "LANGUAGES",
    "LOCALES_DIR",
    "CatalogI18n",
    "build_i18n",
    "catalog_path",
    "compile_catalogs",
    "extract_messages",
    "language_of",
    "load_catalogs",
]

log = logging.getLogger(__name__)


def extract_messages(source: Path = SOURCE_DIR) -> Catalog:
    """Every message id used in the bot's code (``_()`` and ``__()``, with plurals)."""
    catalog = Catalog(domain=DOMAIN, project="strategium")
    for filename, lineno, message, comments, context in extract_from_dir(
        str(source),
        method_map=[("**.py", "python")],
        # ``_(text)`` and ``_(singular, plural, n)``; babel counts a trailing comma (as the
        # formatter leaves in a call split over lines) as one more argument.
        keywords={
            "_": {1: (1,), 2: (1,), 3: (1, 2), 4: (1, 2)},
            "__": {1: (1,), 2: (1,), 3: (1, 2), 4: (1, 2)},
        },
        comment_tags=("i18n:",),
        strip_comment_tags=True,
    ):
        catalog.add(
            message,
            locations=[(f"bot/{filename}", lineno)],
            auto_comments=comments,
            context=context,
        )
    return catalog


def load_catalogs(root: Path = LOCALES_DIR) -> dict[str, gettext.GNUTranslations]:
    """Every language's translations, read and never written: its ``.mo`` when that was compiled
    from the ``.po`` beside it (an installed package: compiled by the build), else the ``.po``
    compiled in memory (a checkout whose ``.po`` changed since ``scripts/i18n.py`` or the
    editable install compiled it; about 0.1 s a language)."""
    loaded: dict[str, gettext.GNUTranslations] = {}
    for language in LANGUAGES:
        po, mo = catalog_path(language, ".po", root), catalog_path(language, ".mo", root)
        source = po.read_bytes() if po.exists() else None
        try:
            with mo.open("rb") as compiled:
                translations: gettext.GNUTranslations | None = gettext.GNUTranslations(compiled)
        except OSError:  # missing, unreadable, or not a .mo
            translations = None
        if translations is not None and (
            source is None or compiled_from(translations) == source_digest(source)
        ):
            loaded[language] = translations
            continue
        if source is None:
            raise FileNotFoundError(f"no catalog for {language!r} in {root}")
        log.info("catalog %s compiled in memory from %s (no .mo of this .po)", language, po)
        loaded[language] = gettext.GNUTranslations(io.BytesIO(compile_catalog(source, language)))
    return loaded


class CatalogI18n(I18n):
    """aiogram's :class:`I18n` on :func:`load_catalogs`: it never needs a writable package.

    aiogram keeps "the current I18n" per class (``_()`` reads ``I18n.get_current()``), so this
    one sets and resets :class:`I18n`'s own."""

    def find_locales(self) -> dict[str, gettext.GNUTranslations]:
        return load_catalogs(self.path)

    @classmethod
    def set_current(cls, value: I18n) -> Token[I18n]:
        return I18n.set_current(value)

    @classmethod
    def reset_current(cls, token: Token[I18n]) -> None:
        I18n.reset_current(token)


def build_i18n(root: Path = LOCALES_DIR) -> I18n:
    """The bot's languages, loaded from the catalogs under ``root``."""
    return CatalogI18n(path=root, default_locale=DEFAULT_LANGUAGE, domain=DOMAIN)


def language_of(code: str | None) -> str:
    """Our language for a Telegram ``language_code``: Russian for ``ru``/``ru-RU``, else English."""
    if code and code.split("-")[0].lower() == "ru":
        return "ru"
    return DEFAULT_LANGUAGE
