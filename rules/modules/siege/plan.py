"""The ``siege`` part of the battle list (MODULES.md S4): assault rolls, guarded chains of
battles, "before" cards in activation order, the weather in force."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rules.battles import PlanWork
from rules.dice import Dice
from rules.modules.siege.orders import AssaultData, GuardData, PlayCardData
from rules.modules.siege.state import NAME, SiegeState, Token, load_in
from rules.modules.siege.validate import SiegeOrder, settings_of, typed_orders
from rules.state import SideId

_MODEL = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class GuardLink(BaseModel):
    """A guard joining a guarded assault: its side, sector, distance and chain battle."""

    model_config = _MODEL

    side: SideId
    source: str = Field(alias="from")
    distance: int
    battle: int


class PlannedAssault(BaseModel):
    """One assault on the list. Unguarded: the roll, the total and whether the token falls;
    guarded: the guards, in chain order (the stormer must win every battle)."""

    model_config = _MODEL

    token: str
    kind: str
    sector: str
    side: SideId
    reward: str
    force: int
    strength: int
    defence: int
    label: str | None = None
    roll: int | None = None
    total: int | None = None
    falls: bool | None = None
    guards: tuple[GuardLink, ...] = ()


class PlayedCard(BaseModel):
    """A card played in a window, in activation order."""

    model_config = _MODEL

    token: str
    side: SideId
    strength: int


class SiegePlan(BaseModel):
    """What the battle list shows for ``siege``."""

    model_config = _MODEL

    weather: int
    assaults: tuple[PlannedAssault, ...]
    cards_before: tuple[PlayedCard, ...]

    def as_json(self) -> JsonValue:
        """The list's siege data as JSON (unset fields left out)."""
        data: JsonValue = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        return data


def activation_order(
    plays: Sequence[tuple[SideId, Token]], window: str, turn: int, dice: Dice
) -> list[PlayedCard]:
    """Cards in activation order (S7): token strength ascending; tokens of equal strength
    sorted by id as strings, then shuffled under ``t<T>/siege/lots/<window>/<strength>``."""
    ordered: list[PlayedCard] = []
    for strength in sorted({token.strength for _, token in plays}):
        tied = sorted(
            ((side, token) for side, token in plays if token.strength == strength),
            key=lambda play: play[1].id,
        )
        if len(tied) > 1:
            tied = dice.shuffle(f"t{turn}/{NAME}/lots/{window}/{strength}", tied)
        ordered.extend(
            PlayedCard(token=token.id, side=side, strength=strength) for side, token in tied
        )
    return ordered


def plan(work: PlanWork) -> None:
    """Add the siege assaults, chains and cards to the list being made."""
    state, game = work.state, work.game
    siege = load_in(game, state)
    if siege.weather is None:
        raise ValueError("siege: the starting weather is not chosen")
    orders = {side: typed_orders(work.accepted[side].extra) for side in state.sides()}
    side_rank = {side: index for index, side in enumerate(state.sides())}
    assaults: list[PlannedAssault] = []
    for sector in game.map.sector_ids():
        for side in state.sides():
            for given in orders[side]:
                if not isinstance(given, AssaultData) or given.sector != sector:
                    continue
                token = siege.token(given.token)
                if token is None:
                    continue
                assaults.append(_plan_assault(work, siege, token, side, given, orders, side_rank))
    plays = [
        (side, token)
        for side in state.sides()
        for given in orders[side]
        if isinstance(given, PlayCardData) and given.window == "before"
        for token in [siege.token(given.token)]
        if token is not None
    ]
    listed = SiegePlan(
        weather=siege.weather,
        assaults=tuple(assaults),
        cards_before=tuple(activation_order(plays, "before", state.turn, work.dice)),
    )
    work.modules[NAME] = listed.as_json()


def _plan_assault(
    work: PlanWork,
    siege: SiegeState,
    token: Token,
    side: SideId,
    given: AssaultData,
    orders: dict[SideId, list[SiegeOrder]],
    side_rank: dict[SideId, int],
) -> PlannedAssault:
    game, state = work.game, work.state
    settings = settings_of(game)
    force = state.armies_of(side, given.sector)
    strength = settings.strength_per_army * force
    base = PlannedAssault(
        token=token.id,
        kind=token.kind,
        sector=given.sector,
        side=side,
        reward=given.reward,
        force=force,
        strength=strength,
        defence=token.strength,
    )
    guards = sorted(
        (
            (game.map.distance(guard.source, token.sector), side_rank[other], other, guard)
            for other in state.sides()
            if other != side
            for guard in orders[other]
            if isinstance(guard, GuardData) and guard.token == token.id
        ),
        key=lambda entry: (entry[0], entry[1]),
    )
    if not guards:
        label = f"t{state.turn}/{NAME}/assault/{token.id}/{side}"
        roll = work.dice.roll(label, settings.die)
        total = strength + roll
        return base.model_copy(
            update={"label": label, "roll": roll, "total": total, "falls": total > token.strength}
        )
    links: list[GuardLink] = []
    bonus = -(-token.strength // settings.strength_per_army)
    previous: int | None = None
    for distance, _, other, guard in guards:
        guard_force = state.armies_of(other, guard.source)
        battle = work.add_battle(
            sector=token.sector,
            attacker=side,
            defender=other,
            armies={side: force, other: guard_force},
            module=NAME,
            kind="assault",
            foc_armies={other: guard_force + bonus},
            loss_sectors={side: given.sector, other: guard.source},
            after=previous,
            condition="attacker_won" if previous is not None else None,
        )
        links.append(
            GuardLink.model_validate(
                {"side": other, "from": guard.source, "distance": distance, "battle": battle.id}
            )
        )
        previous = battle.id
    return base.model_copy(update={"guards": tuple(links)})
