"""The orders screen in private: ``/orders``, its buttons, typed orders, the review and the
side's private map (``/map``).

One message shows the side's sectors and their orders and is edited in place as the
strategist taps through sector -> move (destination, count) / attack (target) / fortify, and the
reinforcement. Every change is saved as a draft and echoed in words; "Ready" confirms.
"""

from __future__ import annotations

from datetime import datetime

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.types import BufferedInputFile, CallbackQuery, Message
from aiogram.utils.i18n import gettext as _

from bot.clock import Clock
from bot.handlers.private import screens
from bot.handlers.private.base import answer_text, pressed_seat, seat_or_answer, show_screen
from bot.handlers.private.callbacks import ORDERS_PHASE, OrdersButton
from bot.modules.contact import orders as contact_orders
from bot.modules.watch import duels
from bot.modules.watch import orders as watch_orders
from bot.modules.watch import texts as watch_texts
from bot.order_text import Vocabulary, parse_orders_text, siege_tokens
from bot.rendering import MapDrawer
from bot.services.orders import (
    Desk,
    EntryResult,
    Refusal,
    Seat,
    drop_module_order,
    enter_orders,
    gm_overview,
    last_turn_orders,
    open_desk,
    orders_opening_of,
    repeat_lines,
    rewrite_orders,
    set_ready,
)
from bot.services.turns import game_for
from bot.texts import describe_rejection
from rules import Attack, CampaignState, Fortify, ModuleOrder, Move, Reinforce, SideOrders
from rules.modules import contact, siege, watch
from rules.render import MapView
from storage import Person, Phase, Store

KIND = "orders"


def _words(desk: Desk) -> tuple[dict[str, str], str, str | None]:
    """Side names, this side's name, and who changed the orders last."""
    names = desk.side_names() | watch_orders.hero_names(desk.state)
    return names, names.get(desk.side, desk.side), desk.editor_name()


def home_screen(desk: Desk) -> tuple[str, screens.Keyboard]:
    """The orders screen's home view."""
    names, side_name, editor = _words(desk)
    return screens.orders_text(desk, names, side_name, editor), screens.orders_keyboard(desk, names)


async def show_orders(
    message: Message, store: Store, clock: Clock, person: Person, miniapp_url: str | None = None
) -> None:
    """``/orders``: the current set with buttons (strategists), or to view (tacticians, GM);
    with a button that opens the Mini App when ``MINIAPP_URL`` is set."""
    seat = await seat_or_answer(message, store, person)
    if seat is None:
        return
    if seat.side is None and seat.is_gm:
        await _gm_view(message, store, seat)
        return
    opened = await open_desk(store, seat, closed=True)
    if opened.desk is None:
        await message.answer(
            screens.refusal_words(opened.refusal or Refusal.WRONG_PHASE, seat.campaign)
        )
        return
    desk = opened.desk
    if not seat.gives_orders or desk.campaign.phase is not Phase.ORDERS:
        names, side_name, editor = _words(desk)
        await answer_text(message, screens.viewer_text(desk, names, side_name, editor))
        return
    opening = orders_opening_of(desk, clock.now())
    if opening is not None:
        names, side_name, editor = _words(desk)
        text = screens.orders_text(desk, names, side_name, editor)
        notice = screens.not_open_yet_words(desk.campaign, opening)
        await answer_text(message, text + "\n\n" + notice)
        return
    text, keyboard = home_screen(desk)
    if miniapp_url:
        keyboard = screens.with_miniapp_button(keyboard, miniapp_url, desk.campaign.id)
    if message.bot is not None:
        await show_screen(
            message.bot, store, clock, seat, KIND, message.chat.id, text, keyboard, None
        )


async def _gm_view(message: Message, store: Store, seat: Seat) -> None:
    desks = await gm_overview(store, seat)
    if not desks:
        await message.answer(screens.refusal_words(Refusal.WRONG_PHASE, seat.campaign))
        return
    parts = []
    for desk in desks.values():
        names, side_name, editor = _words(desk)
        parts.append(screens.orders_text(desk, names, side_name, editor))
    await answer_text(message, "\n\n".join(parts))


