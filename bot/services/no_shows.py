"""No-shows (issue 23): what the orders' close does with a side in play that gave no orders,
by the campaign's no-show policy.

* ``hold``: nothing is entered; every sector of the side fortifies and its reinforcement goes
  where the rules put a missing one (RULES.md 3.4), as before the policy existed.
* ``repeat``: the side's orders of last turn are entered again, each checked against this turn's
  state as a player's «Repeat last turn's orders» is (:func:`bot.services.orders.apply_lines`);
  the ones that still hold are stored as the side's ready orders (by :data:`BOT_ACTOR`), the
  others dropped, and the side's strategists and the GMs are told which and why.
* ``wait_for_gm``: the orders do not close; the GMs are alarmed (the scheduler's blocked alarm)
  and either reopen the side's orders with a short deadline or close them anyway (the side then
  holds). Once a GM reopened the orders for this entry, its short deadline closes them whatever
  the side did: the GM has already given the side its chance.

A side "gave no orders" when it has no stored set for the turn, or an empty one it never marked
ready. A player's vacation changes nothing here: the side's teammates may still give its orders,
and when nobody does the policy applies (``bot.services.vacations`` tells the side and the GMs).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import JsonValue

from bot.services.orders import apply_lines, last_turn_orders, reachable_gms, repeat_lines
from bot.services.posting import private_post
from bot.services.turns import game_for
from bot.services.window import current_entry, reopening_of
from rules import SideOrders
from storage import Campaign, NewOutboxMessage, NoShowPolicy, Role, Store, models
from storage.models import SideId, UserId

BOT_ACTOR: UserId = models.BOT_ACTOR
"""``updated_by`` of orders the bot entered for a side (no Telegram account has id 0)."""


async def no_show_sides(store: Store, campaign: Campaign) -> list[SideId]:
    """The sides in play this turn that gave no orders (see the module's docstring)."""
    state = await store.turn_start(campaign.id, campaign.turn)
    if state is None:
        return []
    orders = await store.orders_for_turn(campaign.id, campaign.turn)
    return [
        side
        for side in state.sides()
        if side not in orders or (orders[side].orders == SideOrders() and not orders[side].ready)
    ]


async def waiting_for_gm(store: Store, campaign: Campaign) -> list[SideId]:
    """The sides the orders' close waits for under ``wait_for_gm`` (none under the other
    policies, or once a GM reopened this entry's orders)."""
    if campaign.no_show_policy is not NoShowPolicy.WAIT_FOR_GM:
        return []
    if await reopening_of(store, campaign, await current_entry(store, campaign)) is not None:
        return []
    return await no_show_sides(store, campaign)


async def repeat_for_no_shows(store: Store, campaign: Campaign, now: datetime) -> list[SideId]:
    """Under ``repeat``: enter last turn's orders for each side that gave none (the ones that
    still hold, stored ready), and queue the report to its strategists and the GMs. Returns
    the sides whose orders were repeated."""
    if campaign.no_show_policy is not NoShowPolicy.REPEAT:
        return []
    state = await store.turn_start(campaign.id, campaign.turn)
    if state is None:
        return []
    game = game_for(campaign)
    members = await store.members(campaign.id)
    gms = await reachable_gms(store, campaign)
    repeated: list[SideId] = []
    for side in await no_show_sides(store, campaign):
        previous = await last_turn_orders(store, campaign, side)
        if previous is None:
            continue
        orders, outcomes = apply_lines(game, state, side, SideOrders(), repeat_lines(previous))
        dropped: list[JsonValue] = [
            outcome.rejection.model_dump(mode="json")
            for outcome in outcomes
            if outcome.rejection is not None
        ]
        strategists = [
            m.user_id for m in members if m.side_id == side and Role.STRATEGIST in m.roles
        ]
        people = await store.people(strategists)
        strategists = [u for u in strategists if u in people and people[u].can_receive_private]
        key = f"turn:{campaign.turn}:no_show:{side}"
        outbox: list[NewOutboxMessage] = [
            private_post(
                campaign,
                user,
                "no_show_repeated",
                key,
                turn=campaign.turn,
                side=side,
                dropped=dropped,
            )
            for user in dict.fromkeys([*strategists, *gms])
        ]
        await store.save_orders(
            campaign.id, campaign.turn, side, orders, True, BOT_ACTOR, now, outbox=outbox
        )
        repeated.append(side)
    return repeated
