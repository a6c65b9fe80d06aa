"""What awaits a person in one campaign now (``/campaigns``): their side's deployment or orders
to confirm, battles to report or answer, disputes to decide for a GM. Values, not words: the
private screens word them.

Nothing here is secret beyond what the person may see: a player's own side, and for a GM the
readiness flags and disputes the status board shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.services.campaigns import Readiness, board
from bot.services.orders import Seat, open_battles
from storage import CampaignStatus, Phase, Store


class Duty(StrEnum):
    """One thing a person is awaited for (``count``: how many of it)."""

    DEPLOY = "deploy"  # their side's deployment is not confirmed (a strategist)
    ORDERS = "orders"  # their side's orders for this turn are not confirmed (a strategist)
    REPORT = "report"  # battles of their side without a result
    ANSWER = "answer"  # results the other side reported, to confirm or dispute
    SIDES_NOT_READY = "sides_not_ready"  # a GM: sides that have not confirmed yet
    DISPUTES = "disputes"  # a GM: disputed results to decide


@dataclass(frozen=True)
class Awaited:
    """A duty and how many of it (1 for the side's deployment or orders)."""

    duty: Duty
    count: int = 1


async def awaiting(store: Store, seat: Seat, now: datetime) -> tuple[Awaited, ...]:
    """What awaits the person of ``seat`` now, most urgent first; empty when nothing does (and
    always while the campaign is paused, set up or over)."""
    campaign = seat.campaign
    if campaign.status in (CampaignStatus.PAUSED, CampaignStatus.FINISHED):
        return ()
    found: list[Awaited] = []
    if campaign.phase in (Phase.DEPLOYMENT, Phase.ORDERS):
        lines = (await board(store, campaign, now)).sides
        ready = {line.side.id: line.readiness is Readiness.READY for line in lines}
        state = await store.turn_start(campaign.id, campaign.turn)
        if campaign.phase is Phase.ORDERS and state is not None:
            ready = {side: done for side, done in ready.items() if state.armies.get(side)}
        if seat.gives_orders and seat.side is not None and not ready.get(seat.side, False):
            found.append(
                Awaited(Duty.DEPLOY if campaign.phase is Phase.DEPLOYMENT else Duty.ORDERS)
            )
        waiting = sum(1 for done in ready.values() if not done)
        if seat.is_gm and waiting:
            found.append(Awaited(Duty.SIDES_NOT_READY, waiting))
    elif campaign.phase in (Phase.BATTLES, Phase.RESOLUTION):
        desk = await open_battles(store, seat, now)
        if desk is None:
            return ()
        report = answer = disputes = 0
        for battle in desk.battles:
            if not desk.playable(battle):
                continue
            record = desk.reports.get(battle.id)
            settled = record is not None and record.override is not None
            if seat.side is not None and seat.side in battle.participants() and not settled:
                if record is None or record.reported is None:
                    report += 1
                elif (
                    desk.reporters.get(battle.id) != seat.side
                    and record.confirmed_by is None
                    and record.disputed_by is None
                ):
                    answer += 1
            if seat.is_gm and record is not None and record.disputed_by is not None and not settled:
                disputes += 1
        found += [
            Awaited(duty, count)
            for duty, count in (
                (Duty.REPORT, report),
                (Duty.ANSWER, answer),
                (Duty.DISPUTES, disputes),
            )
            if count
        ]
    return tuple(found)
