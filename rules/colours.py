"""Side colours: the colour-blind safe set, the colour a side's name names, and how colours look
to people with the three common colour-vision deficiencies.

A side has one colour, chosen once (the bot stores it when the side is added): the board's
square, the map's chips, tints and arrows, the end chart and the Mini App all draw that one.
Colours come from the eight of the Okabe-Ito palette (Okabe and Ito, *Color Universal Design*,
2008). A side named after a colour («Красные», "Blue Legion") takes the safe colour nearest to
the one its name says (:func:`named_colour`): red is vermillion, green is bluish green.

:func:`simulate` shows a colour as a person with protanopia, deuteranopia or tritanopia sees it
(Machado, Oliveira and Fernandes, *A Physiologically-based Model for Simulation of Color Vision
Deficiency*, IEEE TVCG 2009, severity 1.0, applied to linear RGB), and :func:`delta_e` is the
CIEDE2000 colour difference. Every pair of safe colours stays at least
:data:`DISTINCT` apart under each simulation (``tests/render/test_colours.py``).
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Literal

Rgb = tuple[int, int, int]
Deficiency = Literal["protanopia", "deuteranopia", "tritanopia"]

OKABE_ITO: tuple[tuple[str, Rgb], ...] = (
    ("orange", (0xE6, 0x9F, 0x00)),
    ("sky blue", (0x56, 0xB4, 0xE9)),
    ("bluish green", (0x00, 0x9E, 0x73)),
    ("yellow", (0xF0, 0xE4, 0x42)),
    ("blue", (0x00, 0x72, 0xB2)),
    ("vermillion", (0xD5, 0x5E, 0x00)),
    ("reddish purple", (0xCC, 0x79, 0xA7)),
    ("black", (0x00, 0x00, 0x00)),
)
"""The safe side colours by palette index (Okabe & Ito, *Color Universal Design*, 2008)."""

NAMED_COLOURS: tuple[tuple[tuple[str, ...], Rgb], ...] = (
    (("red", "crimson", "scarlet", "красн", "ал", "багров"), (0xC8, 0x1E, 0x1E)),
    (("blue", "син"), (0x1F, 0x5F, 0xBF)),
    (("sky", "cyan", "azure", "голуб", "лазурн"), (0x56, 0xB4, 0xE9)),
    (("green", "emerald", "зелен", "зелён", "изумрудн"), (0x1B, 0x8A, 0x3C)),
    (("yellow", "gold", "golden", "желт", "жёлт", "золот"), (0xF0, 0xD0, 0x2A)),
    (("orange", "оранжев", "рыж"), (0xE6, 0x8A, 0x00)),
    (("purple", "violet", "фиолетов", "пурпурн", "лилов"), (0x7B, 0x3F, 0xA0)),
    (("pink", "розов"), (0xE8, 0x7B, 0xB0)),
    (("black", "черн", "чёрн"), (0x1A, 0x1A, 0x1A)),
    (("brown", "коричнев", "бур"), (0x8B, 0x55, 0x2B)),
)
"""Colour words (the stems of their English and Russian forms) and the colour each names. White
and grey are not here: no safe colour is near them, so a side called «Белые» takes the next free
safe colour like any other (the wizard says which)."""

DEFICIENCIES: tuple[Deficiency, ...] = ("protanopia", "deuteranopia", "tritanopia")

DISTINCT = 10.0
"""The least CIEDE2000 difference between two sides' colours, as seen with normal vision and
under each simulated deficiency: about the difference between two colours a glance tells apart
(1 is the smallest a trained eye sees side by side)."""

_MACHADO: dict[Deficiency, tuple[tuple[float, float, float], ...]] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
"""Machado et al. (2009), severity 1.0: linear RGB in, linear RGB out."""


def hex_colour(colour: Rgb) -> str:
    """``#rrggbb`` in lower case."""
    return "#{:02x}{:02x}{:02x}".format(*colour)


def parse_hex(value: str) -> Rgb:
    """The colour of ``#rrggbb``."""
    digits = value.lstrip("#")
    return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))


