"""The GM edits the state directly (issue 23), from the GM panel in the GM's private chat: armies
of a side in a sector (buttons for side, sector and number, then a typed reason), a side added
mid-campaign with the armies the GM places, a side retired, a sector's defences in a contact
campaign (a ruined one repaired: level, then owner, then the reason), and the undo of the last
edit.

Every button names (campaign, turn, phase) and is checked again when pressed: the presser must
be a GM of this campaign and the orders still open. The typed reason is stored as a ``Prompt``
(it survives a restart) and checked again when it arrives. The group hears of each edit and of
its undo, with the reason and the map (``bot.posts.edits``).
"""

from __future__ import annotations

from typing import Literal

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.callbacks import GmEdit, gm_menu_data
from bot.clock import Clock
from bot.handlers.filters import TYPED
from bot.handlers.group.gm import edit_button
from bot.handlers.group.guards import gm_member, not_gm_text, pressed_campaign, whole_number
from bot.handlers.private.gm_prompts import GmPromptWaiting
from bot.message_limits import button_label
from bot.modules.contact.map_view import defences_button, defences_words
from bot.modules.watch import gm as watch_gm
from bot.modules.watch import setup as watch_setup
from bot.modules.watch import texts as watch_texts
from bot.modules.watch.gm_texts import describe_change_problem
from bot.modules.watch.setup import Names
from bot.posts.group import colour_mark
from bot.sectors import sector_label
from bot.services import campaigns
from bot.services.state_edits import (
    EditOutcome,
    EditResult,
    add_side,
    edit_state,
    may_edit,
    undo_last_edit,
    undoable,
)
from bot.services.turns import game_for
from bot.texts import armies
from rules import CampaignState
from rules.edits import (
    MAX_ARMIES,
    ArmySet,
    EditProblem,
    EditProblemCode,
    StateEdit,
)
from rules.game import Game
from rules.maps import CampaignMap
from rules.modules.contact import NAME as CONTACT
from rules.modules.contact import ContactState, Defences, DefencesSet, defences_edit
from rules.modules.contact import load as load_contact
from rules.modules.contact.adjust import NO_DEFENCES
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import public_view
from storage import Campaign, Person, Prompt, Side, Store

GM_EDIT_REASON = "gm_edit_reason"
"""The prompt's ``field``: ``data`` holds the edit waiting for its reason (``turn``, and
``side``/``sector``/``count``, ``retire``, or ``defences``/``level``/``owner``/``ruined``)."""
GM_NEW_SIDE = "gm_new_side"
"""The prompt's ``field``: the new side's name, placement and reason, typed in one message."""
GM_NEW_HERO = "gm_new_hero"
"""The prompt's ``field``: a hero added to a running watch campaign and the reason, typed."""
MAX_REASON = 300


def _button(text: str, campaign: Campaign, action: str, value: str = "") -> InlineKeyboardButton:
    data = GmEdit(c=campaign.id, t=campaign.turn, p=campaign.phase.value, a=action, v=value)
    return InlineKeyboardButton(text=button_label(text), callback_data=data.pack())


def _back(campaign: Campaign) -> list[InlineKeyboardButton]:
    return [_button(_("◀ Correct the state"), campaign, "menu")]


def _state_lines(
    state: CampaignState, sides: list[Side], campaign_map: CampaignMap, language: str
) -> list[str]:
    lines = []
    for side in sides:
        held = state.armies.get(side.id, {})
        where = ", ".join(
            f"{sector_label(campaign_map, sector, language)}: {count}"
            for sector, count in held.items()
        )
        lines.append(f"{colour_mark(side.colour)} {side.name}: {where or '—'}")
    return lines


def watch_view(state: CampaignState) -> JsonValue | None:
    """The turn start's watch state as the group may see it (no hand), if watch is played."""
    raw = state.modules.get(WATCH)
    return None if raw is None else public_view(raw, None)


