"""The GM's siege settings in the setup wizard (MODULES.md S2): switching the module on, tokens
placed by buttons, weather-control sectors, card and reward texts.

Module settings live in the campaign's ruleset overrides (``modules`` and
``module_settings.siege``, as ``python -m rules`` reads them); every change here returns new
overrides that the rules core accepts with the campaign's map (:func:`problem`), so a campaign
never stores settings its game cannot be built from.
"""

from __future__ import annotations

from typing import Any

from rules import CampaignMap, Game, MapError, Ruleset, builtin_map, overrides_in_force
from rules.game import ModuleConflictError, ModuleSettingsError, UnknownModuleError
from rules.modules import BUILTIN_MODULES
from rules.modules.siege import NAME as SIEGE
from storage import Campaign

TOKEN_PREFIX = {"fortification": "F", "occult": "O"}
MAX_TOKENS = 40
MAX_TEXT = 1000
MAX_REWARDS = 30  # the claim screen's buttons carry one digit per item
MAX_VARIANTS = 8
MAX_VARIANT = 200


class SiegeInputError(ValueError):
    """A typed card or reward list that cannot be used; ``line`` is the first bad line (1-based,
    0 for the whole text)."""

    def __init__(self, line: int) -> None:
        super().__init__(f"line {line}")
        self.line = line


def campaign_map(campaign: Campaign) -> CampaignMap:
    """The campaign's map, built-in or its own."""
    return builtin_map(campaign.map) if isinstance(campaign.map, str) else campaign.map


def is_on(overrides: dict[str, Any]) -> bool:
    """Whether ``siege`` is enabled in these overrides."""
    return SIEGE in (overrides.get("modules") or ())


def settings(overrides: dict[str, Any]) -> dict[str, Any]:
    """The siege settings as stored (only what differs from the defaults)."""
    return dict((overrides.get("module_settings") or {}).get(SIEGE) or {})


