"""``/gm``: the GM's tools, one panel with buttons in the GM's private chat (``/gm`` in the group
sends it there: the players see only the announcements); and the group's ``/lang``.

Every button names (campaign, turn, phase) and is re-checked when pressed: the presser must be
a GM of *this* campaign and the campaign still where the button was made, or the press is
answered as stale and changes nothing. Every action is audited by storage and announced in
the group through the outbox.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from aiogram import Router
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import I18n, get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.common import LANGUAGE_NAMES
from bot.handlers.group.clock import clock_buttons
from bot.handlers.group.guards import (
    campaign_here,
    campaigns_run_by,
    gm_member,
    no_campaign_words,
    not_gm_text,
    not_running_gm_text,
    pressed_campaign,
    stale_text,
    whole_number,
)
from bot.handlers.group.reopen import reopen_button
from bot.handlers.private.gm_prompts import (
    GM_END,
    GM_PLACEMENT,
    GM_RENAME,
    end_question,
    placement_question,
    rename_question,
)
from bot.handlers.private.screens import refusal_words
from bot.modules import BOT_MODULES
from bot.posts.group import colour_mark, position_line
from bot.runtime.clock import Clock
from bot.screens.callbacks import ButtonInt, ChangePress, GmEdit, GmPress, SeatPress
from bot.services import campaigns, running_changes, turns
from bot.services.orders import Refusal, Seat, decide_result, defender_mark, listed_battles
from bot.services.state_edits import may_edit
from bot.services.window import position_mark
from bot.texts.core import (
    chain_words,
    describe_deployment_problem,
    joining_label,
    language_name,
    no_show_label,
    outcome_label,
    policy_label,
    result_words,
    role_name,
)
from bot.texts.i18n import language_of
from bot.texts.limits import BUTTON_ROW, button_label
from bot.texts.moments import format_moment
from bot.texts.sectors import sector_label
from rules import (
    Battle,
    BattleResult,
    BattleSides,
    BattleStatus,
    Outcome,
    ResultsError,
    as_fought,
    battle_sides,
)
from storage import (
    Campaign,
    CampaignSettings,
    CorrectionOutcome,
    JoiningPolicy,
    Member,
    NoShowPolicy,
    Person,
    Phase,
    Role,
    Store,
    UnreportedPolicy,
)
from storage.models import Language

REASON = "GM tool in the group"


class GroupLanguage(CallbackData, prefix="gl"):
    """The group's ``/lang``: the campaign's language for its posts."""

    c: ButtonInt
    language: str


def panel_button(
    text: str, campaign: Campaign, action: str, value: str = ""
) -> InlineKeyboardButton:
    """A button of the GM panel: ``action`` with ``value``, for this turn and phase."""
    data = GmPress(c=campaign.id, t=campaign.turn, p=campaign.phase.value, a=action, v=value)
    return InlineKeyboardButton(text=button_label(text), callback_data=data.pack())


def edit_button(campaign: Campaign) -> InlineKeyboardButton:
    """The button that opens the state editor (``bot.handlers.private.gm_state``)."""
    data = GmEdit(c=campaign.id, t=campaign.turn, p=campaign.phase.value, a="menu")
    return InlineKeyboardButton(text=_("✏️ Correct the state"), callback_data=data.pack())


def _back(campaign: Campaign) -> list[InlineKeyboardButton]:
    return [panel_button(_("◀ GM tools"), campaign, "menu")]


def _results_turn(campaign: Campaign) -> tuple[int, bool] | None:
    """The turn whose results the GM may set now, and whether that is a correction."""
    if campaign.phase in (Phase.BATTLES, Phase.RESOLUTION):
        return campaign.turn, False
    if campaign.phase is Phase.ORDERS and campaign.turn > 1:
        return campaign.turn - 1, True
    return None


def panel(campaign: Campaign) -> tuple[str, InlineKeyboardMarkup]:
    """The main GM panel, grouped top to bottom: the clock; this turn's tools (results,
    reopening, placing, corrections); people; the campaign's settings; undo; the end last,
    alone on its row. Short labels share a row, so the panel fits a phone's screen."""
    rows: list[list[InlineKeyboardButton]] = []
    rows.extend(clock_buttons(campaign))
    if _results_turn(campaign) is not None:
        rows.append([panel_button(_("⚔️ Battle results"), campaign, "results")])
    if reopen_row := reopen_button(campaign):
        rows.append(reopen_row)
    for module in BOT_MODULES.values():
        rows += module.gm_panel_rows(campaign)
    if campaign.phase is Phase.DEPLOYMENT:
        rows.append([panel_button(_("📍 Place a side that did not deploy"), campaign, "place")])
    if may_edit(campaign):
        rows.append([edit_button(campaign)])
    for module in BOT_MODULES.values():
        rows += module.gm_panel_edit_rows(campaign)
    rows.append(
        [
            panel_button(_("👥 Members"), campaign, "members"),
            panel_button(_("🙋 Join requests"), campaign, "joins"),
        ]
    )
    if campaign.phase is not Phase.SETUP:
        seats = SeatPress(c=campaign.id, a="list").pack()
        rows.append([InlineKeyboardButton(text=_("🪑 Replace a player"), callback_data=seats)])
        rows.append([panel_button(_("⚙️ Settings and sides"), campaign, "settings")])
        changes = ChangePress(c=campaign.id, a="menu").pack()
        rows.append(
            [InlineKeyboardButton(text=_("🗓 Schedule, deadline, language"), callback_data=changes)]
        )
        rows.append([panel_button(_("↩️ Undo the last step"), campaign, "undo")])
    rows.append([panel_button(_("🏁 End the campaign"), campaign, "end")])
    text = _("GM tools: «{title}»\n{position}").format(
        title=campaign.title, position=position_line(campaign)
    )
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


