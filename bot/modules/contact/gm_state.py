"""Contact's part of the GM's state editor (``bot.handlers.group.gm_state``): the map's
defences repaired or changed (a ruined one first: level, then owner, then the typed reason), as
a state edit undone by the editor's undo."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from aiogram.types import InlineKeyboardButton, Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.handlers.group.gm_state import (
    MAX_REASON,
    GmStateScreen,
    StateScreen,
    back_row,
    finish_edit,
    state_button,
)
from bot.handlers.group.guards import whole_number
from bot.modules.contact.map_view import defences_button, defences_words
from bot.posts.group import colour_mark
from bot.runtime.clock import Clock
from bot.services.turns import game_for
from bot.texts.sectors import sector_label
from rules import CampaignState
from rules.edits import StateEdit
from rules.game import Game
from rules.maps import CampaignMap
from rules.modules.contact import NAME as CONTACT
from rules.modules.contact import ContactState, Defences, DefencesSet, defences_edit
from rules.modules.contact import load as load_contact
from rules.modules.contact.adjust import NO_DEFENCES
from storage import Campaign, Person, Store


def state_rows(campaign: Campaign, state: CampaignState) -> list[list[InlineKeyboardButton]]:
    """The menu's row: the map's defences repaired, in a contact campaign."""
    if contact_state(game_for(campaign), state) is None:
        return []
    return [[state_button(_("🧱 Repair defences"), campaign, "def")]]


def contact_state(game: Game, state: CampaignState) -> ContactState | None:
    """The turn start's contact state, if the game plays contact."""
    if game.module(CONTACT) is None or CONTACT not in state.modules:
        return None
    return load_contact(state.modules[CONTACT])


async def _defences(screen: StateScreen, place: str) -> tuple[Game, Defences] | None:
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


async def _defences_list(screen: StateScreen, value: str) -> None:
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
            state_button(
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
    rows.append(back_row(screen.campaign))
    await screen.show(
        _(
            "Defences on the map (🏚 ruined, 🧱 standing; a barricade gives +1, a blockpost "
            "+2), the ruined ones first. Pick one to repair it (or to change its level or "
            "owner); the group sees the change, your reason and the map."
        ),
        rows,
    )


async def _defences_level(screen: StateScreen, value: str) -> None:
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
            state_button(
                f"• {label}" if code == now else label, screen.campaign, "def2", f"{value}.{code}"
            )
        ]
        for label, code in choices
    ]
    rows.append([state_button(_("◀ Defences"), screen.campaign, "def")])
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


async def _defences_owner(screen: StateScreen, value: str) -> None:
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
            state_button(
                f"• {label}" if (item.owner or "") == side else label,
                screen.campaign,
                "def3",
                f"{value}.{index}",
            )
        ]
        for index, (side, label) in enumerate(owners)
    ]
    rows.append([state_button(_("◀ Defences"), screen.campaign, "def")])
    await screen.show(
        _("{sector}: {defences}. Whose are they (• now)?").format(
            sector=sector_label(game.map, item.sector, language),
            defences=defences_words(item, names),
        ),
        rows,
    )


async def _defences_reason(screen: StateScreen, value: str) -> None:
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


async def typed_reason(
    message: Message,
    store: Store,
    clock: Clock,
    person: Person,
    campaign: Campaign,
    data: Mapping[str, JsonValue],
    reason: str,
) -> bool:
    """The reason for the repair waiting in ``data``: the edit is made and the GM told (false:
    not a repair)."""
    defences, level = data.get("defences"), data.get("level")
    if not isinstance(defences, str) or level not in (1, 2):
        return False
    repair = DefencesSet(
        sector=defences,
        level=1 if level == 1 else 2,
        owner=str(data.get("owner") or "") or None,
        ruined=bool(data.get("ruined")),
    )
    edit = StateEdit(modules=defences_edit(repair), reason=reason)
    await finish_edit(message, store, clock, person, campaign, edit)
    return True


def describe_edit_problem(
    params: Mapping[str, str | int], campaign_map: CampaignMap, language: str
) -> str | None:
    """Why contact refuses a GM's edit of the defences, with what to do instead."""
    if params.get("rule") != NO_DEFENCES:
        return None
    return _(
        "{sector} has no defences to set: the GM repairs the map's barricades and "
        "blockposts, and builds no new ones."
    ).format(sector=sector_label(campaign_map, str(params["sector"]), language))


SCREENS: dict[str, GmStateScreen] = {
    "def": _defences_list,
    "def1": _defences_level,
    "def2": _defences_owner,
    "def3": _defences_reason,
}
"""The state editor's contact buttons, by action."""
