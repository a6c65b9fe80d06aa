"""The battle list of ``contact`` (MODULES.md C4-C7): movement in rounds, zombie fights with
their plan-time retreats, yields, and the chains of table battles.

What the list shows is a :class:`ContactPlan` in ``BattlePlan.modules["contact"]``; the
resolution reads it back (the deck continues from where the list left it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.battles import PlanWork
from rules.dice import Dice
from rules.game import Game
from rules.maps import SectorId, sector_id_key
from rules.modules.contact.orders import RetreatToData, TransportData, YieldData
from rules.modules.contact.state import NAME, ContactState, load_in
from rules.modules.contact.validate import settings_of, typed_orders
from rules.orders import SideOrders
from rules.state import CampaignState, SideId

_MODEL = ConfigDict(frozen=True, extra="forbid")


class GroupMove(BaseModel):
    """One group in the movement log: the side's ``index``-th group (its list order), what it
    did in round ``round`` and where it is at the end of the list (``end``; ``None``:
    destroyed), with ``alive`` armies. ``exhausted`` of its armies retreated last turn."""

    model_config = _MODEL

    side: SideId
    index: int
    source: SectorId
    path: tuple[SectorId, ...]
    count: int
    exhausted: int = 0
    transport: bool = False
    round: int
    status: Literal["cancelled", "arrived", "joined"]
    stop: SectorId | None = None
    passed: tuple[SectorId, ...] = ()
    arrival: int | None = None
    end: SectorId | None = None
    alive: int = 0


class ZombieFight(BaseModel):
    """A fight with a zombie card: ``strength`` (armies x strength per army) against ``zombies``
    (``card`` + ``bonus`` for defences); a tie wins. ``group`` is the fighting group's index
    (``None``: retreating armies); ``at`` is ``list`` or ``resolution``."""

    model_config = _MODEL

    side: SideId
    group: int | None
    sector: SectorId
    armies: int
    card: int
    bonus: int
    zombies: int
    strength: int
    won: bool
    at: Literal["list", "resolution"] = "list"


class Retreat(BaseModel):
    """Armies of ``side`` leaving ``source``: ``died`` exhausted ones die, ``armies`` go to
    ``to`` (``None``: destroyed; ``kind`` says how the destination was chosen). ``reason``:
    ``zombies``, ``yield``, ``battle`` (a chain battle lost) or ``draw`` (returning groups)."""

    model_config = _MODEL

    side: SideId
    source: SectorId
    reason: Literal["zombies", "yield", "battle", "draw"]
    armies: int
    died: int = 0
    to: SectorId | None = None
    kind: Literal["friendly", "neutral", "return", "destroyed"] = "friendly"
    group: int | None = None
    battle: int | None = None


class Chain(BaseModel):
    """A chain of battles in ``sector``: ``defender`` defends the first, ``attackers`` in
    arrival order fight one battle each (``battles``); ``yielded``: the side that gave the
    sector up before it. ``level``: the defences' bonus to every defender's FOC row."""

    model_config = _MODEL

    sector: SectorId
    defender: SideId
    attackers: tuple[SideId, ...]
    battles: tuple[int, ...]
    fortified: SideId | None = None
    level: int = 0
    yielded: SideId | None = None


class Ruin(BaseModel):
    """Defences in ``sector`` beaten at the list (``zombies``: ``side`` beat the zombies where
    nobody defended them; ``yield``: ``side`` gave them up)."""

    model_config = _MODEL

    sector: SectorId
    side: SideId
    reason: Literal["zombies", "yield"]


class DeckState(BaseModel):
    """The zombie deck: ``cards`` of the current shuffle, ``used`` of them drawn, ``shuffles``
    made (the first under ``t<T>/contact/zombies``, then ``…/zombies/2`` ...)."""

    model_config = _MODEL

    cards: tuple[int, ...]
    used: int
    shuffles: int


class ContactPlan(BaseModel):
    """What ``contact`` adds to the battle list."""

    model_config = _MODEL

    turn_order: tuple[SideId, ...]
    groups: tuple[GroupMove, ...] = ()
    zombies: tuple[ZombieFight, ...] = ()
    retreats: tuple[Retreat, ...] = ()
    chains: tuple[Chain, ...] = ()
    ruins: tuple[Ruin, ...] = ()
    deck: DeckState | None = Field(default=None)


class Deck:
    """The turn's zombie deck, shuffled from the roll seed when first drawn from."""

    def __init__(self, dice: Dice, turn: int, cards: Sequence[int], kept: DeckState | None = None):
        self.dice = dice
        self.label = f"t{turn}/{NAME}/zombies"
        self.base = tuple(cards)
        self.state = kept

    def draw(self) -> int:
        """The next card (a fresh shuffle when the deck is used up)."""
        if self.state is None or self.state.used >= len(self.state.cards):
            shuffles = 1 if self.state is None else self.state.shuffles + 1
            label = self.label if shuffles == 1 else f"{self.label}/{shuffles}"
            self.state = DeckState(
                cards=tuple(self.dice.shuffle(label, self.base)), used=0, shuffles=shuffles
            )
        card = self.state.cards[self.state.used]
        self.state = self.state.model_copy(update={"used": self.state.used + 1})
        return card