async def open_panel(message: Message, store: Store, person: Person, i18n: I18n) -> None:
    """``/gm`` in the group: the panel, sent to the GM's private chat (GMs of this chat's
    campaign only); the group is told where it went."""
    campaign = await campaign_here(store, message)
    if campaign is None:
        await message.answer(await no_campaign_words(store, message))
        return
    if await gm_member(store, campaign, person.user_id) is None:
        await message.answer(not_gm_text())
        return
    if campaign.phase is Phase.SETUP:
        await message.answer(_("The campaign is still being set up: /newcampaign continues."))
        return
    if await _send_panel(message, person, i18n, campaign):
        await message.answer(
            _("{name}, the GM tools are in our private chat now.").format(name=person.display_name)
        )
        return
    await message.answer(
        _(
            "{name}, the GM tools open in our private chat, where the players do not see them. "
            "Open it (tap my name, then «Start») and send /gm there."
        ).format(name=person.display_name)
    )


async def _send_panel(message: Message, person: Person, i18n: I18n, campaign: Campaign) -> bool:
    """Send the panel to ``person``'s private chat, in their language; False if it cannot go."""
    if not person.can_receive_private or message.bot is None:
        return False
    with i18n.use_locale(person.language or language_of(person.telegram_language)):
        text, keyboard = panel(campaign)
    try:
        await message.bot.send_message(person.user_id, text, reply_markup=keyboard)
    except (TelegramForbiddenError, TelegramBadRequest):
        return False
    return True


async def open_private_panel(message: Message, store: Store, person: Person) -> None:
    """``/gm`` in private: the panel of the campaign the person runs (their current one if they
    run several, else a choice)."""
    running = await campaigns_run_by(store, person.user_id)
    if not running:
        await message.answer(not_running_gm_text())
        return
    current = next((c for c in running if c.id == person.current_campaign_id), None)
    if current is None and len(running) > 1:
        rows = [[panel_button(button_label(c.title), c, "menu")] for c in running]
        await message.answer(
            _("You run several campaigns: choose one."),
            reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
        )
        return
    campaign = current or running[0]
    if campaign.phase is Phase.SETUP:
        await message.answer(
            _("«{title}» is still being set up: /newcampaign in its group continues.").format(
                title=campaign.title
            )
        )
        return
    text, keyboard = panel(campaign)
    await message.answer(text, reply_markup=keyboard)


# ---- the buttons ----


async def pressed(
    query: CallbackQuery,
    callback_data: GmPress,
    store: Store,
    clock: Clock,
    person: Person,
    i18n: I18n,
) -> None:
    """Any GM button: re-check campaign, turn, phase and the presser's role, then act."""
    campaign = await pressed_campaign(
        store, query, callback_data.c, callback_data.t, callback_data.p
    )
    if campaign is None:
        return
    gm = await gm_member(store, campaign, person.user_id)
    if gm is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    if not isinstance(query.message, Message):
        await query.answer()
        return
    action, value = callback_data.a, callback_data.v
    screens: dict[str, GmScreen] = {
        "menu": _menu,
        "members": _members,
        "member": _member_screen,
        "side": _move,
        "role": _toggle,
        "kick": _kick_confirm,
        "kick!": _kick,
        "readmit": _readmit,
        "joins": _join_requests,
        "joinok": _join_approve,
        "joinno": _join_refuse,
        "results": _results,
        "battle": _battle_screen,
        "win": _winner_screen,
        "set": _set_result,
        "place": _place_list,
        "placeside": _place_side,
        "placedef": _place_default,
        "placetype": _place_typed_prompt,
        "settings": _settings,
        "upol": _set_unreported,
        "jpol": _set_joining,
        "nsp": _set_no_show,
        "renames": _rename_list,
        "rename": _rename_prompt,
        "undo": _undo_confirm,
        "undo!": _undo,
        "end": _end_confirm,
        "end!": _end_prompt,
    }
    for module in BOT_MODULES.values():
        screens.update(module.gm_panel_screens())
    handler = screens.get(action)
    if handler is None:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    await handler(GmContext(query, query.message, store, clock, i18n, person, gm, campaign), value)


class GmContext:
    """What a GM screen works with: the press, its message, services, the GM and the campaign."""

    def __init__(
        self,
        query: CallbackQuery,
        message: Message,
        store: Store,
        clock: Clock,
        i18n: I18n,
        person: Person,
        gm: Member,
        campaign: Campaign,
    ) -> None:
        self.query = query
        self.message = message
        self.store = store
        self.clock = clock
        self.i18n = i18n
        self.person = person
        self.gm = gm
        self.campaign = campaign

    async def show(self, text: str, rows: list[list[InlineKeyboardButton]]) -> None:
        """Answer the press and show a screen in the panel's message."""
        await self.query.answer()
        await self.message.edit_text(text, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))

    async def announce(self, words: Callable[[], str]) -> None:
        """Tell the group what the GM did, worded in the campaign's language (queued: it must
        arrive), then :meth:`done` in the GM's."""
        now = self.clock.now()
        with self.i18n.use_locale(self.campaign.language):
            text = words()
        await self.store.enqueue(campaigns.group_notice(self.campaign, text, now), now)
        await self.done(words())

    async def done(self, text: str) -> None:
        """Show the GM ``text`` and turn the panel back to the menu."""
        await self.query.answer(text)
        fresh = await self.store.campaign(self.campaign.id) or self.campaign
        menu_text, keyboard = panel(fresh)
        await self.message.edit_text(menu_text, reply_markup=keyboard)


GmScreen = Callable[[GmContext, str], Awaitable[None]]
"""A GM panel screen: what a button of action ``a`` does with its value ``v``."""


async def _menu(ctx: GmContext, value: str) -> None:
    text, keyboard = panel(ctx.campaign)
    await ctx.show(text, keyboard.inline_keyboard)


# ---- members ----


def _roles_text(member: Member) -> str:
    return ", ".join(role_name(role) for role in sorted(member.roles)) or "—"


async def _members(ctx: GmContext, value: str) -> None:
    sides = {side.id: side for side in await ctx.store.sides(ctx.campaign.id)}
    rows = []
    for member in await ctx.store.members(ctx.campaign.id):
        side = sides.get(member.side_id or "")
        mark = f"{colour_mark(side.colour)} {side.name}" if side else "—"
        label = f"{member.display_name}: {mark}, {_roles_text(member)}"
        rows.append(
            [panel_button(button_label(label), ctx.campaign, "member", str(member.user_id))]
        )
    for removed in await ctx.store.removed_members(ctx.campaign.id):
        label = _("↩ Let {name} join again").format(name=removed.display_name)
        rows.append(
            [panel_button(button_label(label), ctx.campaign, "readmit", str(removed.user_id))]
        )
    rows.append(_back(ctx.campaign))
    await ctx.show(_("Members: choose one to move, change roles or remove."), rows)


