"""A side's contact orders as the bot edits them (MODULES.md C3): its groups (moves and
transports) as one priority list, moved up and down or taken back; yields; retreat
preferences. Pure functions over :class:`rules.SideOrders`; the rules check every result.

The priority list is what the rules read (:func:`rules.modules.contact.plan.side_groups`): the
moves in the order given, each transport at its ``rank``. The bot keeps every transport's rank
equal to its place in the list, so typed lines and buttons add a group at the end.
"""

from __future__ import annotations

from rules import Game, ModuleOrder, Move, Order, Reinforce, SideOrders
from rules.modules.contact import NAME as CONTACT
from rules.modules.contact import ContactSettings, load, retreat_to
from rules.modules.contact.plan import side_groups
from rules.modules.contact.state import ContactState
from rules.state import CampaignState, SideId

Group = Move | ModuleOrder
"""One group: a core move or a contact transport."""


def is_on(game: Game) -> bool:
    """Whether the game plays contact."""
    return game.module(CONTACT) is not None


def kind_of(order: ModuleOrder) -> str | None:
    """``transport``, ``yield`` or ``retreat_to`` for a contact order; ``None`` otherwise."""
    if order.module != CONTACT:
        return None
    kind = order.data.get("order")
    return kind if isinstance(kind, str) else None


def is_transport(order: object) -> bool:
    """Whether ``order`` is a contact transport."""
    return isinstance(order, ModuleOrder) and kind_of(order) == "transport"


def module_state(state: CampaignState) -> ContactState:
    """The turn start's contact state."""
    return load(state.modules.get(CONTACT))


def groups(game: Game, state: CampaignState, side: SideId, orders: SideOrders) -> list[Group]:
    """The side's groups in the order they move."""
    listed: list[Group] = []
    for group in side_groups(game, state, module_state(state), side, orders):
        if group.move_index is not None:
            listed.append(orders.moves[group.move_index])
        elif group.extra_index is not None:
            listed.append(orders.extra[group.extra_index])
    return listed


def listed(orders: SideOrders) -> list[Group]:
    """The groups of ``orders`` in the order they move, read from the orders alone (the moves as
    given, each transport inserted at its rank, as the rules do)."""
    found: list[Group] = list(orders.moves)
    for order in orders.extra:
        if not is_transport(order):
            continue
        rank = order.data.get("rank")
        carried = sum(1 for group in found if isinstance(group, ModuleOrder))
        place = min(rank - 1, len(found)) if isinstance(rank, int) else carried
        found.insert(place, order)
    return found


def unranked(order: ModuleOrder) -> ModuleOrder:
    """A transport without its rank (as it is worded and typed)."""
    data = {key: value for key, value in order.data.items() if key != "rank"}
    return order.model_copy(update={"data": data})


def ranked(order: ModuleOrder, rank: int) -> ModuleOrder:
    """A transport at place ``rank`` of the list."""
    return order.model_copy(update={"data": {**order.data, "rank": rank}})


def with_groups(orders: SideOrders, listed: list[Group]) -> SideOrders:
    """``orders`` with their groups replaced by ``listed``, in that order."""
    others = tuple(order for order in orders.extra if not is_transport(order))
    carried = tuple(
        ranked(unranked(order), place)
        for place, order in enumerate(listed, start=1)
        if isinstance(order, ModuleOrder)
    )
    moves = tuple(order for order in listed if isinstance(order, Move))
    return orders.model_copy(update={"moves": moves, "extra": (*others, *carried)})


def at_the_end(order: ModuleOrder, orders: SideOrders) -> ModuleOrder:
    """A transport given without a rank, placed after the side's groups (typed lines and buttons
    add groups at the end of the list); other orders as they are."""
    if not is_transport(order) or "rank" in order.data:
        return order
    count = len(orders.moves) + sum(1 for given in orders.extra if is_transport(given))
    return ranked(order, count + 1)


