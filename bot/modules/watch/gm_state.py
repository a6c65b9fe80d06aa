"""The Night Watch's part of the GM's state editor (``bot.handlers.group.gm_state``): the heroes
and the NPC marker under the armies, the NPC moved (a location, then the typed reason) and a hero
added to the running campaign (typed with its reason). The changes themselves are in ``gm``."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import InlineKeyboardButton, Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.handlers.filters import TYPED
from bot.handlers.group.gm_state import (
    MAX_REASON,
    GmStateScreen,
    StateScreen,
    answer_result,
    back_row,
    cancel,
    prompt_campaign,
    reason_of,
    state_button,
)
from bot.handlers.group.guards import whole_number
from bot.handlers.private.gm_prompts import GmPromptWaiting
from bot.modules.watch import gm as watch_gm
from bot.modules.watch import setup as watch_setup
from bot.modules.watch import texts as watch_texts
from bot.modules.watch.gm_texts import describe_change_problem
from bot.modules.watch.setup import Names
from bot.runtime.clock import Clock
from bot.services.state_edits import EditOutcome, EditResult
from bot.services.turns import game_for
from bot.texts.sectors import sector_label
from rules import CampaignState
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import public_view
from storage import Campaign, Person, Prompt, Side, Store

GM_NEW_HERO = "gm_new_hero"
"""The prompt's ``field``: a hero added to a running watch campaign and the reason, typed."""


def watch_view(state: CampaignState) -> JsonValue | None:
    """The turn start's watch state as the group may see it (no hand), if watch is played."""
    raw = state.modules.get(WATCH)
    return None if raw is None else public_view(raw, None)


def state_lines(
    campaign: Campaign, state: CampaignState, sides: Mapping[str, str], language: str
) -> list[str]:
    """The heroes and the NPC marker where they stand (from the public view: no hand)."""
    view = watch_view(state)
    if view is None:
        return []
    names = dict(sides) | watch_texts.hero_names(view)
    to_kill = watch_gm.settings_of(campaign).wounds_to_kill
    game = game_for(campaign)
    return watch_texts.hero_lines(view, game.map, names, language, to_kill, turn=state.turn)


def state_rows(campaign: Campaign, state: CampaignState) -> list[list[InlineKeyboardButton]]:
    """The menu's rows: the NPC marker moved (if the campaign has one), a hero added."""
    watch = watch_view(state)
    if watch is None:
        return []
    rows = []
    npc = watch.get("npc") if isinstance(watch, dict) else None
    if isinstance(npc, dict):
        rows.append(
            [state_button(_("👤 Move {name}").format(name=npc.get("name", "")), campaign, "npc")]
        )
    rows.append([state_button(_("🧙 Add a hero"), campaign, "hero")])
    return rows


async def _npc_list(screen: StateScreen, value: str) -> None:
    game = game_for(screen.campaign)
    state = game.upgraded(await screen.state())
    view = watch_view(state)
    npc = view.get("npc") if isinstance(view, dict) else None
    if not isinstance(npc, dict):
        await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    language = get_i18n().current_locale
    rows = [
        [
            state_button(
                "→ " + sector_label(game.map, sector, language),
                screen.campaign,
                "npc1",
                str(game.map.order[sector]),
            )
        ]
        for sector in await watch_gm.npc_choices(screen.store, screen.campaign, game, state)
    ]
    rows.append(back_row(screen.campaign))
    await screen.show(
        _(
            "{name} is in {sector}. He moves one location a turn, before the orders close "
            "(unmoved, he stays): where to? The group sees the move, your reason and the map."
        ).format(
            name=npc.get("name", ""),
            sector=sector_label(game.map, str(npc.get("sector", "")), language),
        ),
        rows,
    )


async def _npc_reason(screen: StateScreen, value: str) -> None:
    game = game_for(screen.campaign)
    sectors = game.map.sector_ids()
    index = whole_number(value, 3)
    state = game.upgraded(await screen.state())
    if (
        index is None
        or index >= len(sectors)
        or sectors[index]
        not in await watch_gm.npc_choices(screen.store, screen.campaign, game, state)
    ):
        await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    language = get_i18n().current_locale
    await screen.ask_reason(
        {"npc": sectors[index]},
        _(
            "The NPC marker to {sector}: type the reason for the group (up to {most} "
            "characters); /cancel stops."
        ).format(sector=sector_label(game.map, sectors[index], language), most=MAX_REASON),
    )


