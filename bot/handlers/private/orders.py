"""The orders screen in private: ``/orders``, its buttons, typed orders, the review and the
side's private map (``/map``).

One message shows the side's sectors and their orders and is edited in place as the
strategist taps through sector -> move (destination, count) / attack (target) / fortify, and the
reinforcement. Every change is saved as a draft and echoed in words; "Ready" confirms.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.types import BufferedInputFile, CallbackQuery, Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.private import screens
from bot.handlers.private.base import answer_text, pressed_seat, seat_or_answer, show_screen
from bot.handlers.private.callbacks import ORDERS_PHASE, OrdersButton
from bot.modules import BOT_MODULES
from bot.modules.protocol import DeskPress, Screen
from bot.runtime.clock import Clock
from bot.screens.map_views import module_figures
from bot.screens.rendering import MapDrawer
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
from bot.texts.core import describe_rejection
from bot.texts.orders import Vocabulary, parse_orders_text
from rules import (
    Attack,
    CampaignState,
    Fortify,
    ModuleOrder,
    Move,
    Order,
    Reinforce,
    SideOrders,
)
from rules.render import MapView
from storage import Person, Phase, Store

KIND = "orders"

CORE_ACTIONS = frozenset(
    ("n", "at", "fo", "rs", "rep", "ok", "no", "sec", "mv", "to", "rf", "rev", "map", "home")
)
"""The desk's own buttons; the others are the modules' (:meth:`BotModule.orders_desk_press`)."""


def module_names(state: CampaignState) -> dict[str, str]:
    """The names of the rule modules' pieces in ``state`` (``BotModule.names``)."""
    return {
        key: name for module in BOT_MODULES.values() for key, name in module.names(state).items()
    }


def _words(desk: Desk) -> tuple[dict[str, str], str, str | None]:
    """Side names, this side's name, and who changed the orders last."""
    names = desk.side_names() | module_names(desk.state)
    return names, names.get(desk.side, desk.side), desk.editor_name()


def home_screen(desk: Desk) -> tuple[str, screens.Keyboard]:
    """The orders screen's home view (the modules' lines at the end of its text)."""
    names, side_name, editor = _words(desk)
    text = screens.orders_home_text(desk, names, side_name, editor)
    return text, screens.orders_keyboard(desk, names)


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
    vocabulary = Vocabulary.of_state(
        desk.game.map,
        {side.id: [side.name] for side in sides if side.id in desk.state.armies},
        desk.state,
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
    names = {side.id: side.name for side in sides} | module_names(desk.state)
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
    if action not in CORE_ACTIONS:
        names, _side, _editor = _words(desk)
        for module in BOT_MODULES.values():
            asked = module.orders_desk_press(desk, callback_data, names)
            if asked is not None:
                await _module_press(query, store, clock, bot, seat, desk, asked)
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
        case "rev":
            await _show_review(query, store, clock, bot, seat, desk)
            await send_side_map(bot, maps, store, query.from_user.id, desk)
            return
        case "map":
            await send_side_map(bot, maps, store, query.from_user.id, desk)
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
    view = _module_screen_after(desk, after, order, names)
    if view is None:
        options = after.attack_options(sector) if sector is not None else None
        if isinstance(order, Attack) and sector is not None and options and options.attack:
            view = screens.sector_screen(after, sector, names)
        else:
            view = home_screen(after)
    await _edit(query, store, clock, bot, seat, *view)


def _module_screen_after(
    before: Desk, after: Desk, order: Order | ModuleOrder, names: Mapping[str, str]
) -> Screen | None:
    """The screen of the module whose order ``order`` is (or whose orders it changes)."""
    for module in BOT_MODULES.values():
        view = module.orders_desk_after(before, after, order, names)
        if view is not None:
            return view
    return None


async def _module_press(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    seat: Seat,
    desk: Desk,
    asked: DeskPress,
) -> None:
    """Carry out what a module's button on the desk asked for (:class:`DeskPress`)."""
    if asked.give is not None:
        await _give(query, store, clock, bot, seat, desk, asked.give)
        return
    if asked.show is not None or asked.home:
        await query.answer()
        await _edit(query, store, clock, bot, seat, *(asked.show or home_screen(desk)))
        return
    then = asked.then
    if then is None or not (asked.stale or asked.drop is not None or asked.rewrite is not None):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    if asked.stale:
        await query.answer(
            _(
                "The orders changed since this screen was drawn (here, or by another "
                "strategist of your side), so nothing was changed. Here they are as they are now."
            ),
            show_alert=True,
        )
        await _edit(query, store, clock, bot, seat, *then(desk, _words(desk)[0]))
        return
    if asked.drop is not None:
        await _drop(query, store, clock, bot, seat, desk, asked.drop, then)
        return
    if asked.rewrite is not None:
        await _rewrite(query, store, clock, bot, seat, desk, asked.rewrite, then)


async def _rewrite(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    seat: Seat,
    desk: Desk,
    change: Callable[[Desk], SideOrders | None],
    then: Callable[[Desk, Mapping[str, str]], Screen],
) -> None:
    """Rewrite the set as a module's button asks (a change checked as the rules check the set),
    then show the module's screen ``then``."""
    result = await rewrite_orders(store, seat, change, clock.now(), desk.turn)
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
    await _edit(query, store, clock, bot, seat, *then(result.desk, names))


async def _drop(
    query: CallbackQuery,
    store: Store,
    clock: Clock,
    bot: Bot,
    seat: Seat,
    desk: Desk,
    index: int,
    then: Callable[[Desk, Mapping[str, str]], Screen],
) -> None:
    """Take back the set's module order at ``index`` (one of a rule module's orders), then show
    the module's screen ``then``."""
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
    await _edit(query, store, clock, bot, seat, *then(result.desk, names))


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


async def send_side_map(bot: Bot, maps: MapDrawer, store: Store, chat_id: int, desk: Desk) -> None:
    """The side's private map: the turn-start map with its own orders drawn."""
    view = screens.map_view(
        desk.campaign,
        desk.game.map,
        desk.state,
        list(desk.snapshot.sides),
        (desk.side, desk.orders),
        await module_figures(store, desk.campaign, desk.state),
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
    else the turn-start map everyone sees, with the rule modules' figures where the battle list
    put them once it is public (``BotModule.map_figures``). ``None`` when the phase has no map
    yet."""
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
                await module_figures(store, desk.campaign, desk.state),
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
    figures = await module_figures(store, campaign, state, now=now)
    return screens.map_view(campaign, game_for(campaign).map, state, sides, None, figures), None


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


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(show_orders, Command("orders"))
    router.message.register(show_map, Command("map"))
    router.callback_query.register(press, OrdersButton.filter())
    return router
