"""The GM's Night Watch changes of the state (MODULES.md W1, W7), each checked by the rules
(:mod:`rules.modules.watch.adjust`), audited and announced in the group:

* the NPC marker moved to an adjacent location while the orders are open (unmoved, he stays);
* a hero added to a running campaign while the orders are open: it enters at the next deal;
* the "-1" tokens on a card laid in a duel this turn, until the results deadline (the
  resolution counts the card that much lower, never below 0; 0 takes the tokens off).

The first two are state edits (``bot.services.state_edits``): kept with the GM's other edits of
the turn's start, undone by the same undo, posted with the map. The tokens are kept with the
turn's adjustments; the GM takes them off by setting 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from bot.modules.watch.duels import sealed_unrevealed
from bot.modules.watch.setup import next_hero_id
from bot.services.late import LATE_PHASES
from bot.services.posting import board_post, group_post
from bot.services.state_edits import EditOutcome, edit_result, may_edit, write_edit
from bot.services.turns import game_for
from rules import CampaignState, Game
from rules.maps import SectorId
from rules.modules.watch import (
    NAME,
    HeroSpec,
    WatchAdjustCode,
    WatchAdjustmentError,
    WatchChange,
    WatchSettings,
    apply_change,
    earliest_entry,
    initiative_order,
    load,
    npc_destinations,
    played_cards,
)
from rules.modules.watch.adjust import is_change
from rules.modules.watch.orders import DuelStepData, typed_orders
from rules.modules.watch.settings import MAX_HEROES
from rules.orders import ModuleOrder
from storage import AuditAction, Campaign, Store
from storage.models import LateOrdersRecord, SideId, UserId

MAX_REASON = 300


@dataclass(frozen=True)
class WatchResult:
    """What a GM's watch change did: the outcome, the rules' refusal, the edit's id."""

    outcome: EditOutcome
    error: WatchAdjustmentError | None = None
    edit_id: int | None = None


def plays_watch(campaign: Campaign) -> bool:
    """Whether the campaign plays module ``watch``."""
    return game_for(campaign).module(NAME) is not None


def may_change_heroes(campaign: Campaign) -> bool:
    """The NPC moves and heroes join while the orders are open (a state edit)."""
    return may_edit(campaign) and plays_watch(campaign)


def may_lower_cards(campaign: Campaign) -> bool:
    """The "-1" tokens go on laid cards between the battle list and the resolution (in
    ``sealed`` mode only once the duels are shown: :func:`cards_hidden`)."""
    return campaign.phase in LATE_PHASES and plays_watch(campaign)


async def cards_hidden(store: Store, campaign: Campaign) -> bool:
    """Whether this turn's laid spells are still secret: sealed duels with a step not closed
    yet. The tokens are announced in the group, so none is listed or put on until the reveal."""
    return await sealed_unrevealed(store, campaign.id, campaign.turn)


async def npc_origin(store: Store, campaign: Campaign) -> SectorId | None:
    """Where the NPC marker stood at the turn's start before this turn's edits: before the
    turn's first NPC move not undone (None: he has not moved this turn)."""
    for record in await store.adjustments(campaign.id, campaign.turn):
        if not is_change(record.adjustment) or record.adjustment.get("change") != "npc":
            continue
        npc = None if record.before is None else load(record.before.modules.get(NAME)).npc
        if npc is not None:
            return npc.sector
    return None


async def npc_choices(
    store: Store, campaign: Campaign, game: Game, state: CampaignState
) -> list[SectorId]:
    """Where the NPC marker may go now, in map order: next to where he stood at the turn's
    start, or back there (a second move of a turn replaces the first)."""
    return npc_destinations(game, state, await npc_origin(store, campaign))


def new_hero_id(state: CampaignState) -> str:
    """An id after every hero's of the state (``h01``, ``h02``, …; ``h1``, … for a campaign
    stored with those), so a hero added with an initiative others have steps after them."""
    return next_hero_id({hero.id for hero in load(state.modules.get(NAME)).heroes})


def hero_name_taken(state: CampaignState, name: str) -> bool:
    """Whether a hero of the state is called ``name`` already (case aside)."""
    return any(
        hero.name.casefold() == name.casefold() for hero in load(state.modules.get(NAME)).heroes
    )


async def _edit(
    store: Store, campaign: Campaign, change: WatchChange, actor: UserId, now: datetime
) -> WatchResult:
    """``change`` written as every GM edit is (``bot.services.state_edits.write_edit``)."""
    if not may_change_heroes(campaign):
        return WatchResult(EditOutcome.CLOSED)
    try:
        result = await write_edit(
            store,
            campaign,
            change.model_dump(mode="json"),
            lambda game, state: apply_change(game, state, change),
            actor,
            now,
            tell_strategists=False,
        )
    except WatchAdjustmentError as refused:
        return WatchResult(EditOutcome.REFUSED, refused)
    return WatchResult(result.outcome, edit_id=result.edit_id)


async def move_npc_now(
    store: Store, campaign: Campaign, to: SectorId, reason: str, actor: UserId, now: datetime
) -> WatchResult:
    """Move the NPC marker to ``to`` (adjacent to him) before the orders close. The caller has
    checked that ``actor`` is a GM."""
    origin = await npc_origin(store, campaign)
    change = WatchChange(change="npc", to=to, origin=origin, reason=reason)
    return await _edit(store, campaign, change, actor, now)


