"""The page's own words (buttons, headings), from the bot's gettext catalogs: the API sends
them in the person's language with their first request, so the page has no catalog of its own."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _


def page_words() -> dict[str, str]:
    """Every fixed text the page shows, by the key ``app.js`` uses."""
    return {
        "choose": _("Choose a campaign"),
        "none": _("You are not in a campaign yet. Join one from its group chat with /join."),
        "map": _("Map"),
        "orders": _("Orders"),
        "board": _("Board"),
        "battles": _("Battles"),
        "deadline": _("Deadline"),
        "left": _("left"),
        "passed": _("the deadline has passed"),
        "tap": _("Tap one of your sectors on the map to give it an order."),
        "move": _("Move"),
        "attack": _("Attack"),
        "withdraw": _("Withdraw this sector's order"),
        "reinforce": _("Reinforce here"),
        "ready": _("Ready: confirm these orders"),
        "unready": _("Back to draft"),
        "no_orders": _("No orders yet: every sector fortifies."),
        "view_only": _("Only your side's strategists give orders; you see them here."),
        "no_list": _("The battle list is not out yet."),
        "list_at": _("The battle list is out at {moment}."),
        "report": _("Report the result"),
        "choose_outcome": _("How did it end? Choose…"),
        "zoom_in": _("Zoom in"),
        "zoom_out": _("Zoom out"),
        "close": _("Close"),
        "reload": _("Reload"),
        "no_map": _("The map appears once the campaign has begun."),
        "offline": _("No connection to the bot: try again in a moment."),
    }