def _watch_lines(
    state: CampaignState, sides: list[Side], campaign: Campaign, language: str
) -> list[str]:
    """The heroes and the NPC marker where they stand (from the public view: no hand)."""
    view = watch_view(state)
    if view is None:
        return []
    names = {side.id: side.name for side in sides} | watch_texts.hero_names(view)
    to_kill = watch_gm.settings_of(campaign).wounds_to_kill
    game = game_for(campaign)
    return watch_texts.hero_lines(view, game.map, names, language, to_kill, turn=state.turn)


def describe_edit_problem(
    problem: EditProblem, campaign_map: CampaignMap, names: dict[str, str], language: str
) -> str:
    """Why the rules refuse an edit, and what to do instead."""
    p = problem.params
    match problem.code:
        case EditProblemCode.UNKNOWN_SECTOR:
            return _("There is no sector {sector} on this map.").format(sector=p["sector"])
        case EditProblemCode.UNKNOWN_SIDE:
            side = str(p["side"])
            return _("Side «{side}» is not in play: pick a side from the buttons.").format(
                side=names.get(side, side)
            )
        case EditProblemCode.ARMIES_OUT_OF_RANGE:
            return _("A sector holds 0 to {most} armies of a side; {count} cannot be set.").format(
                most=p["most"], count=p["count"]
            )
        case EditProblemCode.NO_CHANGE:
            return _("That is the state already: nothing would change.")
        case EditProblemCode.NO_ARMIES_LEFT:
            return _("No side would have armies left. End the campaign from /gm instead.")
        case EditProblemCode.MODULE_RULE if p.get("rule") == NO_DEFENCES:
            return _(
                "{sector} has no defences to set: the GM repairs the map's barricades and "
                "blockposts, and builds no new ones."
            ).format(sector=sector_label(campaign_map, str(p["sector"]), language))
        case EditProblemCode.MODULE_RULE:
            return _("This campaign's rules allow no such edit.")


def _refusal(result: EditResult, campaign: Campaign, sides: list[Side]) -> str:
    """The GM's answer to an edit that was not made."""
    match result.outcome:
        case EditOutcome.REFUSED:
            names = {side.id: side.name for side in sides}
            game = game_for(campaign)
            reasons = [
                describe_edit_problem(problem, game.map, names, campaign.language)
                for problem in result.problems
            ]
            return "\n".join([_("Nothing was changed:"), *reasons])
        case EditOutcome.CHANGED:
            return _("The state changed meanwhile; nothing was changed. Open /gm and try again.")
        case EditOutcome.NAME_TAKEN:
            return _("Another side has that name; nothing was changed.")
        case EditOutcome.BAD_NAME:
            return _("A side's name has 1 to 64 characters; nothing was changed.")
        case EditOutcome.TOO_MANY:
            return _("The campaign has as many sides as it can; nothing was changed.")
        case EditOutcome.NOTHING:
            return _("There is no edit of this turn to undo.")
        case _:
            return _(
                "The state can be corrected only while the orders are open; nothing was changed."
            )


# ---- the buttons ----


class _Screen:
    """What a state-edit screen works with."""

    def __init__(
        self,
        query: CallbackQuery,
        message: Message,
        store: Store,
        clock: Clock,
        person: Person,
        campaign: Campaign,
    ) -> None:
        self.query = query
        self.message = message
        self.store = store
        self.clock = clock
        self.person = person
        self.campaign = campaign

    async def show(
        self, text: str, rows: list[list[InlineKeyboardButton]], notice: str | None = None
    ) -> None:
        """Answer the press (with ``notice``, if any) and show a screen in its message."""
        await self.query.answer(notice)
        await self.message.edit_text(text, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))

    async def playing(self) -> list[Side]:
        return [side for side in await self.store.sides(self.campaign.id) if not side.retired]

    async def state(self) -> CampaignState:
        state = await self.store.turn_start(self.campaign.id, self.campaign.turn)
        return state if state is not None else CampaignState(turn=self.campaign.turn)

    async def ask_reason(self, data: dict[str, str | int], question: str) -> None:
        """Wait for the GM's typed reason in this private chat (stored: survives a restart)."""
        gm_id = self.person.user_id
        await self.store.set_prompt(
            gm_id,
            gm_id,
            self.campaign.id,
            GM_EDIT_REASON,
            {"turn": self.campaign.turn, **data},
            None,
            self.clock.now(),
        )
        await self.query.answer()
        await self.message.answer(question)


