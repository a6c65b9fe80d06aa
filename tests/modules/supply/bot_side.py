"""Supply's bot side: the wizard's screen (on or off), its summary line, the Monday summary's
lines on what supply cost and ``/map``'s caption with it. Its words are its own, in both
languages (a built-in module's go through the bot's catalogs)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import JsonValue

from bot.modules.protocol import BotModule, WizardButton, WizardChange, WizardRows
from bot.services import module_settings
from bot.texts.sectors import sector_label
from rules import CampaignMap, CampaignState, TurnReport
from storage import Campaign, Store
from tests.modules.supply.rules_side import NAME

WORDS = {
    "en": {
        "entry": "📦 Supply",
        "on": "Supply: on, a side loses 1 army in each sector it has armies in but does not hold",
        "off": "Supply: off",
        "about": "Supply: at resolution, after the capture check, a side loses 1 army in each "
        "sector where it has armies but does not hold it.",
        "switch on": "📦 Switch supply on",
        "switch off": "Switch supply off",
        "back": "◀ Back",
        "cost": "📦 Out of supply, 1 army lost: {list}.",
        "none": "📦 Supply cost nothing this turn.",
        "caption": "{title}: the map at the start of turn {turn}.\n📦 Supply cost last turn: {n}.",
    },
    "ru": {
        "entry": "📦 Снабжение",
        "on": "Снабжение: включено, сторона теряет 1 армию в каждом секторе, где у неё есть "
        "армии, но который она не удерживает",
        "off": "Снабжение: выключено",
        "about": "Снабжение: при подведении итогов, после проверки захвата, сторона теряет "
        "1 армию в каждом секторе, где у неё есть армии, но который она не удерживает.",
        "switch on": "📦 Включить снабжение",
        "switch off": "Выключить снабжение",
        "back": "◀ Назад",
        "cost": "📦 Без снабжения, потеряно по 1 армии: {list}.",
        "none": "📦 Снабжение ничего не стоило в этот ход.",
        "caption": "{title}: карта в начале хода {turn}.\n📦 Снабжение стоило в прошлый ход: {n}.",
    },
}


def words(language: str) -> dict[str, str]:
    return WORDS["ru" if language == "ru" else "en"]


def is_on(overrides: Mapping[str, Any]) -> bool:
    return NAME in (overrides.get("modules") or ())


def cost_lines(
    data: JsonValue, campaign_map: CampaignMap, names: Mapping[str, str], language: str
) -> list[str]:
    """The report's notes in words: who lost an army where."""
    said = words(language)
    cut_off = data.get("cut_off") if isinstance(data, dict) else None
    if not isinstance(cut_off, list) or not cut_off:
        return [said["none"]]
    listed = "; ".join(
        f"{names.get(str(item['side']), str(item['side']))} — "
        f"{sector_label(campaign_map, str(item['sector']), language)}"
        for item in cut_off
        if isinstance(item, dict)
    )
    return [said["cost"].format(list=listed)]


class SupplyBotModule(BotModule):
    """Supply behind the bot's extension point."""

    name = NAME

    def summary_lines(
        self,
        campaign: Campaign,
        data: JsonValue,
        report: TurnReport,
        state: CampaignState,
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        return cost_lines(data, campaign_map, names, language)

    async def map_caption(
        self, store: Store, campaign: Campaign, state: CampaignState, now: datetime
    ) -> str | None:
        if state.turn < 2 or not is_on(campaign.ruleset_overrides):
            return None
        resolutions = await store.resolutions(campaign.id, state.turn - 1)
        if not resolutions:
            return None
        notes = resolutions[-1].report.modules.get(NAME)
        cut_off = notes.get("cut_off") if isinstance(notes, dict) else None
        count = len(cut_off) if isinstance(cut_off, list) else 0
        return words(campaign.language)["caption"].format(
            title=campaign.title, turn=state.turn, n=count
        )

    # The wizard's hooks.

    def wizard_entry(self) -> str | None:
        from aiogram.utils.i18n import get_i18n  # noqa: PLC0415

        return words(get_i18n().current_locale)["entry"]

    def wizard_summary_line(self, campaign: Campaign) -> str | None:
        return words(campaign.language)["on" if is_on(campaign.ruleset_overrides) else "off"]

    def wizard_screen(
        self,
        campaign: Campaign,
        sides: Sequence[tuple[str, str]],
        step: str,
        button: WizardButton,
    ) -> tuple[str, WizardRows] | None:
        said = words(campaign.language)
        on = is_on(campaign.ruleset_overrides)
        text = "\n".join([said["about"], said["on" if on else "off"]])
        switch = button(said["switch off" if on else "switch on"], campaign, "sup", str(not on))
        return text, [[switch], [button(said["back"], campaign, "go", "summary")]]

    def wizard_actions(self) -> Collection[str]:
        return ("sup",)

    def wizard_press(
        self, campaign: Campaign, sides: Sequence[str], action: str, value: str
    ) -> WizardChange | None:
        if value not in ("True", "False"):
            return None
        overrides = module_settings.switched(campaign.ruleset_overrides, NAME, value == "True")
        return WizardChange(NAME, overrides=overrides)


__all__ = ["SupplyBotModule", "cost_lines"]
