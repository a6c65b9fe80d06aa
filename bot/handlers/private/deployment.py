"""Deployment in private (turn 0): ``/deploy``, -/+1/+3/all per sector with a running total,
Confirm; or one typed line such as ``1=4 2=3 3=3``, saved and confirmed in one step. Every
button press is a saved, unconfirmed placement.

A typed line that repeats the placement the side already confirmed (typed twice, or delivered
again by Telegram after a crash, even once deployment has closed and the line would otherwise
be read as orders) is answered "already placed" and changes nothing."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.group.guards import whole_number
from bot.handlers.private import screens
from bot.handlers.private.base import pressed_seat, seat_or_answer, show_screen
from bot.handlers.private.callbacks import DEPLOYMENT_PHASE, DeployButton
from bot.runtime.clock import Clock
from bot.services.orders import (
    Deployment,
    DeploymentResult,
    Refusal,
    Seat,
    change_placement,
    confirm_placement,
    confirmed_placement,
    open_deployment,
    replace_placement,
)
from bot.services.turns import game_for
from bot.texts.orders import Vocabulary, parse_placement
from storage import Person, Phase, Store

KIND = "deploy"


async def _side_name(store: Store, deployment: Deployment) -> str:
    names = {side.id: side.name for side in await store.sides(deployment.campaign.id)}
    return names.get(deployment.side, deployment.side)


async def _view(store: Store, seat: Seat, deployment: Deployment) -> tuple[str, screens.Keyboard]:
    text, keyboard = screens.deployment_screen(deployment, await _side_name(store, deployment))
    if not seat.gives_orders:
        return text + "\n\n" + _("Your side's strategists place its armies."), screens.Keyboard(
            inline_keyboard=[]
        )
    return text, keyboard


async def show_deployment(message: Message, store: Store, clock: Clock, person: Person) -> None:
    """``/deploy``: the side's placement with +/- buttons."""
    seat = await seat_or_answer(message, store, person)
    if seat is None:
        return
    opened = await open_deployment(store, seat)
    if opened.deployment is None:
        await message.answer(
            screens.refusal_words(opened.refusal or Refusal.WRONG_PHASE, seat.campaign)
        )
        return
    text, keyboard = await _view(store, seat, opened.deployment)
    if message.bot is not None:
        await show_screen(
            message.bot, store, clock, seat, KIND, message.chat.id, text, keyboard, None
        )


async def typed_placement(message: Message, store: Store, clock: Clock, seat: Seat) -> None:
    """A placement typed in one line: refused with every rule it breaks, else saved and
    confirmed at once, answered as the Confirm button is (it can still be changed until
    deployment closes)."""
    opened = await open_deployment(store, seat)
    if opened.deployment is None:
        await message.answer(
            screens.refusal_words(opened.refusal or Refusal.WRONG_PHASE, seat.campaign)
        )
        return
    parsed = parse_placement(message.text or "", Vocabulary.build(opened.deployment.game.map, {}))
    if parsed.placement is None:
        await message.answer(screens.placement_problem_words(parsed))
        return
    result = await replace_placement(store, seat, parsed.placement, clock.now())
    if result.deployment is not None and result.deployment.ready and not result.changed:
        await _already_placed(message, store, clock, seat, result.deployment)
        return
    await _reply(message, store, clock, seat, result)


async def repeated_placement(message: Message, store: Store, clock: Clock, seat: Seat) -> bool:
    """After deployment: answer a typed line that is the placement the side confirmed (sent
    again, or delivered again by Telegram) with "already placed" instead of reading it as
    orders. False, answering nothing, for any other line."""
    placed = await confirmed_placement(store, seat)
    if placed is None or seat.side is None:
        return False
    game = game_for(seat.campaign)
    parsed = parse_placement(message.text or "", Vocabulary.build(game.map, {}))
    if parsed.placement != placed:
        return False
    deployment = Deployment(
        campaign=seat.campaign, game=game, side=seat.side, placement=placed, ready=True
    )
    await _already_placed(message, store, clock, seat, deployment)
    return True


