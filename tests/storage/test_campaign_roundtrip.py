"""A whole campaign stored turn by turn, then read back (also after reopening the file) equal
to what was fed in and to what the rules core computes from it."""

from bot.services.turns import ResolveOutcome, game_for
from rules import (
    CampaignMap,
    SideOrders,
    builtin_map,
    deployed_state,
    plan_battles,
    resolve_turn,
)
from storage import (
    CampaignStatus,
    NewCampaign,
    Phase,
    Role,
    Store,
    open_store,
)
from tests.storage.campaign_script import (
    GM,
    PLACEMENTS,
    PLAYERS,
    SIDES,
    PlayedTurn,
    at,
    deploy,
    new_campaign,
    play_turn,
    strategist,
)

TURNS = 5


async def _read_everything(store: Store, campaign_id: int, turns: int) -> dict[str, object]:
    data: dict[str, object] = {
        "campaign": await store.campaign(campaign_id),
        "sides": await store.sides(campaign_id),
        "members": await store.members(campaign_id),
        "placements": await store.placements(campaign_id),
        "history": await store.phase_history(campaign_id),
        "audit": await store.audit_log(campaign_id),
    }
    for turn in range(1, turns + 2):
        data[f"turn {turn}"] = await store.turn_record(campaign_id, turn)
        data[f"orders {turn}"] = await store.orders_for_turn(campaign_id, turn)
        data[f"reports {turn}"] = await store.battle_reports(campaign_id, turn)
        data[f"edits {turn}"] = [
            await store.order_edits(campaign_id, turn, side.id) for side in SIDES
        ]
    return data


async def test_full_campaign_is_stored_and_read_back_equal(store: Store, database_url: str) -> None:
    campaign = await new_campaign(store)
    first = await deploy(store, campaign.id)
    game = game_for(campaign)
    assert first == deployed_state(game, PLACEMENTS)

    played: list[PlayedTurn] = []
    for turn in range(1, TURNS + 1):
        current = await store.campaign(campaign.id)
        assert current is not None
        if current.phase is Phase.FINISHED:
            break
        played.append(await play_turn(store, campaign.id, turn, seed=7))
    assert len(played) >= 3, "the script should run several turns before anyone wins"

    # The rules core, fed the same inputs, gives exactly the stored states and reports.
    state = first
    for record in played:
        assert record.resolved.outcome is ResolveOutcome.RESOLVED
        plan = plan_battles(game, state, record.orders)
        resolution = resolve_turn(game, state, record.orders, record.results)
        stored = await store.turn_record(campaign.id, record.turn)
        assert stored is not None
        assert stored.state == state
        assert stored.battle_list is not None
        assert stored.battle_list.battles == plan.battles
        assert stored.battle_list.rejected == plan.rejected
        assert stored.resolution is not None
        assert stored.resolution.revision == 1
        assert stored.resolution.orders == record.orders
        assert stored.resolution.results == record.results
        assert stored.resolution.report == resolution.report
        assert stored.resolution.state_after == resolution.state
        orders = await store.orders_for_turn(campaign.id, record.turn)
        assert {side: o.orders for side, o in orders.items()} == record.orders
        assert all(o.ready and o.edits == 2 for o in orders.values())
        red_edits = await store.order_edits(campaign.id, record.turn, "red")
        assert [e.orders for e in red_edits] == [SideOrders(), record.orders["red"]]
        assert [e.edited_by for e in red_edits] == [strategist("red")] * 2
        assert await store.effective_results(campaign.id, record.turn) == list(record.results)
        state = resolution.state
        assert await store.turn_start(campaign.id, record.turn + 1) == state

    final = await store.campaign(campaign.id)
    assert final is not None
    assert final.turn == played[-1].turn + 1
    assert final.ruleset_overrides == {"sectors_to_win": 4}
    assert [s.id for s in await store.sides(campaign.id)] == [s.id for s in SIDES]
    members = {m.user_id: m for m in await store.members(campaign.id)}
    assert members[GM].roles == frozenset({Role.GM})
    for user, side, roles in PLAYERS:
        assert (members[user].side_id, members[user].roles) == (side, roles)

    before = await _read_everything(store, campaign.id, len(played))
    reopened = await open_store(database_url)
    try:
        after = await _read_everything(reopened, campaign.id, len(played))
    finally:
        await reopened.close()
    assert after == before


async def test_history_keeps_every_phase_entry_in_order(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    await play_turn(store, campaign.id, 1, seed=7)
    history = await store.phase_history(campaign.id)
    assert [(e.turn, e.phase) for e in history] == [
        (0, Phase.SETUP),
        (0, Phase.DEPLOYMENT),
        (1, Phase.ORDERS),
        (1, Phase.BATTLES),
        (1, Phase.RESOLUTION),
        (2, Phase.ORDERS),
    ]
    assert [e.status for e in history] == [
        CampaignStatus.SETUP,
        CampaignStatus.DEPLOYMENT,
        *[CampaignStatus.RUNNING] * 4,
    ]
    assert all(e.undone_at is None for e in history)
    assert history[1].actor == GM
    assert history[1].entered_at == at(0, 1)


async def test_custom_map_and_every_setting_round_trip(store: Store) -> None:
    planet = builtin_map("planet-5")
    own_map = CampaignMap.model_validate(
        planet.model_dump() | {"id": "home-rules", "name": "Home rules"}
    )
    created = await store.create_campaign(
        NewCampaign(
            chat_id=-77,
            title="Custom",
            time_zone="Asia/Novosibirsk",
            map=own_map,
            ruleset_overrides={"start_armies": 12, "losses": {"slaughter": 4}},
            created_by=GM,
            creator_name="GM",
        ),
        at(0),
    )
    stored = await store.campaign(created.id)
    assert stored == created
    assert stored is not None
    assert stored.map == own_map
    assert stored.ruleset_overrides == {"start_armies": 12, "losses": {"slaughter": 4}}
    assert game_for(stored).ruleset.start_armies == 12


async def test_unreported_battles_and_rejections_round_trip(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    played = await play_turn(store, campaign.id, 1, seed=3, unreported=1)
    record = await store.turn_record(campaign.id, 1)
    assert record is not None
    assert record.resolution is not None
    assert record.battle_list is not None
    assert played.resolved.resolution is not None
    report = record.resolution.report
    assert report == played.resolved.resolution.report
    assert report.unreported == (record.battle_list.battles[-1].id,)
    assert record.battle_list.rejected == report.rejected
    assert len(report.rejected) == 1
    assert record.resolution.results == played.results
