"""Contact orders in private, through the real dispatcher: a strategist builds the priority
list of groups with buttons (moves and a transport from ``legal_orders``), moves a group up
and takes one back, yields a sector, sets a retreat preference; a second strategist types
orders in Russian, and a refused one is explained in the reader's language."""

from __future__ import annotations

from typing import Any

import pytest

from bot.modules.contact import order_screens as contact_order_screens
from bot.modules.contact import orders as contact_orders
from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.services.state_edits import EditOutcome, edit_state
from bot.services.turns import game_for
from rules import Game
from rules.edits import StateEdit
from rules.modules import BUILTIN_MODULES
from rules.modules.contact import NAME as CONTACT
from storage import Phase, Store
from tests.bot.private_campaign import GM, alert, open_table, screen
from tests.bot.telegram import FakeTelegram

CONTACT_RULES: dict[str, Any] = {
    "modules": [CONTACT],
    "module_settings": {CONTACT: {"defences": [{"sector": "4", "level": 1, "owner": "red"}]}},
}
PLACEMENTS = {
    "red": {"4": 6, "1": 2, "2": 2},
    "blue": {"3": 5, "1": 3, "5": 2},
    "green": {"5": 4, "2": 3, "3": 3},
}


async def test_contact_orders_by_buttons_and_by_text(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock, CONTACT_RULES)
    campaign_id = table.campaign.id
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, now)).advanced

    home = screen(await table.say(201, "/orders"))
    groups = screen(await table.tap(201, home, "Groups, yields, retreats"))
    assert "No group moves yet" in groups.text
    home = screen(await table.tap(201, groups, "New group"))
    sector = screen(await table.tap(201, home, "4 North Pole"))
    destinations = screen(await table.tap(201, sector, "Move a group"))
    counts = screen(await table.tap(201, destinations, "1 Equator"))
    pressed = await table.tap(201, counts, "2")
    assert alert(pressed) == "Saved: move 2 armies from 4 North Pole to 1 Equator"
    groups = screen(pressed)
    assert "1. move 2 armies from 4 North Pole to 1 Equator" in groups.text

    home = screen(await table.tap(201, groups, "New group"))
    sector = screen(await table.tap(201, home, "4 North Pole"))
    paths = screen(await table.tap(201, sector, "Transport a group"))
    counts = screen(await table.tap(201, paths, "1 Equator → 5 South Pole"))
    assert [text for text, _data in counts.buttons()][:3] == ["1", "2", "3"]
    groups = screen(await table.tap(201, counts, "3"))
    assert "2. transport 3 armies from 4 North Pole via 1 Equator to 5 South Pole" in groups.text
    groups = screen(await table.tap(201, groups, "⬆ 2."))
    assert "1. transport 3 armies from 4 North Pole via 1 Equator to 5 South Pole" in groups.text
    assert "2. move 2 armies from 4 North Pole to 1 Equator" in groups.text

    groups = screen(await table.tap(201, groups, "Yield 2 West"))
    assert "You yield: 2 West." in groups.text
    choices = screen(await table.tap(201, groups, "Retreat from 4 North Pole"))
    then = screen(await table.tap(201, choices, "2 West"))
    groups = screen(await table.tap(201, then, "Back"))
    assert "• retreat from 4 North Pole to 2 West" in groups.text

    review = screen(await table.say(201, "/orders"))
    assert "Groups, yields, retreats" in str(review.buttons())

    refused = "\n".join(s.text for s in await table.say(203, "перевезти 1 из 4 в 3"))
    assert "Ваша сторона уже использовала перевозки этого хода (1)" in refused
    typed = "\n".join(s.text for s in await table.say(203, "отступление из 4 в 1, затем 3"))
    assert "отступление из 4 «Северный полюс» в 1 «Экватор», затем 3 «Восток»" in typed
    bound = "\n".join(s.text for s in await table.say(203, "move 1 from 1 to 3"))
    assert "связаны боем" in bound

    stored = await store.orders(campaign_id, 1, "red")
    assert stored is not None
    assert [(m.source, m.to, m.count) for m in stored.orders.moves] == [("4", "1", 2)]
    assert sorted(str(order.data) for order in stored.orders.extra) == sorted(
        [
            str({"order": "transport", "from": "4", "path": ["1", "5"], "count": 3, "rank": 1}),
            str({"order": "yield", "sector": "2"}),
            str({"order": "retreat_to", "sector": "4", "to": ["1", "3"]}),
        ]
    )

    home = screen(await table.say(201, "/orders"))
    groups = screen(await table.tap(201, home, "Groups, yields, retreats"))
    taken = await table.tap(201, groups, "✖ 🏳 2 West")
    assert alert(taken) == "Changed."
    groups = screen(taken)
    assert "You yield" not in groups.text
    first = next(data for text, data in groups.buttons() if text == "✖")  # the transport
    taken = await table.forged(201, first)
    assert "1. move 2 armies from 4 North Pole to 1 Equator" in screen(taken).text
    stored = await store.orders(campaign_id, 1, "red")
    assert stored is not None
    assert [(m.source, m.to, m.count) for m in stored.orders.moves] == [("4", "1", 2)]
    assert [o.data["order"] for o in stored.orders.extra] == ["retreat_to"]
    again = await table.forged(201, first)
    assert alert(again).startswith("The orders changed since this screen was drawn")