async def _readmit(ctx: GmContext, value: str) -> None:
    user_id = whole_number(value)
    removed = (
        await ctx.store.removed_member(ctx.campaign.id, user_id) if user_id is not None else None
    )
    if removed is None or not await campaigns.readmit(
        ctx.store, ctx.campaign, removed.user_id, ctx.person.user_id, ctx.clock.now()
    ):
        await ctx.query.answer(_("That person may join already."), show_alert=True)
        return
    await ctx.announce(
        lambda: _(
            "GM {gm} lets {name} join the campaign again: they tap «Join» like anyone."
        ).format(gm=ctx.person.display_name, name=removed.display_name)
    )


async def _join_requests(ctx: GmContext, value: str) -> None:
    """The join requests that wait for a GM, each with approve / refuse."""
    sides = {side.id: side.name for side in await ctx.store.sides(ctx.campaign.id)}
    waiting = [r for r in await ctx.store.join_requests(ctx.campaign.id) if r.awaits_gm]
    rows = []
    refuse = _("✖ Refuse")
    for request in waiting:
        who = f"{request.display_name} → {sides.get(request.side_id or '', '?')}"
        rows.append(
            [
                panel_button(
                    button_label(f"✅ {who}", BUTTON_ROW - len(refuse)),
                    ctx.campaign,
                    "joinok",
                    str(request.user_id),
                ),
                panel_button(refuse, ctx.campaign, "joinno", str(request.user_id)),
            ]
        )
    rows.append(_back(ctx.campaign))
    text = (
        _("Join requests waiting for a GM: approve or refuse each.")
        if waiting
        else _("No join request waits for a GM.")
    )
    await ctx.show(text, rows)


async def _join_approve(ctx: GmContext, value: str) -> None:
    await _join_decide(ctx, value, approve=True)


async def _join_refuse(ctx: GmContext, value: str) -> None:
    await _join_decide(ctx, value, approve=False)


async def _join_decide(ctx: GmContext, value: str, approve: bool) -> None:
    user_id = whole_number(value)
    request = None if user_id is None else await ctx.store.join_request(ctx.campaign.id, user_id)
    if user_id is None or request is None or not request.awaits_gm or request.role is None:
        await ctx.query.answer(_("That request is no longer waiting."), show_alert=True)
        return
    sides = {side.id: side.name for side in await ctx.store.sides(ctx.campaign.id)}
    side = sides.get(request.side_id or "", "?")
    with ctx.i18n.use_locale(ctx.campaign.language):  # the group's words, not the GM's
        notice = _("{name} joined {side} as {role} (approved by the GM).").format(
            name=request.display_name, side=side, role=role_name(request.role)
        )
    decision, _settled = await campaigns.decide_join(
        ctx.store, ctx.campaign, ctx.person.user_id, user_id, approve, ctx.clock.now(), notice
    )
    match decision:
        case campaigns.JoinDecision.APPROVED:
            await ctx.done(
                _("Approved: {name} plays {side}.").format(name=request.display_name, side=side)
            )
        case campaigns.JoinDecision.REFUSED:
            await ctx.done(_("Refused: {name} is told.").format(name=request.display_name))
        case _:
            await ctx.query.answer(_("That request is no longer waiting."), show_alert=True)


async def _target(ctx: GmContext, value: str) -> Member | None:
    user_id = whole_number(value.split(".", maxsplit=1)[0])
    member = await ctx.store.member(ctx.campaign.id, user_id) if user_id is not None else None
    if member is None:
        await ctx.query.answer(_("That person is not in the campaign any more."), show_alert=True)
    return member


async def _member_screen(ctx: GmContext, value: str) -> None:
    member = await _target(ctx, value)
    if member is None:
        return
    uid = str(member.user_id)
    rows = [
        [
            panel_button(
                f"→ {colour_mark(side.colour)} {side.name}",
                ctx.campaign,
                "side",
                f"{uid}.{side.id}",
            )
        ]
        for side in await ctx.store.sides(ctx.campaign.id)
        if side.id != member.side_id and not side.retired
    ]
    if member.side_id is not None:
        rows.append(
            [
                panel_button(
                    _toggle_label(member, role), ctx.campaign, "role", f"{uid}.{role.value}"
                )
                for role in (Role.STRATEGIST, Role.TACTICIAN)
            ]
        )
    if Role.GM not in member.roles:
        rows.append(
            [panel_button(_toggle_label(member, Role.CO_GM), ctx.campaign, "role", f"{uid}.co_gm")]
        )
        rows.append([panel_button(_("✖ Remove from the campaign"), ctx.campaign, "kick", uid)])
    rows.append([panel_button(_("◀ Members"), ctx.campaign, "members")])
    side = next((s for s in await ctx.store.sides(ctx.campaign.id) if s.id == member.side_id), None)
    if side is None:
        head = _("{name}: no side; {roles}.").format(
            name=member.display_name, roles=_roles_text(member)
        )
    else:
        head = _("{name}: side «{side}»; {roles}.").format(
            name=member.display_name, side=side.name, roles=_roles_text(member)
        )
    hint = _(
        "Tap a side (→) to move them there, a role to give or take it (✓: they have it), or "
        "remove them from the campaign."
    )
    await ctx.show(f"{head}\n{hint}", rows)


def _toggle_label(member: Member, role: Role) -> str:
    return ("✓ " if role in member.roles else "+ ") + role_name(role)


async def _move(ctx: GmContext, value: str) -> None:
    member = await _target(ctx, value)
    if member is None:
        return
    side_id = value.partition(".")[2]
    moved = await campaigns.move_member(
        ctx.store, ctx.campaign, member, side_id, ctx.person.user_id, ctx.clock.now()
    )
    if moved is None:
        await ctx.query.answer(_("That side is gone."), show_alert=True)
        return
    side = next(s for s in await ctx.store.sides(ctx.campaign.id) if s.id == side_id)
    await ctx.announce(
        lambda: _("GM {gm} moved {name} to {side}.").format(
            gm=ctx.person.display_name, name=member.display_name, side=side.name
        )
    )