def shifted(listed: list[Group], index: int, step: int) -> list[Group] | None:
    """``listed`` with group ``index`` moved ``step`` places (-1 up, +1 down); ``None`` when it
    cannot move so."""
    target = index + step
    if not (0 <= index < len(listed) and 0 <= target < len(listed)):
        return None
    moved = list(listed)
    moved[index], moved[target] = moved[target], moved[index]
    return moved


def without_group(listed: list[Group], index: int) -> list[Group] | None:
    """``listed`` without group ``index``; ``None`` when there is none."""
    if not 0 <= index < len(listed):
        return None
    return [group for place, group in enumerate(listed) if place != index]


def repeat_lines(orders: SideOrders) -> list[tuple[Order, ...]] | None:
    """A set with contact orders as lines to enter again, one order a line: its groups in their
    order (transports at their place), the attacks, the yields, the reinforcement; ``None`` for
    a set without contact orders."""
    if not any(kind_of(order) for order in orders.extra):
        return None
    lines: list[tuple[Order, ...]] = [
        (unranked(group) if isinstance(group, ModuleOrder) else group,) for group in listed(orders)
    ]
    lines += [(attack,) for attack in orders.attacks]
    lines += [(order,) for order in orders.extra if kind_of(order) == "yield"]
    if orders.reinforce is not None:
        lines.append((Reinforce(sector=orders.reinforce),))
    return lines


def replacing_retreat(orders: SideOrders, order: ModuleOrder) -> SideOrders:
    """Before a retreat preference for a sector: these orders without this turn's earlier one
    for it (a new preference replaces the old)."""
    if kind_of(order) != "retreat_to":
        return orders
    return orders.model_copy(
        update={
            "extra": tuple(
                given
                for given in orders.extra
                if not (kind_of(given) == "retreat_to" and given.sector == order.sector)
            )
        }
    )


def standing_retreats(
    state: CampaignState, side: SideId, orders: SideOrders
) -> dict[str, tuple[str, ...]]:
    """Where the side's retreating armies go first, sector by sector: the standing preferences
    kept from earlier turns, replaced by this turn's."""
    found = dict(module_state(state).retreat_to.get(side, {}))
    for order in orders.extra:
        if kind_of(order) == "retreat_to" and order.sector is not None:
            to = order.data.get("to")
            if isinstance(to, list) and to:
                found[order.sector] = tuple(str(sector) for sector in to)
            elif isinstance(to, list):
                found.pop(order.sector, None)
    return found


def yielded(orders: SideOrders) -> list[str]:
    """The sectors the side yields this turn."""
    return [
        order.sector
        for order in orders.extra
        if kind_of(order) == "yield" and order.sector is not None
    ]


def without_retreat(orders: SideOrders, sector: str) -> SideOrders:
    """``orders`` without this turn's retreat preference for ``sector``."""
    return replacing_retreat(orders, retreat_to(sector, ()))


def reachable_by_others(game: Game, state: CampaignState, side: SideId) -> set[str]:
    """The sectors another side's group could reach this turn, as anyone can tell from the
    turn start's map: within one step of its armies, or within the transport range of its
    fresh (not exhausted) ones while transports are allowed; its own sectors too. An
    over-estimate (a group stops in the first hostile sector), so no real threat is left out."""
    settings = game.settings_of(CONTACT, ContactSettings)
    contact = module_state(state)
    reach_far = settings.transport_range if settings.transports_per_turn > 0 else 1
    found: set[str] = set()
    for other, holdings in state.armies.items():
        if other == side:
            continue
        for source, count in holdings.items():
            fresh = count - contact.exhausted_in(other, source)
            reach = max(1, reach_far) if fresh > 0 else 1
            found.update(
                sector
                for sector in game.map.sector_ids()
                if game.map.distance(source, sector) <= reach
            )
    return found


def retreat_order(sector: str, to: tuple[str, ...]) -> ModuleOrder:
    """A retreat preference for ``sector``."""
    return retreat_to(sector, to)
