"""The campaign's map, for every module's settings and for the turns (:func:`campaign_map`):
which map it is, the side a feature's ``owner`` names, and whether the rules core builds a game
from the map with the settings the GM chose (:func:`problem`, with the rule modules registered
when it is called), so a campaign never stores settings its game cannot be built from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import rules.modules
from bot.modules import BOT_MODULES
from bot.texts.orders import normalise
from rules import CampaignMap, Game, MapError, Ruleset, builtin_map, overrides_in_force
from rules.game import ModuleConflictError, ModuleSettingsError, UnknownModuleError
from rules.maps import Feature
from storage import Campaign


def campaign_map(campaign: Campaign) -> CampaignMap:
    """The campaign's map, built-in or its own."""
    return builtin_map(campaign.map) if isinstance(campaign.map, str) else campaign.map


def holder_of(owner: str | None, sides: Sequence[tuple[str, str]]) -> str | None:
    """The side a map's ``owner`` names: by its id, else by its name (case, «ё» and quotes
    aside), since a map's author knows the sides' names, not the ids the bot gives them."""
    if owner is None:
        return None
    for side_id, _name in sides:
        if owner == side_id:
            return side_id
    wanted = normalise(owner)
    found = [side_id for side_id, name in sides if normalise(name) == wanted]
    return found[0] if len(found) == 1 else None


def owners_by_id(
    campaign: Campaign, sides: Sequence[tuple[str, str]]
) -> tuple[CampaignMap | None, list[Feature]]:
    """The campaign's own map with every feature's ``owner`` that names a side by its name
    written as the side's id (``None`` when nothing changes), and the features whose owner an
    enabled module reads (``wizard_reads_owner``: occult tokens, defences) but names no side."""
    if isinstance(campaign.map, str):
        return None, []
    overrides: dict[str, Any] = campaign.ruleset_overrides
    features: list[Feature] = []
    unknown: list[Feature] = []
    for feature in campaign.map.features:
        side = holder_of(feature.owner, sides)
        read = any(module.wizard_reads_owner(overrides, feature) for module in BOT_MODULES.values())
        if feature.owner is not None and side is None and read:
            unknown.append(feature)
        renamed = side is not None and side != feature.owner
        features.append(feature.model_copy(update={"owner": side}) if renamed else feature)
    if tuple(features) == campaign.map.features:
        return None, unknown
    return campaign.map.model_copy(update={"features": tuple(features)}), unknown


def problem(campaign: Campaign, overrides: dict[str, Any]) -> str | None:
    """Why the rules core refuses ``overrides`` with the campaign's map (English detail, for
    the log and a GM's note), or ``None`` if a game can be built."""
    try:
        ruleset = Ruleset.with_overrides(overrides_in_force(overrides))
        Game.create(campaign_map(campaign), ruleset, rules.modules.BUILTIN_MODULES)
    except MapError as error:
        return str(error)
    except (ModuleSettingsError, ModuleConflictError, UnknownModuleError, ValueError) as error:
        return str(error)
    return None
