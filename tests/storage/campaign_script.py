"""A scripted campaign for storage tests: three sides, eight people, seeded orders and results.

Everything is deterministic: orders and results come from ``random.Random(seed)``, times from a
fixed Monday, so a test can replay the same weeks and compare.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.services.turns import (
    FirstTurnOutcome,
    ResolveOutcome,
    ResolveResult,
    begin_first_turn,
    game_for,
    publish_battle_list,
    resolve_and_store,
)
from rules import (
    Attack,
    Battle,
    BattleResult,
    CampaignState,
    Game,
    Move,
    Outcome,
    SideOrders,
    legal_orders,
)
from storage import (
    Campaign,
    CampaignStatus,
    NewCampaign,
    NewSide,
    Phase,
    Role,
    Store,
    UnreportedPolicy,
    WriteOutcome,
)

MONDAY = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
GM = 100
CO_GM = 101
SIDES = (
    NewSide(id="red", name="Red Legion", colour="#cc0000"),
    NewSide(id="blue", name="Blue Host", colour="#0044cc"),
    NewSide(id="green", name="Green Horde", colour="#00aa33"),
)
# (user, side, roles): a strategist and a tactician per side, one person doing both for green.
PLAYERS = (
    (201, "red", frozenset({Role.STRATEGIST})),
    (202, "red", frozenset({Role.TACTICIAN})),
    (301, "blue", frozenset({Role.STRATEGIST})),
    (302, "blue", frozenset({Role.TACTICIAN})),
    (401, "green", frozenset({Role.STRATEGIST, Role.TACTICIAN})),
    (402, "green", frozenset({Role.TACTICIAN})),
)
PLACEMENTS = {
    "red": {"1": 4, "2": 3, "4": 3},
    "blue": {"1": 3, "3": 5, "5": 2},
    "green": {"2": 4, "3": 3, "5": 3},
}
RULESET = {"sectors_to_win": 4}


def at(week: int, hours: float = 0) -> datetime:
    """A moment ``week`` weeks and ``hours`` hours after the first Monday noon (UTC)."""
    return MONDAY + timedelta(weeks=week, hours=hours)


def strategist(side: str) -> int:
    """The user who gives ``side``'s orders."""
    return next(u for u, s, roles in PLAYERS if s == side and Role.STRATEGIST in roles)


async def writer(store: Store, campaign_id: int, side: str) -> int:
    """Who gives ``side``'s orders in this campaign: its first strategist (the script's own
    campaigns: :func:`strategist`), else the campaign's GM (a campaign a test set up with
    other people)."""
    members = await store.members(campaign_id)
    return next(
        (m.user_id for m in members if m.side_id == side and Role.STRATEGIST in m.roles),
        next((m.user_id for m in members if m.is_gm), strategist(side)),
    )


def tactician(side: str) -> int:
    """The first user who plays ``side``'s battles."""
    return next(u for u, s, roles in PLAYERS if s == side and Role.TACTICIAN in roles)


async def new_campaign(
    store: Store,
    chat_id: int = -1001,
    policy: UnreportedPolicy = UnreportedPolicy.DRAW,
    thread_id: int = 0,
) -> Campaign:
    """A campaign in setup with its sides and people."""
    campaign = await store.create_campaign(
        NewCampaign(
            chat_id=chat_id,
            thread_id=thread_id,
            title="Siege of Planet Five",
            time_zone="Europe/Moscow",
            ruleset_overrides=RULESET,
            unreported_policy=policy,
            created_by=GM,
            creator_name="Game Master",
        ),
        at(0),
    )
    for side in SIDES:
        await store.add_side(campaign.id, side, GM, at(0, 0.1))
    await store.put_member(
        campaign.id, CO_GM, "Co GM", frozenset({Role.CO_GM}), None, GM, at(0, 0.2)
    )
    for user, side_id, roles in PLAYERS:
        await store.put_member(campaign.id, user, f"Player {user}", roles, side_id, GM, at(0, 0.2))
    return campaign


async def deploy(store: Store, campaign_id: int) -> CampaignState:
    """Setup -> deployment, every side places, deployment -> turn 1; returns turn 1's state."""
    moved = await store.transition(
        campaign_id,
        0,
        Phase.SETUP,
        0,
        Phase.DEPLOYMENT,
        GM,
        "setup done",
        at(0, 1),
        new_status=CampaignStatus.DEPLOYMENT,
    )
    if not moved.applied:
        raise RuntimeError(moved.message)
    for hour, (side, placement) in enumerate(PLACEMENTS.items()):
        saved = await store.save_placement(
            campaign_id,
            side,
            placement,
            True,
            await writer(store, campaign_id, side),
            at(0, 2 + hour),
        )
        if saved.outcome is not WriteOutcome.SAVED:
            raise RuntimeError(saved.outcome)
    started = await begin_first_turn(store, campaign_id, GM, at(0, 12))
    if started.outcome is not FirstTurnOutcome.STARTED:
        raise RuntimeError(started)
    state = await store.turn_start(campaign_id, 1)
    if state is None:
        raise RuntimeError("turn 1 has no state")
    return state


