"""The GM edits the state directly (issue 23), from the GM panel in the GM's private chat: armies
of a side in a sector (buttons for side, sector and number, then a typed reason), a side added
mid-campaign with the armies the GM places, a side retired, each module's own edits (its
rows, screens and typed reasons, from the ``gm_state_*`` hooks of ``bot.modules``' modules, in
``bot/modules/<name>/gm_state.py``), and the undo of the last edit.

Every button names (campaign, turn, phase) and is checked again when pressed: the presser must
be a GM of this campaign and the orders still open. The typed reason is stored as a ``Prompt``
(it survives a restart) and checked again when it arrives. The group hears of each edit and of
its undo, with the reason and the map (``bot.posts.edits``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.filters import TYPED
from bot.handlers.group.gm import edit_button
from bot.handlers.group.guards import gm_member, not_gm_text, pressed_campaign, whole_number
from bot.handlers.private.gm_prompts import GmPromptWaiting
from bot.modules import BOT_MODULES
from bot.posts.group import colour_mark
from bot.runtime.clock import Clock
from bot.screens.callbacks import GmEdit, gm_menu_data
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
from bot.texts.core import armies
from bot.texts.limits import button_label
from bot.texts.sectors import sector_label
from rules import CampaignState
from rules.edits import (
    MAX_ARMIES,
    ArmySet,
    EditProblem,
    EditProblemCode,
    StateEdit,
)
from rules.maps import CampaignMap
from storage import Campaign, Person, Prompt, Side, Store

GM_EDIT_REASON = "gm_edit_reason"
"""The prompt's ``field``: ``data`` holds the edit waiting for its reason (``turn``, and
``side``/``sector``/``count``, ``retire``, or a module's own keys)."""
GM_NEW_SIDE = "gm_new_side"
"""The prompt's ``field``: the new side's name, placement and reason, typed in one message."""
MAX_REASON = 300


def state_button(
    text: str, campaign: Campaign, action: str, value: str = ""
) -> InlineKeyboardButton:
    """A button of the state editor: ``action`` with ``value``, for this turn and phase."""
    data = GmEdit(c=campaign.id, t=campaign.turn, p=campaign.phase.value, a=action, v=value)
    return InlineKeyboardButton(text=button_label(text), callback_data=data.pack())


def back_row(campaign: Campaign) -> list[InlineKeyboardButton]:
    """The row back to the state editor's menu."""
    return [state_button(_("◀ Correct the state"), campaign, "menu")]


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
        case EditProblemCode.MODULE_RULE:
            module = BOT_MODULES.get(str(p.get("module", "")))
            words = (
                None if module is None else module.describe_edit_problem(p, campaign_map, language)
            )
            return words or _("This campaign's rules allow no such edit.")


