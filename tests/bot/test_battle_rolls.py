"""``/roll`` for one battle (MODULES.md "002"): from the battles screen's dice buttons or
``/roll 2d6 <battle>`` in private or in the group, by a player of one of its sides or a GM;
drawn under t<T>/roll/<battle>/<k>/<i>, recorded, and sent at once to the players of both sides
in their languages; anyone else is refused without learning about the battle."""

from __future__ import annotations

from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from rules import Attack, SideOrders
from rules.table import DiceExpression, roll_table_dice
from storage import Phase, Store
from tests.bot.group_helpers import say
from tests.bot.private_campaign import GM, GROUP, alert, open_table, screen
from tests.bot.telegram import FakeTelegram

PLACEMENT = {"1": 4, "2": 3, "3": 3}


async def test_a_battle_s_dice_reach_both_sides(
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
    closed = await advance(store, campaign_id, 1, Phase.ORDERS, None, now)
    assert closed.advanced
    telegram.take()

    battles = screen(await table.say(201, "/battles"))
    rolled = await table.tap(201, battles, "🎲 2d6 · battle 1")
    seeds = await store.turn_seeds(campaign_id, 1)
    assert seeds is not None
    first = roll_table_dice(seeds.roll, 1, 1, 1, DiceExpression(count=2, faces=6))
    values = ", ".join(str(die.value) for die in first.dice)
    reply = screen(rolled).text
    assert reply.startswith(f"🎲 Battle 1, 2d6: {values} (total {first.total}).")
    assert "as t1/roll/1/1…" in reply
    assert "The players of both sides get the values too." in reply
    assert seeds.roll not in reply

    told = {s.chat_id: s.text for s in await telegram.deliver() if "t1/roll/1/1" in s.text}
    assert set(told) == {202, 203, 301, 302}  # both sides' players but the roller; not green
    assert told[202].startswith(f"Siege: dice rolled for battle 1: 2d6 → {values}")
    assert told[301].startswith(f"Siege: бросок кубов в бою 1: 2d6 → {values}")

    typed = screen(await table.say(302, "/roll 3д6 №1")).text
    assert typed.startswith("🎲 Бой 1, 3d6: ")
    assert "t1/roll/1/2…" in typed
    refused = screen(await table.say(401, "/roll 2d6 1")).text
    assert refused.startswith("Battle 1 is not one of your battles on this turn's battle list")
    hint = screen(await table.say(201, "/roll 2d6")).text
    assert hint.startswith("Here dice are rolled for one of your battles")

    gm = table.user(GM)
    in_group = await say(telegram, gm, GROUP, "/roll d20 1")
    assert in_group is not None
    assert in_group.text.startswith("🎲 Battle 1, 1d20: ")
    assert "t1/roll/1/3…" in in_group.text
    stranger = await say(telegram, table.user(401), GROUP, "/roll d20 1")
    assert stranger is not None
    assert stranger.text.startswith("Battle 1 is not one of your battles")
    forged = await table.tap(401, battles, "🎲 1d6 · battle 1")
    assert alert(forged).startswith("Battle 1 is not one of your battles")

    recorded = await store.table_rolls(campaign_id, 1)
    assert [(r.context, r.k, r.expression, r.rolled_by) for r in recorded] == [
        (1, 1, "2d6", 201),
        (1, 2, "3d6", 302),
        (1, 3, "1d20", GM),
    ]
