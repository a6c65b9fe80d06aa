"""Contact's step of the setup wizard (``bot.handlers.group.setup``): the main screen (on or
off, each sector's defences, the transports a turn, the VP that win), the owner pick of a
sector's defences, and what their buttons change. The wizard's own button factory is passed in,
so every button is one of the wizard's (``su`` callbacks, re-checked for the GM on press).

Every change is new ruleset overrides (``module_settings.contact``, as the rules read them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aiogram.types import InlineKeyboardButton
from aiogram.utils.i18n import gettext as _

from bot.modules.contact import setup as contact_setup
from bot.modules.protocol import WizardButton as Button
from bot.services import setup_map
from storage import Campaign

ACTIONS = ("ct", "cdl", "cdo", "ctr", "cvp", "cdp")
"""Contact buttons: on/off, a sector's defences level, their owner ``<sector>.<side>``
(``<sector>.`` neutral), transports ``+``/``-``, the VP that win ``+``/``-``/``++``, and the
owner pick of a sector's defences (a screen)."""


def contact_label(campaign: Campaign) -> str:
    """The summary's line on contact: off, or how many sectors have defences and the VP that
    win."""
    overrides = campaign.ruleset_overrides
    if not contact_setup.is_on(overrides):
        return _("Contact: off")
    chosen = contact_setup.effective(overrides)
    count = len(contact_setup.defences(campaign))
    defended = _("{n} sector with defences", "{n} sectors with defences", count).format(n=count)
    if chosen.vp_to_win is None:
        return _("Contact: on, {defended}, no VP victory").format(defended=defended)
    return _("Contact: on, {defended}, {vp} VP win").format(defended=defended, vp=chosen.vp_to_win)


def defences_words(level: int, owner: str | None, side_name: dict[str, str]) -> str:
    """A sector's defences in words: «barricade (+1) of Red», «blockpost (+2), neutral»."""
    kind = _("barricade (+1)") if level == 1 else _("blockpost (+2)")
    if owner is None:
        return _("{defences}, neutral").format(defences=kind)
    return _("{defences} of side «{side}»").format(defences=kind, side=side_name.get(owner, owner))


def contact_screen(
    campaign: Campaign, sides: Sequence[tuple[str, str]], button: Button
) -> tuple[str, list[list[InlineKeyboardButton]]]:
    """The contact settings: on or off, each sector's defences (level and owner: the owner's
    ground), the transports a turn and the VP that win, with buttons to change them."""
    overrides = campaign.ruleset_overrides
    shown = setup_map.campaign_map(campaign)
    side_name = dict(sides)
    lines = [
        _(
            "Contact: groups move in turn order and stop in the first hostile "
            "sector, face zombies outside their ground, meet in chains of battles; losers "
            "retreat exhausted, beaten defences are ruined, victory points can end the "
            "campaign."
        ),
        contact_label(campaign),
    ]
    rows: list[list[InlineKeyboardButton]] = []
    if not contact_setup.is_on(overrides):
        rows.append([button(_("🧟 Switch contact on"), campaign, "ct", "on")])
        return "\n".join(lines), rows
    rows.append([button(_("Switch contact off"), campaign, "ct", "off")])
    chosen = contact_setup.effective(overrides)
    found = contact_setup.defences(campaign)
    lines.append(
        _(
            "Defences: a sector whose defences a side owns is that side's ground while no "
            "other side holds it. 🧱 changes the level, 🚩 picks the owner."
        )
    )
    for sector in shown.sectors:
        name = sector.names.get(campaign.language, sector.name)
        level, owner = found.get(sector.id, (0, None))
        words = defences_words(level, owner, side_name) if level else _("no defences")
        lines.append(_("• {sector}: {defences}").format(sector=name, defences=words))
        row = [button(_("🧱 {sector}").format(sector=name), campaign, "cdl", sector.id)]
        if level:
            holder = side_name.get(owner, owner) if owner is not None else _("neutral")
            label = _("🚩 {sector}: {owner}").format(sector=name, owner=holder)
            row.append(button(label[:60], campaign, "cdp", sector.id))
        rows.append(row)
    lines.append(_("Transports a turn for each side: {n}.").format(n=chosen.transports_per_turn))
    lines.append(
        _("Victory points that win: {vp}.").format(vp=chosen.vp_to_win)
        if chosen.vp_to_win
        else _("Victory points that win: off.")
    )
    rows.append(
        [
            button(_("🚚 −1"), campaign, "ctr", "-"),
            button(_("🚚 +1"), campaign, "ctr", "+"),
        ]
    )
    rows.append(
        [
            button(_("🏆 −{n} VP").format(n=1), campaign, "cvp", "-"),
            button(_("🏆 +{n} VP").format(n=1), campaign, "cvp", "+"),
            button(_("🏆 +{n} VP").format(n=contact_setup.VP_STEP), campaign, "cvp", "++"),
        ]
    )
    return "\n".join(lines), rows