async def test_a_yield_taken_back_from_a_stale_screen_changes_nothing(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock, CONTACT_RULES)
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    home = screen(await table.say(201, "/orders"))
    groups = screen(await table.tap(201, home, "Groups, yields, retreats"))
    groups = screen(await table.tap(201, groups, "Yield 2 West"))
    assert "You yield: 2 West." in groups.text
    # Борис, Red's other strategist, changes the set meanwhile; Anna's screen is now stale.
    typed = "\n".join(s.text for s in await table.say(203, "move 2 from 4 to 1"))
    assert "✓" in typed
    stale = await table.tap(201, groups, "✖ 🏳 2 West")
    assert alert(stale).startswith("The orders changed since this screen was drawn")
    redrawn = screen(stale)
    assert "You yield: 2 West." in redrawn.text
    assert "1. move 2 armies from 4 North Pole to 1 Equator" in redrawn.text
    stored = await store.orders(table.campaign.id, 1, "red")
    assert stored is not None
    assert [o.data["order"] for o in stored.orders.extra] == ["yield"]
    taken = await table.tap(201, redrawn, "✖ 🏳 2 West")
    assert alert(taken) == "Changed."
    stored = await store.orders(table.campaign.id, 1, "red")
    assert stored is not None
    assert stored.orders.extra == ()


async def test_a_retreat_preference_of_several_sectors_by_buttons(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock, CONTACT_RULES)
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    home = screen(await table.say(201, "/orders"))
    groups = screen(await table.tap(201, home, "Groups, yields, retreats"))
    first = screen(await table.tap(201, groups, "Retreat from 4 North Pole"))
    assert "go first to" in first.text
    then = screen(await table.tap(201, first, "2 West"))
    assert "Armies retreating out of 4 North Pole go to 2 West." in then.text
    labels = [text for text, _data in then.buttons()]
    assert "then 1 Equator" in labels
    assert "then 2 West" not in labels
    assert "✖ 2 West" in labels
    then = screen(await table.tap(201, then, "then 1 Equator"))
    assert "go to 2 West, then 1 Equator." in then.text
    stale = next(data for text, data in then.buttons() if text.startswith("then "))
    then = screen(await table.tap(201, then, "then 3 East"))
    assert "go to 2 West, then 1 Equator, then 3 East." in then.text
    assert not [text for text, _data in then.buttons() if text.startswith("then ")]
    stored = await store.orders(table.campaign.id, 1, "red")
    assert stored is not None
    assert [o.data for o in stored.orders.extra] == [
        {"order": "retreat_to", "sector": "4", "to": ["2", "1", "3"]}
    ]
    assert alert(await table.forged(201, stale)) == "That button is not valid any more."

    then = screen(await table.tap(201, then, "✖ 3 East"))
    assert "go to 2 West, then 1 Equator." in then.text
    then = screen(await table.tap(201, then, "✖ 1 Equator"))
    then = screen(await table.tap(201, then, "✖ 2 West"))
    assert "go first to" in then.text
    groups = screen(await table.tap(201, then, "Back"))
    assert "Retreats go first" not in groups.text
    stored = await store.orders(table.campaign.id, 1, "red")
    assert stored is not None
    assert [o.data for o in stored.orders.extra] == [
        {"order": "retreat_to", "sector": "4", "to": []}
    ]
    review = screen(await table.say(201, "/orders"))
    assert "retreat from 4 North Pole: no preference" in review.text


