"""The Night Watch's part of the orders desk (``bot.handlers.private.orders``): its button on
the home screen, the heroes' screen (their hands, each one's move, a button for every legal
destination and one to stay) and the orders its buttons give."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot.handlers.private.callbacks import OrdersButton
from bot.handlers.private.screens import button, language, orders_button, phone_rows
from bot.modules.protocol import DeskPress, Screen
from bot.modules.watch import texts
from bot.modules.watch.orders import hero_ids, is_hero_move, is_on, move_of, settings, side_view
from bot.services.orders import Desk
from bot.texts.limits import BUTTON_ROW, button_label
from bot.texts.sectors import sector_label
from rules import ModuleOrder, Order
from rules.modules import watch
from rules.modules.watch import NAME as WATCH

Names = Mapping[str, str]


def named_label(template: str, name: str) -> str:
    """``template`` with ``{hero}`` filled so that the label fits a row: a long name is cut,
    never the words around it."""
    room = BUTTON_ROW - len(template.format(hero=""))
    return template.format(hero=button_label(name, max(room, 8)))


def hero_move_label(name: str, place: str) -> str:
    """«Андрей → «Кафе»»: a long name is cut, never the destination."""
    arrow = f" → {place}"
    return button_label(name, max(BUTTON_ROW - len(arrow), 8)) + arrow


WATCH_ACTIONS = ("wm", "wx")
"""Night Watch buttons: move hero ``arg`` (index in the turn-start heroes) to ``to`` (map
index), take hero ``arg``'s move back."""


def watch_screen(desk: Desk, names: Names) -> Screen:
    """The side's heroes (with their hands: this is the side's private chat), each one's move
    this turn, a button for every legal destination (the engine's list) and one to stay."""
    map_ = desk.game.map
    heroes = hero_ids(desk.state)
    view = side_view(desk.state.modules, desk.side)
    to_kill = settings(desk.game).wounds_to_kill
    lines = [
        texts.hand_text(view, map_, names, language(), to_kill, desk.side, desk.turn),
        "",
    ]
    offered: dict[str, list[ModuleOrder]] = {}
    for order in desk.listing().modules.get(WATCH, ()):
        if is_hero_move(order):
            offered.setdefault(str(order.data.get("hero")), []).append(order)
    rows: list[list[InlineKeyboardButton]] = []
    for hero in heroes:
        given = move_of(desk.orders, hero)
        if hero not in offered and given is None:
            continue
        name = names.get(hero, hero)
        if given is not None:
            lines.append("• " + texts.describe_hero_move(given, map_, names, language()))
            rows.append(
                [
                    button(
                        named_label(_("✖ {hero} stays"), name),
                        orders_button(desk, "wx", arg=heroes.index(hero)),
                    )
                ]
            )
        else:
            lines.append(_("• {hero} stays where it is.").format(hero=name))
        buttons = [
            button(
                hero_move_label(name, sector_label(map_, str(order.data.get("to")), language())),
                orders_button(
                    desk,
                    "wm",
                    arg=heroes.index(hero),
                    to=map_.order[str(order.data.get("to"))],
                ),
            )
            for order in offered.get(hero, ())
            if given is None or order.data.get("to") != given.data.get("to")
        ]
        rows.extend(phone_rows(buttons, 2))
    if not offered:
        lines.append(_("None of your heroes can move this turn."))
    else:
        lines.append(
            _("A hero moves one location a turn; a new move replaces the hero's last one.")
        )
    rows.append([button(_("◀ Back"), orders_button(desk, "home"))])
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)


def home_rows(desk: Desk) -> list[list[InlineKeyboardButton]]:
    """The home screen's button to the heroes' screen, when the campaign plays the Watches."""
    if is_on(desk.game):
        return [[button(_("🧙 Heroes and spells"), orders_button(desk, "wh"))]]
    return []


def press(desk: Desk, data: OrdersButton, names: Names) -> DeskPress | None:
    """A Night Watch button on the desk: the heroes' screen (``wh``), a hero's move (``wm``),
    or its move taken back (``wx``)."""
    if data.action == "wh":
        return DeskPress(show=watch_screen(desk, names))
    if data.action not in WATCH_ACTIONS:
        return None
    heroes = hero_ids(desk.state)
    hero = heroes[data.arg] if 0 <= data.arg < len(heroes) else None
    sectors = desk.game.map.sector_ids()
    to = sectors[data.to] if 0 <= data.to < len(sectors) else None
    if data.action == "wm" and hero is not None and to is not None:
        return DeskPress(give=watch.hero_move(hero, to))
    given = None if hero is None else move_of(desk.orders, hero)
    if data.action != "wx" or given is None:
        return DeskPress()
    return DeskPress(drop=desk.orders.extra.index(given), then=watch_screen)


def after(before: Desk, desk: Desk, order: Order | ModuleOrder, names: Names) -> Screen | None:
    """The heroes' screen after a hero's move was given."""
    if isinstance(order, ModuleOrder) and is_hero_move(order):
        return watch_screen(desk, names)
    return None