async def _toggle(ctx: GmContext, value: str) -> None:
    member = await _target(ctx, value)
    if member is None:
        return
    role_value = value.partition(".")[2]
    role = Role(role_value) if role_value in {r.value for r in Role} else Role.GM
    if role is Role.CO_GM and Role.GM not in ctx.gm.roles:
        await ctx.query.answer(_("Only the campaign's creator names co-GMs."), show_alert=True)
        return
    updated = await campaigns.toggle_role(
        ctx.store, ctx.campaign, member, role, ctx.person.user_id, ctx.clock.now()
    )
    if updated is None:
        await ctx.query.answer(
            _("That change is not possible: a player keeps at least one role on their side."),
            show_alert=True,
        )
        return
    await ctx.announce(
        lambda: _("GM {gm} changed {name}'s roles: {roles}.").format(
            gm=ctx.person.display_name, name=member.display_name, roles=_roles_text(updated)
        )
    )


async def _kick_confirm(ctx: GmContext, value: str) -> None:
    member = await _target(ctx, value)
    if member is None:
        return
    rows = [
        [
            panel_button(
                _("Yes, remove {name}").format(name=member.display_name),
                ctx.campaign,
                "kick!",
                value,
            )
        ],
        [panel_button(_("◀ Back"), ctx.campaign, "member", value)],
    ]
    await ctx.show(
        _(
            "Remove {name} from the campaign? Their past orders and results stay. They cannot "
            "join again until you let them (Members)."
        ).format(name=member.display_name),
        rows,
    )


async def _kick(ctx: GmContext, value: str) -> None:
    member = await _target(ctx, value)
    if member is None:
        return
    if not await campaigns.remove_member(
        ctx.store, ctx.campaign, member, ctx.person.user_id, ctx.clock.now()
    ):
        await ctx.query.answer(_("The campaign's creator cannot be removed."), show_alert=True)
        return
    await ctx.announce(
        lambda: _("GM {gm} removed {name} from the campaign.").format(
            gm=ctx.person.display_name, name=member.display_name
        )
    )


# ---- battle results ----


@dataclass(frozen=True)
class _PanelBattle:
    """A battle of the results tool: as fought now (a chain battle's defender from the results
    before it), its status, and its sector's label."""

    battle: Battle
    status: BattleSides | None
    sector: str
    stale: bool = False

    @property
    def mark(self) -> int:
        """Which side defends it, as its buttons carry it (:func:`defender_mark`)."""
        return defender_mark(self.battle)

    def playable(self) -> bool:
        return self.status is None or self.status.status is BattleStatus.PLAYABLE


async def _battles_of(ctx: GmContext, turn: int, correction: bool) -> list[_PanelBattle]:
    """``turn``'s battles as fought now: a resolved turn's with its results (``correction``),
    else the current list's with the results that stand."""
    game_map = turns.game_for(ctx.campaign).map
    language = get_i18n().current_locale  # the GM's, who reads it in private
    if correction:
        resolved = await ctx.store.resolutions(ctx.campaign.id, turn)
        if not resolved:
            return []
        report = resolved[-1].report
        sides = battle_sides(
            report.battles, {result.battle: result for result in report.results}, final=True
        )
        return [
            _PanelBattle(
                as_fought(battle, sides.get(battle.id)),
                sides.get(battle.id),
                sector_label(game_map, battle.sector, language),
            )
            for battle in report.battles
        ]
    listed = await listed_battles(ctx.store, ctx.campaign)
    if listed is None:
        return []
    return [
        _PanelBattle(
            listed.standing.fought(battle),
            listed.standing.sides.get(battle.id),
            sector_label(game_map, battle.sector, language),
            battle.id in listed.stale,
        )
        for battle in listed.battles
    ]


def _result_words(result: BattleResult | None, names: dict[str, str]) -> str:
    return _("no result") if result is None else result_words(result, names)


def _versus(found: _PanelBattle, names: dict[str, str]) -> str:
    """«Battle 2: A vs B in sector», or «… A vs the winner of battle 1 …» while its defender
    is not known."""
    battle = found.battle
    attacker = names.get(battle.attacker, battle.attacker)
    if battle.defender_from is not None and (found.status is None or found.status.defender is None):
        return _("Battle {id}: {attacker} vs the winner of battle {before} in {sector}").format(
            id=battle.id, attacker=attacker, before=battle.defender_from, sector=found.sector
        )
    return _("Battle {id}: {attacker} vs {defender} in {sector}").format(
        id=battle.id,
        attacker=attacker,
        defender=names.get(battle.defender, battle.defender),
        sector=found.sector,
    )


async def _list_still_secret(ctx: GmContext) -> bool:
    """Before the battle list is public (Friday), the panel in the group must not show it:
    the press is answered with the moment instead (True)."""
    public_at = await campaigns.battle_list_public_at(ctx.store, ctx.campaign, ctx.clock.now())
    if public_at is None:
        return False
    await ctx.query.answer(
        _("The battle list is posted on {moment}; set results after that.").format(
            moment=format_moment(public_at, ctx.campaign.time_zone, get_i18n().current_locale)
        ),
        show_alert=True,
    )
    return True


