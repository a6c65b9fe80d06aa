"""The Monday resolution of ``contact`` (MODULES.md C7-C9): the list's movement and retreats
arrive before the losses; after them, instead of the core's arrivals, chain losers retreat and
drawn attackers return; then ruins, victory points, the VP victory and exhaustion."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rules.game import ModuleContractError
from rules.maps import SectorId
from rules.modules.contact.orders import RetreatToData
from rules.modules.contact.plan import (
    Board,
    Chain,
    ContactPlan,
    Deck,
    GroupMove,
    Retreat,
    ZombieFight,
    retreat_preferences,
)
from rules.modules.contact.state import NAME, ContactState, Defences, load
from rules.modules.contact.validate import settings_of, typed_orders
from rules.resolution import Arrival, TurnWork
from rules.state import SideId

_MODEL = ConfigDict(frozen=True, extra="forbid")


class RuinOutcome(BaseModel):
    """Defences in ``sector`` ruined; ``holder`` holds the sector and gets ``vp`` for them."""

    model_config = _MODEL

    sector: SectorId
    owner: SideId | None
    holder: SideId | None
    vp: int


class VpGain(BaseModel):
    """``points`` to ``side``: ``warlord`` (``battle``: the side slew ``slain``'s warlord) or
    ``defences`` (it ruined another side's defences in ``sector``)."""

    model_config = _MODEL

    side: SideId
    points: int
    reason: str
    battle: int | None = None
    slain: SideId | None = None
    sector: SectorId | None = None


class Unopposed(BaseModel):
    """Chain battle ``battle`` in ``sector`` not played: ``gone``, who would have defended it,
    has no armies left after battle ``before``; ``side`` (its attacker) stands unopposed."""

    model_config = _MODEL

    battle: int
    sector: SectorId
    side: SideId
    gone: SideId
    before: int


class ContactReport(BaseModel):
    """What ``contact`` reports for the Monday summary."""

    model_config = _MODEL

    retreats: tuple[Retreat, ...] = ()
    zombies: tuple[ZombieFight, ...] = ()
    unopposed: tuple[Unopposed, ...] = ()
    ruined: tuple[RuinOutcome, ...] = ()
    vp_gains: tuple[VpGain, ...] = ()
    vp: dict[SideId, int] = {}
    exhausted: dict[SideId, dict[SectorId, int]] = {}
    ignored_warlords: tuple[str, ...] = ()
    shared_victory: tuple[SideId, ...] = ()


def _plan(work: TurnWork) -> ContactPlan:
    if work.plan is None or NAME not in work.plan.modules:
        raise ModuleContractError(f"{NAME}: the resolution has no battle list of the module")
    return ContactPlan.model_validate(work.plan.modules[NAME])


def _carry(
    work: TurnWork, side: SideId, source: SectorId, to: SectorId, armies: int, *, left: bool
) -> None:
    """``armies`` of ``side`` arrive in ``to`` from ``source`` (``left``: they have already
    left it, as a move's armies have before the losses)."""
    if armies <= 0:
        return
    sectors = work.armies.setdefault(side, {})
    if not left:
        sectors[source] = sectors.get(source, 0) - armies
    sectors[to] = sectors.get(to, 0) + armies
    work.arrivals.append(Arrival(side=side, source=source, to=to, count=armies))


def place_groups(work: TurnWork) -> None:
    """Before the losses: the groups stand where the list left them (C4, C5), yielding forces
    have gone (C3.4), and armies the list destroyed are lost where they fell."""
    plan = _plan(work)
    for group in plan.groups:
        if group.status == "cancelled" or group.stop is None:
            continue
        alive = group.alive if group.end is not None else 0
        if alive:
            _carry(work, group.side, group.source, group.end or group.stop, alive, left=True)
        dead = group.count - alive
        if dead:
            _carry(work, group.side, group.source, group.stop, dead, left=True)
            work.lose(group.side, group.stop, dead, f"{NAME}: zombies")
    for retreat in plan.retreats:
        if retreat.group is not None:
            continue
        if retreat.to is not None:
            _carry(work, retreat.side, retreat.source, retreat.to, retreat.armies, left=False)
        dead = retreat.died + (retreat.armies if retreat.to is None else 0)
        if dead:
            work.lose(retreat.side, retreat.source, dead, f"{NAME}: retreat")


def after_battles(work: TurnWork) -> None:
    """Instead of the core's arrivals (C9): chain losers retreat, drawn attackers return, then
    ruins, victory points, exhaustion and standing retreat preferences."""
    game = work.game
    settings = settings_of(game)
    plan = _plan(work)
    cstate = load(work.modules.get(NAME))
    start = work.start
    board = Board(
        game=game,
        state=start,
        cstate=cstate,
        present={
            sector: {side: work.armies[side].get(sector, 0) for side in work.armies}
            for sector in game.map.sector_ids()
        },
        deck=Deck(work.dice, start.turn, settings.zombie_deck, plan.deck),
        strength_per_army=settings.strength_per_army,
    )
    tired = _tired_now(work, plan, cstate)
    fresh_marks: dict[tuple[SideId, SectorId], int] = {}
    for retreat in plan.retreats:
        if retreat.to is not None:
            key = (retreat.side, retreat.to)
            fresh_marks[key] = fresh_marks.get(key, 0) + retreat.armies
    retreats: list[Retreat] = []
    waiting = list(_chain_order(plan, game.map.order))
    while waiting:
        chain = waiting.pop(0)
        pending = {other.sector for other in waiting}
        for battle_id in chain.battles:
            if not work.played(battle_id):
                continue
            retreats.extend(
                _after_battle(work, board, chain, battle_id, plan, tired, pending, cstate)
            )
    for retreat in retreats:
        if retreat.to is not None and retreat.kind != "return":
            key = (retreat.side, retreat.to)
            fresh_marks[key] = fresh_marks.get(key, 0) + retreat.armies
    _fix_staying(work)
    ruined, gains, ignored = _ruins_and_vp(work, plan, cstate, board)
    vp = dict(cstate.vp)
    for gain in gains:
        vp[gain.side] = vp.get(gain.side, 0) + gain.points
    exhausted: dict[SideId, dict[SectorId, int]] = {}
    for (side, sector), count in fresh_marks.items():
        kept = min(count, work.armies.get(side, {}).get(sector, 0))
        if kept > 0:
            exhausted.setdefault(side, {})[sector] = kept
    exhausted = {
        side: {s: exhausted[side][s] for s in game.map.sector_ids() if s in exhausted[side]}
        for side in start.sides()
        if side in exhausted
    }
    prefs = {side: dict(found) for side, found in cstate.retreat_to.items()}
    for side, orders in work.accepted.items():
        for typed in typed_orders(orders.extra):
            if isinstance(typed, RetreatToData) and typed.to:
                prefs.setdefault(side, {})[typed.sector] = typed.to
            elif isinstance(typed, RetreatToData):
                prefs.get(side, {}).pop(typed.sector, None)
    ruined_sectors = {outcome.sector for outcome in ruined}
    new_state = ContactState(
        defences=tuple(
            item.model_copy(update={"ruined": True}) if item.sector in ruined_sectors else item
            for item in cstate.defences
        ),
        exhausted=exhausted,
        vp={side: vp[side] for side in sorted(vp, key=_side_key(start.sides()))},
        retreat_to={side: found for side, found in prefs.items() if found},
    )
    work.modules[NAME] = new_state.as_json()
    work.notes[NAME] = ContactReport(
        retreats=tuple(retreats),
        zombies=tuple(board.zombies),
        unopposed=tuple(_unopposed(work, plan)),
        ruined=tuple(ruined),
        vp_gains=tuple(gains),
        vp=new_state.vp,
        exhausted=exhausted,
        ignored_warlords=tuple(ignored),
    ).model_dump(mode="json", exclude_defaults=True)
    moved = [
        f"{r.side} {r.armies} from {r.source} to {r.to or 'nowhere'} ({r.reason})" for r in retreats
    ]
    work.log.append(
        "2. Contact: arrivals as listed"
        + ("; " + "; ".join(moved) if moved else "")
        + ("; ruined " + ", ".join(outcome.sector for outcome in ruined) if ruined else "")
        + "."
    )


def _side_key(sides: tuple[SideId, ...]):  # type: ignore[no-untyped-def]
    return lambda side: (sides.index(side) if side in sides else len(sides), side)


def _tired_now(
    work: TurnWork, plan: ContactPlan, cstate: ContactState
) -> dict[tuple[SideId, SectorId], int]:
    """Last turn's exhausted armies where they stand after the losses (lost first)."""
    tired: dict[tuple[SideId, SectorId], int] = {}
    taken: dict[tuple[SideId, SectorId], int] = {}
    for group in plan.groups:
        if group.status == "cancelled":
            continue
        key = (group.side, group.source)
        taken[key] = taken.get(key, 0) + group.exhausted
        if group.end is not None and group.end == group.stop and group.alive:
            there = (group.side, group.end)
            tired[there] = tired.get(there, 0) + group.exhausted
    for side, counts in cstate.exhausted.items():
        for sector, count in counts.items():
            key = (side, sector)
            tired[key] = tired.get(key, 0) + max(0, count - taken.get(key, 0))
    for casualty in work.casualties:
        key = (casualty.side, casualty.sector)
        if key in tired:
            tired[key] = max(0, tired[key] - casualty.lost)
    return tired


def _chain_order(plan: ContactPlan, order: dict[SectorId, int]) -> list[Chain]:
    """C7: first the chains the first side in turn order takes part in, then the second
    side's ..., sector map order among one side's."""
    done: list[Chain] = []
    for side in plan.turn_order:
        mine = [
            chain
            for chain in plan.chains
            if (side == chain.defender or side in chain.attackers) and chain not in done
        ]
        done.extend(sorted(mine, key=lambda chain: order[chain.sector]))
    return done


def _after_battle(
    work: TurnWork,
    board: Board,
    chain: Chain,
    battle_id: int,
    plan: ContactPlan,
    tired: dict[tuple[SideId, SectorId], int],
    pending: set[SectorId],
    cstate: ContactState,
) -> list[Retreat]:
    battle = next(b for b in work.battles if b.id == battle_id)
    sector = chain.sector
    attacker, defender = battle.attacker, work.defender_of(battle)
    result = work.results[battle_id]
    if result.winner is not None:
        loser = defender if result.winner == attacker else attacker
        armies = board.armies(sector, loser)
        if armies == 0:
            return []
        board.shift(loser, sector, None, armies)
        retreat = board.retreat(
            loser,
            sector,
            armies,
            tired.pop((loser, sector), 0),
            reason="battle",
            pending=pending,
            prefs=retreat_preferences(cstate, work.accepted[loser], loser, sector),
            at="resolution",
            battle=battle_id,
        )
        _apply(work, retreat)
        return [retreat]
    return _return_groups(work, board, chain, battle_id, attacker, plan, pending, cstate)


def _return_groups(
    work: TurnWork,
    board: Board,
    chain: Chain,
    battle_id: int,
    attacker: SideId,
    plan: ContactPlan,
    pending: set[SectorId],
    cstate: ContactState,
) -> list[Retreat]:
    """A draw: each of the attacker's groups goes back to its source, losses taken from the
    last group first; where its source is hostile now, it retreats instead (C7)."""
    sector = chain.sector
    groups: list[GroupMove] = [
        group
        for group in plan.groups
        if group.side == attacker and group.end == sector and group.stop == sector and group.alive
    ]
    left = board.armies(sector, attacker)
    sizes = [group.alive for group in groups]
    over = sum(sizes) - left
    for i in range(len(sizes) - 1, -1, -1):
        cut = min(over, sizes[i])
        sizes[i] -= cut
        over -= cut
    found: list[Retreat] = []
    for group, size in zip(groups, sizes, strict=True):
        if size == 0:
            continue
        board.shift(attacker, sector, None, size)
        source = group.source
        if board.hostile(source, attacker) or source in pending:
            retreat = board.retreat(
                attacker,
                sector,
                size,
                0,
                reason="draw",
                pending=pending,
                prefs=retreat_preferences(cstate, work.accepted[attacker], attacker, sector),
                at="resolution",
                group=group.index,
                battle=battle_id,
                kill_exhausted=False,
            )
        else:
            board.shift(attacker, None, source, size)
            retreat = Retreat(
                side=attacker,
                source=sector,
                reason="draw",
                armies=size,
                to=source,
                kind="return",
                group=group.index,
                battle=battle_id,
            )
        _apply(work, retreat)
        found.append(retreat)
    return found


def _apply(work: TurnWork, retreat: Retreat) -> None:
    if retreat.to is not None:
        _carry(work, retreat.side, retreat.source, retreat.to, retreat.armies, left=False)
    dead = retreat.died + (retreat.armies if retreat.to is None else 0)
    if dead:
        work.lose(retreat.side, retreat.source, dead, f"{NAME}: retreat")


def _fix_staying(work: TurnWork) -> None:
    """Only armies that stood at turn start and are still there count as staying (for
    replenishment): arrivals never do, retreating armies count as moved (C9)."""
    for side, sectors in work.staying.items():
        orders = work.accepted.get(side)
        for sector in list(sectors):
            at_start = work.start.armies_of(side, sector)
            moved = work.game.moving_out(side, orders, sector) if orders is not None else 0
            sectors[sector] = max(
                0, min(at_start - moved, work.armies.get(side, {}).get(sector, 0))
            )


def _holder(work: TurnWork, chain: Chain, board: Board) -> SideId | None:
    """Who holds the chain's sector at its end: the last battle's winner, its defender on a
    draw, or its attacker where it stood unopposed; nobody where that side has no armies
    there (a draw's losses wiped the defender out)."""
    if not chain.battles:
        return chain.defender
    last = chain.battles[-1]
    battle = next(b for b in work.battles if b.id == last)
    found = work.sides.get(last)
    if found is not None and found.unopposed:
        holder: SideId | None = battle.attacker
    elif not work.played(last):
        return None
    else:
        result = work.results[last]
        holder = result.winner if result.winner is not None else work.defender_of(battle)
    return holder if holder is not None and board.armies(chain.sector, holder) > 0 else None


def _unopposed(work: TurnWork, plan: ContactPlan) -> list[Unopposed]:
    found: list[Unopposed] = []
    for chain in plan.chains:
        for battle_id in chain.battles:
            sides = work.sides.get(battle_id)
            battle = next(b for b in work.battles if b.id == battle_id)
            if sides is None or not sides.unopposed or battle.defender_from is None:
                continue
            found.append(
                Unopposed(
                    battle=battle_id,
                    sector=chain.sector,
                    side=battle.attacker,
                    gone=sides.defender or battle.defender,
                    before=battle.defender_from,
                )
            )
    return found


def _ruins_and_vp(
    work: TurnWork, plan: ContactPlan, cstate: ContactState, board: Board
) -> tuple[list[RuinOutcome], list[VpGain], list[str]]:
    settings = settings_of(work.game)
    holders: dict[SectorId, SideId | None] = {}
    beaten: set[SectorId] = set()
    for ruin in plan.ruins:
        beaten.add(ruin.sector)
        if ruin.reason == "zombies":
            holders[ruin.sector] = ruin.side
    for chain in plan.chains:
        holders[chain.sector] = _holder(work, chain, board)
        first = chain.yielded or chain.defender
        lost_first = False
        if chain.battles and work.played(chain.battles[0]):
            result = work.results[chain.battles[0]]
            lost_first = result.winner is not None and result.winner != first
        if chain.yielded or lost_first or board.armies(chain.sector, first) == 0:
            beaten.add(chain.sector)
    ruined: list[RuinOutcome] = []
    gains: list[VpGain] = []
    for sector in work.game.map.sector_ids():
        defences: Defences | None = cstate.defences_in(sector)
        if sector not in beaten or defences is None or defences.ruined:
            continue
        holder = holders.get(sector)
        points = (
            settings.defences_vp
            if holder is not None and defences.owner not in (None, holder)
            else 0
        )
        ruined.append(RuinOutcome(sector=sector, owner=defences.owner, holder=holder, vp=points))
        if points and holder is not None:
            gains.append(VpGain(side=holder, points=points, reason="defences", sector=sector))
    ignored: list[str] = []
    for battle in work.battles:
        if not work.played(battle.id):
            continue
        data = work.results[battle.id].modules.get(NAME)
        if not isinstance(data, dict):
            continue
        slain = data.get("warlord_slain")
        if not isinstance(slain, list):
            continue
        fought = (battle.attacker, work.defender_of(battle))
        for side in slain:
            if side not in fought:
                ignored.append(f"battle {battle.id}: {side} did not fight")
                continue
            other = fought[1] if side == fought[0] else fought[0]
            if settings.warlord_vp:
                gains.append(
                    VpGain(
                        side=other,
                        points=settings.warlord_vp,
                        reason="warlord",
                        battle=battle.id,
                        slain=str(side),
                    )
                )
    return ruined, gains, ignored


def vp_victory(work: TurnWork) -> None:
    """After the core's victory step (C9): with ``vp_to_win`` set and no winner named, the side
    with most VP at or above it wins (ties: captured sectors, then armies; else shared)."""
    settings = settings_of(work.game)
    if settings.vp_to_win is None or work.winner is not None or work.game_over:
        return
    vp = load(work.modules.get(NAME)).vp
    left = work.sides_on_map()
    contenders = [side for side in left if vp.get(side, 0) >= settings.vp_to_win]
    if not contenders:
        return

    def rank(side: SideId) -> tuple[int, int, int]:
        return (
            vp.get(side, 0),
            len(work.captured.get(side, ())),
            sum(work.armies.get(side, {}).values()),
        )

    best = max(rank(side) for side in contenders)
    leaders = [side for side in contenders if rank(side) == best]
    work.game_over = True
    if len(leaders) == 1:
        work.winner, work.victory = leaders[0], "contact_vp"
        work.log.append(f"6. Contact: {leaders[0]} wins with {best[0]} victory points.")
    else:
        work.victory = "contact_vp_shared"
        notes = work.notes.get(NAME)
        if isinstance(notes, dict):
            notes["shared_victory"] = list(leaders)
        work.log.append(
            f"6. Contact: {', '.join(leaders)} share the victory with {best[0]} victory points."
        )
