"""Orders the battle list drops (the rules refuse them against the turn's start, e.g. after a GM
correction changed it) are told to that side's strategists, with the rule (RULES 3.2), held
until the list is public, and to nobody else."""

from datetime import timedelta

from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from rules import Attack, Move, SideOrders
from storage import OutboxState, Phase, Store
from tests.bot.private_campaign import GM, open_table, rendered_outbox
from tests.bot.telegram import FakeTelegram

PLACEMENTS = {"red": {"1": 4, "2": 3, "4": 3}, "blue": {"1": 3, "3": 5, "5": 2}}
GREEN = {"2": 4, "3": 3, "5": 3}


async def test_dropped_orders_are_told_to_their_sides_strategists_only(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    now = clock.now()
    for side, placement in (*PLACEMENTS.items(), ("green", GREEN)):
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)
    # Stored as given earlier; against this turn's start the move from 5 and the attack in 3
    # are refused (red has no armies there), the attack in 1 stands.
    stale = SideOrders(
        moves=(Move(source="5", to="3", count=1),),
        attacks=(Attack(sector="1", target="blue"), Attack(sector="3", target="blue")),
    )
    await store.save_orders(table.campaign.id, 1, "red", stale, True, 201, now)
    friday = now + timedelta(hours=36)
    closed = await advance(store, table.campaign.id, 1, Phase.ORDERS, None, now, post_at=friday)
    assert closed.advanced

    queued = await store.outbox_messages(table.campaign.id)
    dropped = [m for m in queued if m.kind == "orders_dropped"]
    assert sorted(m.chat_id for m in dropped) == [201, 203]  # red's strategists, not Carl
    assert all(m.not_before == friday for m in dropped)
    assert all(m.state is OutboxState.PENDING for m in dropped)
    battle_list = next(m for m in queued if m.kind == "battle_list")
    assert battle_list.not_before == friday

    words = {
        message.chat_id: text
        for message, text in await rendered_outbox(store, i18n, table.campaign.id)
        if message.kind == "orders_dropped"
    }
    assert set(words) == {201, 203}
    anna = words[201]
    assert anna.startswith("«Siege», turn 1: when the battle list was built, these orders of Red")
    assert "✗ attack Синие in 3 East: You had no armies in 3 East" in anna
    assert "in 5 South Pole" in anna
    assert anna.count("✗") == 2
    assert "1 Equator" not in anna