async def _results(ctx: GmContext, value: str) -> None:
    found = _results_turn(ctx.campaign)
    if found is None:
        await ctx.query.answer(_("No battle results to set in this phase."), show_alert=True)
        return
    if not found[1] and await _list_still_secret(ctx):
        return
    turn, correction = found
    names = {side.id: side.name for side in await ctx.store.sides(ctx.campaign.id)}
    lines = [
        _("Turn {turn} (resolved): correct a result and the turn is resolved again.").format(
            turn=turn
        )
        if correction
        else _("Turn {turn}: set or correct a result (the GM's word is final).").format(turn=turn)
    ]
    effective: dict[int, BattleResult | None] = {}
    status: dict[int, str] = {}
    if correction:
        resolved = await ctx.store.resolutions(ctx.campaign.id, turn)
        given = {r.battle: r for r in (resolved[-1].results if resolved else ())}
        effective.update(given)
    else:
        listed = await listed_battles(ctx.store, ctx.campaign)
        for report in listed.reports.values() if listed is not None else ():
            effective[report.battle] = report.effective()
            if report.override is not None:
                status[report.battle] = _("set by the GM")
            elif report.disputed:
                status[report.battle] = _("⚠️ disputed: {result} or {counter}").format(
                    result=_result_words(report.reported, names),
                    counter=_result_words(report.counter, names),
                )
            elif report.awaiting_answer:
                status[report.battle] = _("reported, not answered yet: it stands unless disputed")
    rows = []
    for battle in await _battles_of(ctx, turn, correction):
        number = battle.battle.id
        chain = chain_words(battle.battle, battle.status, names, stale=battle.stale)
        if not battle.playable():
            lines.append(_versus(battle, names) + ": " + " ".join(chain))
            continue
        line = _versus(battle, names) + ": " + _result_words(effective.get(number), names)
        if status.get(number):
            line += f" ({status[number]})"
        lines.append(line)
        lines.extend(f"  {words}" for words in chain)
        rows.append(
            [
                panel_button(
                    _("Battle {id}").format(id=number),
                    ctx.campaign,
                    "battle",
                    f"{turn}.{number}.{battle.mark}",
                )
            ]
        )
    if len(lines) == 1:
        lines.append(_("No battles."))
    rows.append(_back(ctx.campaign))
    await ctx.show("\n".join(lines), rows)


async def _pressed_battle(
    ctx: GmContext, turn_text: str, battle_text: str, mark_text: str
) -> _PanelBattle | None:
    """The battle a results button names, if the GM may set its result now (else answered):
    on the list, fought now (a chain battle may wait or not be played), by the sides it was
    fought by when the button was made."""
    found = _results_turn(ctx.campaign)
    battles = []
    if found is not None and str(found[0]) == turn_text:
        battles = await _battles_of(ctx, found[0], found[1])
    battle = next((b for b in battles if str(b.battle.id) == battle_text), None)
    if battle is None:
        await ctx.query.answer(_("That battle is not on the list."), show_alert=True)
        return None
    if found is not None and not found[1] and await _list_still_secret(ctx):
        return None
    if not battle.playable():
        await ctx.query.answer(refusal_words(Refusal.NOT_PLAYABLE, ctx.campaign), show_alert=True)
        return None
    if mark_text != str(battle.mark):
        await ctx.query.answer(refusal_words(Refusal.SIDES_CHANGED, ctx.campaign), show_alert=True)
        return None
    return battle


async def _battle_screen(ctx: GmContext, value: str) -> None:
    """A battle's result, first step: a draw (either kind), or which side won."""
    turn_text, battle_text, mark_text = [*value.split("."), "", ""][:3]
    found = await _pressed_battle(ctx, turn_text, battle_text, mark_text)
    if found is None:
        return
    battle = found.battle
    names = {side.id: side.name for side in await ctx.store.sides(ctx.campaign.id)}
    base = f"{turn_text}.{battle.id}.{found.mark}"
    rows = [
        [
            panel_button(outcome_label(Outcome.DRAW), ctx.campaign, "set", f"{base}.draw."),
            panel_button(_("Bloody draw"), ctx.campaign, "set", f"{base}.bloody_draw."),
        ]
    ]
    rows += [
        [
            panel_button(
                _("🏆 {side} won").format(side=names.get(side, side)),
                ctx.campaign,
                "win",
                f"{base}.{side}",
            )
        ]
        for side in battle.participants()
    ]
    rows.append([panel_button(_("◀ Battle results"), ctx.campaign, "results")])
    await ctx.show(_("{battle}. The result:").format(battle=_versus(found, names)), rows)


async def _winner_screen(ctx: GmContext, value: str) -> None:
    """A battle's result, second step: how much the winner won by."""
    turn_text, battle_text, mark_text, side = [*value.split("."), "", "", ""][:4]
    found = await _pressed_battle(ctx, turn_text, battle_text, mark_text)
    if found is None:
        return
    battle = found.battle
    if side not in battle.participants():
        await ctx.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    names = {s.id: s.name for s in await ctx.store.sides(ctx.campaign.id)}
    base = f"{turn_text}.{battle.id}.{found.mark}"
    rows = [
        [
            panel_button(
                outcome_label(outcome), ctx.campaign, "set", f"{base}.{outcome.value}.{side}"
            )
        ]
        for outcome in (Outcome.SOLID, Outcome.CRUSHING, Outcome.SLAUGHTER)
    ]
    rows.append([panel_button(_("◀ Back"), ctx.campaign, "battle", base)])
    await ctx.show(
        _("{battle}. {winner} won: by how much?").format(
            battle=_versus(found, names), winner=names.get(side, side)
        ),
        rows,
    )


async def _set_result(ctx: GmContext, value: str) -> None:
    parts = value.split(".")
    found = _results_turn(ctx.campaign)
    turn = whole_number(parts[0]) if len(parts) == 5 else None
    if turn is None or found is None or turn != found[0]:
        await ctx.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    pressed = await _pressed_battle(ctx, parts[0], parts[1], parts[2])
    if pressed is None:
        return
    battle = pressed.battle.id
    result = campaigns.battle_result(battle, parts[3], parts[4])
    if result is None:
        await ctx.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    names = {side.id: side.name for side in await ctx.store.sides(ctx.campaign.id)}
    now = ctx.clock.now()
    if found[1]:
        try:
            corrected = await turns.correct_result(
                ctx.store, ctx.campaign.id, turn, [result], ctx.person.user_id, REASON, now
            )
        except ResultsError:
            await ctx.query.answer(_("That result does not fit the battle."), show_alert=True)
            return
        if corrected.outcome is not CorrectionOutcome.APPLIED:
            await ctx.query.answer(
                _("The turn changed meanwhile; open /gm again."), show_alert=True
            )
            return

        def words() -> str:
            told = _(
                "GM {gm} corrected battle {id} of turn {turn}: {result}. The turn was resolved "
                "again; the corrected map follows."
            ).format(
                gm=ctx.person.display_name,
                id=battle,
                turn=turn,
                result=_result_words(result, names),
            )
            if corrected.dropped:
                told += " " + _(
                    "The result of battle {ids} was for other sides (the chain's defender "
                    "changed): it counts as a draw without losses unless the GM corrects it.",
                    "The results of battles {ids} were for other sides (the chain's defender "
                    "changed): they count as draws without losses unless the GM corrects them.",
                    len(corrected.dropped),
                ).format(ids=", ".join(map(str, corrected.dropped)))
            return told

        await ctx.announce(words)
        return
    written = await decide_result(
        ctx.store, Seat(campaign=ctx.campaign, member=ctx.gm), turn, battle, result, now
    )
    if written.refusal is not None:
        await ctx.query.answer(refusal_words(written.refusal, ctx.campaign), show_alert=True)
        return
    await ctx.done(
        _("GM {gm} set the result of battle {id}: {result}.").format(
            gm=ctx.person.display_name, id=battle, result=_result_words(result, names)
        )
    )


