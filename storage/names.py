"""Names as they are stored and shown: a person's display name, a side's name, a title.

A name from Telegram or typed by a person may carry line breaks, control characters and
invisible format characters (a right-to-left override U+202E reverses the rest of every line it
is in; zero-width spaces hide text). :func:`clean_name` removes them, and records that hold
people's names clean them on the way in and out, so no post can be broken by one.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator

JOINERS = frozenset({"\u200c", "\u200d"})
"""Invisible characters a name keeps: they join letters and emoji (👨\u200d👩\u200d👧)."""


def clean_name(text: str) -> str:
    """A name as it is stored and shown: line breaks and control characters become spaces,
    spaces are collapsed, and invisible format characters (zero-width spaces, right-to-left
    overrides) go, so a name cannot break the lines or the direction of the posts it appears
    in. Letters, marks and emoji stay."""
    if text.isprintable():  # no control, format or line-break character: only spaces to collapse
        return " ".join(text.split())
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if category in ("Cc", "Zl", "Zp"):
            kept.append(" ")
        elif category != "Cf" or char in JOINERS:
            kept.append(char)
    return " ".join("".join(kept).split())


def _clean_display_name(text: str) -> str:
    return clean_name(text) or "?"


DisplayName = Annotated[str, AfterValidator(_clean_display_name)]
"""A person's name in a record: cleaned (a name that cleans to nothing reads «?»)."""