async def pressed(
    query: CallbackQuery, callback_data: GmEdit, store: Store, clock: Clock, person: Person
) -> None:
    """A state-edit button: re-check campaign, turn, phase and the presser's role, then act."""
    campaign = await pressed_campaign(
        store, query, callback_data.c, callback_data.t, callback_data.p
    )
    if campaign is None:
        return
    if await gm_member(store, campaign, person.user_id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    if not isinstance(query.message, Message) or query.message.chat.type != "private":
        await query.answer(_("Send /gm in our private chat and edit there."), show_alert=True)
        return
    if not may_edit(campaign):
        await query.answer(_refusal(EditResult(EditOutcome.CLOSED), campaign, []), show_alert=True)
        return
    screens = {
        "menu": _menu,
        "side": _side,
        "sector": _sector,
        "count": _count,
        "retire": _retire_list,
        "retire1": _retire,
        "add": _add,
        "def": _defences_list,
        "def1": _defences_level,
        "def2": _defences_owner,
        "def3": _defences_reason,
        "npc": _npc_list,
        "npc1": _npc_reason,
        "hero": _hero_prompt,
        "undo": _undo_confirm,
        "undo!": _undo,
    }
    handler = screens.get(callback_data.a)
    if handler is None:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    await handler(_Screen(query, query.message, store, clock, person, campaign), callback_data.v)


async def _menu(screen: _Screen, value: str, notice: str | None = None) -> None:
    campaign = screen.campaign
    sides = await screen.playing()
    state = await screen.state()
    game = game_for(campaign)
    language = get_i18n().current_locale
    rows = [
        [_button(f"{colour_mark(side.colour)} {side.name}", campaign, "side", side.id)]
        for side in sides
    ]
    rows.append([_button(_("➕ Add a side"), campaign, "add")])
    rows.append([_button(_("🚫 Retire a side"), campaign, "retire")])
    if contact_state(game, state) is not None:
        rows.append([_button(_("🧱 Repair defences"), campaign, "def")])
    watch = watch_view(state)
    if watch is not None:
        npc = watch.get("npc") if isinstance(watch, dict) else None
        if isinstance(npc, dict):
            rows.append(
                [_button(_("👤 Move {name}").format(name=npc.get("name", "")), campaign, "npc")]
            )
        rows.append([_button(_("🧙 Add a hero"), campaign, "hero")])
    if undoable(await screen.store.adjustments(campaign.id, campaign.turn)) is not None:
        rows.append([_button(_("↩️ Undo the last edit"), campaign, "undo")])
    rows.append([InlineKeyboardButton(text=_("◀ GM tools"), callback_data=gm_menu_data(campaign))])
    text = "\n".join(
        [
            _("«{title}», turn {turn}: the armies now.").format(
                title=campaign.title, turn=campaign.turn
            ),
            *_state_lines(state, sides, game.map, language),
            *_watch_lines(state, sides, campaign, language),
            _(
                "Pick a side to set its armies in a sector. Captured sectors follow from the "
                "armies: they are counted at each resolution. Every edit needs a reason; the "
                "group sees it with the map."
            ),
        ]
    )
    await screen.show(text, rows, notice)


async def _side(screen: _Screen, value: str) -> None:
    side = next((s for s in await screen.playing() if s.id == value), None)
    if side is None:
        await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    state = await screen.state()
    game = game_for(screen.campaign)
    language = get_i18n().current_locale
    rows = [
        [
            _button(
                f"{sector_label(game.map, sector, language)}: {state.armies_of(side.id, sector)}",
                screen.campaign,
                "sector",
                f"{side.id}.{index}",
            )
        ]
        for index, sector in enumerate(game.map.sector_ids())
    ]
    rows.append(_back(screen.campaign))
    await screen.show(
        _("Side «{side}»: in which sector do you set its armies?").format(side=side.name), rows
    )


async def _where(screen: _Screen, value: str) -> tuple[Side, str] | None:
    """The side and sector a button names as «side.index» (the sector's place on the map: its
    id may hold any character)."""
    side_id, _dot, index = value.partition(".")
    side = next((s for s in await screen.playing() if s.id == side_id), None)
    sectors = game_for(screen.campaign).map.sector_ids()
    place = whole_number(index, 3)
    if side is None or place is None or place >= len(sectors):
        await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return None
    return side, sectors[place]


async def _sector(screen: _Screen, value: str) -> None:
    found = await _where(screen, value)
    if found is None:
        return
    side, sector = found
    have = (await screen.state()).armies_of(side.id, sector)
    top = min(MAX_ARMIES, max(have + 6, 12))
    numbers = [
        _button(f"• {n}" if n == have else str(n), screen.campaign, "count", f"{value}.{n}")
        for n in range(top + 1)
    ]
    rows = [numbers[i : i + 5] for i in range(0, len(numbers), 5)]
    rows.append(_back(screen.campaign))
    game = game_for(screen.campaign)
    language = get_i18n().current_locale
    await screen.show(
        _("Side «{side}», {sector}: now {armies}. How many should it have?").format(
            side=side.name,
            sector=sector_label(game.map, sector, language),
            armies=armies(have),
        ),
        rows,
    )


async def _count(screen: _Screen, value: str) -> None:
    where, _dot, number = value.rpartition(".")
    found = await _where(screen, where)
    if found is None:
        return
    side, sector = found
    count = whole_number(number, 3)
    if count is None or count > MAX_ARMIES:
        await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    game = game_for(screen.campaign)
    language = get_i18n().current_locale
    await screen.ask_reason(
        {"side": side.id, "sector": sector, "count": count},
        _(
            "Side «{side}», {sector}: {armies}. Type the reason for the group (up to {most} "
            "characters); /cancel stops."
        ).format(
            side=side.name,
            sector=sector_label(game.map, sector, language),
            armies=armies(count),
            most=MAX_REASON,
        ),
    )


async def _retire_list(screen: _Screen, value: str) -> None:
    rows = [
        [_button(f"{colour_mark(side.colour)} {side.name}", screen.campaign, "retire1", side.id)]
        for side in await screen.playing()
    ]
    rows.append(_back(screen.campaign))
    await screen.show(
        _(
            "Which side leaves the campaign? Its armies leave the map, its players no longer "
            "play it (they stay in the campaign and may join another side), and attacks on it "
            "are dropped. An undo brings it back."
        ),
        rows,
    )


async def _retire(screen: _Screen, value: str) -> None:
    side = next((s for s in await screen.playing() if s.id == value), None)
    if side is None:
        await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    await screen.ask_reason(
        {"retire": side.id},
        _(
            "Retire side «{side}»: type the reason for the group (up to {most} characters); "
            "/cancel stops."
        ).format(side=side.name, most=MAX_REASON),
    )


def contact_state(game: Game, state: CampaignState) -> ContactState | None:
    """The turn start's contact state, if the game plays contact."""
    if game.module(CONTACT) is None or CONTACT not in state.modules:
        return None
    return load_contact(state.modules[CONTACT])


async def _defences(screen: _Screen, place: str) -> tuple[Game, Defences] | None:
    """The defences in the sector at map place ``place`` (the button's value), or ``None``
    (told to the GM) when there are none any more."""
    game = game_for(screen.campaign)
    contact = contact_state(game, game.upgraded(await screen.state()))
    sectors = game.map.sector_ids()
    index = whole_number(place, 3)
    found = (
        None
        if contact is None or index is None or index >= len(sectors)
        else contact.defences_in(sectors[index])
    )
    if found is None:
        await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return None
    return game, found


async def _defences_list(screen: _Screen, value: str) -> None:
    game = game_for(screen.campaign)
    contact = contact_state(game, game.upgraded(await screen.state()))
    if contact is None:
        await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    names = {side.id: side.name for side in await screen.store.sides(screen.campaign.id)}
    language = get_i18n().current_locale
    ordered = sorted(
        contact.defences, key=lambda item: (not item.ruined, game.map.order[item.sector])
    )
    rows = [
        [
            _button(
                ("🏚 " if item.ruined else "🧱 ")
                + f"{sector_label(game.map, item.sector, language)}: "
                + defences_button(item, names),
                screen.campaign,
                "def1",
                str(game.map.order[item.sector]),
            )
        ]
        for item in ordered
    ]
    rows.append(_back(screen.campaign))
    await screen.show(
        _(
            "Defences on the map (🏚 ruined, 🧱 standing; a barricade gives +1, a blockpost "
            "+2), the ruined ones first. Pick one to repair it (or to change its level or "
            "owner); the group sees the change, your reason and the map."
        ),
        rows,
    )


async def _defences_level(screen: _Screen, value: str) -> None:
    found = await _defences(screen, value)
    if found is None:
        return
    game, item = found
    names = {side.id: side.name for side in await screen.store.sides(screen.campaign.id)}
    language = get_i18n().current_locale
    choices = [
        (_("🧱 Barricade (+1), standing"), "1.0"),
        (_("🧱 Blockpost (+2), standing"), "2.0"),
        (_("🏚 Ruined barricade"), "1.1"),
        (_("🏚 Ruined blockpost"), "2.1"),
    ]
    now = f"{item.level}.{int(item.ruined)}"
    rows = [
        [
            _button(
                f"• {label}" if code == now else label, screen.campaign, "def2", f"{value}.{code}"
            )
        ]
        for label, code in choices
    ]
    rows.append([_button(_("◀ Defences"), screen.campaign, "def")])
    await screen.show(
        _("{sector}: {defences}. What should they be?").format(
            sector=sector_label(game.map, item.sector, language),
            defences=defences_words(item, names),
        ),
        rows,
    )


def _level_code(value: str) -> tuple[str, Literal[1, 2], bool] | None:
    """A button's «place.level.ruined» read, or ``None``."""
    parts = value.split(".")
    if len(parts) < 3 or parts[1] not in ("1", "2") or parts[2] not in ("0", "1"):
        return None
    level: Literal[1, 2] = 1 if parts[1] == "1" else 2
    return parts[0], level, parts[2] == "1"


async def _defences_owner(screen: _Screen, value: str) -> None:
    code = _level_code(value)
    found = None if code is None else await _defences(screen, code[0])
    if code is None or found is None:
        if code is None:
            await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    game, item = found
    playing = await screen.playing()
    names = {side.id: side.name for side in await screen.store.sides(screen.campaign.id)}
    language = get_i18n().current_locale
    owners = [(side.id, f"{colour_mark(side.colour)} {side.name}") for side in playing]
    owners.append(("", _("Neutral (nobody's)")))
    rows = [
        [
            _button(
                f"• {label}" if (item.owner or "") == side else label,
                screen.campaign,
                "def3",
                f"{value}.{index}",
            )
        ]
        for index, (side, label) in enumerate(owners)
    ]
    rows.append([_button(_("◀ Defences"), screen.campaign, "def")])
    await screen.show(
        _("{sector}: {defences}. Whose are they (• now)?").format(
            sector=sector_label(game.map, item.sector, language),
            defences=defences_words(item, names),
        ),
        rows,
    )


async def _defences_reason(screen: _Screen, value: str) -> None:
    code = _level_code(value)
    found = None if code is None else await _defences(screen, code[0])
    if code is None or found is None:
        if code is None:
            await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    game, item = found
    _place, level, ruined = code
    playing = await screen.playing()
    index = whole_number(value.rsplit(".", 1)[-1], 2)
    if index is None or index > len(playing):
        await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    owner = playing[index].id if index < len(playing) else None
    names = {side.id: side.name for side in await screen.store.sides(screen.campaign.id)}
    after = item.model_copy(update={"level": level, "owner": owner, "ruined": ruined})
    language = get_i18n().current_locale
    await screen.ask_reason(
        {"defences": item.sector, "level": level, "owner": owner or "", "ruined": int(ruined)},
        _(
            "{sector}: {defences}. Type the reason for the group (up to {most} characters); "
            "/cancel stops."
        ).format(
            sector=sector_label(game.map, item.sector, language),
            defences=defences_words(after, names),
            most=MAX_REASON,
        ),
    )


async def _add(screen: _Screen, value: str) -> None:
    gm_id = screen.person.user_id
    await screen.store.set_prompt(
        gm_id,
        gm_id,
        screen.campaign.id,
        GM_NEW_SIDE,
        {"turn": screen.campaign.turn},
        None,
        screen.clock.now(),
    )
    await screen.query.answer()
    await screen.message.answer(
        _(
            "A new side: type its name on the first line, its armies as sector:armies pairs on "
            "the second (e.g. «1:4 2:3 4:3»; you decide how many), and the reason on the third. "
            "The group sees the side, its armies on the map and the reason. /cancel stops."
        )
    )


async def _npc_list(screen: _Screen, value: str) -> None:
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
            _button(
                "→ " + sector_label(game.map, sector, language),
                screen.campaign,
                "npc1",
                str(game.map.order[sector]),
            )
        ]
        for sector in await watch_gm.npc_choices(screen.store, screen.campaign, game, state)
    ]
    rows.append(_back(screen.campaign))
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