# ---- placing a side that did not deploy ----


def _placement_text(placement: dict[str, int]) -> str:
    return " ".join(f"{sector}:{count}" for sector, count in placement.items())


async def _place_list(ctx: GmContext, value: str) -> None:
    missing = await campaigns.missing_placements(ctx.store, ctx.campaign)
    rows = [
        [
            panel_button(
                f"{colour_mark(side.colour)} {side.name}", ctx.campaign, "placeside", side.id
            )
        ]
        for side in missing
    ]
    rows.append(_back(ctx.campaign))
    text = (
        _("Sides that have not deployed: choose one to place it.")
        if missing
        else _("Every side has deployed.")
    )
    await ctx.show(text, rows)


async def _place_side(ctx: GmContext, value: str) -> None:
    missing = {s.id: s for s in await campaigns.missing_placements(ctx.store, ctx.campaign)}
    side = missing.get(value)
    if side is None:
        await ctx.query.answer(_("That side has deployed already."), show_alert=True)
        return
    proposal = await campaigns.proposed_placement(ctx.store, ctx.campaign, side.id)
    rows = [
        [panel_button(_("✅ Use the default placement"), ctx.campaign, "placedef", side.id)],
        [panel_button(_("⌨️ Type a placement"), ctx.campaign, "placetype", side.id)],
        [panel_button(_("◀ Back"), ctx.campaign, "place")],
    ]
    # The proposal depends on where the other sides deployed, which is secret until turn 1:
    # it is shown only to the GM who pressed, in the pop-up.
    await ctx.query.answer(
        _("Default for {side} (sector:armies): {placement}").format(
            side=side.name, placement=_placement_text(proposal)
        ),
        show_alert=True,
    )
    await ctx.message.edit_text(
        _(
            "Place {side}: use the default placement (shown to you in the pop-up) or type one."
        ).format(side=side.name),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
    )


async def _place_default(ctx: GmContext, value: str) -> None:
    missing = {s.id: s for s in await campaigns.missing_placements(ctx.store, ctx.campaign)}
    side = missing.get(value)
    if side is None:
        await ctx.query.answer(_("That side has deployed already."), show_alert=True)
        return
    proposal = await campaigns.proposed_placement(ctx.store, ctx.campaign, side.id)
    await _store_placement(ctx, side.id, side.name, proposal)


async def _store_placement(
    ctx: GmContext, side_id: str, side_name: str, placement: dict[str, int]
) -> None:
    outcome, problems = await campaigns.place_side(
        ctx.store, ctx.campaign, side_id, placement, ctx.person.user_id, ctx.clock.now()
    )
    if outcome is campaigns.PlaceOutcome.INVALID:
        await ctx.query.answer(
            "\n".join(describe_deployment_problem(p) for p in problems), show_alert=True
        )
        return
    if outcome is campaigns.PlaceOutcome.CLOSED:
        await ctx.query.answer(_("Deployment is over."), show_alert=True)
        return
    if outcome is campaigns.PlaceOutcome.DEPLOYED:
        await ctx.query.answer(_("That side has deployed already."), show_alert=True)
        return
    await ctx.announce(
        lambda: _("GM {gm} placed {side}, which had not deployed.").format(
            gm=ctx.person.display_name, side=side_name
        )
    )


async def _place_typed_prompt(ctx: GmContext, value: str) -> None:
    """A typed placement is secret: it is asked for, typed and answered in the GM's private
    chat (``bot.handlers.private.gm_prompts``); here only a pop-up says so."""
    missing = {s.id: s for s in await campaigns.missing_placements(ctx.store, ctx.campaign)}
    side = missing.get(value)
    if side is None:
        await ctx.query.answer(_("That side has deployed already."), show_alert=True)
        return
    open_private = _(
        "A placement is secret, so you type it in our private chat. Open it first (tap my "
        "name, then «Start»), then tap «Type a placement» again."
    )
    gm_id = ctx.person.user_id
    if not ctx.person.can_receive_private or ctx.query.bot is None:
        await ctx.query.answer(open_private, show_alert=True)
        return
    await ctx.store.set_prompt(
        gm_id, gm_id, ctx.campaign.id, GM_PLACEMENT, {"side": side.id}, None, ctx.clock.now()
    )
    language = ctx.person.language or language_of(ctx.person.telegram_language)
    with ctx.i18n.use_locale(language):
        question = placement_question(ctx.campaign, side.name)
    try:
        await ctx.query.bot.send_message(gm_id, question)
    except (TelegramForbiddenError, TelegramBadRequest):
        await ctx.store.clear_prompt(gm_id, gm_id)
        await ctx.query.answer(open_private, show_alert=True)
        return
    await ctx.query.answer(
        _("I asked you in our private chat: type {side}'s placement there.").format(side=side.name),
        show_alert=True,
    )


# ---- a running campaign's settings and sides ----


def _marked(text: str, chosen: bool) -> str:
    return f"• {text}" if chosen else text