def refusal(result: EditResult, campaign: Campaign, sides: list[Side]) -> str:
    """The GM's answer to an edit that was not made."""
    match result.outcome:
        case EditOutcome.REFUSED:
            names = {side.id: side.name for side in sides}
            game = game_for(campaign)
            reasons = [
                describe_edit_problem(problem, game.map, names, get_i18n().current_locale)
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


class StateScreen:
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


GmStateScreen = Callable[[StateScreen, str], Awaitable[None]]
"""A state-edit screen: what a button of action ``a`` does with its value ``v``."""


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
        await query.answer(refusal(EditResult(EditOutcome.CLOSED), campaign, []), show_alert=True)
        return
    screens: dict[str, GmStateScreen] = {
        "menu": _menu,
        "side": _side,
        "sector": _sector,
        "count": _count,
        "retire": _retire_list,
        "retire1": _retire,
        "add": _add,
        "undo": _undo_confirm,
        "undo!": _undo,
    }
    for module in BOT_MODULES.values():
        screens.update(module.gm_state_screens())
    handler = screens.get(callback_data.a)
    if handler is None:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    await handler(
        StateScreen(query, query.message, store, clock, person, campaign), callback_data.v
    )


async def _menu(screen: StateScreen, value: str, notice: str | None = None) -> None:
    campaign = screen.campaign
    sides = await screen.playing()
    state = await screen.state()
    game = game_for(campaign)
    language = get_i18n().current_locale
    names = {side.id: side.name for side in sides}
    rows = [
        [state_button(f"{colour_mark(side.colour)} {side.name}", campaign, "side", side.id)]
        for side in sides
    ]
    rows.append([state_button(_("➕ Add a side"), campaign, "add")])
    rows.append([state_button(_("🚫 Retire a side"), campaign, "retire")])
    for module in BOT_MODULES.values():
        rows.extend(module.gm_state_rows(campaign, state))
    if undoable(await screen.store.adjustments(campaign.id, campaign.turn)) is not None:
        rows.append([state_button(_("↩️ Undo the last edit"), campaign, "undo")])
    rows.append([InlineKeyboardButton(text=_("◀ GM tools"), callback_data=gm_menu_data(campaign))])
    text = "\n".join(
        [
            _("«{title}», turn {turn}: the armies now.").format(
                title=campaign.title, turn=campaign.turn
            ),
            *_state_lines(state, sides, game.map, language),
            *(
                line
                for module in BOT_MODULES.values()
                for line in module.gm_state_lines(campaign, state, names, language)
            ),
            _(
                "Pick a side to set its armies in a sector. Captured sectors follow from the "
                "armies: they are counted at each resolution. Every edit needs a reason; the "
                "group sees it with the map."
            ),
        ]
    )
    await screen.show(text, rows, notice)


async def _side(screen: StateScreen, value: str) -> None:
    side = next((s for s in await screen.playing() if s.id == value), None)
    if side is None:
        await screen.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    state = await screen.state()
    game = game_for(screen.campaign)
    language = get_i18n().current_locale
    rows = [
        [
            state_button(
                f"{sector_label(game.map, sector, language)}: {state.armies_of(side.id, sector)}",
                screen.campaign,
                "sector",
                f"{side.id}.{index}",
            )
        ]
        for index, sector in enumerate(game.map.sector_ids())
    ]
    rows.append(back_row(screen.campaign))
    await screen.show(
        _("Side «{side}»: in which sector do you set its armies?").format(side=side.name), rows
    )


async def _where(screen: StateScreen, value: str) -> tuple[Side, str] | None:
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


async def _sector(screen: StateScreen, value: str) -> None:
    found = await _where(screen, value)
    if found is None:
        return
    side, sector = found
    have = (await screen.state()).armies_of(side.id, sector)
    top = min(MAX_ARMIES, max(have + 6, 12))
    numbers = [
        state_button(f"• {n}" if n == have else str(n), screen.campaign, "count", f"{value}.{n}")
        for n in range(top + 1)
    ]
    rows = [numbers[i : i + 5] for i in range(0, len(numbers), 5)]
    rows.append(back_row(screen.campaign))
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


async def _count(screen: StateScreen, value: str) -> None:
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


async def _retire_list(screen: StateScreen, value: str) -> None:
    rows = [
        [
            state_button(
                f"{colour_mark(side.colour)} {side.name}", screen.campaign, "retire1", side.id
            )
        ]
        for side in await screen.playing()
    ]
    rows.append(back_row(screen.campaign))
    await screen.show(
        _(
            "Which side leaves the campaign? Its armies leave the map, its players no longer "
            "play it (they stay in the campaign and may join another side), and attacks on it "
            "are dropped. An undo brings it back."
        ),
        rows,
    )


async def _retire(screen: StateScreen, value: str) -> None:
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


async def _add(screen: StateScreen, value: str) -> None:
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


async def _undo_confirm(screen: StateScreen, value: str) -> None:
    last = undoable(await screen.store.adjustments(screen.campaign.id, screen.campaign.turn))
    if last is None:
        await screen.query.answer(
            refusal(EditResult(EditOutcome.NOTHING), screen.campaign, []), show_alert=True
        )
        return
    reason = str(last.adjustment.get("reason", "")) or "—"
    # «Yes» names the edit it was asked about: a second tap does not undo the one before it.
    yes = state_button(_("Yes, undo it"), screen.campaign, "undo!", str(last.id))
    rows = [[yes], back_row(screen.campaign)]
    await screen.show(
        _(
            "Undo the last edit («{reason}»)? The armies go back to what they were before it; "
            "the group is told. The audit log keeps both."
        ).format(reason=reason),
        rows,
    )


async def _undo(screen: StateScreen, value: str) -> None:
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
        await screen.query.answer(refusal(result, screen.campaign, sides), show_alert=True)
        return
    await _menu(screen, "", _("Undone: the group is told and sees the map."))


# ---- the typed answers ----


async def prompt_campaign(
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
        await message.answer(refusal(EditResult(EditOutcome.CLOSED), campaign, []))
        return None
    return campaign


def reason_of(text: str) -> str | None:
    reason = " ".join(text.split())
    return reason if 1 <= len(reason) <= MAX_REASON else None


async def typed_reason(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """The GM's reason for the edit waiting in the prompt: the edit is made, or refused with
    why."""
    campaign = await prompt_campaign(message, store, person, prompt)
    if campaign is None:
        return
    reason = reason_of(message.text or "")
    if reason is None:
        await message.answer(
            _("A reason has 1 to {most} characters. Type it again, or /cancel.").format(
                most=MAX_REASON
            )
        )
        return
    data = prompt.data
    for module in BOT_MODULES.values():
        if await module.gm_state_reason(message, store, clock, person, campaign, data, reason):
            return
    retire = data.get("retire")
    count = data.get("count")
    if isinstance(retire, str):
        edit = StateEdit(retire=retire, reason=reason)
    elif isinstance(count, int):
        change = ArmySet(side=str(data.get("side")), sector=str(data.get("sector")), count=count)
        edit = StateEdit(armies=(change,), reason=reason)
    else:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("That button is not valid any more."))
        return
    await finish_edit(message, store, clock, person, campaign, edit)


async def finish_edit(
    message: Message,
    store: Store,
    clock: Clock,
    person: Person,
    campaign: Campaign,
    edit: StateEdit,
) -> None:
    """Make ``edit`` with the GM's typed reason, stop waiting for it, and tell the GM how it
    went."""
    result = await edit_state(store, campaign, edit, person.user_id, clock.now())
    await store.clear_prompt(message.chat.id, person.user_id)
    await answer_result(message, result, campaign, await store.sides(campaign.id))


async def typed_new_side(
    message: Message, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """The new side's name, placement and reason, typed in one message."""
    campaign = await prompt_campaign(message, store, person, prompt)
    if campaign is None:
        return
    lines = [line.strip() for line in (message.text or "").splitlines() if line.strip()]
    placement = None
    if len(lines) == 3:
        try:
            placement = campaigns.parse_placement(lines[1])
        except campaigns.PlacementInputError:
            placement = None
    reason = reason_of(lines[2]) if len(lines) == 3 else None
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
            refusal(result, campaign, sides) + "\n" + _("Type it again, or /cancel.")
        )
        return
    await store.clear_prompt(message.chat.id, person.user_id)
    await answer_result(message, result, campaign, await store.sides(campaign.id))


async def answer_result(
    message: Message, result: EditResult, campaign: Campaign, sides: list[Side]
) -> None:
    if result.outcome is not EditOutcome.APPLIED:
        await message.answer(refusal(result, campaign, sides))
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
    for field in (GM_EDIT_REASON, GM_NEW_SIDE):
        router.message.register(cancel, Command("cancel"), GmPromptWaiting(field))
    typed = (TYPED,)
    router.message.register(typed_reason, *typed, GmPromptWaiting(GM_EDIT_REASON))
    router.message.register(typed_new_side, *typed, GmPromptWaiting(GM_NEW_SIDE))
    router.callback_query.register(pressed, GmEdit.filter())
    return router
