"""A sector as players read it, for every text layer (the core's and the rule modules')."""

from __future__ import annotations

from rules import CampaignMap


def sector_label(campaign_map: CampaignMap, sector: str, language: str) -> str:
    """ "2 West", in Russian «2 «Запад»»: a sector's id and name, as players see it on the map
    (quoted in Russian, where the name stays in the nominative after «в секторе»)."""
    found = campaign_map.by_id.get(sector)
    if found is None:
        return sector
    name = found.display_name(language)
    return f"{sector} «{name}»" if language == "ru" else f"{sector} {name}"
