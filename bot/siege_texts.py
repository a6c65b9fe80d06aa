"""The Midnight Siege in words (MODULES.md S): its orders as typed orders read them back
(``bot.order_text``), and why the rules refuse one, with what to do instead."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from rules import CampaignMap, ModuleOrder


def _sector(campaign_map: CampaignMap, sector: str, language: str) -> str:
    found = campaign_map.by_id.get(sector)
    return sector if found is None else f"{sector} {found.display_name(language)}"


def _text(data: Mapping[str, JsonValue], key: str) -> str:
    value = data.get(key)
    return "" if value is None else str(value)


def describe_siege_order(order: ModuleOrder, campaign_map: CampaignMap, language: str) -> str:
    """A siege order in words that read back as it (``штурм F1 в 2 Запад за ПО``)."""
    data = order.data
    token = _text(data, "token")
    match data.get("order"):
        case "assault":
            sector = _sector(campaign_map, _text(data, "sector"), language)
            if data.get("reward") == "weather":
                return _("assault {token} in {sector} for weather").format(
                    token=token, sector=sector
                )
            return _("assault {token} in {sector} for VP").format(token=token, sector=sector)
        case "guard":
            return _("guard {token} from {sector}").format(
                token=token, sector=_sector(campaign_map, _text(data, "from"), language)
            )
        case "steer":
            return _("steer weather from {sector}").format(
                sector=_sector(campaign_map, _text(data, "sector"), language)
            )
        case "play_card" if data.get("window") == "after":
            return _("play card {token} after battles").format(token=token)
        case "play_card":
            return _("play card {token} before battles").format(token=token)
    return _("{module} order").format(module=order.module)


def _window(value: str) -> str:
    return _("after the battles") if value == "after" else _("before the battles")


_REASONS: dict[str, Callable[[], str]] = {
    "bad_order": lambda: _("That siege order cannot be read; use the buttons of /orders."),
    "not_a_stormer": lambda: _("Your side does not storm in this siege: it cannot assault."),
    "not_a_defender": lambda: _("Your side does not defend in this siege: it cannot guard."),
    "unknown_token": lambda: _("There is no token {token} on the map."),
    "token_not_in_sector": lambda: _(
        "Token {token} stands in {token_sector}, not in {sector}: assault it from there."
    ),
    "own_token": lambda: _("Your side holds {token} already; assault a token of another side."),
    "no_force": lambda: _("You had no armies in {sector} at the start of the turn."),
    "sector_has_order": lambda: _(
        "{sector} already has its order this turn; fortify it first to change it."
    ),
    "bad_reward": lambda: _("An occult token gives control, not weather: assault {token} for VP."),
    "out_of_range": lambda: _(
        "{from} is {distance} sectors from {token}; guards reach {range} at most."
    ),
    "guard_from_moving": lambda: _(
        "Armies move out of {from}: a sector that moves cannot guard {token}."
    ),
    "guard_from_steering": lambda: _(
        "{from} steers the weather: a sector that steers cannot guard {token}."
    ),
    "second_guard": lambda: _("Your side guards {token} already: one guard per token."),
    "guard_own_assault": lambda: _("Your side assaults {token}: it cannot guard it too."),
    "not_weather_control": lambda: _(
        "The weather is steered only from the weather-control sectors; {sector} is not one."
    ),
    "steer_limit": lambda: _("The weather moves at most {limit} steps a turn."),
    "not_your_card": lambda: _("Only the side holding the occult token {token} plays its card."),
    "card_tapped": lambda: _("The card of {token} is tapped: it is ready again next turn."),
    "second_card_in_window": lambda: _(
        "Your side plays {token} {window} already: one card per window."
    ),
    "wrong_window": lambda: _("Now only cards {window} can be played."),
}


def describe_siege_rejection(
    params: Mapping[str, str | int], campaign_map: CampaignMap, language: str
) -> str:
    """Why siege refused an order, from its ``params`` (``rule`` and what it names)."""
    rule = str(params.get("rule", ""))
    words = {key: str(value) for key, value in params.items()}
    for key in ("sector", "token_sector", "from"):
        if key in words:
            words[key] = _sector(campaign_map, words[key], language)
    if "window" in words:
        words["window"] = _window(words["window"])
    reason = _REASONS.get(rule)
    if reason is None:
        return _("This order is not part of this campaign's rules.")
    try:
        return reason().format(**words)
    except (KeyError, IndexError):
        return _("This order is not part of this campaign's rules.")
