"""Any state the rules core can reach draws without error, deterministically, at a fixed width."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from rules import plan_battles, resolve_turn
from rules.render import MapView, PrivateOrders, SideView, default_palette, render_map
from tests.rules.strategies import SIDE_POOL, battle_results, games_and_states, valid_order_sets


@settings(max_examples=15)
@given(data=st.data())
def test_every_variant_of_any_state_draws(data: st.DataObject) -> None:
    game, state = data.draw(games_and_states())
    orders = data.draw(valid_order_sets(game, state))
    plan = plan_battles(game, state, orders)
    results = data.draw(battle_results(plan.battles))
    resolution = resolve_turn(game, state, orders, results)
    palette = default_palette(SIDE_POOL)
    sides = tuple(SideView(id=side, name=side.title(), colour=palette[side]) for side in SIDE_POOL)
    base = MapView(map=game.map, state=state, sides=sides, title="Any state")
    side = data.draw(st.sampled_from(sorted(plan.accepted)))
    views = [
        base,
        base.model_copy(update={"battles": plan.battles}),
        base.model_copy(update={"private": PrivateOrders(side=side, orders=plan.accepted[side])}),
        base.model_copy(
            update={"state": resolution.state, "captured": dict(resolution.report.captured)}
        ),
    ]
    for view in views:
        data_png = render_map(view)
        assert render_map(view) == data_png
        image = Image.open(io.BytesIO(data_png))
        assert image.width == 1280
        assert 200 < image.height <= 1280
