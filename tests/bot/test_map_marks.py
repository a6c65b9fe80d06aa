"""The Monday map's marks as the bot builds them: "new" is a sector taken this turn, never one a
side has held since it deployed there."""

from __future__ import annotations

import pytest
from aiogram.utils.i18n import I18n

from bot.screens.map_views import turn_map
from rules.render import held_sectors
from storage import Store
from tests.storage.campaign_script import deploy, new_campaign, play_turn


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
async def test_a_sector_held_since_deployment_is_not_new_on_the_first_monday(
    store: Store, i18n: I18n, seed: int
) -> None:
    campaign = await new_campaign(store)
    deployed = await deploy(store, campaign.id)
    await play_turn(store, campaign.id, 1, seed)
    campaign = await store.campaign(campaign.id) or campaign
    state = await store.turn_start(campaign.id, 2)
    assert state is not None
    sides = await store.sides(campaign.id)
    with i18n.context(), i18n.use_locale("en"):
        view = await turn_map(store, campaign, state, sides, "T", week=True)
    assert view.week is not None
    resolutions = await store.resolutions(campaign.id, 1)
    captured = resolutions[-1].report.captured
    own_at_start = held_sectors(deployed, 3)
    assert own_at_start["red"] == ("4",)  # red deployed 3 armies alone in North Pole
    for side, held in captured.items():
        taken = tuple(s for s in held if s not in own_at_start.get(side, ()))
        assert view.week.new.get(side, ()) == taken, (side, held)
    # Held sectors are drawn held (tinted, flag and tag) whether new or not.
    assert view.captured is None or all(
        tuple(view.captured.get(side, ())) == tuple(held) for side, held in captured.items()
    )