def turn_order(state: CampaignState) -> tuple[SideId, ...]:
    """The sides rotated so that side (T-1) mod n goes first on turn T (C1)."""
    sides = state.sides()
    if not sides:
        return ()
    first = (max(state.turn, 1) - 1) % len(sides)
    return (*sides[first:], *sides[:first])


def owns(state: CampaignState, cstate: ContactState, side: SideId, sector: SectorId) -> bool:
    """Whether ``sector`` is ``side``'s own (C1): its armies stood there at turn start, or
    nobody's did and it owns the defences there."""
    if state.armies_of(side, sector) > 0:
        return True
    defences = cstate.defences_in(sector)
    return not state.occupants(sector) and defences is not None and defences.owner == side


def fortifies(game: Game, orders: SideOrders, side: SideId, sector: SectorId) -> bool:
    """Whether ``side`` fortifies ``sector``: no order there and no group leaving it."""
    return orders.is_fortifying(sector) and not game.moving_out(side, orders, sector)


def retreat_preferences(
    cstate: ContactState, orders: SideOrders, side: SideId, sector: SectorId
) -> tuple[SectorId, ...]:
    """Where ``side``'s armies retreating out of ``sector`` go first: this turn's order, else
    the standing preference."""
    for typed in typed_orders(orders.extra):
        if isinstance(typed, RetreatToData) and typed.sector == sector:
            return typed.to
    return cstate.retreat_to.get(side, {}).get(sector, ())


def yields(orders: SideOrders, sector: SectorId) -> bool:
    """Whether the side yields ``sector``."""
    return any(
        isinstance(typed, YieldData) and typed.sector == sector
        for typed in typed_orders(orders.extra)
    )


