"""Screens of the Midnight Siege shared by posts and handlers: the weather's names and buttons,
and the late window's cards (MODULES.md S8, A2.9)."""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot.modules.siege.callbacks import WeatherPick
from bot.modules.siege.typed import siege_tokens
from bot.screens.callbacks import LatePress
from bot.services.late import LateDesk
from bot.services.turns import game_for
from bot.texts.core import describe_order
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import SiegeSettings
from storage import Campaign


def weather_name(campaign: Campaign, index: int, language: str) -> str:
    """The name of weather state ``index`` as the GM set it, in ``language`` if given."""
    settings = game_for(campaign).settings_of(SIEGE, SiegeSettings)
    state = settings.weather_states[index]
    return state.names.get(language, state.name)


def weather_text(campaign: Campaign, index: int, language: str) -> str:
    """The GM's rule text of weather state ``index`` (may be empty)."""
    settings = game_for(campaign).settings_of(SIEGE, SiegeSettings)
    state = settings.weather_states[index]
    return state.texts.get(language, state.text)


def weather_keyboard(campaign: Campaign, language: str) -> InlineKeyboardMarkup:
    """The eight weather states as buttons, two a row, in wind-rose order."""
    buttons = [
        InlineKeyboardButton(
            text=weather_name(campaign, index, language),
            callback_data=WeatherPick(c=campaign.id, w=index).pack(),
        )
        for index in range(8)
    ]
    return InlineKeyboardMarkup(inline_keyboard=[buttons[i : i + 2] for i in range(0, 8, 2)])


def late_screen(
    desk: LateDesk, names: dict[str, str], language: str
) -> tuple[str, InlineKeyboardMarkup]:
    """The side's siege cards after the battles, a button per card it may still play, one to
    take back each (another module's late orders are played on that module's own screens)."""
    map_ = desk.game.map
    lines = [
        _(
            "«{title}», turn {turn}: cards after the battles. They may be played until the "
            "turn is resolved."
        ).format(title=desk.campaign.title, turn=desk.campaign.turn)
    ]
    own = [(index, order) for index, order in enumerate(desk.current) if order.module == SIEGE]
    lines += [f"• {describe_order(order, map_, names, language)}" for _index, order in own]
    tokens = list(siege_tokens(desk.state.modules))
    rows: list[list[InlineKeyboardButton]] = []
    for order in desk.options():
        token = str(order.data.get("token"))
        if token in tokens:
            rows.append(
                [
                    InlineKeyboardButton(
                        text=describe_order(order, map_, names, language),
                        callback_data=LatePress(
                            c=desk.campaign.id, t=desk.campaign.turn, a="p", k=tokens.index(token)
                        ).pack(),
                    )
                ]
            )
    for index, order in own:
        rows.append(
            [
                InlineKeyboardButton(
                    text=_("✖ {order}").format(order=describe_order(order, map_, names, language)),
                    callback_data=LatePress(
                        c=desk.campaign.id, t=desk.campaign.turn, a="x", k=index
                    ).pack(),
                )
            ]
        )
    if not rows:
        lines.append(_("No card can be played after the battles now."))
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)