def _unreported_button(policy: UnreportedPolicy) -> str:
    """A short name of the unreported-battle policy, for a button on a phone."""
    if policy is UnreportedPolicy.WAIT_FOR_GM:
        return _("The GM decides")
    return _("Draw without losses")


def _joining_button(policy: JoiningPolicy) -> str:
    """A short name of the joining setting, for a button on a phone."""
    match policy:
        case JoiningPolicy.APPROVAL:
            return _("Always a GM approves")
        case JoiningPolicy.OPEN_THEN_CLOSED:
            return _("Open, then closed")
        case _:
            return _("Open, then a GM approves")


def _no_show_button(policy: NoShowPolicy) -> str:
    """A short name of the no-show policy, for a button on a phone."""
    match policy:
        case NoShowPolicy.REPEAT:
            return _("Repeat last turn's orders")
        case NoShowPolicy.WAIT_FOR_GM:
            return _("Wait for the GM")
        case _:
            return _("Hold")


async def _settings(ctx: GmContext, value: str) -> None:
    """What may change while the campaign runs: the unreported-battle policy, joining, the
    no-show policy (each on its own screen of choices) and the sides' names."""
    campaign = ctx.campaign
    rows = [
        [panel_button(_("⚔️ A battle without a result"), campaign, "upol")],
        [panel_button(_("🙋 Joining"), campaign, "jpol")],
        [panel_button(_("🪑 A side without orders"), campaign, "nsp")],
        [panel_button(_("✏️ Rename a side"), campaign, "renames")],
        _back(campaign),
    ]
    text = _(
        "«{title}»: settings that may change while it runs.\n"
        "A battle without a result at the deadline: {unreported}.\n"
        "Joining: {joining}.\n"
        "A side without orders at the deadline: {no_show}.\n"
        "Tap a setting to change it; the group is told. The schedule, the deadline and the "
        "language of the posts: «Schedule, deadline, language» in the GM tools."
    ).format(
        title=campaign.title,
        unreported=policy_label(campaign.unreported_policy),
        joining=joining_label(campaign.joining),
        no_show=no_show_label(campaign.no_show_policy),
    )
    await ctx.show(text, rows)


async def _choices(
    ctx: GmContext, head: str, action: str, options: list[tuple[str, str, str, bool]]
) -> None:
    """One setting's screen: ``head``, then each option (value, button, full words, chosen)
    described in full, a button for each, and «◀ Settings»."""
    lines = [head, *(_marked(words, chosen) for _v, _b, words, chosen in options)]
    lines.append(_("Tap a choice to change it; the group is told."))
    rows = [
        [panel_button(_marked(label, chosen), ctx.campaign, action, value)]
        for value, label, _w, chosen in options
    ]
    rows.append([panel_button(_("◀ Settings"), ctx.campaign, "settings")])
    await ctx.show("\n".join(lines), rows)


_Choice = TypeVar("_Choice", bound=StrEnum)


@dataclass(frozen=True)
class _Picker(Generic[_Choice]):
    """A running campaign's setting the GM picks from a screen of its choices: the button
    ``action``, the ``choices``, the campaign's ``current`` one, each choice's short ``button``
    and full ``words``, the screen's ``head``, the ``change`` it stores and the group's
    ``announcement`` («GM {gm} changed ...: {policy}.»); :meth:`pick` is its button's handler."""

    action: str
    choices: type[_Choice]
    current: Callable[[Campaign], _Choice]
    button: Callable[[_Choice], str]
    words: Callable[[_Choice], str]
    head: Callable[[], str]
    change: Callable[[_Choice], CampaignSettings]
    announcement: Callable[[], str]

    async def pick(self, ctx: GmContext, value: str) -> None:
        """No ``value``: the choices, the current one marked; else that choice stored and
        announced (a button of a choice no longer offered is refused)."""
        current = self.current(ctx.campaign)
        if not value:
            options = [(p.value, self.button(p), self.words(p), p is current) for p in self.choices]
            await _choices(ctx, self.head(), self.action, options)
            return
        policy = next((p for p in self.choices if p.value == value), None)
        if policy is None:
            await ctx.query.answer(_("That button is not valid any more."), show_alert=True)
            return
        await _change_setting(
            ctx,
            self.change(policy),
            policy is current,
            lambda: self.announcement().format(
                gm=ctx.person.display_name, policy=self.words(policy)
            ),
        )


_set_unreported = _Picker(
    action="upol",
    choices=UnreportedPolicy,
    current=lambda campaign: campaign.unreported_policy,
    button=_unreported_button,
    words=policy_label,
    head=lambda: _("A battle without a result at the deadline is:"),
    change=lambda policy: CampaignSettings(unreported_policy=policy),
    announcement=lambda: _("GM {gm} changed what happens to a battle without a result: {policy}."),
).pick
_set_joining = _Picker(
    action="jpol",
    choices=JoiningPolicy,
    current=lambda campaign: campaign.joining,
    button=_joining_button,
    words=joining_label,
    head=lambda: _("Who may join the campaign:"),
    change=lambda policy: CampaignSettings(joining=policy),
    announcement=lambda: _("GM {gm} changed who may join: {policy}."),
).pick
_set_no_show = _Picker(
    action="nsp",
    choices=NoShowPolicy,
    current=lambda campaign: campaign.no_show_policy,
    button=_no_show_button,
    words=no_show_label,
    head=lambda: _("A side without orders at the deadline:"),
    change=lambda policy: CampaignSettings(no_show_policy=policy),
    announcement=lambda: _("GM {gm} changed what happens to a side without orders: {policy}."),
).pick


async def _change_setting(
    ctx: GmContext, settings: CampaignSettings, unchanged: bool, words: Callable[[], str]
) -> None:
    """Store a running campaign's changed setting (audited) and announce it in ``words``; the
    settings screen again when the campaign already has it."""
    if unchanged:
        await _settings(ctx, "")
        return
    ctx.campaign = await ctx.store.update_settings(
        ctx.campaign.id, settings, ctx.person.user_id, ctx.clock.now(), REASON
    )
    await ctx.announce(words)