async def _npc_reason(screen: _Screen, value: str) -> None:
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


async def _hero_prompt(screen: _Screen, value: str) -> None:
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


async def _undo_confirm(screen: _Screen, value: str) -> None:
    last = undoable(await screen.store.adjustments(screen.campaign.id, screen.campaign.turn))
    if last is None:
        await screen.query.answer(
            _refusal(EditResult(EditOutcome.NOTHING), screen.campaign, []), show_alert=True
        )
        return
    reason = str(last.adjustment.get("reason", "")) or "—"
    # «Yes» names the edit it was asked about: a second tap does not undo the one before it.
    yes = _button(_("Yes, undo it"), screen.campaign, "undo!", str(last.id))
    rows = [[yes], _back(screen.campaign)]
    await screen.show(
        _(
            "Undo the last edit («{reason}»)? The armies go back to what they were before it; "
            "the group is told. The audit log keeps both."
        ).format(reason=reason),
        rows,
    )


async def _undo(screen: _Screen, value: str) -> None:
    expected = whole_number(value)
    result = await undo_last_edit(
        screen.store,
        screen.campaign,
        screen.person.user_id,
        screen.clock.now(),
        -1 if expected is None else expected,
    )
    if result.outcome is not EditOutcome.APPLIED:
        sides = await screen.store.sides(screen.campaign.id)
        await screen.query.answer(_refusal(result, screen.campaign, sides), show_alert=True)
        return
    await _menu(screen, "", _("Undone: the group is told and sees the map."))


