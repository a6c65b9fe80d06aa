"""Contact on the bot's maps: each sector's defences and each side's exhausted armies as marks,
the sides' VP in the title, the groups' paths as the week's arrows, and the defences in words
(the GM's state screen and the correction post use them too)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from rules import CampaignState
from rules.modules.contact import NAME as CONTACT
from rules.modules.contact import ContactPlan, ContactReport, Defences
from rules.modules.contact import load as load_contact
from rules.render import SectorMark
from rules.resolution import Arrival


def contact_moves(plan: ContactPlan, report: ContactReport) -> tuple[Arrival, ...]:
    """The week's arrows with contact: each group along its path, sector by sector, to where it
    stopped (a transport's two legs), then every retreat and return of the list and of the
    resolution, in the order they happened."""
    moves: list[Arrival] = []
    for group in plan.groups:
        if group.status == "cancelled" or group.stop is None:
            continue
        steps = [group.source, *group.passed, group.stop]
        moves += [
            Arrival(side=group.side, source=a, to=b, count=group.count)
            for a, b in pairwise(steps)
            if a != b
        ]
    for retreat in (*plan.retreats, *report.retreats):
        if retreat.to is not None and retreat.to != retreat.source and retreat.armies:
            moves.append(
                Arrival(
                    side=retreat.side, source=retreat.source, to=retreat.to, count=retreat.armies
                )
            )
    return tuple(moves)


def week_moves(plan: JsonValue, notes: JsonValue) -> tuple[Arrival, ...] | None:
    """The week's arrows from contact's part of the battle list (``plan``) and of the
    resolution's report (``notes``); ``None`` when either is missing."""
    if plan is None or notes is None:
        return None
    return contact_moves(ContactPlan.model_validate(plan), ContactReport.model_validate(notes))


def defences_words(defences: Defences, names: Mapping[str, str]) -> str:
    """A sector's defences in words: "barricade (+1) of side «Blue»", "ruined blockpost (+2),
    neutral"."""
    kind = _("barricade (+1)") if defences.level == 1 else _("blockpost (+2)")
    if defences.ruined:
        kind = _("ruined {defences}").format(defences=kind)
    owner = names.get(defences.owner or "")
    if owner:
        return _("{defences} of side «{side}»").format(defences=kind, side=owner)
    return _("{defences}, neutral").format(defences=kind)


def defences_button(defences: Defences, names: Mapping[str, str]) -> str:
    """A sector's defences short enough for a button beside the sector's name: "barricade,
    «Blue»", "blockpost, neutral" (ruined or standing is the button's 🏚 or 🧱)."""
    kind = _("barricade") if defences.level == 1 else _("blockpost")
    owner = names.get(defences.owner or "")
    return f"{kind}, «{owner}»" if owner else _("{defences}, neutral").format(defences=kind)


def contact_marks(state: CampaignState, names: Mapping[str, str]) -> tuple[SectorMark, ...]:
    """Contact's marks: each sector's defences in its owner's colour ("+1" a barricade, "+2" a
    blockpost, "×1"/"×2" once ruined) and each side's exhausted armies ("ex 3"); ``names``: the
    sides' (id: name)."""
    raw = state.modules.get(CONTACT)
    if raw is None:
        return ()
    contact = load_contact(raw)
    marks: list[SectorMark] = []
    for defences in contact.defences:
        kind = _("barricade (+1)") if defences.level == 1 else _("blockpost (+2)")
        owner = names.get(defences.owner or "")
        if defences.ruined:
            meaning = _("ruined {defences}").format(defences=kind)
        elif owner:
            meaning = _("{defences} of side «{side}»").format(defences=kind, side=owner)
        else:
            meaning = _("{defences}, neutral").format(defences=kind)
        marks.append(
            SectorMark(
                sector=defences.sector,
                text=f"{'×' if defences.ruined else '+'}{defences.level}",
                side=defences.owner if owner else None,
                meaning=meaning[:80],
            )
        )
    for side, counts in contact.exhausted.items():
        for sector, count in counts.items():
            if count and side in names:
                marks.append(
                    SectorMark(
                        sector=sector,
                        text=_("ex {n}").format(n=count)[:6],
                        side=side,
                        meaning=_("exhausted armies of side «{side}»").format(side=names[side])[
                            :80
                        ],
                    )
                )
    return tuple(marks)


def contact_title(state: CampaignState, names: Mapping[str, str]) -> str:
    """Contact's part of the map's title: each side's victory points ("" without any)."""
    raw = state.modules.get(CONTACT)
    if raw is None:
        return ""
    points = ", ".join(
        f"{names.get(side, side)} {vp}" for side, vp in load_contact(raw).vp.items() if vp
    )
    return " · " + _("VP: {points}").format(points=points) if points else ""
