"""Orders close on Thursday, the battle list is posted on Friday: until then a player's private
``/battles`` says when it comes out and shows no battle, and no result can be reported; the GM
sees the list at once."""

from datetime import timedelta

from bot.handlers.private.callbacks import ResultButton
from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from rules import Attack, SideOrders
from storage import Phase, Store
from tests.bot.private_campaign import GM, GROUP, alert, open_table
from tests.bot.telegram import FakeTelegram

PLACEMENT = {"1": 4, "2": 3, "3": 3}


async def test_private_battles_wait_for_the_list_to_be_public(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    campaign_id = table.campaign.id
    now = clock.now()
    for side in ("red", "blue", "green"):
        await campaigns.place_side(store, table.campaign, side, PLACEMENT, GM, now)
    await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, now)
    attack = SideOrders(attacks=(Attack(sector="1", target="blue"),))
    await store.save_orders(campaign_id, 1, "red", attack, True, 201, now)
    friday = now + timedelta(hours=12)
    closed = await advance(store, campaign_id, 1, Phase.ORDERS, None, now, post_at=friday)
    assert closed.advanced

    [held] = [s.text for s in await table.say(201, "/battles")]
    assert held.startswith("The orders are in. The battle list comes out on Mon 2 Mar, 21:00")
    assert "Battle 1" not in held
    report = ResultButton(campaign=campaign_id, turn=1, battle=1, action="out", outcome="d")
    refused = await table.forged(201, report.pack())
    assert alert(refused) == "The battle list is not out yet; /battles says when it will be."
    assert (await store.battle_reports(campaign_id, 1))[0].reported is None
    gm_screens = await table.say(GM, "/battles")
    gm_view = "\n".join(s.text for s in gm_screens)
    assert "Battle 1" in gm_view
    # Dice for a battle reach both sides, who would learn of it early: not even a GM rolls.
    assert not [label for s in gm_screens for label, _data in s.buttons() if "🎲" in label]
    [early] = [s.text for s in await table.say(GM, "/roll 2d6 1")]
    assert early == "The battle list is not out yet: dice for its battles are rolled once it is."
    assert await store.table_rolls(campaign_id) == []

    clock.advance(timedelta(hours=12))
    shown_screens = await table.say(201, "/battles")
    shown = "\n".join(s.text for s in shown_screens)
    assert "Battle 1" in shown
    assert [label for s in shown_screens for label, _data in s.buttons() if "🎲" in label] == [
        "🎲 1d6 · battle 1",
        "🎲 2d6 · battle 1",
    ]


async def test_battles_ended_before_the_friday_list_post_the_list_before_the_result(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Found by the random campaigns (issue 31, seed 2): the GM ended the battles on Thursday
    night, before the Friday list was out; the turn resolved, and the list of the turn already
    resolved went out on Friday, after the turn's map. The list now goes out at once, first."""
    table = await open_table(telegram, store, clock)
    campaign_id = table.campaign.id
    now = clock.now()
    for side in ("red", "blue", "green"):
        await campaigns.place_side(store, table.campaign, side, PLACEMENT, GM, now)
    await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, now)
    attack = SideOrders(attacks=(Attack(sector="1", target="blue"),))
    await store.save_orders(campaign_id, 1, "red", attack, True, 201, now)
    friday = now + timedelta(hours=12)
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, None, now, post_at=friday)).advanced
    resolved = await advance(store, campaign_id, 1, Phase.BATTLES, GM, now, force=True)
    assert resolved.advanced

    sent: list[str] = []  # what the sender takes for the group now, in its order
    while due := await store.claim_due(now, 100, 30):
        for message in due:
            await store.mark_sent(message.id, None, now)
            if message.chat_id == GROUP and message.kind in ("battle_list", "map"):
                sent.append(f"{message.kind} {message.payload.get('turn')}")
    assert sent == ["map 1", "battle_list 1", "map 2"]
    notices = [m for m in await store.outbox_messages(campaign_id) if m.kind == "battle_notice"]
    assert notices
    assert all(m.not_before <= now for m in notices)