def _with_settings(overrides: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    result = dict(overrides)
    module_settings = dict(result.get("module_settings") or {})
    if new:
        module_settings[SIEGE] = new
    else:
        module_settings.pop(SIEGE, None)
    if module_settings:
        result["module_settings"] = module_settings
    else:
        result.pop("module_settings", None)
    return result


def switched(overrides: dict[str, Any], on: bool) -> dict[str, Any]:
    """The overrides with siege switched on or off (its settings kept for switching back)."""
    result = dict(overrides)
    modules = [name for name in result.get("modules") or () if name != SIEGE]
    if on:
        modules.append(SIEGE)
    if modules:
        result["modules"] = modules
    else:
        result.pop("modules", None)
    return result


def map_tokens(campaign: Campaign) -> list[tuple[str, str, str]]:
    """The map's own tokens: (id, kind, sector)."""
    return [
        (feature.id, feature.kind, feature.sector)
        for feature in campaign_map(campaign).features
        if feature.kind in TOKEN_PREFIX
    ]


def gm_tokens(overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """The tokens the GM placed, as stored."""
    return [dict(token) for token in settings(overrides).get("tokens") or ()]


def with_token(campaign: Campaign, kind: str, sector: str) -> dict[str, Any]:
    """The overrides with a new ``kind`` token in ``sector``, named by the next free id (F1,
    F2 … for fortifications, O1 … for occult tokens)."""
    overrides = campaign.ruleset_overrides
    taken = {token["id"] for token in gm_tokens(overrides)} | {
        token_id for token_id, _kind, _sector in map_tokens(campaign)
    }
    number = 1
    while f"{TOKEN_PREFIX[kind]}{number}" in taken:
        number += 1
    new = settings(overrides)
    new["tokens"] = [
        *gm_tokens(overrides),
        {"id": f"{TOKEN_PREFIX[kind]}{number}", "kind": kind, "sector": sector},
    ]
    return _with_settings(overrides, new)


def without_token(overrides: dict[str, Any], token_id: str) -> dict[str, Any]:
    """The overrides without the GM's token ``token_id`` (and its card)."""
    new = settings(overrides)
    kept = [token for token in gm_tokens(overrides) if token["id"] != token_id]
    if kept:
        new["tokens"] = kept
    else:
        new.pop("tokens", None)
    cards = {k: v for k, v in (new.get("cards") or {}).items() if k != token_id}
    if cards:
        new["cards"] = cards
    else:
        new.pop("cards", None)
    return _with_settings(overrides, new)


def weather_control(campaign: Campaign) -> tuple[str, ...]:
    """The sectors whose holders steer the weather: the GM's list, else the map's tags."""
    chosen = settings(campaign.ruleset_overrides).get("weather_control")
    if chosen is not None:
        return tuple(chosen)
    return tuple(
        sector.id for sector in campaign_map(campaign).sectors if "weather_control" in sector.tags
    )


def with_weather_control(campaign: Campaign, sector: str) -> dict[str, Any]:
    """The overrides with ``sector`` added to the weather-control sectors, or taken out."""
    current = list(weather_control(campaign))
    chosen = [s for s in current if s != sector] if sector in current else [*current, sector]
    new = settings(campaign.ruleset_overrides)
    new["weather_control"] = chosen
    return _with_settings(campaign.ruleset_overrides, new)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def with_cards(overrides: dict[str, Any], text: str, language: str) -> dict[str, Any]:
    """Card texts typed one a line, ``O1: text`` (``O1 weather: text`` for a card whose effect
    is one weather step, carried out by the bot), in ``language``; ``-`` clears them. Raises
    :class:`SiegeInputError`."""
    new = settings(overrides)
    if text.strip() in ("-", "—"):
        new.pop("cards", None)
        return _with_settings(overrides, new)
    cards: dict[str, Any] = {}
    for number, line in enumerate(_lines(text), start=1):
        head, sep, body = line.partition(":")
        words = head.split()
        if not sep or not body.strip() or not 1 <= len(words) <= 2 or len(body) > MAX_TEXT:
            raise SiegeInputError(number)
        effect = None
        if len(words) == 2:
            if words[1].lower() not in ("weather", "погода"):
                raise SiegeInputError(number)
            effect = "weather_step"
        card: dict[str, Any] = {"text": body.strip()}
        if language != "en":
            card = {"text": body.strip(), "texts": {language: body.strip()}}
        if effect is not None:
            card["effect"] = effect
        cards[words[0]] = card
    if not cards:
        raise SiegeInputError(0)
    new["cards"] = cards
    return _with_settings(overrides, new)


def with_rewards(overrides: dict[str, Any], text: str, language: str) -> dict[str, Any]:
    """The reward price list typed one item a line, ``price text`` (prices 1 to 1000), in
    ``language``, with ``| variant | variant`` after the text for an item the GM chooses after
    the claim; ``default`` restores the seed's list. Raises :class:`SiegeInputError`."""
    new = settings(overrides)
    if text.strip().lower() in ("default", "по умолчанию", "-"):
        new.pop("rewards", None)
        return _with_settings(overrides, new)
    rewards: list[dict[str, Any]] = []
    for number, line in enumerate(_lines(text), start=1):
        price, _sep, rest = line.partition(" ")
        body, *variants = (part.strip() for part in rest.split("|"))
        if not price.isdigit() or not 1 <= int(price) <= 1000 or not body:
            raise SiegeInputError(number)
        if len(body) > MAX_TEXT or number > MAX_REWARDS:
            raise SiegeInputError(number)
        if len(variants) > MAX_VARIANTS or not all(0 < len(v) <= MAX_VARIANT for v in variants):
            raise SiegeInputError(number)
        item: dict[str, Any] = {"id": f"r{number}", "price": int(price), "text": body}
        if language != "en":
            item["texts"] = {language: body}
        if variants:
            item["variants"] = [
                {"text": v, **({"texts": {language: v}} if language != "en" else {})}
                for v in variants
            ]
        rewards.append(item)
    if not rewards:
        raise SiegeInputError(0)
    new["rewards"] = rewards
    return _with_settings(overrides, new)


def fitted(overrides: dict[str, Any], new_map: CampaignMap) -> dict[str, Any]:
    """The overrides for a campaign whose map becomes ``new_map``: the GM's tokens and
    weather-control sectors that are not on it are dropped (with their cards), so the siege
    settings always fit the map."""
    sectors = set(new_map.sector_ids())
    taken = {feature.id for feature in new_map.features}
    result = overrides
    for token in gm_tokens(overrides):
        if token["sector"] not in sectors or token["id"] in taken:
            result = without_token(result, token["id"])
    new = settings(result)
    if new.get("weather_control") is not None:
        new["weather_control"] = [s for s in new["weather_control"] if s in sectors]
        result = _with_settings(result, new)
    return result


def problem(campaign: Campaign, overrides: dict[str, Any]) -> str | None:
    """Why the rules core refuses ``overrides`` with the campaign's map (English detail, for
    the log and a GM's note), or ``None`` if a game can be built."""
    try:
        ruleset = Ruleset.with_overrides(overrides_in_force(overrides))
        Game.create(campaign_map(campaign), ruleset, BUILTIN_MODULES)
    except MapError as error:
        return str(error)
    except (ModuleSettingsError, ModuleConflictError, UnknownModuleError, ValueError) as error:
        return str(error)
    return None
