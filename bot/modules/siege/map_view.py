"""The Midnight Siege on the bot's maps: its tokens where they stand, the wind rose of the
weather in force, and each stormer's VP beside its side in the legend."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.services.turns import game_for
from rules import CampaignState
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import SiegeSettings, load
from rules.render import DialView, SectorMark
from storage import Campaign


def siege_marks(state: CampaignState, names: Mapping[str, str]) -> tuple[SectorMark, ...]:
    """The siege tokens where they stand: a fortification with its strength, an occult token in
    its holder's colour, each with its meaning for the legend; ``names``: the sides'
    (id: name)."""
    raw = state.modules.get(SIEGE)
    if raw is None:
        return ()
    siege = load(raw)
    language = get_i18n().current_locale
    marks: list[SectorMark] = []
    for token in siege.tokens:
        name = token.display_name(language)
        if token.kind == "fortification":
            meaning = _("fortification «{name}», strength {n}").format(name=name, n=token.strength)
            text = f"{token.id[:3]}·{token.strength}"
        else:
            holder = names.get(token.controller or "", "")
            meaning = (
                _("occult token «{name}», held by «{side}»").format(name=name, side=holder)
                if holder
                else _("occult token «{name}», held by nobody").format(name=name)
            )
            text = token.id
        marks.append(
            SectorMark(
                sector=token.sector,
                text=text[:6],
                side=token.controller if token.controller in names else None,
                meaning=meaning[:80],
            )
        )
    return tuple(marks)


def weather_dial(campaign: Campaign, state: CampaignState) -> DialView | None:
    """The siege's wind rose: the eight weather states as the GM named them, in the reader's
    language, the one in force highlighted and named in its title (``None`` without siege)."""
    raw = state.modules.get(SIEGE)
    if raw is None:
        return None
    siege = load(raw)
    language = get_i18n().current_locale
    states = game_for(campaign).settings_of(SIEGE, SiegeSettings).weather_states
    names = tuple(weather.names.get(language, weather.name)[:40] for weather in states)
    if siege.weather is None:
        title = _("Weather: not chosen yet")
    else:
        title = _("Weather: {name}").format(name=names[siege.weather])
    return DialView(title=title[:60], states=names, current=siege.weather)


def vp_notes(campaign: Campaign, state: CampaignState, names: Mapping[str, str]) -> dict[str, str]:
    """Each stormer's siege VP for its line in the legend ("3 VP"); ``names``: the sides'
    (id: name), in the campaign's order."""
    raw = state.modules.get(SIEGE)
    if raw is None:
        return {}
    siege = load(raw)
    settings = game_for(campaign).settings_of(SIEGE, SiegeSettings)
    return {
        side: _("{n} VP").format(n=siege.vp.get(side, 0))
        for side in names
        if settings.has_role(side, "stormer") or siege.vp.get(side)
    }