async def add_hero_now(
    store: Store,
    campaign: Campaign,
    hero: dict[str, object],
    reason: str,
    actor: UserId,
    now: datetime,
) -> WatchResult:
    """Add the typed ``hero`` (name, side, initiative, start, maybe the turn it enters) to the
    running campaign; it enters at the next deal unless a later turn is given. The caller has
    checked that ``actor`` is a GM and that the name is free."""
    current = await store.turn_start(campaign.id, campaign.turn)
    if current is None or not may_change_heroes(campaign):
        return WatchResult(EditOutcome.CLOSED)
    if len(load(current.modules.get(NAME)).heroes) >= MAX_HEROES:
        full = WatchAdjustmentError(WatchAdjustCode.TOO_MANY_HEROES, max=MAX_HEROES)
        return WatchResult(EditOutcome.REFUSED, full)
    entry = earliest_entry(game_for(campaign).upgraded(current))
    typed = hero.get("enters_turn")
    spec = HeroSpec.model_validate(
        {
            **hero,
            "id": new_hero_id(current),
            "enters_turn": typed if isinstance(typed, int) else entry,
        }
    )
    return await _edit(
        store, campaign, WatchChange(change="hero", spec=spec, reason=reason), actor, now
    )


@dataclass(frozen=True)
class LaidCard:
    """A card laid in a duel this turn: its hero, its place in the step (from 0), the card,
    its target and the tokens on it."""

    hero: str
    play: int
    card: str
    target: str
    lowered_by: int


def _late(
    records: Mapping[SideId, LateOrdersRecord],
) -> dict[SideId, tuple[ModuleOrder, ...]]:
    return {side: record.orders for side, record in records.items()}


def _steps(late: Mapping[SideId, Iterable[ModuleOrder]]) -> dict[str, DuelStepData]:
    return {
        typed.hero: typed
        for orders in late.values()
        for typed in typed_orders(orders)
        if isinstance(typed, DuelStepData)
    }


async def laid_cards(store: Store, campaign: Campaign) -> list[LaidCard]:
    """The cards laid in this turn's closed duel steps, the heroes in initiative order (none
    while sealed duels are not shown yet)."""
    state = await store.turn_start(campaign.id, campaign.turn)
    if state is None or NAME not in state.modules or await cards_hidden(store, campaign):
        return []
    watch = load(state.modules[NAME])
    steps = _steps(_late(await store.late_orders(campaign.id, campaign.turn)))
    tokens = {(m.hero, m.play): m.lowered_by for m in watch.modifiers if m.turn == state.turn}
    return [
        LaidCard(
            hero=hero.id,
            play=index,
            card=play.card,
            target=play.target,
            lowered_by=tokens.get((hero.id, index), 0),
        )
        for hero in initiative_order(watch.heroes)
        if hero.id in steps
        for index, play in enumerate(steps[hero.id].plays)
    ]


async def lower_card(
    store: Store,
    campaign: Campaign,
    hero: str,
    play: int,
    lowered_by: int,
    actor: UserId,
    now: datetime,
) -> WatchResult:
    """Put ``lowered_by`` "-1" tokens on ``hero``'s ``play``-th laid card (0: none), until the
    results deadline; audited and announced. The caller has checked that ``actor`` is a GM."""
    if not may_lower_cards(campaign) or await cards_hidden(store, campaign):
        return WatchResult(EditOutcome.CLOSED)
    current = await store.turn_start(campaign.id, campaign.turn)
    if current is None:
        return WatchResult(EditOutcome.CLOSED)
    game = game_for(campaign)
    late = _late(await store.late_orders(campaign.id, campaign.turn))
    change = WatchChange(change="card", hero=hero, play=play, lowered_by=lowered_by, reason="-1")
    try:
        changed = apply_change(game, game.upgraded(current), change, late)
    except WatchAdjustmentError as refused:
        return WatchResult(EditOutcome.REFUSED, refused)
    if changed == game.upgraded(current):
        return WatchResult(EditOutcome.APPLIED)
    count = len(await store.adjustments(campaign.id, campaign.turn)) + 1
    key = f"turn:{campaign.turn}:watch-card:{count}"
    written = await store.replace_turn_start(
        campaign.id,
        campaign.turn,
        LATE_PHASES,
        current,
        changed,
        actor,
        AuditAction.STATE_ADJUSTED,
        _tokens_reason(current, late, hero, play, lowered_by),
        now,
        adjustment=change.model_dump(mode="json"),
        outbox=[
            group_post(
                campaign,
                "watch_card_lowered",
                key,
                turn=campaign.turn,
                hero=hero,
                play=play,
                lowered=lowered_by,
            ),
            board_post(campaign, key),
        ],
    )
    return WatchResult(edit_result(written).outcome)


def _tokens_reason(
    state: CampaignState,
    late: Mapping[SideId, Iterable[ModuleOrder]],
    hero: str,
    play: int,
    lowered_by: int,
) -> str:
    """The audit's reason for the tokens: how many, on whose spell, which one (its place from 1
    and the spell): «-1 x2: Лариса (h1), spell 1 (A3)»."""
    found = load(state.modules.get(NAME)).hero(hero)
    cards = played_cards(late, hero)
    card = cards[play] if 0 <= play < len(cards) else "?"
    name = hero if found is None else f"{found.name} ({hero})"
    return f"-1 x{lowered_by}: {name}, spell {play + 1} ({card})"


def settings_of(campaign: Campaign) -> WatchSettings:
    """The campaign's watch settings."""
    return game_for(campaign).settings_of(NAME, WatchSettings)
