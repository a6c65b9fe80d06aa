"""A typed line's problem that is a rule module's to word (``BotModule.typed_problem``), through
the real dispatcher in both languages: a siege token and a watch hero that nothing is called
(the tokens there are, the side's own heroes), a location several names begin (which ones)."""

from __future__ import annotations

from typing import Any

from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from rules.modules.watch import NAME as WATCH
from storage import Phase, Store
from tests.bot.private_campaign import GM, Table, open_table
from tests.bot.telegram import FakeTelegram
from tests.bot.test_private_siege_orders import PLACEMENTS, SIEGE
from tests.bot.test_private_watch_orders import _watch_table

ENGLISH, RUSSIAN = 201, 203
"""Two of Red's strategists: one reads English, the other Russian."""


async def _reply(table: Table, chat: int, text: str) -> str:
    """The first line of the bot's answer to ``text``: the line's outcome."""
    return "\n".join(sent.text for sent in await table.say(chat, text)).split("\n")[0]


async def _deployed(table: Table, store: Store, clock: ManualClock) -> None:
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced


async def test_an_unknown_siege_token_lists_the_tokens(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock, SIEGE)
    await _deployed(table, store, clock)
    assert await _reply(table, ENGLISH, "assault F9 in 2") == (
        "✗ «assault F9 in 2»: There is no token «F9». Tokens: F1, F2, O1."
    )
    assert await _reply(table, RUSSIAN, "штурм Ф1 в 2") == (
        "✗ «штурм Ф1 в 2»: Жетона «Ф1» нет. Жетоны: F1, F2, O1."
    )


async def test_an_unknown_hero_lists_the_sides_own_heroes(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock)
    assert await _reply(table, ENGLISH, "hero Vasya to Metro") == (
        "✗ «hero Vasya to Metro»: There is no hero «Vasya». Your heroes: Лариса, Zavulon, Igor."
    )
    assert await _reply(table, RUSSIAN, "Иной Вася в метро") == (
        "✗ «Иной Вася в метро»: Иного «Вася» нет. Ваши Иные: Лариса, Zavulon, Igor."
    )


PLANET_WATCH: dict[str, Any] = {
    "modules": [WATCH],
    "module_settings": {
        WATCH: {
            "heroes": [
                {"id": "h1", "side": "red", "name": "Лариса", "initiative": 2, "start": "1"},
                {"id": "h2", "side": "blue", "name": "Андрей", "initiative": 4, "start": "3"},
            ],
            "npc": {"name": "Егор", "start": "5"},
        }
    },
}


async def test_a_location_several_names_begin_lists_them(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock, PLANET_WATCH)
    await _deployed(table, store, clock)
    assert await _reply(table, ENGLISH, "hero Лариса to Pole") == (
        "✗ «hero Лариса to Pole»: «Pole» could be any of these locations: 4 North Pole, "
        "5 South Pole. Type more of the name."
    )
    assert await _reply(table, RUSSIAN, "Иной Лариса в полюс") == (
        "✗ «Иной Лариса в полюс»: «полюс» подходит к нескольким локациям: 4 «Северный полюс», "
        "5 «Южный полюс». Напишите название полнее."
    )
