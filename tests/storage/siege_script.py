"""A scripted siege campaign for storage and service tests: two sides on planet-5 with a
fortification and an occult token placed by the GM's settings, deployed and started."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.services.turns import (
    ChoiceOutcome,
    FirstTurnOutcome,
    begin_first_turn,
    game_for,
    make_choice,
    publish_battle_list,
)
from rules import BattleResult, Outcome, SideOrders, legal_orders
from storage import (
    Campaign,
    CampaignStatus,
    Language,
    NewCampaign,
    NewSide,
    Phase,
    Role,
    Store,
    WriteOutcome,
)

MONDAY = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
GM = 100
RED, BLUE = 201, 301
RED_TACTICIAN, BLUE_TACTICIAN = 202, 302
SIEGE_RULESET: dict[str, Any] = {
    "sectors_to_win": 4,
    "modules": ["siege"],
    "module_settings": {
        "siege": {
            "weather_control": ["1"],
            "tokens": [
                {"id": "F1", "kind": "fortification", "sector": "2"},
                {"id": "O1", "kind": "occult", "sector": "5", "strength": 8, "name": "Market"},
            ],
        }
    },
}
PLACEMENTS = {"red": {"1": 4, "2": 3, "4": 3}, "blue": {"1": 3, "3": 5, "5": 2}}


def at(week: int, hours: float = 0) -> datetime:
    """A moment ``week`` weeks and ``hours`` hours after the first Monday noon (UTC)."""
    return MONDAY + timedelta(weeks=week, hours=hours)


async def siege_campaign(store: Store, language: Language = "en") -> Campaign:
    """A siege campaign in setup: red and blue, a strategist and a tactician each."""
    campaign = await store.create_campaign(
        NewCampaign(
            chat_id=-1001,
            title="Midnight Siege",
            time_zone="UTC",
            ruleset_overrides=SIEGE_RULESET,
            created_by=GM,
            creator_name="Game Master",
            language=language,
        ),
        at(0),
    )
    await store.add_side(campaign.id, NewSide(id="red", name="Red", colour="#cc0000"), GM, at(0))
    await store.add_side(campaign.id, NewSide(id="blue", name="Blue", colour="#0044cc"), GM, at(0))
    for user, side, role in (
        (RED, "red", Role.STRATEGIST),
        (RED_TACTICIAN, "red", Role.TACTICIAN),
        (BLUE, "blue", Role.STRATEGIST),
        (BLUE_TACTICIAN, "blue", Role.TACTICIAN),
    ):
        await store.put_member(
            campaign.id, user, f"Player {user}", frozenset({role}), side, GM, at(0)
        )
    return campaign


async def deploy(store: Store, campaign_id: int, weather: int | None = 2) -> None:
    """Setup -> deployment -> turn 1 (orders open), and blue (the last side) picks the starting
    weather unless ``weather`` is ``None``."""
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
    assert moved.applied, moved.message
    for side, user in (("red", RED), ("blue", BLUE)):
        saved = await store.save_placement(
            campaign_id, side, PLACEMENTS[side], True, user, at(0, 2)
        )
        assert saved.outcome is WriteOutcome.SAVED
    started = await begin_first_turn(store, campaign_id, GM, at(0, 12))
    assert started.outcome is FirstTurnOutcome.STARTED
    if weather is not None:
        made = await make_choice(store, campaign_id, "siege", {"weather": weather}, BLUE, at(0, 13))
        assert made is ChoiceOutcome.MADE


async def play_turn_one(store: Store, campaign_id: int) -> None:
    """Red assaults the fortification and steers; blue fortifies; battles drawn."""
    campaign = await store.campaign(campaign_id)
    state = await store.turn_start(campaign_id, 1)
    assert campaign is not None
    assert state is not None
    game = game_for(campaign)
    options = legal_orders(game, state, "red").modules["siege"]
    assault = next(o for o in options if o.data["order"] == "assault" and o.data["token"] == "F1")
    steer = next(o for o in options if o.data["order"] == "steer")
    saved = await store.save_orders(
        campaign_id, 1, "red", SideOrders(extra=(assault, steer)), True, RED, at(0, 30)
    )
    assert saved.outcome is WriteOutcome.SAVED
    published = await publish_battle_list(store, campaign_id, 1, None, at(0, 96))
    assert published.applied, published.message
    listed = await store.battle_list(campaign_id, 1)
    assert listed is not None
    assert [roll.label for roll in listed.rolls] == ["t1/siege/assault/F1/red"]
    assert "siege" in listed.modules
    for battle in listed.battles:
        result = BattleResult(battle=battle.id, outcome=Outcome.DRAW)
        await store.report_result(campaign_id, 1, result, RED_TACTICIAN, at(0, 120))
        await store.confirm_result(campaign_id, 1, result, BLUE_TACTICIAN, at(0, 121))
