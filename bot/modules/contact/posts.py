"""Contact's parts of the shared posts: the Monday summary's (what the resolution did, in
``texts``, and a victory by victory points) and a GM's state edit's (the defences it set)."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.modules.contact.map_view import defences_words
from bot.modules.contact.texts import describe_contact_report
from bot.texts.sectors import sector_label
from rules import CampaignMap, CampaignState, TurnReport
from rules.modules.contact import NAME, ContactReport
from rules.modules.contact import load as load_contact


def summary_lines(
    data: JsonValue,
    report: TurnReport,
    campaign_map: CampaignMap,
    names: Mapping[str, str],
    language: str,
) -> list[str]:
    """The summary's contact part for its ``data`` in ``report``: retreats, zombies, ruins, VP,
    exhaustion, and the side whose victory points won the campaign."""
    lines = describe_contact_report(
        ContactReport.model_validate(data), campaign_map, names, language
    )
    if report.victory == "contact_vp" and report.winner is not None:
        lines.append(
            _("🏆 {side} has the victory points that win: the campaign is over.").format(
                side=names.get(report.winner, report.winner)
            )
        )
    return lines


def defences_lines(
    campaign_map: CampaignMap,
    before: CampaignState,
    after: CampaignState,
    names: Mapping[str, str],
    language: str,
) -> list[str]:
    """One line a sector whose defences the edit set («🧱 3 East: ruined barricade (+1) of side
    «Blue» → barricade (+1) of side «Blue»»)."""
    if NAME not in before.modules or NAME not in after.modules:
        return []
    old = {item.sector: item for item in load_contact(before.modules[NAME]).defences}
    lines = []
    for item in load_contact(after.modules[NAME]).defences:
        was = old.get(item.sector)
        if was is not None and was != item:
            lines.append(
                _("🧱 {sector}: {old} → {new}").format(
                    sector=sector_label(campaign_map, item.sector, language),
                    old=defences_words(was, names),
                    new=defences_words(item, names),
                )
            )
    return lines