def _linear(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encoded(value: float) -> int:
    c = min(1.0, max(0.0, value))
    c = 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
    return round(c * 255)


def simulate(colour: Rgb, deficiency: Deficiency) -> Rgb:
    """``colour`` as a person with ``deficiency`` sees it."""
    linear = [_linear(v) for v in colour]
    matrix = _MACHADO[deficiency]
    r, g, b = (_encoded(sum(row[i] * linear[i] for i in range(3))) for row in matrix)
    return (r, g, b)


def _lab(colour: Rgb) -> tuple[float, float, float]:
    r, g, b = (_linear(v) for v in colour)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


@cache
def delta_e(first: Rgb, second: Rgb) -> float:
    """The CIEDE2000 difference between two colours (sRGB, D65)."""
    return ciede2000(_lab(first), _lab(second))


def ciede2000(first: tuple[float, float, float], second: tuple[float, float, float]) -> float:
    """The CIEDE2000 difference between two CIELAB colours (Sharma, Wu and Dalal, 2005)."""
    l1, a1, b1 = first
    l2, a2, b2 = second
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360
    h2 = math.degrees(math.atan2(b2, a2)) % 360
    dl, dc = l2 - l1, c2 - c1
    if c1 * c2 == 0:
        dh = 0.0
    elif abs(h2 - h1) <= 180:
        dh = h2 - h1
    else:
        dh = h2 - h1 - 360 if h2 > h1 else h2 - h1 + 360
    big_dh = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    turn = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    rc = 2 * math.sqrt(c_mean**7 / (c_mean**7 + 25**7))
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc = 1 + 0.045 * c_mean
    sh = 1 + 0.015 * c_mean * t
    rt = -math.sin(math.radians(2 * turn)) * rc
    return math.sqrt(
        (dl / sl) ** 2 + (dc / sc) ** 2 + (big_dh / sh) ** 2 + rt * (dc / sc) * (big_dh / sh)
    )


def least_difference(first: Rgb, second: Rgb) -> float:
    """The smallest difference between two colours as seen with normal vision and under each
    simulated deficiency."""
    seen = [delta_e(first, second)]
    seen += [delta_e(simulate(first, d), simulate(second, d)) for d in DEFICIENCIES]
    return min(seen)


def nearest(colour: Rgb, candidates: dict[str, Rgb]) -> str:
    """The key of the candidate colour nearest to ``colour`` (CIEDE2000)."""
    return min(candidates, key=lambda key: (delta_e(colour, candidates[key]), key))


def named_colour(name: str) -> int | None:
    """The palette index of the safe colour nearest to the colour a side's name names
    («Красные», "Blue Legion", "Sons of Red"), if one colour word stands in it; ``None`` for no
    colour word, or two different ones."""
    words = re.findall(r"[^\W\d_]+", name.lower())
    found = {
        colour
        for word in words
        for stems, colour in NAMED_COLOURS
        if any(_names(word, stem) for stem in stems)
    }
    if len(found) != 1:
        return None
    return _nearest_safe(found.pop())


@cache
def _nearest_safe(colour: Rgb) -> int:
    safe = {str(index): rgb for index, (_name, rgb) in enumerate(OKABE_ITO)}
    return int(nearest(colour, safe))


def _names(word: str, stem: str) -> bool:
    """True when ``word`` is the colour word ``stem``: English as it is or plural ("reds"),
    Russian as an adjective in any form («красные», «синих», «алая»)."""
    if stem.isascii():
        return word in (stem, stem + "s")
    return word.startswith(stem) and word[len(stem) :] in _ADJECTIVE_ENDINGS


_ADJECTIVE_ENDINGS = frozenset(
    [
        "ый",
        "ий",
        "ой",
        "ая",
        "яя",
        "ое",
        "ее",
        "ые",
        "ие",
        "ого",
        "его",
        "ому",
        "ему",
        "ым",
        "им",
        "ом",
        "ем",
        "ую",
        "юю",
        "ых",
        "их",
        "ыми",
        "ими",
    ]
)


def choose_colour(name: str, taken: set[int]) -> int:
    """The palette index a new side called ``name`` takes when the sides already there have
    ``taken``: the safe colour its name names when that one is free, else the first free one
    in palette order (past eight, the outlined chips' indexes)."""
    wanted = named_colour(name)
    if wanted is not None and wanted not in taken:
        return wanted
    return next(index for index in range(len(taken) + 1) if index not in taken)


def palette_for(names: list[str]) -> list[int]:
    """Palette indexes for sides called ``names``, chosen together: a side named after a colour
    takes it unless a side before it did, the others the free colours in palette order."""
    chosen: list[int | None] = []
    taken: set[int] = set()
    for name in names:
        wanted = named_colour(name)
        chosen.append(wanted if wanted is not None and wanted not in taken else None)
        if wanted is not None:
            taken.add(wanted)
    taken = {index for index in chosen if index is not None}
    result: list[int] = []
    for wanted in chosen:
        if wanted is None:
            free = next(i for i in range(len(names) + len(taken)) if i not in taken)
            taken.add(free)
            result.append(free)
        else:
            result.append(wanted)
    return result