async def _hero_prompt(screen: StateScreen, value: str) -> None:
    gm_id = screen.person.user_id
    await screen.store.set_prompt(
        gm_id,
        gm_id,
        screen.campaign.id,
        GM_NEW_HERO,
        {"turn": screen.campaign.turn},
        None,
        screen.clock.now(),
    )
    await screen.query.answer()
    await screen.message.answer(
        _(
            "A new hero: type it on the first line as name, side, initiative, start location "
            "(and, if it comes later, the turn it enters): «Zavulon, Day Watch, 9, Entrance». "
            "The reason goes on the second line. It enters at the next deal of spells. "
            "/cancel stops."
        )
    )


async def typed_new_hero(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """The new hero's line and the reason, typed in one message."""
    campaign = await prompt_campaign(message, store, person, prompt)
    if campaign is None:
        return
    lines = [line.strip() for line in (message.text or "").splitlines() if line.strip()]
    reason = reason_of(lines[1]) if len(lines) == 2 else None
    sides = await store.sides(campaign.id)
    playing = [side for side in sides if not side.retired]
    game = game_for(campaign)
    names = Names.build(game.map, [(side.id, side.name) for side in playing])
    try:
        heroes = watch_setup.parse_heroes(lines[0] if lines else "", names)
    except watch_setup.HeroInputError as error:
        await message.answer(
            watch_texts.hero_input_help(
                0,
                error.problem,
                error.word,
                game.map,
                get_i18n().current_locale,
                sides=[side.name for side in playing],
            )
            + "\n"
            + _("Type it again, or /cancel.")
        )
        return
    if reason is None or len(heroes) != 1:
        await message.answer(
            _(
                "Type two lines: the hero (name, side, initiative, start location) and the "
                "reason. Or /cancel."
            )
        )
        return
    state = await store.turn_start(campaign.id, campaign.turn)
    if state is not None and watch_gm.hero_name_taken(state, str(heroes[0]["name"])):
        await message.answer(
            _("A hero is called «{name}» already: give the new one another name.").format(
                name=heroes[0]["name"]
            )
            + "\n"
            + _("Type it again, or /cancel.")
        )
        return
    result = await watch_gm.add_hero_now(
        store, campaign, heroes[0], reason, person.user_id, clock.now()
    )
    if result.outcome is EditOutcome.REFUSED:
        await _watch_answer(message, result, campaign, sides)
        await message.answer(_("Type it again, or /cancel."))
        return
    await store.clear_prompt(message.chat.id, person.user_id)
    await _watch_answer(message, result, campaign, sides)


async def _watch_answer(
    message: Message, result: watch_gm.WatchResult, campaign: Campaign, sides: list[Side]
) -> None:
    if result.outcome is EditOutcome.REFUSED and result.error is not None:
        names = {side.id: side.name for side in sides}
        game = game_for(campaign)
        language = get_i18n().current_locale
        problem = describe_change_problem(result.error, game.map, names, language)
        await message.answer("\n".join([_("Nothing was changed:"), problem]))
        return
    await answer_result(
        message, EditResult(result.outcome, edit_id=result.edit_id), campaign, sides
    )


async def typed_reason(
    message: Message,
    store: Store,
    clock: Clock,
    person: Person,
    campaign: Campaign,
    data: Mapping[str, JsonValue],
    reason: str,
) -> bool:
    """The reason for the NPC marker's move waiting in ``data``: the move is made and the GM
    told (false: not an NPC move)."""
    npc = data.get("npc")
    if not isinstance(npc, str):
        return False
    moved = await watch_gm.move_npc_now(store, campaign, npc, reason, person.user_id, clock.now())
    await store.clear_prompt(message.chat.id, person.user_id)
    await _watch_answer(message, moved, campaign, await store.sides(campaign.id))
    return True


SCREENS: dict[str, GmStateScreen] = {"npc": _npc_list, "npc1": _npc_reason, "hero": _hero_prompt}
"""The state editor's watch buttons, by action."""


def build() -> Router:
    """The typed new hero's router (a new one per dispatcher), with the GM's tools."""
    router = Router(name=__name__)
    router.message.register(cancel, Command("cancel"), GmPromptWaiting(GM_NEW_HERO))
    router.message.register(typed_new_hero, TYPED, GmPromptWaiting(GM_NEW_HERO))
    return router


def state_help() -> str:
    """The Watches' part of the state editor in the GM's ``/help``."""
    return _("Watches: the NPC marker moved, a hero added")


def help_tools() -> list[tuple[str, str]]:
    """The Watches' GM tools in the GM's ``/help``: the duel steps and the "-1" tokens."""
    return [
        (_("⚔️ Duel steps"), _("Watches: close a duel step now, with nothing played")),
        (
            _("🃏 Lower a played spell (−1)"),
            _('Watches: the "-1" tokens on a laid spell, until the results deadline'),
        ),
    ]
