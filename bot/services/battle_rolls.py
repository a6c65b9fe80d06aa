"""``/roll`` for one battle (MODULES.md "002"): a GM, or a strategist or tactician of a side in
the battle, rolls dice in its context; die i of the k-th roll of battle ``b`` is drawn under
``t<T>/roll/<b>/<k>/<i>`` from the turn's roll seed, recorded, and the values reach both sides'
players at once (the roller in the reply, the others in private), so anyone can recompute them
once the seed is revealed."""

from __future__ import annotations

from datetime import datetime

from bot.services.campaigns import battle_list_public_at
from bot.services.dice import RollDone, RollRefusal, roll_dice
from bot.services.orders import Seat, open_battles, reachable_players
from rules.table import DiceExpression
from storage import Campaign, Role, Store
from storage.models import Member

ROLLERS = frozenset({Role.STRATEGIST, Role.TACTICIAN})


async def roll_for_battle(
    store: Store,
    campaign: Campaign,
    member: Member,
    battle_id: int,
    expression: DiceExpression,
    now: datetime,
) -> RollDone:
    """Roll ``expression`` for battle ``battle_id`` of the current turn's public list, if
    ``member`` is a GM or plays one of its sides; ``NO_SUCH_BATTLE`` otherwise (a battle that
    is not theirs is not described). Before the list is public nobody rolls for a battle, not
    even a GM: the values reach both sides' players, who would learn of the battle early."""
    if await battle_list_public_at(store, campaign, now) is not None:
        return RollDone(None, refusal=RollRefusal.LIST_NOT_PUBLIC)
    seat = Seat(campaign=campaign, member=member)
    desk = await open_battles(store, seat, now)
    battle = None if desk is None else next((b for b in desk.battles if b.id == battle_id), None)
    if (
        desk is None
        or battle is None
        or not (member.is_gm or member.roles & ROLLERS)
        or not desk.playable(battle)
        or not (member.is_gm or member.side_id in battle.participants())
    ):
        return RollDone(None, refusal=RollRefusal.NO_SUCH_BATTLE)
    notify = await reachable_players(store, campaign, set(battle.participants()), member.user_id)
    return await roll_dice(store, campaign, battle.id, expression, member.user_id, now, notify)
