"""Contact in words (MODULES.md C): its orders as typed orders read them back
(``bot.order_text``), and why the rules refuse one, with what to do instead."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from rules import CampaignMap, ModuleOrder


def _sector(campaign_map: CampaignMap, sector: str, language: str) -> str:
    found = campaign_map.by_id.get(sector)
    return sector if found is None else f"{sector} {found.display_name(language)}"


def _sectors(data: Mapping[str, JsonValue], key: str) -> list[str]:
    value = data.get(key)
    return [str(item) for item in value] if isinstance(value, list) else []


def _number(data: Mapping[str, JsonValue], key: str) -> int:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def describe_path(path: list[str], campaign_map: CampaignMap, language: str) -> str:
    """Sectors a transport passes, joined by the word for "via" (``2 West via 3 East``)."""
    joiner = " " + _("via") + " "
    return joiner.join(_sector(campaign_map, sector, language) for sector in path)


def describe_contact_order(order: ModuleOrder, campaign_map: CampaignMap, language: str) -> str:
    """A contact order in words that read back as it (``перевезти 3 армии из 1 Экватор через
    2 Запад в 4 Северный полюс``, ``уступить 2 Запад``, ``отступление из 2 Запад в 1 Экватор,
    затем 3 Восток``)."""
    data = order.data
    match data.get("order"):
        case "transport":
            path = _sectors(data, "path")
            count = _number(data, "count")
            source = _sector(campaign_map, str(data.get("from", "")), language)
            to = _sector(campaign_map, path[-1], language) if path else ""
            if len(path) > 1:
                return _(
                    "transport {n} army from {source} via {via} to {to}",
                    "transport {n} armies from {source} via {via} to {to}",
                    count,
                ).format(
                    n=count,
                    source=source,
                    via=describe_path(path[:-1], campaign_map, language),
                    to=to,
                )
            return _(
                "transport {n} army from {source} to {to}",
                "transport {n} armies from {source} to {to}",
                count,
            ).format(n=count, source=source, to=to)
        case "yield":
            return _("yield {sector}").format(
                sector=_sector(campaign_map, str(data.get("sector", "")), language)
            )
        case "retreat_to":
            joiner = ", " + _("then") + " "
            return _("retreat from {sector} to {to}").format(
                sector=_sector(campaign_map, str(data.get("sector", "")), language),
                to=joiner.join(
                    _sector(campaign_map, sector, language) for sector in _sectors(data, "to")
                ),
            )
    return _("{module} order").format(module=order.module)


_REASONS: dict[str, Callable[[], str]] = {
    "bad_order": lambda: _("That contact order cannot be read; use the buttons of /orders."),
    "unknown_sector": lambda: _("There is no sector {sector} on the map."),
    "no_force": lambda: _("You had no armies in {sector} at the start of the turn."),
    "bound_by_combat": lambda: _(
        "Another side's armies stand in {sector}: your armies there are bound by combat and "
        "cannot leave. Fortify or attack there instead."
    ),
    "path_not_adjacent": lambda: _(
        "{to} is not next to {sector}: a transport goes from sector to neighbouring sector."
    ),
    "path_too_long": lambda: _(
        "A transport goes at most {range} sectors, not {length}: choose a shorter path."
    ),
    "transport_limit": lambda: _(
        "Your side has used its transports this turn ({limit}): take one back to give another."
    ),
    "over_capacity": lambda: _(
        "A transport carries at most {capacity} armies, not {count}: send fewer, or the rest "
        "as a move."
    ),
    "exhausted_transport": lambda: _(
        "Only {fresh} of your armies in {sector} are fresh: exhausted armies move one sector "
        "only, so they cannot be transported."
    ),
    "move_count_out_of_range": lambda: _(
        "From {sector} you can send {min} to {max} armies in all: one army stays."
    ),
    "move_and_attack_in_sector": lambda: _(
        "{sector} has attacks and a transport: give one or the other (fortify {sector} to "
        "clear its attacks)."
    ),
    "sector_has_order": lambda: _(
        "{sector} already has another module's order this turn; fortify it first."
    ),
    "second_yield": lambda: _("You yield {sector} already."),
    "retreat_not_adjacent": lambda: _(
        "{to} is not next to {sector}: armies retreat to a neighbouring sector."
    ),
    "retreat_repeated": lambda: _("{to} is named twice: name each sector once."),
    "second_retreat_to": lambda: _(
        "Retreats from {sector} already have a choice this turn: take it back to give another."
    ),
}


def describe_contact_rejection(
    params: Mapping[str, str | int], campaign_map: CampaignMap, language: str
) -> str:
    """Why contact refused an order, from its ``params`` (``rule`` and what it names)."""
    rule = str(params.get("rule", ""))
    words = {key: str(value) for key, value in params.items()}
    for key in ("sector", "to"):
        if key in words:
            words[key] = _sector(campaign_map, words[key], language)
    reason = _REASONS.get(rule)
    if reason is None:
        return _("This order is not part of this campaign's rules.")
    try:
        return reason().format(**words)
    except (KeyError, IndexError):
        return _("This order is not part of this campaign's rules.")
