"""Public commands in the group: ``/status``, ``/map``, ``/battles``; and a pointer to
the private chat for the secret ones (``/orders``, ``/deploy``)."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import BufferedInputFile, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot.handlers.group.guards import campaign_here, no_campaign_words
from bot.modules import BOT_MODULES
from bot.posts.group import board_text, deadline_line
from bot.posts.turns import deadline_of
from bot.runtime.clock import Clock
from bot.screens.map_views import turn_map
from bot.screens.rendering import MapDrawer
from bot.services import campaigns
from bot.services.orders import listed_battles
from bot.services.turns import game_for
from bot.texts.core import chain_words, describe_battle, foc_legend
from bot.texts.moments import format_moment
from storage import Campaign, Phase, Store


async def show_status(message: Message, command: CommandObject, store: Store, clock: Clock) -> None:
    """``/status [time zone]``: position, deadline (also in the given zone) and the board
    (readiness only, never orders)."""
    campaign = await campaign_here(store, message)
    if campaign is None:
        await message.answer(await no_campaign_words(store, message))
        return
    deadline = await deadline_line(store, campaign, campaign.language, clock.now())
    if command.args:
        deadline = await _deadline_in(store, campaign, command.args, deadline)
    board = await campaigns.board(store, campaign, clock.now())
    now = clock.now()
    sections = [
        section
        for module in BOT_MODULES.values()
        for section in await module.status_sections(store, campaign, now)
    ]
    await message.answer("\n\n".join([board_text(board, deadline), *sections]))


async def _deadline_in(store: Store, campaign: Campaign, asked: str, line: str | None) -> str:
    zone = campaigns.find_time_zone(asked)
    if zone is None:
        note = _(
            "I do not know the time zone «{text}»; try e.g. /status Omsk or /status Asia/Omsk."
        ).format(text=asked.strip()[:64])
    else:
        deadline = await deadline_of(store, campaign, campaign.turn, campaign.phase)
        note = (
            _("That is {moment}.").format(moment=format_moment(deadline, zone, campaign.language))
            if deadline is not None
            else ""
        )
    return "\n".join(part for part in (line, note) if part)


async def show_map(message: Message, store: Store, maps: MapDrawer, clock: Clock) -> None:
    """``/map``: the map as it stood at the start of the current turn, with what the modules
    add to it (``turn_map``); its caption is the shared sentence (or the first module's
    ``map_caption_head``) and then each module's ``map_caption`` line, in the registry's order."""
    campaign = await campaign_here(store, message)
    if campaign is None:
        await message.answer(await no_campaign_words(store, message))
        return
    state = await store.turn_start(campaign.id, campaign.turn) if campaign.turn >= 1 else None
    if state is None:
        await message.answer(
            _("The map is posted when deployment ends; until then the armies are secret.")
        )
        return
    sides = await store.sides(campaign.id)
    title = _("{title}, turn {turn}").format(title=campaign.title, turn=campaign.turn)
    now = clock.now()
    view = await turn_map(store, campaign, state, sides, title, week=True, now=now)
    picture = await maps.draw(view)
    head: str | None = None
    lines: list[str] = []
    for module in BOT_MODULES.values():
        if head is None:
            head = await module.map_caption_head(store, campaign, state, now)
        line = await module.map_caption(store, campaign, state, now)
        if line is not None:
            lines.append(line)
    if head is None:
        head = _("{title}: the map at the start of turn {turn}.").format(
            title=campaign.title, turn=campaign.turn
        )
    caption = "\n".join([head, *lines])
    await message.answer_photo(
        BufferedInputFile(picture, filename=f"map-{campaign.id}-{campaign.turn}.png"),
        caption=caption,
    )


async def show_battles(message: Message, store: Store, clock: Clock) -> None:
    """``/battles``: this turn's battle list, once it is published (on Friday, though the
    orders close on Thursday)."""
    campaign = await campaign_here(store, message)
    if campaign is None:
        await message.answer(await no_campaign_words(store, message))
        return
    public_at = await campaigns.battle_list_public_at(store, campaign, clock.now())
    if public_at is not None:
        await message.answer(
            _("The orders are in. The battle list is posted here on {moment}.").format(
                moment=format_moment(public_at, campaign.time_zone, campaign.language)
            )
        )
        return
    listed = None
    if campaign.phase in (Phase.BATTLES, Phase.RESOLUTION):
        listed = await listed_battles(store, campaign)
    if listed is None:
        await message.answer(
            _("No battle list this turn yet: it is published when the orders window closes.")
        )
        return
    if not listed.battles:
        await message.answer(_("No battles this turn."))
        return
    game = game_for(campaign)
    names = {side.id: side.name for side in await store.sides(campaign.id)}
    lines = [_("Turn {turn}: battles").format(turn=campaign.turn)]
    for battle in listed.battles:
        status = listed.standing.sides.get(battle.id)
        lines.extend(
            describe_battle(
                listed.standing.fought(battle), game.map, names, campaign.language, status
            )
        )
        lines.extend(chain_words(battle, status, names))
    lines.extend(foc_legend(listed.standing.fought(battle) for battle in listed.battles))
    await message.answer("\n".join(lines))


async def secret_elsewhere(message: Message, bot: Bot) -> None:
    """``/orders`` or ``/deploy`` in the group: they are secret, so they live in private."""
    me = await bot.me()
    button = InlineKeyboardButton(
        text=_("Open the private chat"), url=f"https://t.me/{me.username}"
    )
    await message.answer(
        _("Orders are secret: give them to me in a private chat, not here."),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button]]),
    )


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(show_status, Command("status"))
    router.message.register(show_map, Command("map"))
    router.message.register(show_battles, Command("battles"))
    router.message.register(secret_elsewhere, Command("orders", "deploy"))
    return router
