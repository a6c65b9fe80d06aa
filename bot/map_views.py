"""What the bot's map pictures show: their words in the reader's language, and a turn's map with
the sectors held and, after a resolution, the week that led to it (``rules.render``)."""

from __future__ import annotations

from collections.abc import Sequence

from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.services.turns import game_for
from rules import Battle, CampaignState
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import SiegeSettings, load
from rules.render import (
    DialView,
    MapLabels,
    MapView,
    SectorMark,
    SideView,
    WeekView,
    plural_index,
    week_of,
)
from storage import Campaign, Side, Store

ENGLISH_PLURALS = "nplurals=2; plural=(n != 1);"


def plural_samples() -> tuple[str, list[int]]:
    """The current language's ``Plural-Forms`` header and one number of each of its plural
    categories (English: 1, 0; Russian: 1, 2, 0)."""
    i18n = get_i18n()
    translations = i18n.locales.get(i18n.current_locale)
    header = ENGLISH_PLURALS
    if translations is not None:
        header = translations.info().get("plural-forms", ENGLISH_PLURALS)
    samples: dict[int, int] = {}
    for n in range(200):
        samples.setdefault(plural_index(header, n), n)
    return header, [samples[index] for index in sorted(samples)]


def map_labels() -> MapLabels:
    """The map's words in the current language."""
    header, samples = plural_samples()
    return MapLabels(
        turn=_("Turn"),
        battles=_("Battles of the week"),
        orders=_("Secret orders"),
        reinforce=_("reinforcement"),
        plural=header,
        armies=tuple(_("{n} army", "{n} armies", n) for n in samples),
        progress=tuple(
            _("{held} of {need} sector", "{held} of {need} sectors", n) for n in samples
        ),
        last_turn=_("Turn {turn}: moves and battles"),
        winner=_("{side} wins the campaign"),
        no_winner=_("The campaign ends without a winner"),
        held=_("held by the side of its colour"),
        new=_("new"),
        new_key=_("captured this turn"),
        moved=_("move, with the armies moved"),
        battle=_("battle and its number"),
        won=_("won the battle"),
        draw=_("draw"),
        no_result=_("no result: a draw without losses"),
        lost=_("armies lost"),
        linked=_("also next to these sectors"),
    )


def side_views(sides: Sequence[Side]) -> tuple[SideView, ...]:
    """How each side is drawn."""
    return tuple(SideView(id=side.id, name=side.name, colour=side.colour) for side in sides)


async def held_before(store: Store, campaign: Campaign, turn: int) -> dict[str, tuple[str, ...]]:
    """What each side held at the start of ``turn``: the captures of turn ``turn - 1``'s
    resolution (nothing before the first one)."""
    if turn < 2:
        return {}
    resolutions = await store.resolutions(campaign.id, turn - 1)
    return dict(resolutions[-1].report.captured) if resolutions else {}


async def turn_map(
    store: Store,
    campaign: Campaign,
    state: CampaignState,
    sides: Sequence[Side],
    title: str,
    *,
    week: bool = False,
    battles: tuple[Battle, ...] | None = None,
) -> MapView:
    """The map at the start of ``state.turn``: the sectors held tinted, each side's progress,
    and with ``week`` the moves, battles and captures of the turn before (Monday's map)."""
    game = game_for(campaign)
    held = await held_before(store, campaign, state.turn)
    week_view: WeekView | None = None
    if week and state.turn >= 2:
        resolutions = await store.resolutions(campaign.id, state.turn - 1)
        if resolutions:
            earlier = await held_before(store, campaign, state.turn - 1)
            week_view = week_of(resolutions[-1].report, game.ruleset.losses, earlier)
    return MapView(
        map=game.map,
        state=state,
        sides=side_views(sides),
        title=title[:120],
        language=get_i18n().current_locale,
        labels=map_labels(),
        captured=held or None,
        sectors_to_win=game.ruleset.sectors_to_win,
        battles=battles,
        week=week_view,
        marks=module_marks(state, sides),
        dial=module_dial(campaign, state),
        side_notes=module_notes(campaign, state, sides),
    )


def module_marks(state: CampaignState, sides: Sequence[Side]) -> tuple[SectorMark, ...]:
    """Rule modules' marks on the map: siege tokens where they stand (a fortification with its
    strength; an occult token in its holder's colour), the weather and each side's siege VP in
    their meanings."""
    raw = state.modules.get(SIEGE)
    if raw is None:
        return ()
    siege = load(raw)
    language = get_i18n().current_locale
    names = {side.id: side.name for side in sides}
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


def module_dial(campaign: Campaign, state: CampaignState) -> DialView | None:
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


def module_notes(campaign: Campaign, state: CampaignState, sides: Sequence[Side]) -> dict[str, str]:
    """Each stormer's siege VP for its line in the legend ("3 VP")."""
    raw = state.modules.get(SIEGE)
    if raw is None:
        return {}
    siege = load(raw)
    settings = game_for(campaign).settings_of(SIEGE, SiegeSettings)
    return {
        side.id: _("{n} VP").format(n=siege.vp.get(side.id, 0))
        for side in sides
        if settings.has_role(side.id, "stormer") or siege.vp.get(side.id)
    }
