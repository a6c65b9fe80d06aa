"""A sector as players read it, for every text layer (the core's and the rule modules')."""

from __future__ import annotations

from rules import CampaignMap


def sector_label(campaign_map: CampaignMap, sector: str, language: str) -> str:
    """ "2 West", in Russian «2 «Запад»»: a sector's id and name, as players see it on the map
    (quoted in Russian, where the name stays in the nominative after «в секторе»). A sector
    whose id is a word (night-demo's ``metro``) is called by its name alone: "Metro",
    «Метро»; the id adds nothing a player reads, and it is not in the players' language."""
    found = campaign_map.by_id.get(sector)
    if found is None:
        return sector
    name = found.display_name(language)
    if is_word(sector):
        return f"«{name}»" if language == "ru" else name
    return f"{sector} «{name}»" if language == "ru" else f"{sector} {name}"


def is_word(sector: str) -> bool:
    """Whether a sector id is a word (letters, maybe joined by ``-`` or ``_``), not a number
    or a code with digits such as ``2`` or ``n3``."""
    return sector.replace("-", "").replace("_", "").isalpha()
