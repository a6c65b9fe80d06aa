"""A sector as players read it, for every text layer (the core's and the rule modules')."""

from __future__ import annotations

import re

from rules import CampaignMap
from rules.maps import Sector

_POSSESSIVE = re.compile(r"['’]s$")
_NOT_LETTERS = re.compile(r"[\W_]+")


def sector_label(campaign_map: CampaignMap, sector: str, language: str) -> str:
    """ "2 West", in Russian «2 «Запад»»: a sector's id and name, as players see it on the map
    (quoted in Russian, where the name stays in the nominative after «в секторе»). The id is
    left out only when it adds nothing (:func:`id_adds_nothing`: night-demo's ``metro`` is
    "Metro", «Метро»); otherwise it stays, as players may type it ("a Apartment")."""
    found = campaign_map.by_id.get(sector)
    if found is None:
        return sector
    name = found.display_name(language)
    if id_adds_nothing(campaign_map, found, language):
        return f"«{name}»" if language == "ru" else name
    return f"{sector} «{name}»" if language == "ru" else f"{sector} {name}"


def id_adds_nothing(campaign_map: CampaignMap, sector: Sector, language: str) -> bool:
    """Whether ``sector``'s id may be left out of its label in ``language``: the id is a word
    that says the sector's name (in any of its languages) or one of its words, possessive aside
    (``metro``/Metro, ``apartment``/Egor's Apartment, ``hairdresser``/Hairdresser's), and no
    other sector of the map has the same name in ``language`` (else the id tells them apart).
    A letter id such as ``a`` of "Apartment" only begins a word, so it stays."""
    if not is_word(sector.id):
        return False
    typed = _letters(sector.id)
    said = any(
        typed == _letters(name) or typed in {_letters(_POSSESSIVE.sub("", w)) for w in name.split()}
        for name in (sector.name, *sector.names.values())
    )
    if not said:
        return False
    own = sector.display_name(language).casefold()
    return sum(s.display_name(language).casefold() == own for s in campaign_map.sectors) == 1


def _letters(words: str) -> str:
    return _NOT_LETTERS.sub("", words.casefold())


def is_word(sector: str) -> bool:
    """Whether a sector id is a word (letters, maybe joined by ``-`` or ``_``), not a number
    or a code with digits such as ``2`` or ``n3``."""
    return sector.replace("-", "").replace("_", "").isalpha()
