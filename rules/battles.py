"""The Friday battle list (RULES.md 3.3) and the results reported for it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from rules.dice import Dice, Roll, TurnSeeds
from rules.fields import unset
from rules.game import Game, ModuleStateError
from rules.maps import SectorId
from rules.orders import Attack, Rejection, SideOrders
from rules.ruleset import FocLimits, Outcome, OutcomeLosses
from rules.state import CampaignState, SideId
from rules.validation import accept_orders


class Battle(BaseModel):
    """One declared attack: a battle on the table.

    ``armies`` are each side's armies in the sector at turn start minus those it moves out.
    ``fortified`` names the defender when it fortified the sector: it may choose the table side
    and re-roll for the first turn, once per turn in that sector however many battles it has
    there (``fortified_battles_in_sector`` says how many share that one use).

    A rule module's battle also names its ``module`` and ``kind``; in a chain it is played only
    ``after`` battle k when its ``condition`` holds (``attacker_won``: battle k's attacker won),
    and its defender may be ``defender_from`` battle k (its winner, or its defender on a draw;
    ``defender`` is then battle k's defender until the result is in). With ``chain_losses`` too,
    the chain counts that defender down by these losses of its earlier battles: one left with no
    armies (its ``armies`` here minus what the chain cost it) cannot defend, so the battle is
    not played and its attacker stands unopposed (and defends a battle taking its defender
    from this one). Each side's losses fall in
    ``loss_sectors[side]`` (default: ``sector``); ``foc_armies[side]`` is the army count its FOC
    row was read for when that is not its ``armies``. None of these are set for core battles,
    and the command's JSON carries them only when set.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int = Field(ge=1)
    sector: SectorId
    attacker: SideId
    defender: SideId
    armies: dict[SideId, int]
    fortified: SideId | None
    fortified_battles_in_sector: int = 0
    foc: dict[SideId, FocLimits]
    points: int
    module: str | None = Field(default=None, exclude_if=unset)
    kind: str | None = Field(default=None, exclude_if=unset)
    after: int | None = Field(default=None, exclude_if=unset)
    condition: Literal["attacker_won"] | None = Field(default=None, exclude_if=unset)
    defender_from: int | None = Field(default=None, exclude_if=unset)
    chain_losses: OutcomeLosses | None = Field(default=None, exclude_if=unset)
    loss_sectors: dict[SideId, SectorId] = Field(default_factory=dict, exclude_if=unset)
    foc_armies: dict[SideId, int] = Field(default_factory=dict, exclude_if=unset)

    @model_validator(mode="after")
    def _chain_refers_back(self) -> Self:
        for name, earlier in (("after", self.after), ("defender_from", self.defender_from)):
            if earlier is not None and not 1 <= earlier < self.id:
                raise ValueError(f"battle {self.id}: {name} must name an earlier battle")
        if (self.after is None) != (self.condition is None):
            raise ValueError(f"battle {self.id}: after and condition go together")
        if self.chain_losses is not None and self.defender_from is None:
            raise ValueError(f"battle {self.id}: chain_losses needs defender_from")
        return self

    def participants(self) -> tuple[SideId, SideId]:
        """Attacker and defender (for ``defender_from``, the defender as listed)."""
        return (self.attacker, self.defender)

    def loss_sector(self, side: SideId) -> SectorId:
        """Where ``side`` loses the armies this battle costs it."""
        return self.loss_sectors.get(side, self.sector)

    def as_json(self) -> dict[str, Any]:
        """The Appendix A shape of a battle, plus the module fields that are set."""
        data: dict[str, Any] = {
            "id": self.id,
            "sector": self.sector,
            "attacker": self.attacker,
            "defender": self.defender,
            "armies": dict(self.armies),
            "fortified": self.fortified,
            "foc": {side: limits.as_json() for side, limits in self.foc.items()},
        }
        optional: dict[str, Any] = {
            "module": self.module,
            "kind": self.kind,
            "after": self.after,
            "condition": self.condition,
            "defender_from": self.defender_from,
            "chain_losses": self.chain_losses.model_dump() if self.chain_losses else None,
            "loss_sectors": dict(self.loss_sectors) or None,
            "foc_armies": dict(self.foc_armies) or None,
        }
        data.update({key: value for key, value in optional.items() if value is not None})
        return data


class BattleResult(BaseModel):
    """How battle ``battle`` ended; a victory names its ``winner``. ``modules`` carries data a
    rule module asks for with a result, by module name (checked by the module)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    battle: int = Field(ge=1)
    outcome: Outcome
    winner: SideId | None = None
    modules: dict[str, JsonValue] = Field(default_factory=dict, exclude_if=unset)

    @model_validator(mode="after")
    def _winner_matches_outcome(self) -> Self:
        if self.outcome.has_winner and self.winner is None:
            raise ValueError(f"outcome {self.outcome.value} needs a winner")
        if not self.outcome.has_winner and self.winner is not None:
            raise ValueError(f"outcome {self.outcome.value} is a draw and has no winner")
        return self


class BattlePlan(BaseModel):
    """The battle list with the orders it was built from, after validation.

    ``rolls`` are the values drawn for it (in the order drawn) and ``modules`` what each rule
    module adds to the list (rolls' verdicts, chains, weather ...), by module name.
    """

    model_config = ConfigDict(frozen=True)

    battles: tuple[Battle, ...]
    accepted: dict[SideId, SideOrders]
    rejected: tuple[Rejection, ...]
    rolls: tuple[Roll, ...] = Field(default=(), exclude_if=unset)
    modules: dict[str, JsonValue] = Field(default_factory=dict, exclude_if=unset)


class SeedsRequiredError(ValueError):
    """An enabled module draws dice and the turn's roll seed was not given."""


@dataclass
class PlanWork:
    """The battle list being made, handed to each module's ``plan`` after the core battles are
    numbered. ``dice`` records every draw; ``modules[name]`` is what the module shows."""

    game: Game
    state: CampaignState
    accepted: dict[SideId, SideOrders]
    battles: list[Battle]
    dice: Dice
    modules: dict[str, JsonValue] = field(default_factory=dict)

    def add_battle(
        self,
        *,
        sector: SectorId,
        attacker: SideId,
        defender: SideId,
        armies: dict[SideId, int],
        module: str,
        kind: str,
        foc_armies: dict[SideId, int] | None = None,
        loss_sectors: dict[SideId, SectorId] | None = None,
        after: int | None = None,
        condition: Literal["attacker_won"] | None = None,
        defender_from: int | None = None,
        chain_losses: OutcomeLosses | None = None,
        fortified: SideId | None = None,
        fortified_battles_in_sector: int = 0,
    ) -> Battle:
        """Add a module battle with the next number; FOC rows are read for ``foc_armies`` where
        given, else for ``armies``."""
        rules = self.game.ruleset
        foc_counts = {**armies, **(foc_armies or {})}
        battle = Battle(
            id=len(self.battles) + 1,
            sector=sector,
            attacker=attacker,
            defender=defender,
            armies=armies,
            fortified=fortified,
            fortified_battles_in_sector=fortified_battles_in_sector,
            foc={side: rules.foc_for(count) for side, count in foc_counts.items()},
            points=rules.battle_points,
            module=module,
            kind=kind,
            after=after,
            condition=condition,
            defender_from=defender_from,
            chain_losses=chain_losses,
            loss_sectors=loss_sectors or {},
            foc_armies=foc_armies or {},
        )
        self.battles.append(battle)
        return battle


def plan_battles(
    game: Game,
    state: CampaignState,
    orders: Mapping[SideId, SideOrders],
    seeds: TurnSeeds | None = None,
) -> BattlePlan:
    """Validate every side's orders and list the battles they make.

    Battles are numbered from 1 by sector (map order), attacking side (state order), then
    declaration order; rule modules then add theirs (numbered after, in ``ruleset.modules``
    order), drawing from ``seeds``. Sides with orders but no armies get every order rejected.
    Raises :class:`rules.game.StateOffMapError` if the state has armies off the map and
    :class:`SeedsRequiredError` if a module draws dice and ``seeds`` has no roll seed.
    """
    game.check_state(state)
    if game.uses_dice() and (seeds is None or seeds.roll is None):
        drawing = ", ".join(module.name for module in game.modules if module.uses_dice)
        raise SeedsRequiredError(
            f"seeds.roll: rule module {drawing} draws dice and needs the turn's roll seed"
        )
    state = game.upgraded(state)
    pending = game.pending_choices(state)
    if pending:
        raise ModuleStateError(
            "waiting for a deployment choice: " + ", ".join(f"{c.module}.{c.key}" for c in pending)
        )
    sides = [*state.sides(), *(side for side in orders if side not in state.armies)]
    accepted: dict[SideId, SideOrders] = {}
    rejected: list[Rejection] = []
    for side in sides:
        side_orders = orders.get(side)
        if side_orders is None:
            if side in state.armies:
                accepted[side] = SideOrders()
            continue
        kept, refused = accept_orders(game, state, side, side_orders)
        rejected.extend(refused)
        if side in state.armies:
            accepted[side] = kept
    battles = _number_battles(game, state, accepted)
    if not game.modules:
        return BattlePlan(battles=tuple(battles), accepted=accepted, rejected=tuple(rejected))
    work = PlanWork(game=game, state=state, accepted=accepted, battles=battles, dice=Dice(seeds))
    for module in game.modules:
        module.plan(work)
    return BattlePlan(
        battles=tuple(work.battles),
        accepted=accepted,
        rejected=tuple(rejected),
        rolls=tuple(work.dice.rolls),
        modules=work.modules,
    )


class BattleStatus(StrEnum):
    """Whether a listed battle is fought, given the results so far."""

    PLAYABLE = "playable"
    WAITING = "waiting"
    NOT_PLAYED = "not_played"


class BattleSides(BaseModel):
    """A battle's status and its sides given the results so far (``defender`` is ``None``
    while it waits for the battle it takes its defender from; ``contenders`` are then the sides
    that may still defend it). ``unopposed``: not played because its defender has no armies
    left (``chain_losses``); the attacker holds unopposed. ``stale``: its result was given
    against another defender than the one it has now, so it does not count."""

    model_config = ConfigDict(frozen=True)

    battle: int
    status: BattleStatus
    attacker: SideId
    defender: SideId | None
    unopposed: bool = False
    contenders: tuple[SideId, ...] = ()
    stale: bool = False

    def participants(self) -> tuple[SideId, ...]:
        """The sides known to fight."""
        return (self.attacker,) if self.defender is None else (self.attacker, self.defender)

    def concerns(self) -> tuple[SideId, ...]:
        """The sides this battle is about now: its two sides, or while it waits the attacker
        and every side that may still defend it."""
        if self.defender is None:
            return (self.attacker, *(side for side in self.contenders if side != self.attacker))
        return self.participants()


def battle_sides(
    battles: Iterable[Battle],
    results: Mapping[int, BattleResult],
    *,
    final: bool = False,
    against: Mapping[int, SideId] | None = None,
) -> dict[int, BattleSides]:
    """Every battle's status and sides, in id order, given ``results`` by battle id.

    A battle with ``after`` is played when that battle was played and its ``condition`` holds;
    with ``defender_from``, its defender is that battle's winner, or its defender on a draw, or
    that battle's attacker where it stood unopposed (MODULES.md C6). With ``chain_losses``, a
    defender the chain's earlier battles left without armies does not defend: the battle is
    not played and is ``unopposed``. With ``final`` (resolution), a played battle without a
    result counts as a draw without losses; otherwise a battle depending on a missing result is
    ``waiting``. ``against`` names, by battle, the defender a result was given against: a
    result given against another defender than the battle has now is ``stale`` and counts as
    no result (a chain battle reported, then the battle before it changed hands). Battles
    without chain fields are always playable with their listed sides.
    """
    made_for = against or {}
    known: dict[int, BattleSides] = {}
    counted: dict[int, BattleResult] = {}
    entering: dict[int, dict[SideId, int]] = {}
    for battle in sorted(battles, key=lambda b: b.id):
        status, defender = BattleStatus.PLAYABLE, battle.defender
        contenders: tuple[SideId, ...] = ()
        spent: dict[SideId, int] = {}
        for earlier_id, role in ((battle.after, "after"), (battle.defender_from, "from")):
            if earlier_id is None or status is not BattleStatus.PLAYABLE:
                continue
            earlier = known.get(earlier_id)
            if earlier is not None and earlier.unopposed and role == "from":
                defender = earlier.attacker
                spent = dict(entering.get(earlier_id, {}))
                continue
            if earlier is None or earlier.status is BattleStatus.NOT_PLAYED:
                status = BattleStatus.NOT_PLAYED
                continue
            result = counted.get(earlier_id)
            if earlier.status is BattleStatus.WAITING or (result is None and not final):
                status = BattleStatus.WAITING
                if role == "from":
                    contenders = _ordered((*earlier.concerns(),), battle)
                continue
            winner = result.winner if result is not None else None
            if role == "after" and winner != earlier.attacker:
                status = BattleStatus.NOT_PLAYED
            elif role == "from":
                defender = winner if winner is not None else earlier.defender or battle.defender
                spent = _chain_spent(entering.get(earlier_id, {}), earlier, result, battle)
        entering[battle.id] = spent
        unopposed = (
            status is BattleStatus.PLAYABLE
            and battle.chain_losses is not None
            and battle.armies.get(defender, 0) - spent.get(defender, 0) <= 0
        )
        waiting_for_defender = status is BattleStatus.WAITING and battle.defender_from is not None
        sides = BattleSides(
            battle=battle.id,
            status=BattleStatus.NOT_PLAYED if unopposed else status,
            attacker=battle.attacker,
            defender=None if waiting_for_defender else defender,
            unopposed=unopposed,
            contenders=contenders if waiting_for_defender else (),
        )
        given = results.get(battle.id)
        if given is not None and sides.status is BattleStatus.PLAYABLE:
            if made_for.get(battle.id, sides.defender) != sides.defender:
                sides = sides.model_copy(update={"stale": True})
            else:
                counted[battle.id] = given
        known[battle.id] = sides
    return known


def _ordered(sides: Iterable[SideId], battle: Battle) -> tuple[SideId, ...]:
    """``sides`` without the battle's attacker, in the battle's ``armies`` order."""
    wanted = set(sides) - {battle.attacker}
    return tuple(side for side in battle.armies if side in wanted)


def counted_results(
    sides: Mapping[int, BattleSides], results: Mapping[int, BattleResult]
) -> dict[int, BattleResult]:
    """The ``results`` that count, given ``sides`` from :func:`battle_sides` with them: those
    of battles played, not ``stale``."""
    return {
        battle: result
        for battle, result in results.items()
        if (found := sides.get(battle)) is not None
        and found.status is BattleStatus.PLAYABLE
        and not found.stale
    }


def as_fought(battle: Battle, sides: BattleSides | None) -> Battle:
    """``battle`` with the defender it has now (a chain battle's, known from the results so
    far) and the fortified advantage only for a defender that fortified the sector (MODULES.md
    C6); unchanged while that defender is not known, and for every core battle."""
    if sides is None or sides.defender is None or sides.defender == battle.defender:
        return battle
    fortified = battle.fortified if battle.fortified == sides.defender else None
    return battle.model_copy(
        update={
            "defender": sides.defender,
            "fortified": fortified,
            "fortified_battles_in_sector": battle.fortified_battles_in_sector if fortified else 0,
        }
    )


def _chain_spent(
    before: Mapping[SideId, int],
    earlier: BattleSides,
    result: BattleResult | None,
    battle: Battle,
) -> dict[SideId, int]:
    """What the chain has cost each side after battle ``earlier`` (by ``battle``'s
    ``chain_losses``; a missing final result is a draw without losses)."""
    spent = dict(before)
    if battle.chain_losses is None or result is None or earlier.defender is None:
        return spent
    amount = battle.chain_losses.for_outcome(result.outcome)
    if result.winner is None:
        losers: tuple[SideId, ...] = (earlier.attacker, earlier.defender)
    else:
        losers = (earlier.defender if result.winner == earlier.attacker else earlier.attacker,)
    for side in losers:
        spent[side] = spent.get(side, 0) + amount
    return spent


def _number_battles(
    game: Game, state: CampaignState, accepted: Mapping[SideId, SideOrders]
) -> list[Battle]:
    battles: list[Battle] = []
    rules = game.ruleset
    by_sector: dict[SectorId, list[tuple[SideId, Attack]]] = {}
    for side in state.sides():
        for attack in accepted[side].attacks:
            by_sector.setdefault(attack.sector, []).append((side, attack))
    for sector in game.map.sector_ids():
        declared = by_sector.get(sector)
        if not declared:
            continue
        fortified_count: dict[SideId, int] = {}
        for _, attack in declared:
            if _fortifies(game, accepted[attack.target], attack.target, sector):
                fortified_count[attack.target] = fortified_count.get(attack.target, 0) + 1
        for attacker, attack in declared:
            counts = {
                side: _fighting(game, state, accepted[side], side, sector)
                for side in (attacker, attack.target)
            }
            fortified = attack.target if attack.target in fortified_count else None
            battles.append(
                Battle(
                    id=len(battles) + 1,
                    sector=sector,
                    attacker=attacker,
                    defender=attack.target,
                    armies=counts,
                    fortified=fortified,
                    fortified_battles_in_sector=fortified_count.get(attack.target, 0),
                    foc={side: rules.foc_for(count) for side, count in counts.items()},
                    points=rules.battle_points,
                )
            )
    return battles


def _fighting(
    game: Game, state: CampaignState, orders: SideOrders, side: SideId, sector: SectorId
) -> int:
    return state.armies_of(side, sector) - game.moving_out(side, orders, sector)


def _fortifies(game: Game, orders: SideOrders, side: SideId, sector: SectorId) -> bool:
    """True when ``side`` fortifies ``sector``: no order there, and no module takes armies out."""
    if not orders.is_fortifying(sector):
        return False
    return not any(module.departures(game, side, orders).get(sector) for module in game.modules)
