"""Public commands in the group: the map, the battle list and the rules, for everyone; secret
commands point to the private chat."""

from aiogram.methods import SendPhoto

from bot.clock import ManualClock
from storage import Store
from tests.bot.group_helpers import button, say, set_up_campaign, to_battles
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
    assert "Each side starts with 10 armies in 3 sectors" in rules.text
    assert "Time zone: Europe/Moscow" in rules.text


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
