"""The GM's contact settings in the setup wizard (MODULES.md C1-C2): switching the module on,
the defences of each sector (none, a barricade or a blockpost, neutral or a side's: the
sector is then that side's ground), the transports a turn and the VP that win.

Settings live in the campaign's ruleset overrides (``modules`` and ``module_settings.contact``)
as every module's do; :func:`bot.services.setup_map.problem` checks them against the map, so a
campaign never stores settings its game cannot be built from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.services import module_settings
from bot.services.setup_map import campaign_map
from rules import CampaignMap
from rules.modules.contact import NAME as CONTACT
from rules.modules.contact import ContactSettings
from rules.modules.contact.settings import DEFENCES_KIND
from storage import Campaign

VP_STEP = 5
"""How much the big + press adds to the VP that win (the others: one)."""
MAX_VP_TO_WIN = 100


def is_on(overrides: dict[str, Any]) -> bool:
    """Whether ``contact`` is enabled in these overrides."""
    return CONTACT in (overrides.get("modules") or ())


def settings(overrides: dict[str, Any]) -> dict[str, Any]:
    """The contact settings as stored (only what differs from the defaults)."""
    return dict((overrides.get("module_settings") or {}).get(CONTACT) or {})


def effective(overrides: dict[str, Any]) -> ContactSettings:
    """The contact settings in force (defaults filled in)."""
    return ContactSettings.model_validate(settings(overrides))


def _with_settings(overrides: Mapping[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    return module_settings.with_settings(overrides, CONTACT, new)


def switched(overrides: Mapping[str, Any], on: bool) -> dict[str, Any]:
    """The overrides with contact switched on or off (its settings kept for switching back)."""
    return module_settings.switched(overrides, CONTACT, on)


def defences(campaign: Campaign) -> dict[str, tuple[int, str | None]]:
    """Each sector's defences at the start, ``sector -> (level, owner)`` (level 1 barricade,
    2 blockpost; owner ``None`` neutral); sectors without defences are left out."""
    found: dict[str, tuple[int, str | None]] = {
        feature.sector: (2 if feature.level == 2 else 1, feature.owner)
        for feature in campaign_map(campaign).features_of(DEFENCES_KIND)
    }
    for spec in effective(campaign.ruleset_overrides).defences:
        if spec.level == 0:
            found.pop(spec.sector, None)
        else:
            found[spec.sector] = (spec.level, spec.owner)
    return found


def _with_defences(
    campaign: Campaign, sector: str, level: int, owner: str | None
) -> dict[str, Any]:
    overrides = campaign.ruleset_overrides
    new = settings(overrides)
    specs = [dict(spec) for spec in new.get("defences") or () if spec.get("sector") != sector]
    from_map = {
        feature.sector: (2 if feature.level == 2 else 1, feature.owner)
        for feature in campaign_map(campaign).features_of(DEFENCES_KIND)
    }
    wanted = (level, owner) if level else None
    if from_map.get(sector) != wanted:
        spec: dict[str, Any] = {"sector": sector, "level": level}
        if level and owner is not None:
            spec["owner"] = owner
        specs.append(spec)
    if specs:
        new["defences"] = specs
    else:
        new.pop("defences", None)
    return _with_settings(overrides, new)


def next_level(campaign: Campaign, sector: str) -> dict[str, Any]:
    """The overrides with ``sector``'s defences one step on: none -> barricade -> blockpost ->
    none (the owner kept)."""
    level, owner = defences(campaign).get(sector, (0, None))
    return _with_defences(campaign, sector, (level + 1) % 3, owner)


def with_owner(campaign: Campaign, sector: str, owner: str | None) -> dict[str, Any] | None:
    """The overrides with ``sector``'s defences owned by ``owner`` (``None``: neutral);
    ``None`` where the sector has no defences."""
    level, _owner = defences(campaign).get(sector, (0, None))
    if not level:
        return None
    return _with_defences(campaign, sector, level, owner)


def with_vp_to_win(overrides: dict[str, Any], change: int) -> dict[str, Any]:
    """The overrides with the VP that win changed by ``change`` (0 or less: off)."""
    now = effective(overrides).vp_to_win or 0
    wanted = max(0, min(MAX_VP_TO_WIN, now + change))
    new = settings(overrides)
    if wanted:
        new["vp_to_win"] = wanted
    else:
        new.pop("vp_to_win", None)
    return _with_settings(overrides, new)


def with_transports(overrides: dict[str, Any], change: int) -> dict[str, Any]:
    """The overrides with the transports a side has each turn changed by ``change`` (0 to 3)."""
    default = ContactSettings().transports_per_turn
    wanted = max(0, min(3, effective(overrides).transports_per_turn + change))
    new = settings(overrides)
    if wanted == default:
        new.pop("transports_per_turn", None)
    else:
        new["transports_per_turn"] = wanted
    return _with_settings(overrides, new)


def fitted(overrides: dict[str, Any], new_map: CampaignMap, sides: Sequence[str]) -> dict[str, Any]:
    """The overrides for a campaign whose map becomes ``new_map`` or whose sides are ``sides``:
    the GM's defences in sectors not on it are dropped, and those owned by a side that is gone
    become neutral, so the contact settings always fit."""
    new = settings(overrides)
    if not new.get("defences"):
        return overrides
    sectors = set(new_map.sector_ids())
    kept: list[dict[str, Any]] = []
    for spec in new["defences"]:
        if spec.get("sector") not in sectors:
            continue
        gone = spec.get("owner") is not None and spec["owner"] not in sides
        kept.append({key: value for key, value in spec.items() if not gone or key != "owner"})
    if kept:
        new["defences"] = kept
    else:
        new.pop("defences", None)
    return _with_settings(overrides, new)
