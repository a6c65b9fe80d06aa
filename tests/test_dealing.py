"""How ``tests/conftest.py`` deals the bot-process tests between pytest-xdist's bot lanes."""

from dataclasses import dataclass
from typing import cast

import pytest

from tests.conftest import SECONDS, SHARED, _bot_lanes


@dataclass
class Item:
    nodeid: str


def _lanes(nodeids: list[str], lanes: int) -> list[list[str]]:
    items = cast(list[pytest.Item], [Item(nodeid) for nodeid in nodeids])
    return [[item.nodeid for item in lane] for lane in _bot_lanes(items, lanes)]


def test_a_shared_fixtures_file_goes_whole_to_one_lane_and_each_test_once() -> None:
    shared = [f"{SHARED[0]}::test_{n}" for n in range(24)]
    others = [f"tests/e2e/test_x.py::test_{n}" for n in range(12)]
    dealt = _lanes([*others[:6], *shared, *others[6:]], 2)
    assert sorted(nodeid for lane in dealt for nodeid in lane) == sorted(shared + others)
    assert [sum(nodeid in lane for nodeid in shared) for lane in dealt] in ([24, 0], [0, 24])


def test_the_lanes_carry_about_equal_seconds_the_longest_first() -> None:
    campaign = "tests/e2e/test_campaign.py::test_a_campaign_from_newcampaign_to_a_winner"
    demo = "tests/e2e/test_demo.py::test_the_demo_plays_a_campaign_to_its_end"
    short = [f"tests/e2e/test_y.py::test_{n}" for n in range(6)]  # 30 s each (no figure)
    dealt = _lanes([*short, demo, campaign], 2)
    seconds = {campaign: SECONDS[campaign], demo: SECONDS["tests/e2e/test_demo.py"]}
    loads = [sum(seconds.get(nodeid, 30) for nodeid in lane) for lane in dealt]
    assert abs(loads[0] - loads[1]) <= 30  # no better split is possible with 30 s units
    assert {dealt[0][0], dealt[1][0]} == {campaign, demo}  # each lane starts with a long one