@dataclass
class Board:
    """Who is where while the list (or the resolution) moves armies: ``present[sector][side]``."""

    game: Game
    state: CampaignState
    cstate: ContactState
    present: dict[SectorId, dict[SideId, int]]
    deck: Deck
    strength_per_army: int
    zombies: list[ZombieFight] = field(default_factory=list)

    def armies(self, sector: SectorId, side: SideId) -> int:
        return self.present.get(sector, {}).get(side, 0)

    def shift(self, side: SideId, source: SectorId | None, to: SectorId | None, n: int) -> None:
        if source is not None:
            self.present[source][side] = self.armies(source, side) - n
        if to is not None:
            self.present.setdefault(to, {})[side] = self.armies(to, side) + n

    def others_in(self, sector: SectorId, side: SideId) -> bool:
        return any(n > 0 for other, n in self.present.get(sector, {}).items() if other != side)

    def sides_in(self, sector: SectorId) -> list[SideId]:
        return [side for side, n in self.present.get(sector, {}).items() if n > 0]

    def hostile(self, sector: SectorId, side: SideId) -> bool:
        """Another side's armies are there now, or defences standing that are not ``side``'s."""
        defences = self.cstate.defences_in(sector)
        return self.others_in(sector, side) or (
            defences is not None and defences.intact_against(side)
        )

    def fight(
        self, side: SideId, group: int | None, sector: SectorId, armies: int, at: str
    ) -> bool:
        """A zombie fight (C5): draws the next card, records it; True when the armies win."""
        defences = self.cstate.defences_in(sector)
        bonus = 1 if defences is not None and defences.intact_against(side) else 0
        card = self.deck.draw()
        strength = self.strength_per_army * armies
        won = strength >= card + bonus
        self.zombies.append(
            ZombieFight(
                side=side,
                group=group,
                sector=sector,
                armies=armies,
                card=card,
                bonus=bonus,
                zombies=card + bonus,
                strength=strength,
                won=won,
                at="list" if at == "list" else "resolution",
            )
        )
        return won

    def retreat(
        self,
        side: SideId,
        source: SectorId,
        armies: int,
        exhausted: int,
        *,
        reason: Literal["zombies", "yield", "battle", "draw"],
        pending: set[SectorId],
        prefs: Sequence[SectorId],
        at: str,
        group: int | None = None,
        battle: int | None = None,
        kill_exhausted: bool = True,
    ) -> Retreat:
        """Move ``armies`` of ``side`` out of ``source`` by C7 (2)-(4), after (1) the exhausted
        ones die; the caller has already taken them off the board at ``source``."""
        died = min(exhausted, armies) if kill_exhausted else 0
        going = armies - died
        record = Retreat(
            side=side,
            source=source,
            reason=reason,
            armies=going,
            died=died,
            group=group,
            battle=battle,
        )
        if going == 0:
            return record.model_copy(update={"kind": "destroyed"})
        neighbours = [
            sector
            for sector in self.game.map.sector_ids()
            if self.game.map.adjacent(source, sector) and sector not in pending
        ]
        friendly = [
            sector
            for sector in neighbours
            if owns(self.state, self.cstate, side, sector) and not self.others_in(sector, side)
        ]
        chosen = self._pick(side, friendly, prefs)
        if chosen is not None:
            self.shift(side, None, chosen, going)
            return record.model_copy(update={"to": chosen, "kind": "friendly"})
        neutral = [
            sector
            for sector in neighbours
            if not any(owns(self.state, self.cstate, other, sector) for other in self.state.sides())
            and not self.hostile(sector, side)
        ]
        chosen = self._pick(side, neutral, prefs)
        if chosen is not None and self.fight(side, None, chosen, going, at):
            self.shift(side, None, chosen, going)
            return record.model_copy(update={"to": chosen, "kind": "neutral"})
        return record.model_copy(update={"kind": "destroyed"})

    def _pick(
        self, side: SideId, options: Sequence[SectorId], prefs: Sequence[SectorId]
    ) -> SectorId | None:
        for sector in prefs:
            if sector in options:
                return sector
        if not options:
            return None
        return min(options, key=lambda sector: (-self.armies(sector, side), sector_id_key(sector)))


@dataclass
class _Group:
    side: SideId
    index: int
    source: SectorId
    path: tuple[SectorId, ...]
    count: int
    transport: bool
    move_index: int | None = None
    extra_index: int | None = None
    exhausted: int = 0


def side_groups(
    game: Game, state: CampaignState, cstate: ContactState, side: SideId, orders: SideOrders
) -> list[_Group]:
    """The side's groups in its list order (C3): its moves as listed, each transport at its
    ``rank`` (first where none is given); each group takes fresh armies first, transports
    before moves."""
    groups: list[_Group] = [
        _Group(side, 0, move.source, (move.to,), move.count, False, move_index=i)
        for i, move in enumerate(orders.moves)
    ]
    carried: list[tuple[int, TransportData]] = []
    for i, order in enumerate(orders.extra):
        if order.module != NAME:
            continue
        parsed = typed_orders((order,))
        if parsed and isinstance(parsed[0], TransportData):
            carried.append((i, parsed[0]))
    for i, typed in carried:
        place = 0 if typed.rank is None else min(typed.rank - 1, len(groups))
        if typed.rank is None:
            place = sum(1 for group in groups if group.transport)
        groups.insert(
            place,
            _Group(side, 0, typed.source, typed.path, typed.count, True, extra_index=i),
        )
    fresh_left: dict[SectorId, int] = {}
    exhausted_left: dict[SectorId, int] = {}
    for group in sorted(groups, key=lambda g: not g.transport):
        sector = group.source
        if sector not in fresh_left:
            tired = min(cstate.exhausted_in(side, sector), state.armies_of(side, sector))
            fresh_left[sector] = state.armies_of(side, sector) - tired
            exhausted_left[sector] = tired
        take_fresh = min(group.count, fresh_left[sector])
        fresh_left[sector] -= take_fresh
        group.exhausted = group.count - take_fresh
        exhausted_left[sector] -= group.exhausted
    for number, group in enumerate(groups, start=1):
        group.index = number
    return groups