# ---- the typed answers ----


async def _campaign_of(
    message: Message, store: Store, person: Person, prompt: Prompt
) -> Campaign | None:
    """The prompt's campaign if its GM may still edit it at the prompt's turn; else the wait
    is over and the GM is told why."""
    campaign = await store.campaign(prompt.campaign_id or 0)
    if campaign is None or await gm_member(store, campaign, person.user_id) is None:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(not_gm_text())
        return None
    if not may_edit(campaign) or campaign.turn != prompt.data.get("turn"):
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_refusal(EditResult(EditOutcome.CLOSED), campaign, []))
        return None
    return campaign


def _reason(text: str) -> str | None:
    reason = " ".join(text.split())
    return reason if 1 <= len(reason) <= MAX_REASON else None


async def typed_reason(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """The GM's reason for the edit waiting in the prompt: the edit is made, or refused with
    why."""
    campaign = await _campaign_of(message, store, person, prompt)
    if campaign is None:
        return
    reason = _reason(message.text or "")
    if reason is None:
        await message.answer(
            _("A reason has 1 to {most} characters. Type it again, or /cancel.").format(
                most=MAX_REASON
            )
        )
        return
    data = prompt.data
    retire = data.get("retire")
    count = data.get("count")
    defences, level = data.get("defences"), data.get("level")
    npc = data.get("npc")
    if isinstance(npc, str):
        moved = await watch_gm.move_npc_now(
            store, campaign, npc, reason, person.user_id, clock.now()
        )
        await store.clear_prompt(message.chat.id, person.user_id)
        await _watch_answer(message, moved, campaign, await store.sides(campaign.id))
        return
    if isinstance(retire, str):
        edit = StateEdit(retire=retire, reason=reason)
    elif isinstance(defences, str) and level in (1, 2):
        repair = DefencesSet(
            sector=defences,
            level=1 if level == 1 else 2,
            owner=str(data.get("owner") or "") or None,
            ruined=bool(data.get("ruined")),
        )
        edit = StateEdit(modules=defences_edit(repair), reason=reason)
    elif isinstance(count, int):
        change = ArmySet(side=str(data.get("side")), sector=str(data.get("sector")), count=count)
        edit = StateEdit(armies=(change,), reason=reason)
    else:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("That button is not valid any more."))
        return
    result = await edit_state(store, campaign, edit, person.user_id, clock.now())
    await store.clear_prompt(message.chat.id, person.user_id)
    await _answer(message, result, campaign, await store.sides(campaign.id))