def pick_orders(game: Game, state: CampaignState, side: str, rng: random.Random) -> SideOrders:
    """Seeded orders built from the legal options: attack, move or fortify per sector."""
    options = legal_orders(game, state, side)
    moves: list[Move] = []
    attacks: list[Attack] = []
    for sector in options.sectors:
        roll = rng.random()
        if sector.attack is not None and sector.attack.targets and roll < 0.6:
            for _ in range(rng.randint(1, sector.attack.limit)):
                attacks.append(
                    Attack(sector=sector.sector, target=rng.choice(sector.attack.targets))
                )
        elif sector.move is not None and sector.move.destinations and roll < 0.85:
            count = rng.randint(sector.move.min_count, sector.move.max_count)
            moves.append(
                Move(source=sector.sector, to=rng.choice(sector.move.destinations), count=count)
            )
    reinforce = rng.choice(options.reinforce) if options.reinforce else None
    return SideOrders(moves=tuple(moves), attacks=tuple(attacks), reinforce=reinforce)


def pick_result(battle: Battle, rng: random.Random) -> BattleResult:
    """A seeded result for one battle."""
    outcome = rng.choice(list(Outcome))
    winner = rng.choice(battle.participants()) if outcome.has_winner else None
    return BattleResult(battle=battle.id, outcome=outcome, winner=winner)


@dataclass(frozen=True)
class PlayedTurn:
    """What the script fed into one turn, to compare with what storage gives back."""

    turn: int
    orders: dict[str, SideOrders]
    results: tuple[BattleResult, ...]
    resolved: ResolveResult


async def play_turn(
    store: Store, campaign_id: int, turn: int, seed: int, *, unreported: int = 0, disputed: int = 0
) -> PlayedTurn:
    """One week: orders Tuesday, battle list Friday, reports at the weekend, resolution Monday.

    The last ``unreported`` battles get no result; the ``disputed`` before them are reported by
    the attacker's tactician and disputed by the defender's, and then the GM forces the
    resolution (they count as draws without losses).
    """
    rng = random.Random(seed * 1000 + turn)
    week = turn - 1
    campaign = await store.campaign(campaign_id)
    state = await store.turn_start(campaign_id, turn)
    if campaign is None or state is None:
        raise RuntimeError(f"turn {turn} cannot be played")
    game = game_for(campaign)
    orders: dict[str, SideOrders] = {}
    for index, side in enumerate(state.sides()):
        given = pick_orders(game, state, side, rng)
        if index == 0:
            # One order the battle list will reject, so rejections are stored too.
            empty = [s for s in game.map.sector_ids() if state.armies_of(side, s) == 0]
            if empty:
                given = given.with_order(Attack(sector=empty[0], target=state.sides()[1]))
        first = await store.save_orders(
            campaign_id,
            turn,
            side,
            SideOrders(),
            False,
            await writer(store, campaign_id, side),
            at(week, 13 + index),
        )
        saved = await store.save_orders(
            campaign_id,
            turn,
            side,
            given,
            True,
            await writer(store, campaign_id, side),
            at(week, 30 + index),
        )
        if first.outcome is not WriteOutcome.SAVED or saved.outcome is not WriteOutcome.SAVED:
            raise RuntimeError(f"orders of {side} not saved: {saved.outcome}")
        orders[side] = given
    published = await publish_battle_list(store, campaign_id, turn, None, at(week, 96))
    if not published.applied:
        raise RuntimeError(published.message)
    battle_list = await store.battle_list(campaign_id, turn)
    if battle_list is None:
        raise RuntimeError("no battle list")
    results: list[BattleResult] = []
    reported = battle_list.battles[: len(battle_list.battles) - unreported]
    for index, battle in enumerate(reported):
        result = pick_result(battle, rng)
        when = at(week, 120 + index)
        await store.report_result(campaign_id, turn, result, tactician(battle.attacker), when)
        if index >= len(reported) - disputed:
            counter = BattleResult(battle=battle.id, outcome=Outcome.DRAW)
            if counter == result:
                counter = BattleResult(
                    battle=battle.id, outcome=Outcome.SOLID, winner=battle.defender
                )
            answer = await store.dispute_result(
                campaign_id, turn, result, counter, tactician(battle.defender), when
            )
        else:
            answer = await store.confirm_result(
                campaign_id, turn, result, tactician(battle.defender), when
            )
            results.append(result)
        if answer.outcome is not WriteOutcome.SAVED:
            raise RuntimeError(f"battle {battle.id} not answered: {answer.outcome}")
    resolved = await resolve_and_store(
        store, campaign_id, turn, None, at(week + 1), force=disputed > 0
    )
    if resolved.outcome not in (ResolveOutcome.RESOLVED, ResolveOutcome.WAITING_FOR_RESULTS):
        raise RuntimeError(resolved.message)
    return PlayedTurn(turn=turn, orders=orders, results=tuple(results), resolved=resolved)