def plan(work: PlanWork) -> None:
    """Movement, zombie fights, yields and chains, as the battle list shows them."""
    game, state = work.game, work.state
    cstate = load_in(game, state)
    settings = settings_of(game)
    order = turn_order(state)
    board = Board(
        game=game,
        state=state,
        cstate=cstate,
        present={sector: dict(state.occupants(sector)) for sector in game.map.sector_ids()},
        deck=Deck(work.dice, state.turn, settings.zombie_deck),
        strength_per_army=settings.strength_per_army,
    )
    groups = {side: side_groups(game, state, cstate, side, work.accepted[side]) for side in order}
    moves: dict[tuple[SideId, int], GroupMove] = {}
    arrivals: dict[SectorId, list[SideId]] = {}
    rounds = max((len(found) for found in groups.values()), default=0)
    for number in range(1, rounds + 1):
        for side in order:
            if number > len(groups[side]):
                continue
            group = groups[side][number - 1]
            moves[(side, group.index)] = _execute(board, group, number, arrivals)
    _drop_cancelled(work, groups, moves)

    retreats: list[Retreat] = []
    ruins: list[Ruin] = []
    fights = [
        (side, group)
        for side in order
        for group in groups[side]
        if moves[(side, group.index)].status != "cancelled"
        and not owns(state, cstate, side, moves[(side, group.index)].stop or group.source)
    ]
    for number, (side, group) in enumerate(fights):
        move = moves[(side, group.index)]
        sector = move.stop or group.source
        pending = {moves[(s, g.index)].stop or g.source for s, g in fights[number + 1 :]}
        won = board.fight(side, group.index, sector, group.count, "list")
        if won:
            defences = cstate.defences_in(sector)
            if (
                arrivals.get(sector, [None])[0] == side
                and move.arrival == 1
                and not state.occupants(sector)
                and defences is not None
                and defences.intact_against(side)
            ):
                ruins.append(Ruin(sector=sector, side=side, reason="zombies"))
            continue
        board.shift(side, sector, None, group.count)
        retreat = board.retreat(
            side,
            sector,
            group.count,
            group.exhausted,
            reason="zombies",
            pending=pending,
            prefs=retreat_preferences(cstate, work.accepted[side], side, sector),
            at="list",
            group=group.index,
        )
        retreats.append(retreat)
        moves[(side, group.index)] = move.model_copy(
            update={"end": retreat.to, "alive": retreat.armies if retreat.to else 0}
        )
        if side in arrivals.get(sector, []) and board.armies(sector, side) == 0:
            arrivals[sector].remove(side)

    chains = _chains(work, board, arrivals, order, retreats, ruins, tuple(moves.values()))
    work.modules[NAME] = ContactPlan(
        turn_order=order,
        groups=tuple(moves[(side, group.index)] for side in order for group in groups[side]),
        zombies=tuple(board.zombies),
        retreats=tuple(retreats),
        chains=tuple(chains),
        ruins=tuple(ruins),
        deck=board.deck.state,
    ).model_dump(mode="json", exclude_defaults=True)


def _execute(
    board: Board, group: _Group, number: int, arrivals: dict[SectorId, list[SideId]]
) -> GroupMove:
    side, source = group.side, group.source
    base = GroupMove(
        side=side,
        index=group.index,
        source=source,
        path=group.path,
        count=group.count,
        exhausted=group.exhausted,
        transport=group.transport,
        round=number,
        status="cancelled",
        end=source,
        alive=group.count,
    )
    if board.others_in(source, side):
        return base
    board.shift(side, source, None, group.count)
    passed: list[SectorId] = []
    stop = group.path[-1]
    for sector in group.path:
        if board.hostile(sector, side):
            stop = sector
            break
        passed.append(sector)
    passed = [sector for sector in passed if sector != stop]
    joined = board.armies(stop, side) > 0
    board.shift(side, None, stop, group.count)
    arrival = None
    if not joined:
        arrivals.setdefault(stop, []).append(side)
        arrival = len(arrivals[stop])
    return base.model_copy(
        update={
            "status": "joined" if joined else "arrived",
            "stop": stop,
            "passed": tuple(passed),
            "arrival": arrival,
            "end": stop,
        }
    )