OWNER_STEP = "contact.owner:"
"""The wizard step that picks the owner of a sector's defences (the sector's id follows)."""


def owner_screen(
    campaign: Campaign, sides: Sequence[tuple[str, str]], sector_id: str, button: Button
) -> tuple[str, list[list[InlineKeyboardButton]]] | None:
    """The sides by name (and neutral) to pick the owner of ``sector_id``'s defences; ``None``
    for a sector without defences."""
    level, owner = contact_setup.defences(campaign).get(sector_id, (0, None))
    shown = setup_map.campaign_map(campaign)
    sector = next((s for s in shown.sectors if s.id == sector_id), None)
    if not level or sector is None:
        return None
    name = sector.names.get(campaign.language, sector.name)
    words = defences_words(level, owner, dict(sides))
    lines = [
        _(
            "Who owns the defences in {sector}? The sector is that side's ground while no other "
            "side holds it. Now: {defences}."
        ).format(sector=name, defences=words)
    ]
    rows = [
        [
            button(
                ("✔ " if owner == side_id else "") + side_name,
                campaign,
                "cdo",
                f"{sector_id}.{side_id}",
            )
        ]
        for side_id, side_name in sides
    ]
    rows.append(
        [
            button(
                ("✔ " if owner is None else "") + _("Neutral: nobody's ground"),
                campaign,
                "cdo",
                f"{sector_id}.",
            )
        ]
    )
    rows.append([button(_("◀ Back"), campaign, "go", "contact")])
    return "\n".join(lines), rows


def contact_change(
    campaign: Campaign, action: str, value: str, sides: Sequence[str]
) -> dict[str, Any] | None:
    """The overrides after a contact button, or ``None`` for a button that does not fit."""
    overrides = campaign.ruleset_overrides
    if action == "ct" and value in ("on", "off"):
        return contact_setup.switched(overrides, value == "on")
    if not contact_setup.is_on(overrides):
        return None
    sectors = set(setup_map.campaign_map(campaign).sector_ids())
    if action == "cdl" and value in sectors:
        return contact_setup.next_level(campaign, value)
    sector, _dot, owner = value.partition(".")
    if action == "cdo" and sector in sectors and (not owner or owner in sides):
        return contact_setup.with_owner(campaign, sector, owner or None)
    steps = {"-": -1, "+": 1}
    if action == "ctr" and value in steps:
        return contact_setup.with_transports(overrides, steps[value])
    if action == "cvp" and value in (*steps, "++"):
        change = contact_setup.VP_STEP if value == "++" else steps[value]
        return contact_setup.with_vp_to_win(overrides, change)
    return None


def wizard_screen(
    campaign: Campaign, sides: Sequence[tuple[str, str]], step: str, button: Button
) -> tuple[str, list[list[InlineKeyboardButton]]]:
    """A contact screen: the main one, or the owner pick of a sector's defences (the main one
    for a sector that has none any more)."""
    if step.startswith(OWNER_STEP):
        picked = owner_screen(campaign, sides, step.removeprefix(OWNER_STEP), button)
        if picked is not None:
            return picked
    text, rows = contact_screen(campaign, sides, button)
    rows.append([button(_("◀ Back"), campaign, "go", "summary")])
    return text, rows


def owner_step(campaign: Campaign, sector: str) -> str | None:
    """The step that picks the owner of ``sector``'s defences, if it has defences."""
    level, _owner = contact_setup.defences(campaign).get(sector, (0, None))
    return f"{OWNER_STEP}{sector}" if level else None
