"""Siege orders in private, through the real dispatcher: a strategist gives them with buttons
(from ``legal_orders(...).modules["siege"]``) and takes one back, a second strategist types one
in Russian, a refused one is explained in the reader's language."""

from __future__ import annotations

from typing import Any

import pytest

from bot.modules import BOT_MODULES
from bot.modules.siege import SiegeBotModule
from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.services.late import LateRefusal, take_back_late_order
from bot.services.turns import ChoiceOutcome, make_choice
from storage import Phase, Store
from tests.bot.private_campaign import GM, alert, open_table, screen
from tests.bot.telegram import FakeTelegram
from tests.secrecy import assert_log_keeps, logfmt, read_the_log

SIEGE: dict[str, Any] = {
    "modules": ["siege"],
    "module_settings": {
        "siege": {
            "weather_control": ["1"],
            "tokens": [
                {"id": "F1", "kind": "fortification", "sector": "3"},
                {"id": "F2", "kind": "fortification", "sector": "2"},
                {"id": "O1", "kind": "occult", "sector": "5", "owner": "blue"},
            ],
        }
    },
}
PLACEMENTS = {
    "red": {"1": 4, "2": 3, "4": 3},
    "blue": {"1": 3, "3": 5, "5": 2},
    "green": {"2": 4, "3": 3, "5": 3},
}


async def test_siege_orders_by_buttons_and_by_text(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock, SIEGE)
    campaign_id = table.campaign.id
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    made = await make_choice(store, campaign_id, "siege", {"weather": 0}, 401, now)
    assert made is ChoiceOutcome.MADE

    home = screen(await table.say(201, "/orders"))
    siege = screen(await table.tap(201, home, "Siege orders"))
    assert "None given yet" in siege.text
    pressed = await table.tap(201, siege, "assault F2 in 2 West for VP")
    assert alert(pressed) == "Saved: assault F2 in 2 West for VP"
    siege = screen(pressed)
    assert "• assault F2 in 2 West for VP" in siege.text
    siege = screen(await table.tap(201, siege, "steer weather from 1 Equator"))
    siege = screen(await table.tap(201, siege, "guard F1 from 4 North Pole"))
    assert "• guard F1 from 4 North Pole" in siege.text
    taken = await table.tap(201, siege, "✖ guard F1 from 4 North Pole")
    assert alert(taken) == "Taken back."
    assert "guard F1" not in screen(taken).text.split("Add one below")[0]

    typed = "\n".join(s.text for s in await table.say(203, "охрана F1 из Северного полюса"))
    assert "охрана F1 из сектора 4 «Северный полюс»" in typed
    steering = "\n".join(s.text for s in await table.say(203, "охрана F2 из 1"))
    assert (
        "Из сектора 1 «Экватор» поворачивают погоду, поэтому охранять F2 он не может." in steering
    )
    refused = "\n".join(s.text for s in await table.say(203, "штурм O1 в 5"))
    assert "В начале хода у вас не было армий в секторе 5 «Южный полюс»." in refused

    stored = await store.orders(campaign_id, 1, "red")
    assert stored is not None
    assert sorted(str(order.data) for order in stored.orders.extra) == sorted(
        [
            str({"order": "assault", "sector": "2", "token": "F2", "reward": "vp"}),
            str({"order": "steer", "sector": "1"}),
            str({"order": "guard", "token": "F1", "from": "4"}),
        ]
    )
    assert not stored.ready


async def test_a_card_after_the_battles_is_played_in_the_late_window(
    telegram: FakeTelegram, store: Store, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    """Blue plays its occult card after the battles; until the turn resolves no other chat and
    no log line names the play (``bench/secrecy_mutants.py`` checks that a leak fails this)."""
    read_the_log(caplog)
    table = await open_table(telegram, store, clock, SIEGE)
    campaign_id = table.campaign.id
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    assert await make_choice(store, campaign_id, "siege", {"weather": 0}, GM, now) is (
        ChoiceOutcome.MADE
    )
    await telegram.deliver()
    table.take()
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, now)).advanced
    sent = await telegram.deliver()
    windows = [s for s in sent if "lt:" in str(s.buttons())]
    assert [s.chat_id for s in windows] == [301]  # blue holds O1; Вера is its strategist
    window = windows[0]
    assert "после боёв" in window.text
    table.take()
    played = await table.tap(301, window, "сыграть карту O1 после боёв")
    assert alert(played) == "Сохранено."
    assert "• сыграть карту O1 после боёв" in screen(played).text
    again = await table.forged(301, window.buttons()[0][1])
    forged = await table.forged(201, window.buttons()[0][1])
    assert (
        alert(again) == "Ваша сторона уже играет карту O1 после боёв: в каждое окно — одна карта."
    )
    assert alert(forged) == "Only the side holding the occult token O1 plays its card."
    late = await store.late_orders(campaign_id, 1)
    assert [order.data for order in late["blue"].orders] == [
        {"order": "play_card", "token": "O1", "window": "after"}
    ]
    assert "red" not in late
    [card] = late["blue"].orders
    await telegram.deliver()
    table.take()
    assert any("карту O1 после боёв" in request.text for request in table.log)  # its own chat
    for request in table.log:
        if request.chat_id not in (301, GM):
            assert "O1 после боёв" not in request.text, (request.chat_id, request.text)
            assert "O1 after the battles" not in request.text, (request.chat_id, request.text)
    assert_log_keeps(
        logfmt(caplog.records), {repr(card), card.model_dump_json(), str(card.model_dump())}
    )

    assert (await advance(store, campaign_id, 1, Phase.BATTLES, GM, now, force=True)).advanced
    [resolution] = await store.resolutions(campaign_id, 1)
    assert [order.data["token"] for order in resolution.late["blue"]] == ["O1"]
    closed = await table.forged(301, window.buttons()[0][1])
    assert "больше нельзя" in alert(closed)


class _FinalSiege(SiegeBotModule):
    """The siege's bot side, registered in a test with late orders that stay played."""

    def late_orders_final(self) -> bool:
        return True


async def test_a_module_registered_later_keeps_its_final_late_orders(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a late order can be taken back is read from the registry when asked, so a bot
    side registered after import whose late orders are final keeps them."""
    table = await open_table(telegram, store, clock, SIEGE)
    campaign_id = table.campaign.id
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    assert await make_choice(store, campaign_id, "siege", {"weather": 0}, GM, now) is (
        ChoiceOutcome.MADE
    )
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, now)).advanced
    sent = await telegram.deliver()
    [window] = [s for s in sent if "lt:" in str(s.buttons())]
    assert alert(await table.tap(301, window, "сыграть карту O1 после боёв")) == "Сохранено."
    [card] = (await store.late_orders(campaign_id, 1))["blue"].orders

    monkeypatch.setitem(BOT_MODULES, "siege", _FinalSiege())
    taken = await take_back_late_order(store, campaign_id, "blue", 0, card, 301, now, 1)
    assert taken.refusal is LateRefusal.FINAL
    assert not taken.changed
    assert (await store.late_orders(campaign_id, 1))["blue"].orders == (card,)