async def test_long_transport_path_lists_are_paged(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock, CONTACT_RULES)
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    home = screen(await table.say(201, "/orders"))
    sector = screen(await table.tap(201, home, "4 North Pole"))
    first = screen(await table.tap(201, sector, "Transport a group"))
    paths = [text for text, data in first.buttons() if ":tq:" in data]
    assert len(paths) == 8
    assert "Page 1 of 2." in first.text
    assert "◀ Earlier" not in str(first.buttons())
    second = screen(await table.tap(201, first, "More ▶"))
    assert "Page 2 of 2." in second.text
    later = [text for text, data in second.buttons() if ":tq:" in data]
    assert later
    assert not set(later) & set(paths)
    counts = screen(await table.tap(201, second, later[-1]))
    back = screen(await table.tap(201, counts, "Back"))
    assert "Page 2 of 2." in back.text
    assert screen(await table.tap(201, back, "◀ Earlier")).text == first.text


async def test_yields_are_offered_only_where_another_side_can_arrive(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    rules = {
        "start_sectors": 1,
        "start_armies": 6,
        "modules": [CONTACT],
        "module_settings": {CONTACT: {"transports_per_turn": 0}},
    }
    table = await open_table(telegram, store, clock, rules)
    now = clock.now()
    placements = {"red": {"4": 6}, "blue": {"3": 6}, "green": {"5": 6}}
    for side, placement in placements.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    home = screen(await table.say(201, "/orders"))
    groups = screen(await table.tap(201, home, "Groups, yields, retreats"))
    assert "Yield 4 North Pole" in str(groups.buttons())  # Blue's 3 is next to it
    # Blue leaves; on planet-5, Green's 5 is two steps from Red's 4, and there are no transports.
    retired = StateEdit(retire="blue", reason="Blue left")
    campaign = await table.now_campaign()
    assert (await edit_state(store, campaign, retired, GM, now)).outcome is EditOutcome.APPLIED
    home = screen(await table.say(201, "/orders"))
    groups = screen(await table.tap(201, home, "Groups, yields, retreats"))
    assert "Yield" not in str(groups.buttons())
    home = screen(await table.say(401, "/orders"))
    groups = screen(await table.tap(401, home, "Groups, yields, retreats"))
    assert "Yield" not in str(groups.buttons())

    game = game_for(campaign)
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    state = game.upgraded(state)
    assert contact_orders.reachable_by_others(game, state, "red") == {"5", "1", "2", "3"}
    transports = Game.create(
        game.map, game.ruleset.model_copy(update={"module_settings": {}}), BUILTIN_MODULES
    )
    assert "4" in contact_orders.reachable_by_others(transports, state, "red")
    tired = state.model_copy(
        update={"modules": {CONTACT: {"v": 1, "exhausted": {"green": {"5": 6}}}}}
    )
    assert "4" not in contact_orders.reachable_by_others(transports, tired, "red")


async def test_retreat_buttons_are_paged_on_the_contact_screen(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red holds 4, 1 and 2; two retreat buttons a page make two pages (eight in play), and
    «Back» from a retreat screen returns to its page."""
    monkeypatch.setattr(contact_order_screens, "RETREATS_A_PAGE", 2)
    table = await open_table(telegram, store, clock, CONTACT_RULES)
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    home = screen(await table.say(201, "/orders"))
    first = screen(await table.tap(201, home, "Groups, yields, retreats"))
    retreats = [text for text, data in first.buttons() if ":cr:" in data]
    assert retreats == ["↩ Retreat from 1 Equator…", "↩ Retreat from 2 West…"]
    assert "Retreat buttons: page 1 of 2." in first.text
    assert "◀ Earlier" not in str(first.buttons())
    second = screen(await table.tap(201, first, "More ▶"))
    assert [text for text, data in second.buttons() if ":cr:" in data] == [
        "↩ Retreat from 4 North Pole…"
    ]
    assert "Retreat buttons: page 2 of 2." in second.text
    assert "More ▶" not in str(second.buttons())
    assert "Groups of turn 1" in second.text
    choice = screen(await table.tap(201, second, "Retreat from 4 North Pole"))
    back = screen(await table.tap(201, choice, "Back"))
    assert back.text == second.text
    assert screen(await table.tap(201, back, "◀ Earlier")).text == first.text