async def typed_orders(
    message: Message, store: Store, clock: Clock, person: Person, seat: Seat
) -> None:
    """Orders typed one per line: each line recorded or refused on its own, then the whole set
    as now recorded, under the screen's buttons."""
    opened = await open_desk(store, seat)
    if opened.desk is None:
        await message.answer(
            screens.refusal_words(opened.refusal or Refusal.WRONG_PHASE, seat.campaign)
        )
        return
    desk = opened.desk
    sides = desk.snapshot.sides
    vocabulary = Vocabulary.build(
        desk.game.map,
        {side.id: [side.name] for side in sides if side.id in desk.state.armies},
        siege_tokens(desk.state.modules),
        {hero: [name] for hero, name in watch_orders.hero_names(desk.state).items()},
    )
    parsed = parse_orders_text(message.text or "", vocabulary)
    readable = [line.orders for line in parsed if line.problem is None]
    result = await enter_orders(store, seat, readable, clock.now())
    if result.refusal is not None or result.desk is None:
        await message.answer(
            screens.refusal_words(
                result.refusal or Refusal.WRONG_PHASE, seat.campaign, opens_at=result.opens_at
            )
        )
        return
    names = {side.id: side.name for side in sides} | watch_orders.hero_names(desk.state)
    report = screens.text_results(parsed, result, result.desk, names)
    text, keyboard = home_screen(result.desk)
    heading = _("Saved as a draft.") if result.changed else _("Nothing changed.")
    body = "\n".join([*report, "", heading, "", text])
    if message.bot is not None:
        await show_screen(
            message.bot, store, clock, seat, KIND, message.chat.id, body, keyboard, None
        )


def _sector(desk: Desk, index: int) -> str | None:
    sectors = desk.game.map.sector_ids()
    return sectors[index] if 0 <= index < len(sectors) else None


def _siege_order_of(desk: Desk, data: OrdersButton) -> ModuleOrder | None:
    """The siege order a siege button gives (:data:`screens.SIEGE_ACTIONS`), or ``None``."""
    tokens = screens.siege_token_ids(desk)
    token = tokens[data.arg] if 0 <= data.arg < len(tokens) else None
    sector = _sector(desk, data.sector)
    match data.action:
        case "sa" if token is not None and sector is not None and data.to in (0, 1):
            return siege.assault(sector, token, "weather" if data.to == 1 else "vp")
        case "sd" if token is not None and sector is not None:
            return siege.guard(token, sector)
        case "ss" if sector is not None:
            return siege.steer(sector)
        case "sc" if token is not None and data.to in (0, 1):
            return siege.play_card(token, "after" if data.to == 1 else "before")
    return None


def _contact_order_of(desk: Desk, data: OrdersButton) -> ModuleOrder | None:
    """The contact order a button gives (:data:`screens.CONTACT_GIVES`), or ``None``."""
    sector = _sector(desk, data.sector)
    if sector is None:
        return None
    match data.action:
        case "tg":
            paths = screens.transport_paths(desk, sector)
            if not 0 <= data.to < len(paths) or data.arg not in paths[data.to][1]:
                return None
            return contact.transport(sector, paths[data.to][0], data.arg)
        case "cg":
            to = _sector(desk, data.to)
            if to is None or to not in screens.retreat_choices(desk, sector):
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
    current = contact_orders.standing_retreats(desk.state, desk.side, desk.orders).get(sector, ())
    if not current:
        return None
    if data.action == "cw":
        return contact.retreat_to(sector, current[:-1])
    to = _sector(desk, data.to)
    if to is None or to in current or to not in screens.retreat_choices(desk, sector):
        return None
    return contact.retreat_to(sector, (*current, to))


def _contact_change(desk: Desk, data: OrdersButton) -> SideOrders | None:
    """The set after a list button (:data:`screens.CONTACT_EDITS`), or ``None`` if it does not
    fit the set any more (another strategist changed it since the screen was drawn)."""
    if data.to != desk.edits:
        return None
    if data.action == "cy":
        sector = _sector(desk, data.sector)
        kept = tuple(
            order
            for order in desk.orders.extra
            if not (contact_orders.kind_of(order) == "yield" and order.sector == sector)
        )
        return desk.orders.model_copy(update={"extra": kept})
    listed = contact_orders.groups(desk.game, desk.state, desk.side, desk.orders)
    match data.action:
        case "cu":
            changed = contact_orders.shifted(listed, data.arg, -1)
        case "cd":
            changed = contact_orders.shifted(listed, data.arg, 1)
        case _:
            changed = contact_orders.without_group(listed, data.arg)
    return None if changed is None else contact_orders.with_groups(desk.orders, changed)