async def _already_placed(
    message: Message, store: Store, clock: Clock, seat: Seat, deployment: Deployment
) -> None:
    """ "Already placed, nothing changed" with the side's placement, shown as the deployment
    screen (with its buttons while deployment is open), as the first time the line came."""
    words = screens.already_placed_words(seat.campaign)
    if seat.campaign.phase is Phase.DEPLOYMENT:
        text, keyboard = await _view(store, seat, deployment)
    else:
        lines = screens.placement_lines(deployment, await _side_name(store, deployment))
        text, keyboard = "\n".join(lines), None
    if message.bot is not None:
        await show_screen(
            message.bot,
            store,
            clock,
            seat,
            KIND,
            message.chat.id,
            words + "\n\n" + text,
            keyboard,
            None,
        )


async def _reply(
    message: Message, store: Store, clock: Clock, seat: Seat, result: DeploymentResult
) -> None:
    if result.deployment is None:
        await message.answer(
            screens.refusal_words(result.refusal or Refusal.WRONG_PHASE, seat.campaign)
        )
        return
    if result.problems:
        lines = [
            _("Placement refused, nothing changed:"),
            *screens.deployment_problems(result.problems),
        ]
        await message.answer("\n".join(lines))
        return
    text, keyboard = await _view(store, seat, result.deployment)
    if result.deployment.ready:
        text = _("Deployment confirmed.") + "\n\n" + text
    if message.bot is not None:
        await show_screen(
            message.bot, store, clock, seat, KIND, message.chat.id, text, keyboard, None
        )


async def press(
    query: CallbackQuery, callback_data: DeployButton, store: Store, clock: Clock, bot: Bot
) -> None:
    """+ / - / Confirm on the deployment screen."""
    seat = await pressed_seat(query, store, clock, callback_data.campaign, callback_data.side)
    if seat is None:
        return
    if not seat.gives_orders:
        refusal = Refusal.NO_SIDE if seat.side is None else Refusal.NOT_STRATEGIST
        await query.answer(screens.refusal_words(refusal, seat.campaign), show_alert=True)
        return
    campaign = seat.campaign
    message_id = query.message.message_id if query.message is not None else None
    if campaign.phase is not Phase.DEPLOYMENT or callback_data.phase != DEPLOYMENT_PHASE:
        words = screens.refusal_words(Refusal.STALE, campaign, callback_data.turn)
        await query.answer(words, show_alert=True)
        await show_screen(
            bot,
            store,
            clock,
            seat,
            KIND,
            query.from_user.id,
            screens.phase_words(campaign),
            None,
            message_id,
        )
        return
    before = await open_deployment(store, seat)
    if before.deployment is None:
        refusal = before.refusal or Refusal.NO_SIDE
        await query.answer(screens.refusal_words(refusal, campaign), show_alert=True)
        return
    ids = before.deployment.game.map.sector_ids()
    sector = ids[callback_data.sector] if 0 <= callback_data.sector < len(ids) else None
    delta = _delta(callback_data.action, before.deployment, sector)
    match callback_data.action:
        case _ if sector is not None and delta is not None:
            result = await change_placement(store, seat, sector, delta, clock.now())
        case "ok":
            result = await confirm_placement(store, seat, clock.now())
        case _:
            result = await open_deployment(store, seat)
    if result.deployment is None:
        await query.answer(
            screens.refusal_words(result.refusal or Refusal.WRONG_PHASE, campaign), show_alert=True
        )
        return
    if result.problems:
        await query.answer("\n".join(screens.deployment_problems(result.problems)), show_alert=True)
    elif result.refusal is not None:
        await query.answer(screens.refusal_words(result.refusal, campaign), show_alert=True)
    elif callback_data.action == "ok" and result.deployment.ready:
        await query.answer(_("Deployment confirmed."))
    else:
        await query.answer()
    text, keyboard = await _view(store, seat, result.deployment)
    await show_screen(bot, store, clock, seat, KIND, query.from_user.id, text, keyboard, message_id)


def _delta(action: str, deployment: Deployment, sector: str | None) -> int | None:
    """The change a button asks for: "-" one less, "+" one more, "+3" three more, "+all" all
    the armies still to place; ``None`` for other buttons."""
    if action == "-":
        return -1
    if action == "+all" and sector is not None:
        return deployment.room(sector)
    if action.startswith("+"):
        return whole_number(action[1:] or "1", 3)
    return None


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(show_deployment, Command("deploy"))
    router.callback_query.register(press, DeployButton.filter())
    return router
