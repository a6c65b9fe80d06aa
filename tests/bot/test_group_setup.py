"""The setup wizard in the group: a GM creates a campaign step by step, in English and in
Russian; bad input is refused with a way forward; a restart loses nothing."""

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage
from aiogram.types import Chat, ForceReply, User
from aiogram.utils.i18n import I18n

import rules.modules
from bot.handlers.group.setup import SetupPress
from bot.modules import BOT_MODULES, BotModule
from bot.modules.protocol import OfferedMap
from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.services.campaigns import PALETTE
from bot.services.window import current_deadline
from rules.game import RulesModule
from storage import CampaignStatus, Phase, Store, UnreportedPolicy
from tests.bot.group_helpers import RUSSIAN_WIZARD, button, join_post, say, set_up_campaign, tap
from tests.bot.telegram import FakeTelegram, Sent

BAD_MAP = b"""
id = "ring"
name = "Ring"
[[sectors]]
id = "a"
name = "A"
neighbours = ["b"]
x = 0.2
y = 0.5
[[sectors]]
id = "b"
name = "B"
neighbours = []
x = 0.8
y = 0.5
"""

GOOD_MAP = b"""
id = "pair"
name = "Twin moons"
[[sectors]]
id = "1"
name = "North"
neighbours = ["2", "3"]
x = 0.2
y = 0.5
[[sectors]]
id = "2"
name = "South"
neighbours = ["1", "3"]
x = 0.8
y = 0.5
[[sectors]]
id = "3"
name = "East"
neighbours = ["1", "2"]
x = 0.5
y = 0.2
"""


