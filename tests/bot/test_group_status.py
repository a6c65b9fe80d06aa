"""Public commands in the group: the map, the battle list and the rules, for everyone; secret
commands point to the private chat."""

from datetime import UTC, datetime

import pytest
from aiogram.methods import AnswerCallbackQuery, SendPhoto
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.screens import rendering
from bot.services.clockwork import advance
from bot.services.outbox_sender import OutboxSender
from rules import Attack, SideOrders
from rules.render import RUSSIAN_LABELS, MapView, render_map
from storage import CampaignSettings, Phase, Store
from tests.bot.group_helpers import button, say, set_up_campaign, tap, to_battles, to_orders
from tests.bot.telegram import FakeTelegram


async def test_map_battles_and_rules_in_the_group(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    anna = telegram.user(1, "Anna")
    vera = telegram.user(3, "Vera")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    early = await say(telegram, vera, group, "/map")
    assert early is not None
    assert "until then the armies are secret" in early.text
    no_list = await say(telegram, vera, group, "/battles")
    assert no_list is not None
    assert "No battle list this turn yet" in no_list.text
    await to_battles(store, campaign, clock.now())
    picture = await say(telegram, vera, group, "/map")
    assert picture is not None
    assert isinstance(picture.method, SendPhoto)
    assert picture.text == "Siege of Vraks: the map at the start of turn 1."
    battles = await say(telegram, vera, group, "/battles")
    assert battles is not None
    assert battles.text.startswith("Turn 1: battles\nBattle 1: Red attacks Blue in 1 ")
    rules = await say(telegram, vera, group, "/rules")
    assert rules is not None
    assert "Map: Planet (5 sectors)." in rules.text
    assert "Schedule (Moscow time): weekly" in rules.text
    assert "Now: turn 1, battles." in rules.text


async def test_secret_commands_in_the_group_point_to_the_private_chat(
    telegram: FakeTelegram,
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    for command in ("/orders", "/deploy"):
        reply = await say(telegram, anna, group, command)
        assert reply is not None
        assert "Orders are secret" in reply.text
        assert button(reply, "Open the private chat") == "https://t.me/strategium_bot"


async def test_the_battle_list_stays_secret_until_its_friday_post(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    anna = telegram.user(1, "Anna")
    vera = telegram.user(3, "Vera")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    campaign = await to_orders(store, campaign, clock.now())
    red, blue = (side.id for side in await store.sides(campaign.id))
    attacks = SideOrders(attacks=(Attack(sector="1", target=blue),) * 2, reinforce="4")
    await store.save_orders(campaign.id, 1, red, attacks, True, 1, clock.now())
    friday_noon = datetime(2026, 3, 6, 9, 0, tzinfo=UTC)  # 12:00 in Moscow
    closed = await advance(
        store, campaign.id, 1, Phase.ORDERS, None, clock.now(), post_at=friday_noon
    )
    assert closed.advanced
    sender = OutboxSender(telegram.bot, store, clock, i18n)
    await sender.send_due()
    early_posts = [s.text for s in telegram.take() if s.chat_id == group.id]
    assert early_posts, "the board and other posts went out at once"
    assert not any("Battle results in" in text or "Battle 1" in text for text in early_posts)

    battles = await say(telegram, vera, group, "/battles")
    assert battles is not None
    assert battles.text == (
        "The orders are in. The battle list is posted here on Fri 6 Mar, 12:00 (Moscow, UTC+3)."
    )
    status = await say(telegram, vera, group, "/status")
    assert status is not None
    assert "Turn 1: battles" in status.text
    assert "Battle results in" not in status.text
    panel = await say(telegram, anna, anna.id, "/gm")
    telegram.take()
    await tap(telegram, anna, panel, "Battle results")
    [answer] = telegram.take()
    assert isinstance(answer.method, AnswerCallbackQuery)
    assert answer.method.show_alert
    assert answer.text == (
        "The battle list is posted on Fri 6 Mar, 12:00 (Moscow, UTC+3); set results after that."
    )

    clock.set(friday_noon)
    telegram.take()
    await sender.send_due()
    await sender.send_due()
    friday = [s.text for s in telegram.take() if s.chat_id == group.id]
    assert any(text.startswith("Turn 1: the battle list.") for text in friday)
    assert any("Battle results in: 0 of 2." in text for text in friday), "the board catches up"
    battles = await say(telegram, vera, group, "/battles")
    assert battles is not None
    assert battles.text.startswith("Turn 1: battles\nBattle 1: Red attacks Blue in 1 ")
    status = await say(telegram, vera, group, "/status")
    assert status is not None
    assert "Battle results in: 0 of 2." in status.text


async def test_the_map_of_a_russian_campaign_has_russian_labels(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    await store.update_settings(campaign.id, CampaignSettings(language="ru"), 1, clock.now())
    campaign = await to_orders(store, campaign, clock.now())
    drawn: list[MapView] = []

    def drawing(view: MapView) -> bytes:
        drawn.append(view)
        return render_map(view)

    monkeypatch.setattr(rendering, "render_map", drawing)
    picture = await say(telegram, anna, group, "/map")
    assert picture is not None
    assert isinstance(picture.method, SendPhoto)
    assert [view.labels for view in drawn] == [RUSSIAN_LABELS]
    assert drawn[0].language == "ru"
