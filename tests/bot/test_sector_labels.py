"""Sector labels (bot/texts/sectors.py): a sector's id is left out only when it adds nothing (it
says the sector's name and no other sector has that name in the language); letter ids of an uploaded
map and the ids of same-named sectors stay, as players type them. And a line that could mean
more than one thing is answered with an order worded by this map, not with sector numbers."""

from __future__ import annotations

import pytest

from bot.runtime.clock import ManualClock
from bot.texts.sectors import sector_label
from rules.maps import CampaignMap, builtin_map, parse_map
from storage import Store
from tests.bot.telegram import FakeTelegram
from tests.bot.test_watch_gm_tools import _watch_table


def _map(sectors: list[tuple[str, str, str]]) -> CampaignMap:
    ids = [sector for sector, _en, _ru in sectors]
    return parse_map(
        {
            "id": "uploaded",
            "name": "Uploaded",
            "sectors": [
                {
                    "id": sector,
                    "name": english,
                    "names": {"ru": russian},
                    "neighbours": [other for other in ids if other != sector],
                    "x": 0.2 + 0.3 * index,
                    "y": 0.5,
                }
                for index, (sector, english, russian) in enumerate(sectors)
            ],
        }
    )


LETTERED = _map([("a", "Apartment", "Квартира"), ("b", "Bridge", "Мост"), ("c", "Cafe", "Кафе")])
TWINS = _map(
    [("metro", "Metro", "Метро"), ("metro-east", "Metro", "Метро"), ("roof", "Roof", "Крыша")]
)
RUSSIAN_TWINS = _map([("cafe", "Cafe", "Кафе"), ("bar", "Bar", "Кафе"), ("bank", "Bank", "Банк")])


@pytest.mark.parametrize(
    ("campaign_map", "sector", "english", "russian"),
    [
        (builtin_map("night-demo"), "metro", "Metro", "«Метро»"),
        (builtin_map("night-demo"), "apartment", "Egor's Apartment", "«Квартира Егора»"),
        (builtin_map("night-demo"), "hairdresser", "Hairdresser's", "«Парикмахерская»"),
        (builtin_map("planet-5"), "2", "2 West", "2 «Запад»"),
        (LETTERED, "a", "a Apartment", "a «Квартира»"),
        (LETTERED, "c", "c Cafe", "c «Кафе»"),
        (TWINS, "metro", "metro Metro", "metro «Метро»"),
        (TWINS, "metro-east", "metro-east Metro", "metro-east «Метро»"),
        (TWINS, "roof", "Roof", "«Крыша»"),
        (RUSSIAN_TWINS, "cafe", "Cafe", "cafe «Кафе»"),
        (RUSSIAN_TWINS, "bank", "Bank", "«Банк»"),
    ],
)
def test_the_id_is_left_out_only_when_it_adds_nothing(
    campaign_map: CampaignMap, sector: str, english: str, russian: str
) -> None:
    assert sector_label(campaign_map, sector, "en") == english
    assert sector_label(campaign_map, sector, "ru") == russian


@pytest.mark.parametrize(
    ("user", "expected"),
    [
        (201, "This could mean more than one thing; write one order per line, sectors as the map"),
        (203, "Это можно понять по-разному; пишите по одному приказу в строке, секторы — как"),
    ],
)
async def test_an_ambiguous_line_is_answered_in_the_maps_words(
    telegram: FakeTelegram, store: Store, clock: ManualClock, user: int, expected: str
) -> None:
    table = await _watch_table(telegram, store, clock)
    reply = "\n".join(s.text for s in await table.say(user, "move 2 from metro to cafe x3"))
    assert expected in reply, reply
    assert "sector numbers" not in reply
    assert "номера секторов" not in reply
    assert "Hairdresser's" in reply or "«Парикмахерская»" in reply