async def _contact_press(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    seat: Seat,
    desk: Desk,
    data: OrdersButton,
) -> None:
    """A contact button: give a transport, yield or retreat preference; or move a group up or
    down the list, take it back, take a yield back."""
    if data.action in screens.CONTACT_GIVES and not (data.action == "cy" and data.arg == 1):
        order = _contact_order_of(desk, data)
        if order is None:
            await query.answer(_("That button is not valid any more."), show_alert=True)
            return
        await _give(query, store, clock, bot, seat, desk, order)
        return
    if data.to != desk.edits:
        names, _side, _editor = _words(desk)
        await query.answer(
            _(
                "The orders changed since this screen was drawn (here, or by another "
                "strategist of your side), so nothing was changed. Here they are as they are now."
            ),
            show_alert=True,
        )
        await _edit(query, store, clock, bot, seat, *screens.contact_screen(desk, names))
        return
    result = await rewrite_orders(
        store, seat, lambda now_desk: _contact_change(now_desk, data), clock.now(), desk.turn
    )
    if result.desk is None:
        await query.answer(
            screens.refusal_words(result.refusal or Refusal.STALE, seat.campaign),
            show_alert=True,
        )
        return
    names, _side, _editor = _words(result.desk)
    rejection = result.lines[0].rejection if result.lines else None
    if rejection is not None:
        words = describe_rejection(rejection, desk.game.map, names, screens.language())
        await query.answer(words, show_alert=True)
    elif result.changed:
        await query.answer(_("Changed."))
    else:
        await query.answer(_("That button is not valid any more."), show_alert=True)
    await _edit(query, store, clock, bot, seat, *screens.contact_screen(result.desk, names))


def _hero_of(desk: Desk, data: OrdersButton) -> str | None:
    heroes = watch_orders.hero_ids(desk.state)
    return heroes[data.arg] if 0 <= data.arg < len(heroes) else None


async def _watch_press(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    seat: Seat,
    desk: Desk,
    data: OrdersButton,
) -> None:
    """A Night Watch button: move a hero (``wm``), or take its move back (``wx``)."""
    hero = _hero_of(desk, data)
    to = _sector(desk, data.to)
    if data.action == "wm" and hero is not None and to is not None:
        await _give(query, store, clock, bot, seat, desk, watch.hero_move(hero, to))
        return
    given = None if hero is None else watch_orders.move_of(desk.orders, hero)
    if data.action != "wx" or given is None:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    result = await drop_module_order(
        store, seat, desk.orders.extra.index(given), given, clock.now(), desk.turn
    )
    if result.desk is None:
        await query.answer(
            screens.refusal_words(result.refusal or Refusal.STALE, seat.campaign), show_alert=True
        )
        return
    await query.answer(_("Taken back.") if result.changed else _("Nothing changed."))
    names, _side, _editor = _words(result.desk)
    await _edit(query, store, clock, bot, seat, *screens.watch_screen(result.desk, names))


def _order_of(desk: Desk, data: OrdersButton) -> Move | Attack | Fortify | Reinforce | None:
    """The order a button gives, or ``None`` if the button is not one of the kinds that do."""
    sector = _sector(desk, data.sector)
    if sector is None:
        return None
    match data.action:
        case "n":
            to = _sector(desk, data.to)
            return None if to is None else Move(source=sector, to=to, count=data.arg)
        case "at":
            sides = desk.state.sides()
            if not 0 <= data.arg < len(sides):
                return None
            return Attack(sector=sector, target=sides[data.arg])
        case "fo":
            return Fortify(sector=sector)
        case "rs":
            return Reinforce(sector=sector)
    return None


