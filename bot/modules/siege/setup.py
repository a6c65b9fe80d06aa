"""The GM's siege settings in the setup wizard (MODULES.md S2): switching the module on, tokens
placed by buttons, weather-control sectors, card and reward texts.

Module settings live in the campaign's ruleset overrides (``modules`` and
``module_settings.siege``, as ``python -m rules`` reads them); every change here returns new
overrides that the rules core accepts with the campaign's map
(:func:`bot.services.setup_map.problem`), so a campaign never stores settings its game cannot
be built from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from bot.services import module_settings
from bot.services.setup_map import campaign_map
from rules import CampaignMap
from rules.modules.siege import DEFAULT_WEATHER_STATES, SiegeSettings, Token, start_tokens
from rules.modules.siege import NAME as SIEGE
from storage import Campaign

TOKEN_PREFIX = {"fortification": "F", "occult": "O"}
MAX_TOKENS = 40
MAX_TEXT = 1000
MAX_REWARDS = 30  # the claim screen's buttons carry one digit per item
MAX_VARIANTS = 8
MAX_VARIANT = 200
MAX_STRENGTH = 1000
MAX_WEATHER_NAME = 64
WEATHER_STATES = len(DEFAULT_WEATHER_STATES)
_NUMBERED = re.compile(r"^\d+\s*[.)]\s*")
"""«3. Storm: …»: a list's number before a weather state, left out."""


class SiegeInputError(ValueError):
    """A typed card or reward list that cannot be used; ``line`` is the first bad line (1-based,
    0 for the whole text)."""

    def __init__(self, line: int) -> None:
        super().__init__(f"line {line}")
        self.line = line


def is_on(overrides: dict[str, Any]) -> bool:
    """Whether ``siege`` is enabled in these overrides."""
    return SIEGE in (overrides.get("modules") or ())


def settings(overrides: dict[str, Any]) -> dict[str, Any]:
    """The siege settings as stored (only what differs from the defaults)."""
    return dict((overrides.get("module_settings") or {}).get(SIEGE) or {})