async def test_a_gm_creates_a_campaign_in_english(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    asked = await say(telegram, anna, group, "/newcampaign")
    assert asked is not None
    assert "what is the campaign called" in asked.text
    zone = await say(telegram, anna, group, "Siege of Vraks")
    assert zone is not None
    assert "Step 2 of 6: time zone" in zone.text
    map_step = await tap(telegram, anna, zone, "Moscow")
    assert map_step is not None
    assert isinstance(map_step.method, EditMessageText)
    assert "Step 3 of 6: map" in map_step.text
    sides = await tap(telegram, anna, map_step, "🪐")
    for name in ("Red", "Blue"):
        ask = await tap(telegram, anna, sides, "Add a side")
        assert ask is not None
        assert "new side's name" in ask.text
        sides = await say(telegram, anna, group, name)
    assert sides is not None
    # Sides named after a colour take the safe colour nearest to it, named as the map draws it.
    assert "🟥 Red (vermillion)" in sides.text
    assert "🟦 Blue (blue)" in sides.text
    colours = await tap(telegram, anna, sides, "Blue: colour")
    assert colours is not None
    assert "vermillion" not in " ".join(text for text, _ in colours.buttons())
    sides = await tap(telegram, anna, colours, "🩵")  # sky blue: the GM may change it
    schedule = await tap(telegram, anna, sides, "Next")
    schedule = await tap(telegram, anna, schedule, "7 days")
    assert schedule is not None
    assert "deployment ends Mon 9 Mar, 23:59 (Moscow, UTC+3)" in schedule.text
    policy = await tap(telegram, anna, schedule, "Weekly")
    summary = await tap(telegram, anna, policy, "Wait for the GM")
    assert summary is not None
    assert "check and confirm" in summary.text
    assert "Time zone: Moscow" in summary.text
    assert "Map: Planet (5 sectors)" in summary.text
    assert "🩵 Blue (sky blue)" in summary.text
    telegram.take()
    await tap(telegram, anna, summary, "Open deployment")
    sent = telegram.take()
    assert [type(s.method) for s in sent] == [AnswerCallbackQuery, EditMessageText]
    announcement = await join_post(telegram)
    assert announcement.text.startswith("«Siege of Vraks» has begun! Deployment is open")
    assert "Players: tap «Join»" in announcement.text
    assert button(announcement, "Join").startswith("jn:")
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert (campaign.title, campaign.time_zone, campaign.language) == (
        "Siege of Vraks",
        "Europe/Moscow",
        "en",
    )
    assert (campaign.phase, campaign.status) == (Phase.DEPLOYMENT, CampaignStatus.DEPLOYMENT)
    assert campaign.unreported_policy is UnreportedPolicy.WAIT_FOR_GM
    stored = await store.sides(campaign.id)
    assert [(s.name, s.colour) for s in stored] == [("Red", PALETTE[5].hex), ("Blue", "#56b4e9")]
    member = await store.member(campaign.id, 1)
    assert member is not None
    assert member.is_gm
    status = await say(telegram, anna, group, "/status")
    assert status is not None
    assert (
        "Deadline: Mon 9 Mar, 23:59 (Moscow, UTC+3), or earlier once every side has confirmed "
        "its placement." in status.text
    )
    kinds = [m.kind for m in await store.outbox_messages(campaign.id)]
    assert "phase_notice" in kinds
    assert "status_board" in kinds


async def test_a_gm_creates_a_campaign_in_russian(telegram: FakeTelegram, store: Store) -> None:
    boris = telegram.user(2, "Борис", language="ru")
    group = telegram.group(-200, "Варгеймеры")
    asked = await say(telegram, boris, group, "/newcampaign")
    assert asked is not None
    assert "Как называется кампания" in asked.text
    campaign = await set_up_campaign(
        telegram,
        store,
        boris,
        group,
        title="Осада Вракса",
        sides=("Красные", "Синие"),
        labels=RUSSIAN_WIZARD,
        open_deployment=False,
    )
    summary = telegram.sent[-1]
    assert "проверьте и подтвердите" in summary.text
    assert "Часовой пояс: Москва" in summary.text
    telegram.take()
    await tap(telegram, boris, summary, "Открыть расстановку")
    announcement = await join_post(telegram)
    assert "«Осада Вракса» началась" in announcement.text
    assert button(announcement, "Вступить").startswith("jn:")
    opened = await store.campaign(campaign.id)
    assert opened is not None
    assert (opened.language, opened.phase) == ("ru", Phase.DEPLOYMENT)


async def test_a_name_given_with_the_command_skips_the_question(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    zone = await say(telegram, anna, group, "/newcampaign Hive War")
    assert zone is not None
    assert "Step 2 of 6" in zone.text
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert campaign.title == "Hive War"


async def test_the_time_zone_step_speaks_the_campaigns_language_and_takes_a_city(
    telegram: FakeTelegram, store: Store
) -> None:
    boris = telegram.user(2, "Борис", language="ru")
    group = telegram.group(-200, "Варгеймеры")
    zone = await say(telegram, boris, group, "/newcampaign Осада Вракса")
    assert zone is not None
    assert "Сейчас: UTC." in zone.text
    assert [text for text, _ in zone.buttons()][:9] == [
        *("Калининград", "Москва", "Самара", "Екатеринбург", "Новосибирск", "Владивосток"),
        *("Лондон", "Берлин", "UTC"),
    ]
    await tap(telegram, boris, zone, "Ввести другой")
    accepted = await say(telegram, boris, group, "омск")
    assert accepted is not None
    assert "Шаг 3 из 6" in accepted.text
    campaign = await store.active_campaign(-200)
    assert campaign is not None
    assert campaign.time_zone == "Asia/Omsk"


async def test_a_bad_time_zone_is_refused_and_a_good_one_typed_is_taken(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    zone = await say(telegram, anna, group, "/newcampaign Hive War")
    ask = await tap(telegram, anna, zone, "Type another")
    assert ask is not None
    assert "reply with the time zone" in ask.text
    refusal = await say(telegram, anna, group, "Mars/Olympus")
    assert refusal is not None
    assert "I do not know the time zone «Mars/Olympus»" in refusal.text
    assert "Type a city such as Novosibirsk" in refusal.text
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert campaign.time_zone == "UTC"
    accepted = await say(telegram, anna, group, "asia/omsk")
    assert accepted is not None
    assert "Step 3 of 6" in accepted.text
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert campaign.time_zone == "Asia/Omsk"
    assert await store.prompt(-100, 1) is None


async def test_a_bad_map_file_is_refused_with_the_rules_reasons(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    zone = await say(telegram, anna, group, "/newcampaign Hive War")
    map_step = await tap(telegram, anna, zone, "Moscow")
    await tap(telegram, anna, map_step, "Upload a map file")
    refusal = await telegram.feed(telegram.document(anna, group, "ring.toml", BAD_MAP))
    assert refusal is not None
    assert "I cannot use that map" in refusal.text
    assert "Sector a lists b as a neighbour, but b does not list a." in refusal.text
    garbage = await telegram.feed(telegram.document(anna, group, "x.toml", b"id = [unclosed"))
    assert garbage is not None
    assert "not valid TOML" in garbage.text
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert campaign.map == "planet-5"
    accepted = await telegram.feed(telegram.document(anna, group, "twin.toml", GOOD_MAP))
    assert accepted is not None
    assert "Map «Twin moons» accepted" in accepted.text
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert not isinstance(campaign.map, str)
    assert campaign.map.name == "Twin moons"


async def test_typed_rules_are_checked_as_a_ruleset(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    summary = telegram.sent[-1]
    rules = await tap(telegram, anna, summary, "Rules")
    assert rules is not None
    await tap(telegram, anna, rules, "⌨️")
    refusal = await say(telegram, anna, group, "start_armies=2")
    assert refusal is not None
    assert "do not make a valid ruleset" in refusal.text
    unknown = await say(telegram, anna, group, "dice=6")
    assert unknown is not None
    assert "«dice=6» cannot be used" in unknown.text
    accepted = await say(telegram, anna, group, "start_armies=12 sectors_to_win=4")
    assert accepted is not None
    assert "Rules: Starting armies per side: 12; Captured sectors to win: 4" in accepted.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.ruleset_overrides == {"start_armies": 12, "sectors_to_win": 4}


async def test_rules_are_changed_by_buttons_named_in_words(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    rules = await tap(telegram, anna, telegram.sent[-1], "Rules")
    assert rules is not None
    assert "• Starting armies per side: 10" in rules.text
    assert "start_armies" not in rules.text + " ".join(text for text, _ in rules.buttons())

    def press(value: str) -> str:
        return SetupPress(c=campaign.id, a="rule", v=value).pack()

    for value in ("start_armies.+", "start_armies.+", "battle_points.-", "sectors_to_win.-"):
        shown = await telegram.feed(telegram.press(anna, rules, press(value)))
        assert shown is not None
        rules = shown
    assert "• Starting armies per side: 12" in rules.text
    assert "• Points per battle: 750" in rules.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.ruleset_overrides == {
        "start_armies": 12,
        "battle_points": 750,
        "sectors_to_win": 2,
    }
    # Fewer armies than sectors to deploy in would not hold: refused, nothing changed.
    for _ in range(9):
        await telegram.feed(telegram.press(anna, rules, press("start_armies.-")))
    telegram.take()
    await telegram.feed(telegram.press(anna, rules, press("start_armies.-")))
    alerts = [s.method for s in telegram.take() if isinstance(s.method, AnswerCallbackQuery)]
    assert [(a.text, a.show_alert) for a in alerts] == [
        ("Not possible: the rules would not hold with that number.", True)
    ]
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.ruleset_overrides["start_armies"] == 3
    await telegram.feed(telegram.press(anna, rules, press("default")))
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.ruleset_overrides == {}


async def test_too_few_sides_block_the_start(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(
        telegram, store, anna, group, sides=("Red",), open_deployment=False
    )
    summary = telegram.sent[-1]
    telegram.take()
    await tap(telegram, anna, summary, "Open deployment")
    sent = telegram.take()
    assert len(sent) == 1
    assert isinstance(sent[0].method, AnswerCallbackQuery)
    assert sent[0].method.show_alert
    assert "at least two sides" in (sent[0].method.text or "")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.phase is Phase.SETUP


async def test_only_the_gm_may_press_the_wizard_buttons(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna")
    vera = telegram.user(3, "Vera")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    summary = telegram.sent[-1]
    telegram.take()
    await tap(telegram, vera, summary, "Open deployment")
    sent = telegram.take()
    assert len(sent) == 1
    assert isinstance(sent[0].method, AnswerCallbackQuery)
    assert "Only this campaign's GM" in (sent[0].method.text or "")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.phase is Phase.SETUP
    again = await say(telegram, vera, group, "/newcampaign Mine")
    assert again is not None
    assert "Only this campaign's GM" in again.text


async def test_newcampaign_in_private_says_where_it_works(telegram: FakeTelegram) -> None:
    anna = telegram.user(1, "Anna")
    reply = await say(telegram, anna, anna.id, "/newcampaign")
    assert reply is not None
    assert reply.chat_id == 1
    assert "works in the campaign's group chat" in reply.text


async def test_a_running_campaign_blocks_a_second_one(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    await set_up_campaign(telegram, store, anna, group)
    reply = await say(telegram, anna, group, "/newcampaign Another")
    assert reply is not None
    assert "already runs «Siege of Vraks»" in reply.text
    assert len(await store.campaigns_in_chat(-100)) == 1


async def test_stale_wizard_buttons_after_the_start_change_nothing(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    await say(telegram, anna, group, "/newcampaign Hive War")
    sides_screen = None
    zone = telegram.sent[-1]
    map_step = await tap(telegram, anna, zone, "Moscow")
    sides_screen = await tap(telegram, anna, map_step, "🪐")
    for name in ("Red", "Blue"):
        await tap(telegram, anna, sides_screen, "Add a side")
        sides_screen = await say(telegram, anna, group, name)
    summary = await tap(telegram, anna, sides_screen, "Next")
    summary = await tap(telegram, anna, summary, "Weekly")
    summary = await tap(telegram, anna, summary, "Draw")
    await tap(telegram, anna, summary, "Open deployment")
    telegram.take()
    await tap(telegram, anna, sides_screen, "Remove Red")
    sent = telegram.take()
    assert len(sent) == 1
    assert isinstance(sent[0].method, AnswerCallbackQuery)
    assert "out of date" in (sent[0].method.text or "")
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert [s.name for s in await store.sides(campaign.id)] == ["Red", "Blue"]


async def test_a_restart_in_the_middle_of_the_wizard_continues(
    store: Store, clock: ManualClock, i18n: I18n
) -> None:
    before = FakeTelegram(build_dispatcher(store, clock, i18n))
    anna = before.user(1, "Anna")
    group = before.group(-100, "Wargamers")
    zone = await say(before, anna, group, "/newcampaign Hive War")
    map_step = await tap(before, anna, zone, "Moscow")
    sides = await tap(before, anna, map_step, "🪐")
    await tap(before, anna, sides, "Add a side")
    # The process restarts while the bot waits for the side's name.
    after = FakeTelegram(build_dispatcher(store, clock, i18n))
    anna = after.user(1, "Anna")
    group = after.group(-100, "Wargamers")
    sides = await say(after, anna, group, "Red")
    assert sides is not None
    assert "🟥 Red (vermillion)" in sides.text
    await after.feed(after.press(anna, sides, button(sides, "Add a side")))
    sides = await say(after, anna, group, "Blue")
    resumed = await say(after, anna, group, "/newcampaign")
    assert resumed is not None
    assert "check and confirm" in resumed.text
    assert "🟥 Red (vermillion)" in resumed.text
    await tap(after, anna, resumed, "Open deployment")
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert campaign.phase is Phase.DEPLOYMENT


async def test_the_summary_changes_name_and_language_or_cancels(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    summary = telegram.sent[-1]
    ask = await tap(telegram, anna, summary, "Name")
    assert ask is not None
    assert ask.text == "Anna, reply to this message with the campaign's new name."
    # In a group a bot sees only commands and replies: the question forces Anna's reply.
    assert isinstance(ask.method, SendMessage)
    assert isinstance(ask.method.reply_markup, ForceReply)
    assert ask.method.reply_markup.selective
    mention = (ask.method.entities or [])[0]
    assert (mention.type, mention.offset, mention.length) == ("text_mention", 0, 4)
    assert mention.user is not None
    assert mention.user.id == 1
    renamed = await say(telegram, anna, group, "Hive War")
    assert renamed is not None
    assert renamed.text.startswith("New campaign «Hive War»: check and confirm.")
    russian = await tap(telegram, anna, renamed, "Русский")
    assert russian is not None
    assert russian.text.startswith("Новая кампания «Hive War»: проверьте и подтвердите.")
    assert "Язык постов здесь: русский" in russian.text
    cancelled = await tap(telegram, anna, russian, "Отменить кампанию")
    assert cancelled is not None
    assert "отменена" in cancelled.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert (stored.title, stored.language, stored.status) == (
        "Hive War",
        "ru",
        CampaignStatus.FINISHED,
    )
    assert await store.active_campaign(-100) is None


async def test_an_answer_delivered_twice_is_taken_once_and_shows_its_step(
    telegram: FakeTelegram, store: Store
) -> None:
    """The bot stopped after saving an answer and before showing the next step: the same
    message, delivered again, shows that step and changes nothing."""
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    await say(telegram, anna, group, "/newcampaign")
    title = telegram.message(anna, group, "Hive War")
    first = await telegram.feed(title)
    again = await telegram.feed(title)
    assert first is not None
    assert again is not None
    assert "Step 2 of 6" in again.text
    assert again.text == first.text
    campaigns = await store.campaigns_in_chat(-100)
    assert [c.title for c in campaigns] == ["Hive War"]
    sides = await tap(telegram, anna, await tap(telegram, anna, again, "UTC"), "🪐")
    await tap(telegram, anna, sides, "Add a side")
    red = telegram.message(anna, group, "Red")
    shown = await telegram.feed(red)
    assert await telegram.feed(red) == shown
    assert [side.name for side in await store.sides(campaigns[0].id)] == ["Red"]
    # Another message with the same text is not a repeat: nothing waits for it, so it is not
    # taken (a side's name needs «Add a side» first).
    assert await say(telegram, anna, group, "Red") is None
    assert [side.name for side in await store.sides(campaigns[0].id)] == ["Red"]


async def test_a_zone_switch_keeps_the_deployment_deadline_at_its_local_time(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    zone = await say(telegram, anna, group, "/newcampaign Hive War")
    map_step = await tap(telegram, anna, zone, "UTC")
    sides = await tap(telegram, anna, map_step, "🪐")
    for name in ("Red", "Blue"):
        await tap(telegram, anna, sides, "Add a side")
        sides = await say(telegram, anna, group, name)
    schedule = await tap(telegram, anna, sides, "Next")
    schedule = await tap(telegram, anna, schedule, "7 days")
    assert schedule is not None
    assert "deployment ends Mon 9 Mar, 23:59 (UTC)" in schedule.text
    policy = await tap(telegram, anna, schedule, "Weekly")
    summary = await tap(telegram, anna, policy, "Draw without losses")

    # Typed: Kolkata is five and a half hours ahead; the deadline stays Monday 23:59 there.
    zones = await tap(telegram, anna, summary, "Time zone")
    await tap(telegram, anna, zones, "Type another")
    typed = await say(telegram, anna, group, "Asia/Kolkata")
    assert typed is not None
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    chosen = campaign.schedule.deployment_deadline
    assert chosen is not None
    assert chosen == datetime(2026, 3, 9, 18, 29, tzinfo=UTC)  # 23:59 at UTC+5:30
    shown = await summary_of(telegram, store, anna, group)
    assert "deployment ends Mon 9 Mar, 23:59 (Kolkata, UTC+5:30)" in shown.text

    # A button: Berlin, an hour ahead of UTC in March.
    zones = await tap(telegram, anna, shown, "Time zone")
    await tap(telegram, anna, zones, "Berlin")
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert campaign.schedule.deployment_deadline == datetime(2026, 3, 9, 22, 59, tzinfo=UTC)
    shown = await summary_of(telegram, store, anna, group)
    assert "deployment ends Mon 9 Mar, 23:59 (Berlin, UTC+1)" in shown.text
    telegram.take()
    await tap(telegram, anna, shown, "Open deployment")
    announcement = await join_post(telegram)
    assert "Deadline: Mon 9 Mar, 23:59 (Berlin, UTC+1), or earlier once" in announcement.text
    started = await store.active_campaign(-100)
    assert started is not None
    assert await current_deadline(store, started) == datetime(2026, 3, 9, 22, 59, tzinfo=UTC)


async def summary_of(telegram: FakeTelegram, store: Store, gm: User, group: Chat) -> Sent:
    """The wizard's summary, as ``/newcampaign`` shows it again during setup."""
    shown = await say(telegram, gm, group, "/newcampaign")
    assert shown is not None
    assert "check and confirm" in shown.text
    return shown


async def test_a_campaign_the_core_would_end_at_the_first_resolution_is_warned(
    telegram: FakeTelegram, store: Store
) -> None:
    """Issue 30: whenever the summary can see that the core's victory is reachable at the first
    resolution from the start alone (a small map for the sides' deployment, or a low goal), it
    warns and offers the fix with a button: a capture goal the first resolution cannot reach,
    and with contact, victory points only. The rules' own planet with the standard numbers is
    never warned about."""
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group, open_deployment=False)
    summary: Sent | None = telegram.sent[-1]
    assert summary is not None
    assert "⚠" not in summary.text
    rules = await tap(telegram, anna, summary, "Rules")
    await tap(telegram, anna, rules, "⌨️")
    summary = await say(telegram, anna, group, "sectors_to_win=2")
    assert summary is not None
    assert (
        "⚠ The first resolution can end this campaign before anything else matters: on this "
        "map a side can have 3 armies or more, and no other side, in each of 2 sectors by then, "
        "which captures them, and 2 captured sectors win."
    ) in summary.text
    assert "«🏆 Captured sectors to win: 3» asks for more than the first resolution" in (
        summary.text
    )
    fixes = [text for text, data in summary.buttons() if ":vc:" in data]
    assert fixes == ["🏆 Captured sectors to win: 3"]
    summary = await tap(telegram, anna, summary, "🏆 Captured sectors to win: 3")
    assert summary is not None
    assert "⚠" not in summary.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.ruleset_overrides == {}  # 3 is the standard goal

    # The night map of six sectors: two sides of three sectors each fit side by side.
    map_step = await tap(telegram, anna, summary, "Map")
    assert map_step is not None
    assert "the night map «Night Moscow» made for the Watches" in map_step.text
    await tap(telegram, anna, map_step, "🌃 Night Moscow (6 sectors)")
    summary = await say(telegram, anna, group, "/newcampaign")
    assert summary is not None
    assert "Map: Night Moscow (6 sectors)" in summary.text
    assert "in each of 3 sectors by then" in summary.text
    contact = await tap(telegram, anna, summary, "🧟 Contact")
    contact = await tap(telegram, anna, contact, "Switch contact on")
    summary = await tap(telegram, anna, contact, "◀ Back")
    assert summary is not None
    assert (
        "«🧟 Victory points only» sets 10 VP to win (change them under «🧟 Contact»), and "
        "captured sectors win only when a side holds all 6 of the map"
    ) in summary.text
    fixes = [text for text, data in summary.buttons() if ":vc:" in data]
    assert fixes == ["🏆 Captured sectors to win: 4", "🧟 Victory points only"]
    summary = await tap(telegram, anna, summary, "🧟 Victory points only")
    assert summary is not None
    assert "⚠" not in summary.text
    assert "Contact: on, 0 sectors with defences, 10 VP win" in summary.text
    assert "Captured sectors to win: 6" in summary.text

    # Siege has no victory of its own: the capture goal is the fix.
    contact = await tap(telegram, anna, summary, "🧟 Contact")
    contact = await tap(telegram, anna, contact, "Switch contact off")
    rules = await tap(telegram, anna, contact, "◀ Back")
    rules = await tap(telegram, anna, rules, "Rules")
    rules = await tap(telegram, anna, rules, "Standard rules")
    siege = await tap(telegram, anna, rules, "◀ Back")
    siege = await tap(telegram, anna, siege, "🏰 Midnight Siege")
    siege = await tap(telegram, anna, siege, "Switch the siege on")
    summary = await tap(telegram, anna, siege, "◀ Back")
    assert summary is not None
    fixes = [text for text, data in summary.buttons() if ":vc:" in data]
    assert fixes == ["🏆 Captured sectors to win: 4"]
    summary = await tap(telegram, anna, summary, "🏆 Captured sectors to win: 4")
    assert summary is not None
    assert "⚠" not in summary.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.ruleset_overrides["sectors_to_win"] == 4


MAP_STEP = {
    "en": (
        "Step 3 of 6: map. Now: Planet (5 sectors).\nUse the rules' planet of five sectors, the "
        "night map «Night Moscow» made for the Watches, or upload your own map as a TOML file."
    ),
    "ru": (
        "Шаг 3 из 6: карта. Сейчас: Планета (5 секторов).\nВозьмите планету из пяти секторов, "
        "как в правилах, ночную карту «Ночная Москва» для Дозоров или загрузите свою карту "
        "файлом TOML."
    ),
}
MAP_BUTTONS = {
    "en": ["🪐 Planet (5 sectors)", "🌃 Night Moscow (6 sectors)", "📎 Upload a map file"],
    "ru": ["🪐 Планета (5 секторов)", "🌃 Ночная Москва (6 секторов)", "📎 Загрузить файл карты"],
}


async def _map_step(telegram: FakeTelegram, language: str) -> Sent:
    gm = telegram.user(1, "Anna", language=language)
    group = telegram.group(-100, "Wargamers")
    zone = await say(telegram, gm, group, "/newcampaign Hive War")
    assert zone is not None
    map_step = await tap(telegram, gm, zone, {"en": "Moscow", "ru": "Москва"}[language])
    assert map_step is not None
    return map_step


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_the_map_step_offers_the_planet_each_modules_maps_and_the_upload(
    telegram: FakeTelegram, store: Store, language: str
) -> None:
    map_step = await _map_step(telegram, language)
    assert map_step.text.endswith(MAP_STEP[language])
    assert [text for text, _ in map_step.buttons()][:3] == MAP_BUTTONS[language]
    picked = await tap(telegram, telegram.user(1, "Anna"), map_step, "🌃")
    assert picked is not None
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert campaign.map == "night-demo"


class _NightfallRules(RulesModule):
    """A module registered only in a test, offering the night map in the Watches' place."""

    name = "nightfall"
    maps = ("night-demo",)


class _NightfallBot(BotModule):
    name = "nightfall"

    def wizard_maps(self, language: str) -> Sequence[OfferedMap]:
        return (OfferedMap("night-demo", "🌙 {map}", "the night map"),)


async def test_the_map_step_takes_the_maps_of_the_modules_registered_when_pressed(
    telegram: FakeTelegram, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wizard reads the registry when a map is pressed: a map a module registered later
    offers is taken, and a map no registered module offers any more is refused."""
    without_watch = tuple(m for m in rules.modules.BUILTIN_MODULES if m.name != "watch")
    monkeypatch.setattr(rules.modules, "BUILTIN_MODULES", (*without_watch, _NightfallRules()))
    monkeypatch.delitem(BOT_MODULES, "watch")
    monkeypatch.setitem(BOT_MODULES, "nightfall", _NightfallBot())
    anna = telegram.user(1, "Anna")
    map_step = await _map_step(telegram, "en")
    assert "🌙 Night Moscow (6 sectors)" in [text for text, _ in map_step.buttons()]

    # Nightfall taken out again: its button, pressed now, changes nothing.
    monkeypatch.setattr(rules.modules, "BUILTIN_MODULES", without_watch)
    monkeypatch.delitem(BOT_MODULES, "nightfall")
    await tap(telegram, anna, map_step, "🌙 Night Moscow (6 sectors)")
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert campaign.map == "planet-5"

    # Registered again: the same press takes the night map.
    monkeypatch.setattr(rules.modules, "BUILTIN_MODULES", (*without_watch, _NightfallRules()))
    monkeypatch.setitem(BOT_MODULES, "nightfall", _NightfallBot())
    picked = await tap(telegram, anna, map_step, "🌙 Night Moscow (6 sectors)")
    assert picked is not None
    campaign = await store.active_campaign(-100)
    assert campaign is not None
    assert campaign.map == "night-demo"


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "Use the rules' planet of five sectors or upload your own map as a TOML file."),
        (
            "ru",
            "Возьмите планету из пяти секторов, как в правилах, или загрузите свою карту "
            "файлом TOML.",
        ),
    ],
)
async def test_without_a_modules_map_the_step_offers_the_planet_and_the_upload(
    telegram: FakeTelegram, monkeypatch: pytest.MonkeyPatch, language: str, sentence: str
) -> None:
    for module in BOT_MODULES.values():
        monkeypatch.setattr(module, "wizard_maps", lambda language: ())
    map_step = await _map_step(telegram, language)
    assert map_step.text.endswith(sentence)
    assert [text for text, _ in map_step.buttons()][:2] == [
        MAP_BUTTONS[language][0],
        MAP_BUTTONS[language][2],
    ]
