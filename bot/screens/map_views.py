"""What the bot's map pictures show: their words in the reader's language, and a turn's map with
the sectors held and, after a resolution, the week that led to it (``rules.render``). The rule
modules add their marks, dial, legend notes, title, week's arrows and figures through their
``BotModule.map_*`` hooks (``bot/modules/<name>/map_view.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.modules import BOT_MODULES
from bot.services.records import held_at
from bot.services.turns import game_for
from rules import Battle, CampaignState
from rules.render import (
    DialView,
    HeroMark,
    HeroMove,
    MapFigures,
    MapLabels,
    MapView,
    NpcMark,
    SideView,
    WeekView,
    held_sectors,
    plural_index,
    week_of,
)
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
    """The map's words in the current language, the modules' figures' included."""
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
    ).model_copy(
        update={
            field: words
            for module in BOT_MODULES.values()
            for field, words in module.map_label_words().items()
        }
    )


def side_views(sides: Sequence[Side]) -> tuple[SideView, ...]:
    """How each side is drawn."""
    return tuple(SideView(id=side.id, name=side.name, colour=side.colour) for side in sides)


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
    and with ``week`` the moves, battles and captures of the turn before (Monday's map), with
    the rule modules' marks, dial, notes, title and figures (``BotModule.map_*``); a module's
    figures may stand where this turn's battle list put them once it is public (at ``now``, or
    always with ``battles``, Friday's list)."""
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
            for name, module in BOT_MODULES.items():
                moves = module.map_week_moves(
                    None if listed is None else listed.modules.get(name), report.modules.get(name)
                )
                if moves is not None:
                    week_view = week_view.model_copy(update={"moves": tuple(moves)})
    figures = await module_figures(
        store, campaign, state, week=week_view is not None, battles=battles, now=now
    )
    names = {side.id: side.name for side in sides}
    title += "".join(module.map_title(state, names) for module in BOT_MODULES.values())
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
        marks=tuple(
            mark
            for module in BOT_MODULES.values()
            for mark in module.map_marks(campaign, state, names)
        ),
        dial=module_dial(campaign, state),
        side_notes={
            side: note
            for module in BOT_MODULES.values()
            for side, note in module.map_side_notes(campaign, state, names).items()
        },
        **figures.view_fields(),
    )


async def module_figures(
    store: Store,
    campaign: Campaign,
    state: CampaignState,
    *,
    week: bool = False,
    battles: tuple[Battle, ...] | None = None,
    now: datetime | None = None,
) -> MapFigures:
    """The rule modules' named figures on the map of ``state`` (``BotModule.map_figures``:
    Monday's with ``week``, Friday's with ``battles``, at ``now`` where this turn's public
    battle list put them; none of these: where they stand at the turn's start): every module's
    heroes and hero moves, in the registry's order, and the NPC of the first module that gives
    one."""
    heroes: list[HeroMark] = []
    moves: list[HeroMove] = []
    npc: NpcMark | None = None
    for module in BOT_MODULES.values():
        given = await module.map_figures(
            store, campaign, state, week=week, battles=battles, now=now
        )
        if given is None:
            continue
        heroes.extend(given.heroes)
        moves.extend(given.hero_moves)
        npc = given.npc if npc is None else npc
    return MapFigures(heroes=tuple(heroes), hero_moves=tuple(moves), npc=npc)


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


def module_dial(campaign: Campaign, state: CampaignState) -> DialView | None:
    """The first rule module's dial on the map of ``state`` (``BotModule.map_dial``)."""
    for module in BOT_MODULES.values():
        dial = module.map_dial(campaign, state)
        if dial is not None:
            return dial
    return None