def _with_settings(overrides: Mapping[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    return module_settings.with_settings(overrides, SIEGE, new)


def switched(overrides: Mapping[str, Any], on: bool) -> dict[str, Any]:
    """The overrides with siege switched on or off (its settings kept for switching back)."""
    return module_settings.switched(overrides, SIEGE, on)


def map_tokens(campaign: Campaign) -> list[tuple[str, str, str]]:
    """The map's own tokens: (id, kind, sector)."""
    return [
        (feature.id, feature.kind, feature.sector)
        for feature in campaign_map(campaign).features
        if feature.kind in TOKEN_PREFIX
    ]


def gm_tokens(overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """The GM's tokens as stored: those placed, and those standing in a map token's place."""
    return [dict(token) for token in settings(overrides).get("tokens") or ()]


def placed_tokens(campaign: Campaign) -> list[dict[str, Any]]:
    """The tokens the GM placed (not the map's, even where the GM changed one)."""
    on_map = {token_id for token_id, _kind, _sector in map_tokens(campaign)}
    return [token for token in gm_tokens(campaign.ruleset_overrides) if token["id"] not in on_map]


def start_of(campaign: Campaign) -> tuple[Token, ...]:
    """Every token as it will stand at deployment (the map's, as the GM changed them, then the
    GM's), with its strength and starting holder: what the rules will copy into the state."""
    chosen = SiegeSettings.model_validate(settings(campaign.ruleset_overrides))
    return start_tokens(campaign_map(campaign), chosen)


def _spec(token: Token) -> dict[str, Any]:
    spec = token.model_dump(mode="json", exclude_defaults=True, exclude={"ready", "controller"})
    spec["strength"] = token.strength
    if token.controller is not None:
        spec["owner"] = token.controller
    return spec


def _with_token_changed(campaign: Campaign, token_id: str, **change: Any) -> dict[str, Any] | None:
    """The overrides with token ``token_id`` changed as the rules' ``Token`` fields in
    ``change`` say (``strength``, ``controller``): a GM's token is changed where it is stored; a
    map's token gets a GM's token in its place, dropped again once it says what the map says."""
    found = {token.id: token for token in start_of(campaign)}
    token = found.get(token_id)
    if token is None:
        return None
    changed = token.model_copy(update=change)
    on_map = {map_token for map_token, _kind, _sector in map_tokens(campaign)}
    overrides = campaign.ruleset_overrides
    specs = gm_tokens(overrides)
    if token_id in on_map:
        specs = [spec for spec in specs if spec["id"] != token_id]
        as_drawn = start_tokens(campaign_map(campaign), SiegeSettings())  # no GM's tokens
        if changed != next(t for t in as_drawn if t.id == token_id):
            specs.append(_spec(changed))
    else:
        specs = [_spec(changed) if spec["id"] == token_id else spec for spec in specs]
    new = settings(overrides)
    if specs:
        new["tokens"] = specs
    else:
        new.pop("tokens", None)
    return _with_settings(overrides, new)


def with_strength(campaign: Campaign, token_id: str, strength: int) -> dict[str, Any] | None:
    """The overrides with token ``token_id``'s strength set (1 to :data:`MAX_STRENGTH`);
    ``None`` for a token that is not there or a strength out of range."""
    if not 1 <= strength <= MAX_STRENGTH:
        return None
    return _with_token_changed(campaign, token_id, strength=strength)


def with_holder(campaign: Campaign, token_id: str, side: str | None) -> dict[str, Any] | None:
    """The overrides with occult token ``token_id`` held at the start by ``side`` (its card
    ready at turn 1), or by nobody; ``None`` for a token that is not an occult one there."""
    token = next((t for t in start_of(campaign) if t.id == token_id), None)
    if token is None or token.kind != "occult":
        return None
    return _with_token_changed(campaign, token_id, controller=side)


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


def weather_states(overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """The eight weather states as stored, or the standard ones (wind-rose names, no effects)."""
    stored = settings(overrides).get("weather_states")
    if stored:
        return [dict(state) for state in stored]
    return [
        state.model_dump(mode="json", exclude_defaults=True) for state in DEFAULT_WEATHER_STATES
    ]


def _weather_state(line: str, language: str, current: dict[str, Any]) -> dict[str, Any]:
    """A state typed ``Name: what it does`` (``: what it does`` keeps the name, ``Name`` alone
    has no effect text) in ``language``; raises :class:`SiegeInputError` (line 0)."""
    head, _sep, body = line.partition(":")
    name, text = head.strip(), body.strip()
    if not name:
        name = str(current.get("names", {}).get(language, current.get("name", "")))
    if not name or len(name) > MAX_WEATHER_NAME or len(text) > MAX_TEXT:
        raise SiegeInputError(0)
    state: dict[str, Any] = {"name": name}
    if language != "en":
        state["names"] = {language: name}
    if text:
        state["text"] = text
        if language != "en":
            state["texts"] = {language: text}
    return state


def _with_weather(overrides: dict[str, Any], states: list[dict[str, Any]]) -> dict[str, Any]:
    new = settings(overrides)
    standard = [s.model_dump(mode="json", exclude_defaults=True) for s in DEFAULT_WEATHER_STATES]
    if not states or states == standard:
        new.pop("weather_states", None)
    else:
        new["weather_states"] = states
    return _with_settings(overrides, new)


def with_weather_state(
    overrides: dict[str, Any], index: int, text: str, language: str
) -> dict[str, Any]:
    """The overrides with weather state ``index`` (0-7) as typed: «Name: what it does» in
    ``language``; «-» restores the standard state. Raises :class:`SiegeInputError`."""
    states = weather_states(overrides)
    if not 0 <= index < WEATHER_STATES:
        raise SiegeInputError(0)
    typed = " ".join(text.split())
    if typed in ("-", "—"):
        states[index] = DEFAULT_WEATHER_STATES[index].model_dump(mode="json", exclude_defaults=True)
    else:
        states[index] = _weather_state(typed, language, states[index])
    return _with_weather(overrides, states)


def with_weather_states(overrides: dict[str, Any], text: str, language: str) -> dict[str, Any]:
    """The overrides with all eight weather states typed one a line, clockwise from the first,
    «Name: what it does», in ``language``; «default» restores the standard ones. Raises
    :class:`SiegeInputError` with the first bad line (0: not eight lines)."""
    if text.strip().lower() in ("default", "по умолчанию", "-"):
        return _with_weather(overrides, [])
    lines = _lines(text)
    current = weather_states(overrides)
    states = []
    for number, line in enumerate(lines, start=1):
        if number > WEATHER_STATES:
            raise SiegeInputError(0)
        try:
            typed = _NUMBERED.sub("", " ".join(line.split()))
            states.append(_weather_state(typed, language, current[number - 1]))
        except SiegeInputError as error:
            raise SiegeInputError(number) from error
    if len(states) != WEATHER_STATES:
        raise SiegeInputError(0)
    return _with_weather(overrides, states)


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


def fitted(
    overrides: dict[str, Any], new_map: CampaignMap, sides: Sequence[str] | None = None
) -> dict[str, Any]:
    """The overrides for a campaign whose map becomes ``new_map`` (or whose sides are now
    ``sides``): the GM's tokens and weather-control sectors that are not on it are dropped (a
    placed token with its card; a token changed in a map token's place keeps the card when the
    new map has that token), and a starting holder no longer among the sides holds nothing, so
    the siege settings always fit the map and the sides."""
    sectors = set(new_map.sector_ids())
    features = {feature.id: feature for feature in new_map.features}
    result = overrides
    for token in gm_tokens(overrides):
        feature = features.get(token["id"])
        if feature is not None and feature.kind in TOKEN_PREFIX:
            if (feature.kind, feature.sector) != (token["kind"], token["sector"]):
                result = _without_spec(result, token["id"])
        elif token["sector"] not in sectors or feature is not None:
            result = without_token(result, token["id"])
    if sides is not None:
        specs = [
            {key: value for key, value in spec.items() if key != "owner"}
            if spec.get("owner") is not None and spec["owner"] not in sides
            else spec
            for spec in gm_tokens(result)
        ]
        if specs != gm_tokens(result):
            new = settings(result)
            new["tokens"] = specs
            result = _with_settings(result, new)
    new = settings(result)
    if new.get("weather_control") is not None:
        new["weather_control"] = [s for s in new["weather_control"] if s in sectors]
        result = _with_settings(result, new)
    return result


def _without_spec(overrides: dict[str, Any], token_id: str) -> dict[str, Any]:
    """The overrides without the GM's token ``token_id`` (its card kept)."""
    new = settings(overrides)
    kept = [token for token in gm_tokens(overrides) if token["id"] != token_id]
    if kept:
        new["tokens"] = kept
    else:
        new.pop("tokens", None)
    return _with_settings(overrides, new)