async def press(
    query: CallbackQuery,
    callback_data: OrdersButton,
    store: Store,
    clock: Clock,
    bot: Bot,
    maps: MapDrawer,
) -> None:
    """Any button of the orders screen; re-checks who pressed and that the turn is still on."""
    seat = await pressed_seat(query, store, clock, callback_data.campaign, callback_data.side)
    if seat is None:
        return
    campaign = seat.campaign
    current = (campaign.turn, campaign.phase) == (callback_data.turn, Phase.ORDERS)
    if not current or callback_data.phase != ORDERS_PHASE:
        await _stale(query, store, clock, bot, seat, callback_data.turn)
        return
    opened = await open_desk(store, seat)
    if opened.desk is None or not seat.gives_orders:
        refusal = Refusal.NOT_STRATEGIST if opened.desk is not None else opened.refusal
        await query.answer(
            screens.refusal_words(refusal or Refusal.WRONG_PHASE, campaign), show_alert=True
        )
        return
    desk = opened.desk
    action = callback_data.action
    if action in screens.SIEGE_ACTIONS:
        siege_order = _siege_order_of(desk, callback_data)
        if siege_order is None:
            await query.answer(_("That button is not valid any more."), show_alert=True)
            return
        await _give(query, store, clock, bot, seat, desk, siege_order)
        return
    if action == "sx":
        await _drop(query, store, clock, bot, seat, desk, callback_data.arg)
        return
    if action in screens.WATCH_ACTIONS:
        await _watch_press(query, store, clock, bot, seat, desk, callback_data)
        return
    if action in screens.CONTACT_GIVES or action in screens.CONTACT_EDITS:
        await _contact_press(query, store, clock, bot, seat, desk, callback_data)
        return
    order = _order_of(desk, callback_data) if action in ("n", "at", "fo", "rs") else None
    if action in ("n", "at", "fo", "rs"):
        if order is None:
            await query.answer(_("That button is not valid any more."), show_alert=True)
            return
        await _give(query, store, clock, bot, seat, desk, order)
        return
    if action == "rep":
        await _repeat(query, store, clock, bot, seat, desk)
        return
    if action in ("ok", "no"):
        seen = callback_data.arg if action == "ok" and callback_data.arg >= 0 else None
        result = await set_ready(
            store, seat, callback_data.turn, action == "ok", clock.now(), seen_edits=seen
        )
        if result.desk is None:
            await query.answer(
                screens.refusal_words(
                    result.refusal or Refusal.STALE, campaign, opens_at=result.opens_at
                ),
                show_alert=True,
            )
            return
        if result.refusal is not None:
            await query.answer(screens.refusal_words(result.refusal, campaign), show_alert=True)
        else:
            await query.answer(
                _("Ready: your orders are confirmed.") if action == "ok" else _("Back to draft.")
            )
        await _show_review(query, store, clock, bot, seat, result.desk)
        return
    await query.answer()
    await _navigate(query, store, clock, bot, maps, seat, desk, callback_data)


async def _repeat(
    query: CallbackQuery, store: Store, clock: Clock, bot: Bot, seat: Seat, desk: Desk
) -> None:
    """Enter the side's orders of last turn again, each checked against this turn's state: the
    ones that still hold are saved, the others named with the rule they now break."""
    previous = await last_turn_orders(store, desk.campaign, desk.side)
    if previous is None:
        await query.answer(_("Your side gave no orders last turn: nothing to repeat."))
        return
    result = await enter_orders(store, seat, repeat_lines(previous), clock.now(), desk.turn)
    if result.desk is None:
        refusal = result.refusal or Refusal.STALE
        words = screens.refusal_words(refusal, seat.campaign, opens_at=result.opens_at)
        await query.answer(words, show_alert=True)
        return
    await query.answer()
    names, _side, _editor = _words(result.desk)
    text, keyboard = home_screen(result.desk)
    heading = _("Saved as a draft.") if result.changed else _("Nothing changed.")
    report = screens.repeat_results(result, result.desk, names)
    await _edit(
        query, store, clock, bot, seat, "\n".join([*report, "", heading, "", text]), keyboard
    )


async def _navigate(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    maps: MapDrawer,
    seat: Seat,
    desk: Desk,
    data: OrdersButton,
) -> None:
    names, _side, _editor = _words(desk)
    sector = _sector(desk, data.sector)
    view: tuple[str, screens.Keyboard] | None = None
    match data.action:
        case "sec" if sector is not None and sector in desk.holdings:
            view = screens.sector_screen(desk, sector, names)
        case "mv" if sector is not None:
            view = screens.move_destination_screen(desk, sector)
        case "to" if sector is not None and (to := _sector(desk, data.to)) is not None:
            view = screens.move_count_screen(desk, sector, to)
        case "rf":
            view = screens.reinforce_screen(desk)
        case "sg":
            view = screens.siege_screen(desk, names)
        case "wh":
            view = screens.watch_screen(desk, names)
        case "ct":
            view = screens.contact_screen(desk, names, max(data.arg, 0))
        case "tp" if sector is not None:
            view = screens.transport_path_screen(desk, sector, max(data.arg, 0))
        case "tq" if sector is not None:
            view = screens.transport_count_screen(desk, sector, data.to)
        case "cr" if sector is not None:
            view = screens.retreat_screen(desk, sector)
        case "rev":
            await _show_review(query, store, clock, bot, seat, desk)
            await send_side_map(bot, maps, query.from_user.id, desk)
            return
        case "map":
            await send_side_map(bot, maps, query.from_user.id, desk)
            return
    if view is None:
        view = home_screen(desk)
    await _edit(query, store, clock, bot, seat, *view)


