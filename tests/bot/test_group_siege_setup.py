"""The siege in the setup wizard: the GM switches it on with buttons, places tokens, marks the
weather-control sectors, writes card and reward texts; typed rules keep it; once the orders open
the group sees the seeds' commitment, and the GM picks the starting weather with a button."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.handlers.group.setup import SetupPress
from bot.runtime.clock import ManualClock
from bot.services.turns import game_for
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import SiegeSettings, load
from storage import Store
from tests.bot.group_helpers import say, set_up_campaign, tap, to_orders
from tests.bot.telegram import FakeTelegram

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def test_a_gm_sets_up_a_siege_with_buttons(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    await say(telegram, anna, anna.id, "/start")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    summary = telegram.sent[-1]
    assert "Midnight Siege: off" in summary.text
    screen = await tap(telegram, anna, summary, "Midnight Siege")
    assert screen is not None
    assert "victory points" in screen.text
    screen = await tap(telegram, anna, screen, "Switch the siege on")
    screen = await tap(telegram, anna, screen, "🏰 West")
    screen = await tap(telegram, anna, screen, "🔮 South Pole")
    screen = await tap(telegram, anna, screen, "🏰 East")
    screen = await tap(telegram, anna, screen, "🌬 Equator")
    assert screen is not None
    assert "• F1: fortification in 2 West, strength 10" in screen.text.splitlines()
    assert "• O1: occult token in 5 South Pole, strength 10, held by nobody" in screen.text
    assert "The weather is steered from: 1 Equator." in screen.text
    screen = await tap(telegram, anna, screen, "Remove F2")
    assert screen is not None
    assert "F2" not in screen.text

    await tap(telegram, anna, screen, "Card texts")
    refused = await say(telegram, anna, group, "O1 the market opens")
    assert refused is not None
    assert "Line 1 cannot be used" in refused.text
    screen = await say(telegram, anna, group, "O1 weather: The wind turns.")
    await tap(telegram, anna, screen, "Rewards")
    screen = await say(telegram, anna, group, "2 A pawn\n5 An officer")
    assert screen is not None
    assert "Midnight Siege" in screen.text

    await tap(telegram, anna, screen, "Back")
    summary = telegram.sent[-1]
    rules_screen = await tap(telegram, anna, summary, "Rules")
    assert rules_screen is not None
    more = SetupPress(c=campaign.id, a="rule", v="sectors_to_win.+").pack()
    await telegram.feed(telegram.press(anna, rules_screen, more))
    await tap(telegram, anna, telegram.sent[-1], "Back")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.ruleset_overrides["sectors_to_win"] == 4
    settings = game_for(stored).settings_of(SIEGE, SiegeSettings)
    assert [(t.id, t.kind, t.sector) for t in settings.tokens] == [
        ("F1", "fortification", "2"),
        ("O1", "occult", "5"),
    ]
    assert settings.weather_control == ("1",)
    assert settings.cards["O1"].effect == "weather_step"
    assert [(r.price, r.text) for r in settings.rewards] == [(2, "A pawn"), (5, "An officer")]
    summary = telegram.sent[-1]
    assert "Midnight Siege: on, 2 tokens, the weather is steered from sector 1 Equator" in (
        summary.text
    )
    assert "modules" not in summary.text  # no developer names

    await tap(telegram, anna, summary, "Score margins")
    refused = await say(telegram, anna, group, "5 1 10")
    assert refused is not None
    assert "three growing numbers" in refused.text
    margins = await say(telegram, anna, group, "2 8 15")
    assert margins is not None
    assert (
        "Score margins: solid victory from 2, crushing victory from 8, slaughter from 15."
        in margins.text
    )

    await tap(telegram, anna, margins, "Open deployment")
    telegram.take()
    running = await store.campaign(campaign.id)
    assert running is not None
    running = await to_orders(store, running, ManualClock(NOW).now())
    sent = await telegram.deliver()
    sealed = [s for s in sent if "dice are sealed" in s.text]
    assert len(sealed) == 1
    assert sealed[0].chat_id == group.id
    asked = [s for s in sent if s.chat_id == anna.id and "wx:" in str(s.buttons())]
    assert len(asked) == 1
    chosen = await tap(telegram, anna, asked[0], "South-West")
    assert chosen is not None
    assert "the starting weather is South-West" in chosen.text
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    assert load(state.modules[SIEGE]).weather == 5
    again = await tap(telegram, anna, asked[0], "North")
    assert again is not None
    assert "chosen already" in again.text
