"""Telegram's size limits for a message's text and a photo's caption, and how built text is
made to fit: split into several messages, or shortened when one message must hold it (an edit).

Telegram counts the limits in UTF-16 code units (an emoji outside the basic plane counts two).
"""

from __future__ import annotations

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
ELLIPSIS = "…"


def telegram_length(text: str) -> int:
    """The length of ``text`` as Telegram counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def _fitting(text: str, limit: int) -> int:
    """How many characters of ``text`` fit in ``limit`` code units."""
    units = 0
    for index, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit:
            return index
    return len(text)


def _cut(text: str, limit: int) -> int:
    """Where to cut ``text`` so the head fits: the last line end that fits, else the limit."""
    end = _fitting(text, limit)
    line_end = text.rfind("\n", 0, end + 1)
    return line_end if line_end > 0 else max(end, 1)


def split_text(text: str, limit: int = TEXT_LIMIT) -> list[str]:
    """``text`` in pieces of at most ``limit`` code units, cut at line ends where possible."""
    pieces: list[str] = []
    rest = text
    while telegram_length(rest) > limit:
        cut = _cut(rest, limit)
        head = rest[:cut].rstrip("\n")
        if head:
            pieces.append(head)
        rest = rest[cut:].lstrip("\n")
    if rest or not pieces:
        pieces.append(rest)
    return pieces


def shorten(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` if it fits, else its head cut at a line end and marked with an ellipsis."""
    if telegram_length(text) <= limit:
        return text
    head = text[: _cut(text, limit - len(ELLIPSIS) - 1)].rstrip("\n")
    return f"{head}\n{ELLIPSIS}"


BUTTON_ROW = 40
"""The characters of button text one row shows whole on a phone held upright."""


def button_label(text: str, width: int = BUTTON_ROW) -> str:
    """``text`` if a row of ``width`` characters shows it whole, else its head and «…» (a name
    a person typed may be long)."""
    return text if len(text) <= width else text[: width - len(ELLIPSIS)].rstrip() + ELLIPSIS