async def _edit(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    seat: Seat,
    text: str,
    keyboard: screens.Keyboard,
) -> None:
    message_id = query.message.message_id if query.message is not None else None
    await show_screen(bot, store, clock, seat, KIND, query.from_user.id, text, keyboard, message_id)


async def _give(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    seat: Seat,
    desk: Desk,
    order: Move | Attack | Fortify | Reinforce | ModuleOrder,
) -> None:
    result: EntryResult = await enter_orders(store, seat, [[order]], clock.now(), desk.turn)
    if result.desk is None:
        await query.answer(
            screens.refusal_words(
                result.refusal or Refusal.STALE, seat.campaign, opens_at=result.opens_at
            ),
            show_alert=True,
        )
        return
    names, _side, _editor = _words(result.desk)
    rejection = result.lines[0].rejection if result.lines else None
    if rejection is not None:
        words = describe_rejection(rejection, desk.game.map, names, screens.language())
        await query.answer(words, show_alert=True)
        return
    await query.answer(screens.change_toast(order, result.desk, names))
    after = result.desk
    sector = order.sector
    if contact_orders.is_on(desk.game) and (
        isinstance(order, Move)
        or (isinstance(order, ModuleOrder) and contact_orders.kind_of(order) is not None)
    ):
        retreat = (
            screens.retreat_screen(after, sector)
            if isinstance(order, ModuleOrder)
            and contact_orders.kind_of(order) == "retreat_to"
            and sector is not None
            else None
        )
        view = retreat or screens.contact_screen(after, names)
    elif isinstance(order, ModuleOrder) and watch_orders.is_hero_move(order):
        view = screens.watch_screen(after, names)
    elif isinstance(order, ModuleOrder) or (
        isinstance(order, Fortify) and desk.orders.module_order_in(order.sector) is not None
    ):
        view = screens.siege_screen(after, names)
    elif (
        isinstance(order, Attack)
        and sector is not None
        and (options := after.attack_options(sector))
        and options.attack
    ):
        view = screens.sector_screen(after, sector, names)
    else:
        view = home_screen(after)
    await _edit(query, store, clock, bot, seat, *view)


async def _drop(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    seat: Seat,
    desk: Desk,
    index: int,
) -> None:
    """Take back a siege guard or card (``index`` in the set's module orders)."""
    extra = desk.orders.extra
    if not 0 <= index < len(extra):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    result = await drop_module_order(store, seat, index, extra[index], clock.now(), desk.turn)
    if result.desk is None:
        await query.answer(
            screens.refusal_words(result.refusal or Refusal.STALE, seat.campaign), show_alert=True
        )
        return
    await query.answer(_("Taken back.") if result.changed else _("Nothing changed."))
    names, _side, _editor = _words(result.desk)
    await _edit(query, store, clock, bot, seat, *screens.siege_screen(result.desk, names))


async def _show_review(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    seat: Seat,
    desk: Desk,
) -> None:
    names, side_name, editor = _words(desk)
    text, keyboard = screens.review_screen(desk, names, side_name, editor)
    await _edit(query, store, clock, bot, seat, text, keyboard)


async def _stale(
    query: CallbackQuery, store: Store, clock: Clock, bot: Bot, seat: Seat, button_turn: int
) -> None:
    """A button from another turn or phase: say so, change nothing, show the current screen."""
    campaign = seat.campaign
    words = screens.refusal_words(Refusal.STALE, campaign, button_turn)
    await query.answer(words, show_alert=True)
    opened = await open_desk(store, seat)
    if opened.desk is not None and seat.gives_orders:
        text, keyboard = home_screen(opened.desk)
        await _edit(query, store, clock, bot, seat, text, keyboard)
        return
    await _edit(
        query,
        store,
        clock,
        bot,
        seat,
        screens.phase_words(campaign),
        screens.Keyboard(inline_keyboard=[]),
    )


