"""The Night Watch on the bot's maps: its heroes, the NPC and the hero moves
(:meth:`rules.game.RulesModule.map_figures` draws them from the public view of its state; no
hand is ever drawn), and the words of their legend."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.modules.watch.duels import public_watch_plan
from bot.modules.watch.orders import as_listed
from bot.services.turns import game_for
from rules import Battle, CampaignState
from rules.modules.watch import NAME as WATCH
from rules.render import MapFigures
from storage import Campaign, Store


def label_words() -> Mapping[str, str]:
    """The legend's words for the heroes and the NPC (fields of :class:`rules.render.MapLabels`)
    in the current language."""
    return {
        "hero": _("hero: initiative, name, wounds"),
        "hero_moved": _("hero's move this turn"),
        "killed": _("hero killed this turn"),
        "npc": _("NPC: moved by the GM"),
    }


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
