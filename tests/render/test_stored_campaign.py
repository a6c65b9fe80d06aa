"""Every state of a campaign kept in storage draws: turn starts, battle lists and resolutions."""

import io
from pathlib import Path

from PIL import Image

from bot.services.turns import game_for
from rules.render import MapView, SideView, render_map
from storage import SqliteCampaignStore
from tests.storage.campaign_script import deploy, new_campaign, play_turn

TURNS = 4


async def test_every_stored_state_of_a_campaign_renders(tmp_path: Path) -> None:
    store = await SqliteCampaignStore.open(tmp_path / "campaign.sqlite3")
    try:
        campaign = await new_campaign(store)
        await deploy(store, campaign.id)
        for turn in range(1, TURNS + 1):
            await play_turn(store, campaign.id, turn, seed=7)
        game = game_for(campaign)
        sides = tuple(
            SideView(id=side.id, name=side.name, colour=side.colour)
            for side in await store.sides(campaign.id)
        )
        pictures: list[bytes] = []
        for turn in range(1, TURNS + 1):
            record = await store.turn_record(campaign.id, turn)
            assert record is not None
            assert record.resolution is not None
            assert record.battle_list is not None
            base = MapView(map=game.map, state=record.state, sides=sides, title=campaign.title)
            after = base.model_copy(
                update={
                    "state": record.resolution.state_after,
                    "captured": dict(record.resolution.report.captured),
                }
            )
            friday = base.model_copy(update={"battles": record.battle_list.battles})
            pictures.extend(render_map(view) for view in (base, friday, after))
    finally:
        await store.close()
    assert len(pictures) == 3 * TURNS
    assert len(set(pictures)) == len(pictures)
    for png in pictures:
        image = Image.open(io.BytesIO(png))
        assert image.format == "PNG"
        assert image.width == 1280