async def send_side_map(bot: Bot, maps: MapDrawer, chat_id: int, desk: Desk) -> None:
    """The side's private map: the turn-start map with its own orders drawn."""
    view = screens.map_view(
        desk.campaign,
        desk.game.map,
        desk.state,
        list(desk.snapshot.sides),
        (desk.side, desk.orders),
    )
    png = await maps.draw(view)
    caption = _("«{title}», secret: your side's orders for turn {turn}, as now recorded.").format(
        title=desk.campaign.title, turn=desk.turn
    )
    await bot.send_photo(chat_id, BufferedInputFile(png, "orders.png"), caption=caption)


async def seat_map_view(
    store: Store, seat: Seat, now: datetime
) -> tuple[MapView, Desk | None] | None:
    """The map a seat may see at ``now``: while its side's orders are open, the turn-start map
    with them drawn (and the desk they come from); in deployment, the side's own placement;
    else the turn-start map everyone sees, with watch's heroes where the battle list put them
    once it is public. ``None`` when the phase has no map yet."""
    campaign = seat.campaign
    if seat.side is not None:
        opened = await open_desk(store, seat)
        if opened.desk is not None:
            desk = opened.desk
            view = screens.map_view(
                desk.campaign,
                desk.game.map,
                desk.state,
                list(desk.snapshot.sides),
                (desk.side, desk.orders),
            )
            return view, desk
    sides = await store.sides(campaign.id)
    state = await store.turn_start(campaign.id, campaign.turn)
    if campaign.phase is Phase.DEPLOYMENT and seat.side is not None:
        placement = (await store.placements(campaign.id)).get(seat.side)
        armies = {seat.side: dict(placement.placement)} if placement else {}
        state = CampaignState(turn=0, armies=armies)
    if state is None:
        return None
    plan = await duels.public_watch_plan(store, campaign, state, now)
    return screens.map_view(campaign, game_for(campaign).map, state, sides, None, plan), None


async def show_map(
    message: Message, store: Store, person: Person, bot: Bot, maps: MapDrawer, clock: Clock
) -> None:
    """``/map`` in private: the current map; with the side's own orders while they are open."""
    seat = await seat_or_answer(message, store, person)
    if seat is None:
        return
    seen = await seat_map_view(store, seat, clock.now())
    if seen is None:
        await message.answer(screens.phase_words(seat.campaign))
        return
    view, desk = seen
    png = await maps.draw(view)
    if desk is not None:
        caption = _("Secret: your side's orders for turn {turn}, as now recorded.").format(
            turn=desk.turn
        )
        await bot.send_photo(message.chat.id, BufferedInputFile(png, "orders.png"), caption=caption)
        return
    await bot.send_photo(
        message.chat.id,
        BufferedInputFile(png, "map.png"),
        caption=screens.phase_words(seat.campaign),
    )


async def show_hand(message: Message, store: Store, person: Person, clock: Clock) -> None:
    """``/hand``: the heroes of the sender's side with their spells (the GM: every side's),
    from this turn's start (once the battle list is public: where it put them, without the
    spells their closed duel steps played, which are listed); secret, so in private only."""
    seat = await seat_or_answer(message, store, person)
    if seat is None:
        return
    campaign = seat.campaign
    game = game_for(campaign)
    if not watch_orders.is_on(game):
        await message.answer(_("This campaign plays without the Watches: it has no heroes."))
        return
    state = await store.turn_start(campaign.id, campaign.turn) if campaign.turn >= 1 else None
    if state is None:
        await message.answer(
            _("The heroes take the field and are dealt their spells when turn 1 begins.")
        )
        return
    sides = await store.sides(campaign.id)
    names = {side.id: side.name for side in sides} | watch_orders.hero_names(state)
    to_kill = watch_orders.settings(game).wounds_to_kill
    shown = [seat.side] if seat.side is not None else [s.id for s in sides] if seat.is_gm else []
    standing = await duels.heroes_now(store, campaign, state, clock.now())
    parts = [
        watch_texts.hand_text(
            watch_orders.side_view(standing.modules, side),
            game.map,
            names,
            screens.language(),
            to_kill,
            side,
            campaign.turn,
            played=standing.played,
        )
        for side in shown
    ]
    await answer_text(message, "\n\n".join(parts) or screens.phase_words(campaign))


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(show_orders, Command("orders"))
    router.message.register(show_map, Command("map"))
    router.message.register(show_hand, Command("hand"))
    router.callback_query.register(press, OrdersButton.filter())
    return router