async def _rename_list(ctx: GmContext, value: str) -> None:
    sides = await ctx.store.sides(ctx.campaign.id)
    rows = [
        [panel_button(f"{colour_mark(side.colour)} {side.name}", ctx.campaign, "rename", side.id)]
        for side in sides
    ]
    rows.append([panel_button(_("◀ Settings"), ctx.campaign, "settings")])
    await ctx.show(_("Which side gets a new name?"), rows)


async def _rename_prompt(ctx: GmContext, value: str) -> None:
    """Ask for the side's new name in the GM's private chat (a typed answer)."""
    side = next((s for s in await ctx.store.sides(ctx.campaign.id) if s.id == value), None)
    if side is None:
        await ctx.query.answer(_("That button is not valid any more."), show_alert=True)
        return
    if ctx.message.chat.type != "private":
        await ctx.query.answer(
            _("Send /gm in our private chat and rename the side there."), show_alert=True
        )
        return
    gm_id = ctx.person.user_id
    await ctx.store.set_prompt(
        gm_id, gm_id, ctx.campaign.id, GM_RENAME, {"side": side.id}, None, ctx.clock.now()
    )
    await ctx.query.answer()
    await ctx.message.answer(rename_question(ctx.campaign, side.name))


# ---- undo and end ----


async def _undo_confirm(ctx: GmContext, value: str) -> None:
    # «Yes» names the moment it was asked for: a second tap, or one after the campaign moved
    # (even back to this phase by another undo), undoes nothing more.
    mark = position_mark(await ctx.store.phase_history(ctx.campaign.id))
    rows = [[panel_button(_("Yes, undo"), ctx.campaign, "undo!", str(mark))], _back(ctx.campaign)]
    await ctx.show(
        _(
            "«{title}»\n{position}\nUndo the last step? The campaign goes back to the start of "
            "the previous phase. Nothing is deleted: the audit log keeps it."
        ).format(title=ctx.campaign.title, position=position_line(ctx.campaign)),
        rows,
    )


async def _undo(ctx: GmContext, value: str) -> None:
    if value != str(position_mark(await ctx.store.phase_history(ctx.campaign.id))):
        await ctx.query.answer(stale_text(), show_alert=True)
        return
    result = await turns.undo_last_step(
        ctx.store,
        ctx.campaign.id,
        ctx.campaign.turn,
        ctx.campaign.phase,
        ctx.person.user_id,
        REASON,
        ctx.clock.now(),
    )
    if not result.applied or result.campaign is None:
        await ctx.query.answer(_("There is nothing to undo here."), show_alert=True)
        return
    ctx.campaign = result.campaign
    # The undo service queued the group's notice and the board refresh with the undo itself.
    await ctx.done(
        _("GM {gm} undid the last step: now {position}.").format(
            gm=ctx.person.display_name, position=position_line(result.campaign)
        )
    )


async def _end_confirm(ctx: GmContext, value: str) -> None:
    rows = [
        [panel_button(_("🏁 Yes, end it: type the reason"), ctx.campaign, "end!")],
        _back(ctx.campaign),
    ]
    await ctx.show(
        _(
            "End «{title}» now? It cannot be resumed: it goes to the group's archive (/history), "
            "its summary is posted, and the group can start a new campaign with /newcampaign. "
            "The group and the players read your reason."
        ).format(title=ctx.campaign.title),
        rows,
    )


async def _end_prompt(ctx: GmContext, value: str) -> None:
    """Ask for the reason in the GM's private chat (a stored prompt): the typed reason ends the
    campaign (``bot.handlers.private.gm_prompts.typed_end_reason``)."""
    if ctx.message.chat.type != "private":
        await ctx.query.answer(
            _("Send /gm in our private chat and end the campaign there."), show_alert=True
        )
        return
    gm_id = ctx.person.user_id
    await ctx.store.set_prompt(gm_id, gm_id, ctx.campaign.id, GM_END, {}, None, ctx.clock.now())
    await ctx.query.answer()
    await ctx.message.answer(end_question(ctx.campaign))


# ---- the group's language ----


async def group_language(message: Message, store: Store, person: Person) -> None:
    """``/lang`` in the group: the campaign's language for its posts (GMs only)."""
    campaign = await campaign_here(store, message)
    if campaign is None:
        await message.answer(await no_campaign_words(store, message))
        return
    if await gm_member(store, campaign, person.user_id) is None:
        await message.answer(
            _(
                "Only the GM sets the language of this campaign's posts. Your own: /lang in a "
                "private chat with me."
            )
        )
        return
    buttons = [
        InlineKeyboardButton(
            text=("• " if campaign.language == code else "") + name,
            callback_data=GroupLanguage(c=campaign.id, language=code).pack(),
        )
        for code, name in LANGUAGE_NAMES.items()
    ]
    await message.answer(
        _("Language of the campaign's posts in this chat:"),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=[buttons]),
    )


async def group_language_pressed(
    query: CallbackQuery,
    callback_data: GroupLanguage,
    store: Store,
    clock: Clock,
    person: Person,
    i18n: I18n,
) -> None:
    """A group language button: GMs of this campaign only."""
    campaign = await pressed_campaign(store, query, callback_data.c, None, None)
    if campaign is None:
        return
    if await gm_member(store, campaign, person.user_id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    if callback_data.language not in LANGUAGE_NAMES or not isinstance(query.message, Message):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    language: Language = "ru" if callback_data.language == "ru" else "en"
    # Announced in the group in the new language, the board and the calendars follow.
    await running_changes.change_language(
        store, campaign, language, person.user_id, person.display_name, clock.now()
    )
    await query.answer()
    with i18n.use_locale(language):
        await query.message.edit_text(
            _("Language of the campaign's posts here: {name}.").format(name=language_name(language))
        )


def build_private() -> Router:
    """The panel in a GM's private chat: ``/gm`` and its buttons."""
    router = Router(name=f"{__name__}.private")
    router.message.register(open_private_panel, Command("gm"))
    router.callback_query.register(pressed, GmPress.filter())
    return router


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(open_panel, Command("gm"))
    router.message.register(group_language, Command("lang"))
    router.callback_query.register(pressed, GmPress.filter())
    router.callback_query.register(group_language_pressed, GroupLanguage.filter())
    return router