def _drop_cancelled(
    work: PlanWork, groups: dict[SideId, list[_Group]], moves: dict[tuple[SideId, int], GroupMove]
) -> None:
    """A cancelled move counts as never given (C4): the accepted orders lose it."""
    for side, found in groups.items():
        cancelled = [g for g in found if moves[(side, g.index)].status == "cancelled"]
        if not cancelled:
            continue
        orders = work.accepted[side]
        move_gone = {g.move_index for g in cancelled if g.move_index is not None}
        extra_gone = {g.extra_index for g in cancelled if g.extra_index is not None}
        work.accepted[side] = orders.model_copy(
            update={
                "moves": tuple(m for i, m in enumerate(orders.moves) if i not in move_gone),
                "extra": tuple(o for i, o in enumerate(orders.extra) if i not in extra_gone),
            }
        )


def chain_sectors(board: Board, arrivals: dict[SectorId, list[SideId]]) -> list[SectorId]:
    """Sectors where a chain is fought: a group arrived and is still there, with another side."""
    return [
        sector
        for sector in board.game.map.sector_ids()
        if any(board.armies(sector, side) > 0 for side in arrivals.get(sector, []))
        and len(board.sides_in(sector)) > 1
    ]


def _chains(
    work: PlanWork,
    board: Board,
    arrivals: dict[SectorId, list[SideId]],
    order: tuple[SideId, ...],
    retreats: list[Retreat],
    ruins: list[Ruin],
    moves: tuple[GroupMove, ...],
) -> list[Chain]:
    state, cstate = work.state, board.cstate
    chains: list[Chain] = []
    waiting = chain_sectors(board, arrivals)
    for sector in list(waiting):
        waiting.remove(sector)
        present = board.sides_in(sector)
        occupants = [side for side in present if state.armies_of(side, sector) > 0]
        arrived = [side for side in arrivals.get(sector, []) if board.armies(sector, side) > 0]
        if occupants:
            first = max(
                occupants, key=lambda side: (board.armies(sector, side), -order.index(side))
            )
            attackers = [side for side in arrived if side not in occupants]
        else:
            first, attackers = arrived[0], arrived[1:]
        if not attackers:
            continue
        yielded = None
        defences = cstate.defences_in(sector)
        if yields(work.accepted[first], sector):
            yielded = first
            armies = board.armies(sector, first)
            board.shift(first, sector, None, armies)
            retreats.append(
                board.retreat(
                    first,
                    sector,
                    armies,
                    _exhausted_there(work, first, sector, moves),
                    reason="yield",
                    pending=set(waiting),
                    prefs=retreat_preferences(cstate, work.accepted[first], first, sector),
                    at="list",
                )
            )
            if defences is not None and not defences.ruined:
                ruins.append(Ruin(sector=sector, side=first, reason="yield"))
            first = attackers.pop(0)
        level = defences.level if defences is not None and not defences.ruined else 0
        fortified = (
            first
            if state.armies_of(first, sector) > 0
            and fortifies(work.game, work.accepted[first], first, sector)
            else None
        )
        ids: list[int] = []
        candidates = [first]
        for attacker in attackers:
            counts = {attacker: board.armies(sector, attacker)}
            counts.update({side: board.armies(sector, side) for side in candidates})
            battle = work.add_battle(
                sector=sector,
                attacker=attacker,
                defender=first,
                armies=counts,
                module=NAME,
                kind="chain",
                foc_armies={side: counts[side] + level for side in candidates} if level else None,
                defender_from=ids[-1] if ids else None,
                chain_losses=work.game.ruleset.losses if ids else None,
                fortified=fortified,
                fortified_battles_in_sector=len(attackers) if fortified else 0,
            )
            ids.append(battle.id)
            candidates.append(attacker)
        chains.append(
            Chain(
                sector=sector,
                defender=first,
                attackers=tuple(attackers),
                battles=tuple(ids),
                fortified=fortified,
                level=level,
                yielded=yielded,
            )
        )
    return chains


def _exhausted_there(
    work: PlanWork, side: SideId, sector: SectorId, moves: tuple[GroupMove, ...]
) -> int:
    """Last turn's exhausted armies of ``side`` in ``sector`` now: those staying there (groups
    take fresh armies first) and those in its groups that ended there, joining the force."""
    cstate = load_in(work.game, work.state)
    tired = cstate.exhausted_in(side, sector)
    staying = work.state.armies_of(side, sector) - work.game.moving_out(
        side, work.accepted[side], sector
    )
    joined = sum(
        move.exhausted
        for move in moves
        if move.side == side
        and move.status != "cancelled"
        and move.stop == sector
        and move.end == sector
        and move.alive
    )
    return min(tired, staying) + joined
