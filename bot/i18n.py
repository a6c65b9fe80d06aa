"""Languages: gettext catalogs (Babel) wired through aiogram's ``I18n``.

The catalogs are ``bot/locales/<lang>/LC_MESSAGES/strategium.po``; message ids are the English
text. :func:`compile_catalogs` turns them into ``.mo`` files when a ``.po`` is newer, so a fresh
checkout needs no build step. ``scripts/i18n.py`` extracts new message ids from the code into
both catalogs; a test fails if a catalog misses one or a translation drops a placeholder.
"""

from __future__ import annotations

import os
from pathlib import Path

from aiogram.utils.i18n import I18n
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

SOURCE_DIR = Path(__file__).resolve().parent
LOCALES_DIR = SOURCE_DIR / "locales"
DOMAIN = "strategium"
LANGUAGES = ("en", "ru")
DEFAULT_LANGUAGE = "en"


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


def catalog_path(language: str, suffix: str = ".po", root: Path = LOCALES_DIR) -> Path:
    """Where a language's catalog lives."""
    return root / language / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


def compile_catalogs(root: Path = LOCALES_DIR) -> list[Path]:
    """Write each ``.mo`` whose ``.po`` is newer (or missing); returns the files written."""
    written: list[Path] = []
    for language in LANGUAGES:
        po = catalog_path(language, ".po", root)
        mo = catalog_path(language, ".mo", root)
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as source:
            catalog = read_po(source, locale=language, domain=DOMAIN)
        # A name of this process's own: two processes starting together each write theirs and
        # the last rename wins (both wrote the same catalog).
        temporary = mo.with_suffix(f".mo.{os.getpid()}.tmp")
        with temporary.open("wb") as target:
            write_mo(target, catalog)
        temporary.replace(mo)
        written.append(mo)
    return written


def build_i18n(root: Path = LOCALES_DIR) -> I18n:
    """Compile the catalogs if needed and load them."""
    compile_catalogs(root)
    return I18n(path=root, default_locale=DEFAULT_LANGUAGE, domain=DOMAIN)


def language_of(code: str | None) -> str:
    """Our language for a Telegram ``language_code``: Russian for ``ru``/``ru-RU``, else English."""
    if code and code.split("-")[0].lower() == "ru":
        return "ru"
    return DEFAULT_LANGUAGE
