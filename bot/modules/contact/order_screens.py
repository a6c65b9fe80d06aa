"""Contact's part of the orders desk (``bot.handlers.private.orders``): its button on the home
screen, the groups' screen (the side's groups in the order they move, its yields and its
retreat preferences), the transport and retreat screens, the orders and list changes its
buttons give, and its groups on a sector's screen and button."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot.handlers.private.callbacks import OrdersButton
from bot.handlers.private.screens import button, button_rows, language, orders_button
from bot.modules.contact import orders as contact_orders
from bot.modules.contact.orders import (
    groups,
    is_on,
    is_transport,
    kind_of,
    shifted,
    standing_retreats,
    with_groups,
    without_group,
)
from bot.modules.protocol import DeskPress, Screen
from bot.services.orders import Desk
from bot.texts.core import describe_order
from bot.texts.sectors import sector_label
from rules import ModuleOrder, Move, Order, SideOrders
from rules.legal import legal_orders
from rules.modules import contact
from rules.modules.contact import NAME as CONTACT

Names = Mapping[str, str]


CONTACT_EDITS = ("cu", "cd", "cx", "cy")
"""Contact buttons that rewrite the list: group ``arg`` up, down or taken back, the yield of
``sector`` taken back (``to``: the set's edit count the screen showed)."""
CONTACT_GIVES = ("tg", "cg", "cn", "cw", "cy")
"""Contact buttons that give an order: transport from ``sector`` along path ``to`` with ``arg``
armies; retreat preference from ``sector`` to sector ``to``, «then» sector ``to`` added to it,
its last sector taken back (``arg``: the set's edit count the screen showed); yield
``sector``."""
MAX_RETREAT_STEPS = 10
"""The most sectors a retreat preference names (the rules' limit)."""


def transport_paths(desk: Desk, sector: str) -> list[tuple[list[str], list[int]]]:
    """The transports ``sector`` may send now: each path with its possible counts, as the
    rules list them."""
    found: dict[tuple[str, ...], list[int]] = {}
    for order in desk.listing().modules.get(CONTACT, ()):
        if contact_orders.kind_of(order) != "transport" or order.sector != sector:
            continue
        path, count = order.data.get("path"), order.data.get("count")
        if isinstance(path, list) and isinstance(count, int):
            found.setdefault(tuple(str(step) for step in path), []).append(count)
    return [(list(path), sorted(counts)) for path, counts in found.items()]


def retreat_choices(desk: Desk, sector: str) -> list[str]:
    """The neighbours of ``sector`` a retreat preference may name (as the rules list them; this
    turn's preference for ``sector`` aside, as a new one replaces it)."""
    orders = contact_orders.without_retreat(desk.orders, sector)
    listing = (
        desk.listing()
        if orders == desk.orders
        else legal_orders(desk.game, desk.state, desk.side, orders)
    )
    found: list[str] = []
    for order in listing.modules.get(CONTACT, ()):
        to = order.data.get("to")
        if (
            contact_orders.kind_of(order) == "retreat_to"
            and order.sector == sector
            and isinstance(to, list)
            and to
        ):
            found.append(str(to[0]))
    return found


def _group_end(group: Move | ModuleOrder) -> str:
    """Where a group is heading: a move's destination, a transport's last sector."""
    if isinstance(group, Move):
        return group.to
    path = group.data.get("path")
    return str(path[-1]) if isinstance(path, list) and path else "?"


RETREATS_A_PAGE = 8
"""Retreat-preference buttons on one page of the contact screen (two a row)."""


def retreat_sectors(desk: Desk) -> list[str]:
    """The sectors the contact screen offers a retreat preference for, in map order: those the
    side holds or has a preference for, with a neighbour to name."""
    retreats = contact_orders.standing_retreats(desk.state, desk.side, desk.orders)
    return [
        sector
        for sector in desk.game.map.sector_ids()
        if (sector in desk.holdings or sector in retreats) and retreat_choices(desk, sector)
    ]


def contact_screen(desk: Desk, names: Names, page: int = 0) -> Screen:
    """Contact: the side's groups in the order they move (each up, down or taken back), the
    sectors it yields, and where its armies retreat from each sector (standing preferences);
    the retreat buttons :data:`RETREATS_A_PAGE` a page, page ``page`` shown."""
    map_ = desk.game.map
    listed = contact_orders.groups(desk.game, desk.state, desk.side, desk.orders)
    lines = [_("🧟 Groups of turn {turn}, in the order they move:").format(turn=desk.turn)]
    lines += [
        f"{place}. {describe_order(group, map_, names, language())}"
        for place, group in enumerate(listed, start=1)
    ]
    if not listed:
        lines.append(_("No group moves yet: pick a sector to move or transport a group."))
    yielded = contact_orders.yielded(desk.orders)
    if yielded:
        lines.append(
            _("You yield: {sectors}.").format(
                sectors=", ".join(sector_label(map_, s, language()) for s in yielded)
            )
        )
    retreats = contact_orders.standing_retreats(desk.state, desk.side, desk.orders)
    if retreats:
        lines.append(_("Retreats go first (kept until you change them):"))
        lines += [
            "• " + describe_order(contact_orders.retreat_order(sector, to), map_, names, language())
            for sector, to in retreats.items()
        ]
    lines.append(
        _(
            "A group stops in the first hostile sector; outside your ground it meets zombies "
            "first. Yield a sector to retreat from it instead of defending it."
        )
    )
    rows: list[list[InlineKeyboardButton]] = []
    for index, group in enumerate(listed):
        short = f"{index + 1}. {group.sector} → {_group_end(group)}"
        rows.append(
            [
                button(f"⬆ {short}", orders_button(desk, "cu", arg=index, to=desk.edits)),
                button("⬇", orders_button(desk, "cd", arg=index, to=desk.edits)),
                button("✖", orders_button(desk, "cx", arg=index, to=desk.edits)),
            ]
        )
    rows.append([button(_("➕ New group: choose its sector"), orders_button(desk, "home"))])
    offered = desk.listing().modules.get(CONTACT, ())
    threatened = contact_orders.reachable_by_others(desk.game, desk.state, desk.side)
    yieldable = [
        order.sector
        for order in offered
        if contact_orders.kind_of(order) == "yield"
        and order.sector is not None
        and order.sector in threatened
    ]
    buttons = [
        button(
            _("🏳 Yield {sector}").format(sector=sector_label(map_, sector, language())),
            orders_button(desk, "cy", sector),
        )
        for sector in yieldable
    ]
    buttons += [
        button(
            _("✖ 🏳 {sector}").format(sector=sector_label(map_, sector, language())),
            orders_button(desk, "cy", sector, arg=1, to=desk.edits),
        )
        for sector in yielded
    ]
    rows += button_rows(buttons, 2)
    retreating = retreat_sectors(desk)
    pages = max(1, -(-len(retreating) // RETREATS_A_PAGE))
    page = min(max(page, 0), pages - 1)
    first = page * RETREATS_A_PAGE
    rows += button_rows(
        [
            button(
                _("↩ Retreat from {sector}…").format(sector=sector_label(map_, sector, language())),
                orders_button(desk, "cr", sector),
            )
            for sector in retreating[first : first + RETREATS_A_PAGE]
        ],
        2,
    )
    paging: list[InlineKeyboardButton] = []
    if page > 0:
        paging.append(button(_("◀ Earlier"), orders_button(desk, "ct", arg=page - 1)))
    if page < pages - 1:
        paging.append(button(_("More ▶"), orders_button(desk, "ct", arg=page + 1)))
    if paging:
        rows.append(paging)
        lines.append(
            _("Retreat buttons: page {page} of {pages}.").format(page=page + 1, pages=pages)
        )
    rows.append([button(_("« All sectors"), orders_button(desk, "home"))])
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)


PATHS_A_PAGE = 8
"""Transport paths on one page: a button a row, so a phone shows the page whole."""


def transport_path_screen(desk: Desk, sector: str, page: int = 0) -> Screen | None:
    """Where a transport from ``sector`` may go (``None`` if it may not), :data:`PATHS_A_PAGE`
    paths on page ``page``, with buttons to the other pages."""
    paths = transport_paths(desk, sector)
    if not paths:
        return None
    map_ = desk.game.map
    pages = -(-len(paths) // PATHS_A_PAGE)
    page = min(max(page, 0), pages - 1)
    first = page * PATHS_A_PAGE
    buttons = [
        button(
            " → ".join(sector_label(map_, step, language()) for step in path),
            orders_button(desk, "tq", sector, to=index),
        )
        for index, (path, _counts) in enumerate(paths)
        if first <= index < first + PATHS_A_PAGE
    ]
    rows = button_rows(buttons, 1)
    paging: list[InlineKeyboardButton] = []
    if page > 0:
        paging.append(button(_("◀ Earlier"), orders_button(desk, "tp", sector, arg=page - 1)))
    if page < pages - 1:
        paging.append(button(_("More ▶"), orders_button(desk, "tp", sector, arg=page + 1)))
    if paging:
        rows.append(paging)
    rows.append([button(_("« Back"), orders_button(desk, "sec", sector))])
    text = _(
        "Transport from {sector}: which way? It carries fresh armies up to {range} sectors and "
        "stops in the first hostile one."
    ).format(
        sector=sector_label(map_, sector, language()),
        range=max(len(path) for path, _counts in paths),
    )
    if pages > 1:
        text += "\n" + _("Page {page} of {pages}.").format(page=page + 1, pages=pages)
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


def transport_count_screen(desk: Desk, sector: str, index: int) -> Screen | None:
    """How many armies the transport along path ``index`` carries."""
    paths = transport_paths(desk, sector)
    if not 0 <= index < len(paths):
        return None
    path, counts = paths[index]
    map_ = desk.game.map
    buttons = [button(str(n), orders_button(desk, "tg", sector, to=index, arg=n)) for n in counts]
    rows = button_rows(buttons, 5)
    back = orders_button(desk, "tp", sector, arg=index // PATHS_A_PAGE)
    rows.append([button(_("« Back"), back)])
    text = _("Transport from {sector} to {to}: how many armies?").format(
        sector=sector_label(map_, sector, language()),
        to=" → ".join(sector_label(map_, step, language()) for step in path),
    )
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


def retreat_screen(desk: Desk, sector: str) -> Screen | None:
    """Where armies retreating out of ``sector`` go first: the preference now, in order; with
    none, the first sector to pick; with one, «then …» the next ones and ✖ the last taken
    back (the buttons carry the set's edit count: a stale screen changes nothing)."""
    choices = retreat_choices(desk, sector)
    current = contact_orders.standing_retreats(desk.state, desk.side, desk.orders).get(sector, ())
    if not choices and not current:
        return None
    map_ = desk.game.map
    label = sector_label(map_, sector, language())
    if not current:
        buttons = [
            button(
                sector_label(map_, to, language()),
                orders_button(desk, "cg", sector, to=map_.order[to]),
            )
            for to in choices
        ]
        text = _(
            "Armies retreating out of {sector} go first to (if it is yours and free of other "
            "sides; otherwise to your sector with most armies):"
        ).format(sector=label)
    else:
        joiner = ", " + _("then") + " "
        buttons = [
            button(
                _("then {sector}").format(sector=sector_label(map_, to, language())),
                orders_button(desk, "cn", sector, to=map_.order[to], arg=desk.edits),
            )
            for to in choices
            if to not in current and len(current) < MAX_RETREAT_STEPS
        ]
        buttons.append(
            button(
                _("✖ {sector}").format(sector=sector_label(map_, current[-1], language())),
                orders_button(desk, "cw", sector, arg=desk.edits),
            )
        )
        text = "\n".join(
            [
                _("Armies retreating out of {sector} go to {to}.").format(
                    sector=label,
                    to=joiner.join(sector_label(map_, to, language()) for to in current),
                ),
                _(
                    "The first of these that is yours and free of other sides takes them; if "
                    "none is, your sector with most armies. Add the next one, or take the "
                    "last one back."
                ),
            ]
        )
    rows = button_rows(buttons, 2)
    listed = retreat_sectors(desk)
    page = listed.index(sector) // RETREATS_A_PAGE if sector in listed else 0
    rows.append([button(_("« Back"), orders_button(desk, "ct", arg=page))])
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


def home_rows(desk: Desk) -> list[list[InlineKeyboardButton]]:
    """The home screen's button to the groups' screen, when the campaign plays contact."""
    if is_on(desk.game):
        return [[button(_("🧟 Groups, yields, retreats"), orders_button(desk, "ct"))]]
    return []


def _sector(desk: Desk, index: int) -> str | None:
    sectors = desk.game.map.sector_ids()
    return sectors[index] if 0 <= index < len(sectors) else None


def order_of(desk: Desk, data: OrdersButton) -> ModuleOrder | None:
    """The contact order a button gives (:data:`CONTACT_GIVES`), or ``None``."""
    sector = _sector(desk, data.sector)
    if sector is None:
        return None
    match data.action:
        case "tg":
            paths = transport_paths(desk, sector)
            if not 0 <= data.to < len(paths) or data.arg not in paths[data.to][1]:
                return None
            return contact.transport(sector, paths[data.to][0], data.arg)
        case "cg":
            to = _sector(desk, data.to)
            if to is None or to not in retreat_choices(desk, sector):
                return None
            return contact.retreat_to(sector, (to,))
        case "cn" | "cw" if data.arg == desk.edits:
            return _retreat_step(desk, data, sector)
        case "cy" if data.arg != 1:
            return contact.yield_sector(sector)
    return None


def _retreat_step(desk: Desk, data: OrdersButton, sector: str) -> ModuleOrder | None:
    """The retreat preference for ``sector`` with «then» sector ``data.to`` added (``cn``) or
    its last sector taken back (``cw``); ``None`` when the button no longer fits it."""
    current = standing_retreats(desk.state, desk.side, desk.orders).get(sector, ())
    if not current:
        return None
    if data.action == "cw":
        return contact.retreat_to(sector, current[:-1])
    to = _sector(desk, data.to)
    if to is None or to in current or to not in retreat_choices(desk, sector):
        return None
    return contact.retreat_to(sector, (*current, to))


def change_of(desk: Desk, data: OrdersButton) -> SideOrders | None:
    """The set after a list button (:data:`CONTACT_EDITS`), or ``None`` if it does not fit the
    set any more (another strategist changed it since the screen was drawn)."""
    if data.to != desk.edits:
        return None
    if data.action == "cy":
        sector = _sector(desk, data.sector)
        kept = tuple(
            order
            for order in desk.orders.extra
            if not (kind_of(order) == "yield" and order.sector == sector)
        )
        return desk.orders.model_copy(update={"extra": kept})
    listed = groups(desk.game, desk.state, desk.side, desk.orders)
    match data.action:
        case "cu":
            changed = shifted(listed, data.arg, -1)
        case "cd":
            changed = shifted(listed, data.arg, 1)
        case _:
            changed = without_group(listed, data.arg)
    return None if changed is None else with_groups(desk.orders, changed)


def _groups_screen(desk: Desk, names: Names) -> Screen:
    return contact_screen(desk, names)


def press(desk: Desk, data: OrdersButton, names: Names) -> DeskPress | None:
    """A contact button on the desk: one of its screens; a transport, yield or retreat
    preference given; or a group moved up or down the list or taken back, a yield taken back
    (a stale screen's list button changes nothing)."""
    sector = _sector(desk, data.sector)
    match data.action:
        case "ct":
            return DeskPress(show=contact_screen(desk, names, max(data.arg, 0)))
        case "tp" | "tq" | "cr" if sector is None:
            return DeskPress(home=True)
        case "tp" if sector is not None:
            view = transport_path_screen(desk, sector, max(data.arg, 0))
            return DeskPress(show=view, home=view is None)
        case "tq" if sector is not None:
            view = transport_count_screen(desk, sector, data.to)
            return DeskPress(show=view, home=view is None)
        case "cr" if sector is not None:
            view = retreat_screen(desk, sector)
            return DeskPress(show=view, home=view is None)
    if data.action in CONTACT_GIVES and not (data.action == "cy" and data.arg == 1):
        order = order_of(desk, data)
        return DeskPress() if order is None else DeskPress(give=order)
    if data.action not in CONTACT_EDITS:
        return None
    if data.to != desk.edits:
        return DeskPress(stale=True, then=_groups_screen)
    return DeskPress(rewrite=lambda now_desk: change_of(now_desk, data), then=_groups_screen)


def after(before: Desk, desk: Desk, order: Order | ModuleOrder, names: Names) -> Screen | None:
    """After a move or a contact order: the retreat screen of a retreat preference's sector,
    else the groups' screen."""
    if not is_on(before.game):
        return None
    if isinstance(order, ModuleOrder) and kind_of(order) is None:
        return None
    if not isinstance(order, Move | ModuleOrder):
        return None
    retreat = (
        retreat_screen(desk, order.sector)
        if isinstance(order, ModuleOrder)
        and kind_of(order) == "retreat_to"
        and order.sector is not None
        else None
    )
    return retreat or contact_screen(desk, names)


def desk_groups(desk: Desk) -> list[Move | ModuleOrder] | None:
    """The side's groups in the order they move, with contact; ``None`` without it."""
    if not is_on(desk.game):
        return None
    return list(groups(desk.game, desk.state, desk.side, desk.orders))


def sector_buttons(desk: Desk, sector: str) -> list[InlineKeyboardButton]:
    """A sector's transport button, when it may send one."""
    if is_on(desk.game) and transport_paths(desk, sector):
        return [button(_("🚚 Transport a group…"), orders_button(desk, "tp", sector))]
    return []


def leaving(desk: Desk, sector: str) -> list[ModuleOrder]:
    """The transports out of ``sector``."""
    return [order for order in desk.orders.extra if is_transport(order) and order.sector == sector]


def sector_short(desk: Desk, sector: str) -> str | None:
    """A sector whose one group out is a transport: where it goes and how many."""
    carried = leaving(desk, sector)
    if len(carried) != 1:
        return None
    path = carried[0].data.get("path")
    last = path[-1] if isinstance(path, list) and path else "?"
    return f"🚚 {last} ×{carried[0].data.get('count')}"
