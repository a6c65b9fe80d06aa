"""What the bot's map pictures show: their words in the reader's language, and a turn's map with
the sectors held and, after a resolution, the week that led to it (``rules.render``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from itertools import pairwise

from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.modules.watch.duels import public_watch_plan
from bot.modules.watch.orders import as_listed
from bot.services.records import held_at
from bot.services.turns import game_for
from rules import Battle, CampaignState
from rules.modules.contact import NAME as CONTACT
from rules.modules.contact import ContactPlan, ContactReport, Defences
from rules.modules.contact import load as load_contact
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import SiegeSettings, load
from rules.modules.watch import NAME as WATCH
from rules.render import (
    DialView,
    MapFigures,
    MapLabels,
    MapView,
    SectorMark,
    SideView,
    WeekView,
    held_sectors,
    plural_index,
    week_of,
)
from rules.resolution import Arrival
from storage import Campaign, Side, Store
from storage.models import SectorId, SideId

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
        held=_("held by the side with this tag"),
        new=_("new"),
        new_key=_("captured this turn"),
        moved=_("move, with the armies moved"),
        battle=_("battle and its number"),
        won=_("won the battle"),
        draw=_("draw"),
        no_result=_("no result: a draw without losses"),
        lost=_("armies this side lost"),
        linked=_("also next to these sectors"),
        hub=_("hub: the way between the other sectors"),
        hero=_("hero: initiative, name, wounds"),
        hero_moved=_("hero's move this turn"),
        killed=_("hero killed this turn"),
        npc=_("NPC: moved by the GM"),
    )


def side_views(sides: Sequence[Side]) -> tuple[SideView, ...]:
    """How each side is drawn."""
    return tuple(SideView(id=side.id, name=side.name, colour=side.colour) for side in sides)


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


async def turn_map(
    store: Store,
    campaign: Campaign,
    state: CampaignState,
    sides: Sequence[Side],
    title: str,
    *,
    week: bool = False,
    battles: tuple[Battle, ...] | None = None,
    now: datetime | None = None,
) -> MapView:
    """The map at the start of ``state.turn``: the sectors held tinted, each side's progress,
    and with ``week`` the moves, battles and captures of the turn before (Monday's map). With
    watch, the heroes stand where this turn's battle list put them once it is public (at
    ``now``, or always with ``battles``, Friday's list), with this turn's hero moves."""
    game = game_for(campaign)
    held = await held_at(store, campaign.id, state.turn)
    week_view: WeekView | None = None
    if week and state.turn >= 2:
        resolutions = await store.resolutions(campaign.id, state.turn - 1)
        if resolutions:
            report = resolutions[-1].report
            week_view = week_of(
                report, game.ruleset.losses, await taken_before(store, campaign, state.turn - 1)
            )
            listed = await store.battle_list(campaign.id, state.turn - 1)
            raw_plan = None if listed is None else listed.modules.get(CONTACT)
            raw_report = report.modules.get(CONTACT)
            if raw_plan is not None and raw_report is not None:
                moves = contact_moves(
                    ContactPlan.model_validate(raw_plan),
                    ContactReport.model_validate(raw_report),
                )
                week_view = week_view.model_copy(update={"moves": moves})
    figures = await watch_figures(
        store, campaign, state, week=week_view is not None, battles=battles, now=now
    )
    return MapView(
        map=game.map,
        state=state,
        sides=side_views(sides),
        title=(title + contact_title(state, sides))[:120],
        language=get_i18n().current_locale,
        labels=map_labels(),
        captured=held or None,
        sectors_to_win=game.ruleset.sectors_to_win,
        battles=battles,
        week=week_view,
        marks=module_marks(state, sides),
        dial=module_dial(campaign, state),
        side_notes=module_notes(campaign, state, sides),
        **figures.view_fields(),
    )


async def taken_before(
    store: Store, campaign: Campaign, turn: int
) -> dict[SideId, tuple[SectorId, ...]]:
    """What each side already had at the start of ``turn``, for the Monday map's "new" (a
    sector taken this turn): the sectors held then (:func:`held_at`), and at turn 1 those its
    deployment holds by the capture rule. A sector a side deployed 3 armies in alone and kept is
    held after the first resolution, but not "new"; one that armies reinforced on a Monday
    reach enough for is new when the next Monday takes it."""
    held = dict(await held_at(store, campaign.id, turn))
    start = await store.turn_start(campaign.id, turn) if turn == 1 else None
    if start is not None:
        need = game_for(campaign).ruleset.capture_min_armies
        for side, sectors in held_sectors(start, need).items():
            held[side] = tuple(dict.fromkeys((*held.get(side, ()), *sectors)))
    return held


async def watch_figures(
    store: Store,
    campaign: Campaign,
    state: CampaignState,
    *,
    week: bool,
    battles: tuple[Battle, ...] | None,
    now: datetime | None = None,
) -> MapFigures:
    """Watch's heroes, NPC and hero moves on a turn's map, from the public view of the state
    (no hand is ever drawn): with ``battles`` (Friday's list), or once this turn's list is
    public at ``now``, the heroes where the list put them with this turn's moves
    (:func:`listed_figures`); else with ``week`` (Monday's map) the moves of the turn before
    and the heroes it killed, struck through; else the heroes where they stand. Nothing
    without watch."""
    raw = state.modules.get(WATCH)
    if raw is None:
        return MapFigures()
    if battles is not None:
        this_turn = await store.battle_list(campaign.id, state.turn)
        return listed_figures(
            campaign, state, None if this_turn is None else this_turn.modules.get(WATCH)
        )
    if now is not None:
        plan = await public_watch_plan(store, campaign, state, now)
        if plan is not None:
            return listed_figures(campaign, state, plan)
    if not week or state.turn < 2:
        return figures_of(campaign, raw, state.turn)
    shown = state.turn - 1
    listed = await store.battle_list(campaign.id, shown)
    plan = None if listed is None else listed.modules.get(WATCH)
    resolutions = await store.resolutions(campaign.id, shown)
    notes = resolutions[-1].report.modules.get(WATCH) if resolutions else None
    return figures_of(campaign, raw, state.turn, plan=plan, notes=notes)


def figures_of(
    campaign: Campaign,
    data: JsonValue,
    turn: int,
    *,
    plan: JsonValue = None,
    notes: JsonValue = None,
) -> MapFigures:
    """Watch's figures from its rules module (:meth:`~rules.game.RulesModule.map_figures`):
    its state ``data`` at the start of ``turn``, the moves of a list's ``plan`` and the heroes
    a resolution's ``notes`` killed."""
    game = game_for(campaign)
    module = game.module(WATCH)
    if module is None:
        return MapFigures()
    return module.map_figures(game, data, turn, plan=plan, notes=notes) or MapFigures()


def listed_figures(campaign: Campaign, state: CampaignState, plan: JsonValue) -> MapFigures:
    """Watch's figures of turn ``state.turn`` as its battle list has it: the heroes and the NPC
    where the list's watch data ``plan`` put them (after this turn's moves), each move an
    arrow from where the hero began the turn; with no ``plan``, where the turn began."""
    raw = state.modules.get(WATCH)
    if raw is None:
        return MapFigures()
    if plan is None:
        return figures_of(campaign, raw, state.turn)
    moved = as_listed(state.modules, plan, {})[WATCH]
    return figures_of(campaign, moved, state.turn, plan=plan)


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


def contact_marks(state: CampaignState, sides: Sequence[Side]) -> tuple[SectorMark, ...]:
    """Contact's marks: each sector's defences in its owner's colour ("+1" a barricade, "+2" a
    blockpost, "×1"/"×2" once ruined) and each side's exhausted armies ("ex 3")."""
    raw = state.modules.get(CONTACT)
    if raw is None:
        return ()
    contact = load_contact(raw)
    names = {side.id: side.name for side in sides}
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


def module_marks(state: CampaignState, sides: Sequence[Side]) -> tuple[SectorMark, ...]:
    """Rule modules' marks on the map: siege tokens where they stand (a fortification with its
    strength; an occult token in its holder's colour), the weather and each side's siege VP in
    their meanings; contact's defences and exhausted armies (:func:`contact_marks`)."""
    raw = state.modules.get(SIEGE)
    if raw is None:
        return contact_marks(state, sides)
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
    return (*marks, *contact_marks(state, sides))


def contact_title(state: CampaignState, sides: Sequence[Side]) -> str:
    """Contact's part of the map's title: each side's victory points ("" without any)."""
    raw = state.modules.get(CONTACT)
    if raw is None:
        return ""
    names = {side.id: side.name for side in sides}
    points = ", ".join(
        f"{names.get(side, side)} {vp}" for side, vp in load_contact(raw).vp.items() if vp
    )
    return " · " + _("VP: {points}").format(points=points) if points else ""


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
