"""Supply's bot side: the wizard's screen (on or off), its summary line, the Monday summary's
lines on what supply cost, the map's marks on the sectors where it cost an army and ``/map``'s
caption with the count, and a line on a side's orders desk naming the sectors that will cost it
an army if its armies stay there. Its words are its own, in both languages (a built-in module's
go through the bot's catalogs)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import get_i18n
from pydantic import JsonValue

from bot.modules.protocol import (
    BotModule,
    DeskPress,
    Screen,
    WizardButton,
    WizardChange,
    WizardRows,
)
from bot.services import module_settings
from bot.texts.sectors import sector_label
from rules import CampaignMap, CampaignState, TurnReport
from rules.render import SectorMark, held_sectors
from storage import Campaign, Store
from tests.modules.supply.rules_side import NAME

if TYPE_CHECKING:
    from bot.handlers.private.callbacks import OrdersButton
    from bot.services.orders import Desk

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
        "caption": "📦 Supply cost last turn: {n}.",
        "mark": "out of supply last turn: 1 army of {side} lost",
        "desk": "📦 Out of supply: {list}",
        "desk about": "📦 Supply: at resolution, after the capture check, your side loses 1 army "
        "in each sector where it has armies but does not hold it (fewer than {need} there, or "
        "another side there too).",
        "desk now": "If your armies stay where they are, it costs you 1 army in each of: {list}.",
        "orders": "◀ Back to the orders",
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
        "caption": "📦 Снабжение стоило в прошлый ход: {n}.",
        "mark": "без снабжения в прошлый ход: {side} теряет 1 армию",
        "desk": "📦 Без снабжения: {list}",
        "desk about": "📦 Снабжение: при подведении итогов, после проверки захвата, ваша "
        "сторона теряет 1 армию в каждом секторе, где у неё есть армии, но который она не "
        "удерживает (меньше {need} армий или там есть другая сторона).",
        "desk now": "Если ваши армии останутся на месте, вы потеряете по 1 армии в секторах: "
        "{list}.",
        "orders": "◀ К приказам",
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


def cut_off_last_turn(state: CampaignState) -> list[tuple[str, str]]:
    """(side, sector) where the resolution that ended in ``state`` cost an army (its state)."""
    data = state.modules.get(NAME)
    cut_off = data.get("cut_off") if isinstance(data, dict) else None
    if not isinstance(cut_off, list):
        return []
    return [
        (str(item["side"]), str(item["sector"]))
        for item in cut_off
        if isinstance(item, dict) and "side" in item and "sector" in item
    ]


def supply_marks(state: CampaignState, names: Mapping[str, str]) -> list[SectorMark]:
    """A mark on each sector where supply cost a side an army at the resolution that ended in
    ``state``, in that side's colours."""
    said = words(get_i18n().current_locale)
    return [
        SectorMark(
            sector=sector,
            text="−1",
            side=side if side in names else None,
            meaning=said["mark"].format(side=names.get(side, side))[:80],
        )
        for side, sector in cut_off_last_turn(state)
    ]


def unsupplied(desk: Desk) -> list[str]:
    """The sectors where ``desk``'s side has armies at the start of the turn but does not hold
    them: supply costs an army in each if they stay."""
    need = desk.game.ruleset.capture_min_armies
    held = set(held_sectors(desk.state, need).get(desk.side, ()))
    armies = desk.state.armies.get(desk.side, {})
    return [s for s in desk.game.map.sector_ids() if armies.get(s, 0) > 0 and s not in held]


def _listed(desk: Desk, sectors: Sequence[str], language: str) -> str:
    return ", ".join(sector_label(desk.game.map, sector, language) for sector in sectors)


def desk_lines(desk: Desk) -> list[str]:
    """The desk's supply line, at the end of its home text: the sectors that will cost an
    army; none when supply is off or costs nothing."""
    sectors = unsupplied(desk)
    if not sectors or not is_on(desk.campaign.ruleset_overrides):
        return []
    language = get_i18n().current_locale
    return [words(language)["desk"].format(list=_listed(desk, sectors, language))]


def desk_rows(desk: Desk) -> list[list[InlineKeyboardButton]]:
    """The desk's supply button under that line, which opens :func:`desk_screen` (what supply
    costs, in full); none when the line is not shown."""
    from bot.handlers.private.screens import button, orders_button  # noqa: PLC0415

    if not desk_lines(desk):
        return []
    label = words(get_i18n().current_locale)["entry"]
    return [[button(label, orders_button(desk, "su"))]]


def desk_screen(desk: Desk) -> Screen:
    """What supply will cost the side, in full, with the way back to the orders."""
    from bot.handlers.private.screens import button, orders_button  # noqa: PLC0415

    language = get_i18n().current_locale
    said = words(language)
    lines = [said["desk about"].format(need=desk.game.ruleset.capture_min_armies)]
    sectors = unsupplied(desk)
    if sectors:
        lines.append(said["desk now"].format(list=_listed(desk, sectors, language)))
    back = [[button(said["orders"], orders_button(desk, "home"))]]
    return "\n\n".join(lines), InlineKeyboardMarkup(inline_keyboard=back)


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

    def map_marks(
        self, campaign: Campaign, state: CampaignState, names: Mapping[str, str]
    ) -> Sequence[SectorMark]:
        if not is_on(campaign.ruleset_overrides):
            return ()
        return supply_marks(state, names)

    def orders_desk_rows(self, desk: Desk) -> Sequence[list[InlineKeyboardButton]]:
        return desk_rows(desk)

    def orders_desk_lines(self, desk: Desk) -> Sequence[str]:
        return desk_lines(desk)

    def orders_desk_press(
        self, desk: Desk, data: OrdersButton, names: Mapping[str, str]
    ) -> DeskPress | None:
        if data.action != "su":
            return None
        return DeskPress(show=desk_screen(desk))

    # The wizard's hooks.

    def wizard_entry(self) -> str | None:
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


__all__ = ["SupplyBotModule", "cost_lines", "supply_marks", "unsupplied"]