async def typed_new_side(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """The new side's name, placement and reason, typed in one message."""
    campaign = await _campaign_of(message, store, person, prompt)
    if campaign is None:
        return
    lines = [line.strip() for line in (message.text or "").splitlines() if line.strip()]
    placement = None
    if len(lines) == 3:
        try:
            placement = campaigns.parse_placement(lines[1])
        except campaigns.PlacementInputError:
            placement = None
    reason = _reason(lines[2]) if len(lines) == 3 else None
    if placement is None or reason is None:
        await message.answer(
            _(
                "Type three lines: the name, the armies as sector:armies pairs (e.g. «1:4 2:3»), "
                "and the reason. Or /cancel."
            )
        )
        return
    result = await add_side(
        store, campaign, lines[0], placement, reason, person.user_id, clock.now()
    )
    if result.outcome in (EditOutcome.REFUSED, EditOutcome.NAME_TAKEN, EditOutcome.BAD_NAME):
        sides = await store.sides(campaign.id)
        await message.answer(
            _refusal(result, campaign, sides) + "\n" + _("Type it again, or /cancel.")
        )
        return
    await store.clear_prompt(message.chat.id, person.user_id)
    await _answer(message, result, campaign, await store.sides(campaign.id))


async def typed_new_hero(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """The new hero's line and the reason, typed in one message."""
    campaign = await _campaign_of(message, store, person, prompt)
    if campaign is None:
        return
    lines = [line.strip() for line in (message.text or "").splitlines() if line.strip()]
    reason = _reason(lines[1]) if len(lines) == 2 else None
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
    await _answer(message, EditResult(result.outcome, edit_id=result.edit_id), campaign, sides)


async def _answer(
    message: Message, result: EditResult, campaign: Campaign, sides: list[Side]
) -> None:
    if result.outcome is not EditOutcome.APPLIED:
        await message.answer(_refusal(result, campaign, sides))
        return
    await message.answer(
        _("Done: the group sees the change, the reason and the map; the audit log keeps it."),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[[edit_button(campaign)]]),
    )


async def cancel(message: Message, store: Store, person: Person) -> None:
    """``/cancel`` while an edit waits for its reason: stop waiting, change nothing."""
    await store.clear_prompt(message.chat.id, person.user_id)
    await message.answer(_("Stopped; nothing was changed. /gm opens the GM tools again."))


def build() -> Router:
    """This module's router (a new one per dispatcher); registered before the other private
    screens, so a waiting reason gets the text first."""
    router = Router(name=__name__)
    for field in (GM_EDIT_REASON, GM_NEW_SIDE, GM_NEW_HERO):
        router.message.register(cancel, Command("cancel"), GmPromptWaiting(field))
    typed = (TYPED,)
    router.message.register(typed_reason, *typed, GmPromptWaiting(GM_EDIT_REASON))
    router.message.register(typed_new_side, *typed, GmPromptWaiting(GM_NEW_SIDE))
    router.message.register(typed_new_hero, *typed, GmPromptWaiting(GM_NEW_HERO))
    router.callback_query.register(pressed, GmEdit.filter())
    return router
