"""``/history``, ``/stats`` and the summary post at a campaign's end, through the real dispatcher,
on campaigns played by the storage script (orders, lists, reports, confirmations, Mondays)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import pytest
from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage, SendPhoto
from aiogram.types import BufferedInputFile
from aiogram.utils.i18n import I18n
from PIL import Image

import bot.posts.history
from bot.handlers.history import HistoryList, HistoryPress
from bot.posts import PostContext, render
from bot.posts.history import summary_text
from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.screens.charts import ChartSide, ChartWords, held_chart
from bot.screens.map_views import turn_map
from bot.services.campaigns import end_campaign
from bot.services.records import CampaignRecord, Tally, campaign_record
from rules import BattleResult, TurnReport
from storage import Campaign, CampaignSettings, CampaignStatus, Language, NewCampaign, Store
from tests.bot.telegram import FakeTelegram, Sent
from tests.storage.campaign_script import (
    GM,
    PLAYERS,
    PlayedTurn,
    at,
    deploy,
    new_campaign,
    play_turn,
    strategist,
    tactician,
)

CHAT = -1001
OTHER_CHAT = -2002
SEED = 7


async def _played(
    store: Store, turns: int, chat_id: int = CHAT, to_win: int = 4
) -> tuple[Campaign, list[PlayedTurn]]:
    campaign = await new_campaign(store, chat_id=chat_id)
    if to_win != 4:
        rules = CampaignSettings(ruleset_overrides={"sectors_to_win": to_win})
        await store.update_settings(campaign.id, rules, GM, at(0, 0.5))
    await deploy(store, campaign.id)
    played = []
    for turn in range(1, turns + 1):
        now = await store.campaign(campaign.id)
        assert now is not None
        if now.status is CampaignStatus.FINISHED:
            break
        played.append(await play_turn(store, campaign.id, turn, SEED))
    found = await store.campaign(campaign.id)
    assert found is not None
    return found, played


async def _quiet(telegram: FakeTelegram) -> FakeTelegram:
    """``telegram`` with the posts the script queued (Monday maps and so on) already sent."""
    await telegram.deliver()
    telegram.take()
    return telegram


def _table(store: Store, clock: ManualClock, i18n: I18n) -> FakeTelegram:
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n))
    telegram.group(CHAT, "Siege")
    telegram.group(OTHER_CHAT, "Elsewhere")
    telegram.user(GM, "Game Master")
    for user, _side, _roles in PLAYERS:
        telegram.user(user, f"Player {user}")
    return telegram


def _said(sent: list[Sent], chat: int) -> str:
    """Every caption and text sent to ``chat`` (a long caption goes on in messages)."""
    return "\n".join(s.text for s in sent if s.chat_id == chat)


def _photos(sent: list[Sent], chat: int) -> list[Sent]:
    return [s for s in sent if isinstance(s.method, SendPhoto) and s.chat_id == chat]


def _outcome(side: str, result: BattleResult) -> Tally:
    if not result.outcome.has_winner:
        return Tally(draws=1)
    return Tally(wins=1) if result.winner == side else Tally(losses=1)


async def test_the_record_counts_each_battle_for_both_sides_and_the_two_players_who_settled_it(
    store: Store,
) -> None:
    campaign, played = await _played(store, 3)
    record = await campaign_record(store, campaign)
    sides: dict[str, Tally] = {}
    players: dict[int, Tally] = {}
    for turn in played:
        assert turn.resolved.resolution is not None
        battles = {b.id: b for b in turn.resolved.resolution.report.battles}
        for result in turn.results:
            battle = battles[result.battle]
            for side in battle.participants():
                sides[side] = sides.get(side, Tally()).plus(_outcome(side, result))
            # The script: the attacker's tactician reports, the defender's confirms.
            for side in (battle.attacker, battle.defender):
                user = tactician(side)
                players[user] = players.get(user, Tally()).plus(_outcome(side, result))
    assert record.turns == len(played) == 3
    assert record.battles == sum(len(turn.results) for turn in played) > 0
    assert {side: t for side, t in record.sides.items() if t.battles} == sides
    assert {p.user_id: p.tally for p in record.players} == players
    # Held as each Monday counted it: nothing at the start, then each resolution's captures.
    for side, held in record.held.items():
        captured = [report.captured.get(side, ()) for report in _reports(played)]
        assert held == (0, *(len(sectors) for sectors in captured))


async def test_history_in_the_group_sends_a_turns_map_and_summary_and_refuses_other_chats(
    store: Store, i18n: I18n
) -> None:
    campaign, _ = await _played(store, 2)
    clock = ManualClock(at(3))
    telegram = await _quiet(_table(store, clock, i18n))
    gm = telegram.users[GM]
    screen = await telegram.feed(telegram.message(gm, CHAT, "/history"))
    assert screen is not None
    assert isinstance(screen.method, SendMessage)
    assert "2 turns resolved" in screen.text
    labels = [text for text, _ in screen.buttons()]
    assert labels == ["Deployment", "Turn 1", "Turn 2"]
    turn_two = HistoryPress(c=campaign.id, t=2).pack()
    answer = await telegram.feed(telegram.press(gm, screen, turn_two))
    assert answer is not None
    assert isinstance(answer.method, AnswerCallbackQuery)
    [post] = _photos(await telegram.deliver(), CHAT)
    assert "Turn 2 resolved." in post.text
    assert "Orders of side" not in post.text  # orders are for private chats
    assert isinstance(post.method, SendPhoto)
    photo = post.method.photo
    assert isinstance(photo, BufferedInputFile)
    assert Image.open(io.BytesIO(photo.data)).format == "PNG"
    # The same button pressed in another group (forwarded, or forged) shows nothing.
    stranger = telegram.users[strategist("blue")]
    refused = await telegram.feed(telegram.forged_press(stranger, OTHER_CHAT, turn_two))
    assert refused is not None
    assert isinstance(refused.method, AnswerCallbackQuery)
    assert refused.method.show_alert
    assert "not this chat's" in refused.text
    assert _photos(await telegram.deliver(), OTHER_CHAT) == []
    # A turn that is not resolved yet cannot be asked for.
    ahead = HistoryPress(c=campaign.id, t=3).pack()
    early = await telegram.feed(telegram.forged_press(gm, CHAT, ahead))
    assert early is not None
    assert "not been resolved" in early.text


async def test_private_history_adds_the_readers_own_orders_and_the_gm_sees_every_sides(
    store: Store, i18n: I18n
) -> None:
    campaign, played = await _played(store, 1)
    clock = ManualClock(at(2))
    telegram = await _quiet(_table(store, clock, i18n))
    names = {"red": "Red Legion", "blue": "Blue Host", "green": "Green Horde"}
    press = HistoryPress(c=campaign.id, t=1).pack()
    red = telegram.users[strategist("red")]
    screen = await telegram.feed(telegram.message(red, red.id, "/history"))
    assert screen is not None
    await telegram.feed(telegram.press(red, screen, press))
    delivered = await telegram.deliver()
    assert len(_photos(delivered, red.id)) == 1
    mine = _said(delivered, red.id)
    assert "Orders of side «Red Legion» this turn:" in mine
    assert all(names[side] + "» this turn" not in mine for side in ("blue", "green"))
    given = played[0].orders["red"]
    assert given.reinforce is not None
    gm = telegram.users[GM]
    await telegram.feed(telegram.forged_press(gm, GM, press))
    gms = _said(await telegram.deliver(), GM)
    for name in names.values():
        assert f"Orders of side «{name}» this turn:" in gms
    # Someone who is in no campaign has no history to browse, and cannot press one open.
    telegram.user(999, "Stranger")
    stranger = telegram.users[999]
    nothing = await telegram.feed(telegram.message(stranger, 999, "/history"))
    assert nothing is not None
    assert "no history here yet" in nothing.text
    refused = await telegram.feed(telegram.forged_press(stranger, 999, press))
    assert refused is not None
    assert "not this chat's" in refused.text
    assert _photos(await telegram.deliver(), 999) == []


async def test_the_end_summary_counts_sides_and_players_with_a_chart_in_russian(
    store: Store, i18n: I18n
) -> None:
    campaign, _ = await _played(store, 3)
    await store.update_settings(campaign.id, CampaignSettings(language="ru"), GM, at(3, 1))
    current = await store.campaign(campaign.id)
    assert current is not None
    clock = ManualClock(at(3, 2))
    telegram = _table(store, clock, i18n)
    telegram.take()
    ended = await end_campaign(store, current, GM, clock.now())
    assert ended is not None
    delivered = await telegram.deliver()
    summaries = [p for p in _photos(delivered, CHAT) if "Стороны" in p.text]
    [summary] = summaries
    assert summary.text.startswith(
        "Кампания «Siege of Planet Five» окончена после 3 ходов: мастер завершил её"
    )
    record = await campaign_record(store, ended)
    assert f"Сыграно боёв: {record.battles}." in summary.text
    red = record.sides["red"]
    assert f"• «Red Legion»: побед: {red.wins}, ничьих: {red.draws}, поражений: {red.losses}" in (
        summary.text
    )
    assert isinstance(summary.method, SendPhoto)
    photo = summary.method.photo
    assert isinstance(photo, BufferedInputFile)
    chart = Image.open(io.BytesIO(photo.data))
    assert chart.format == "PNG"
    assert chart.width == 960
    # The history screen of a finished campaign offers the summary again.
    screen = await telegram.feed(telegram.message(telegram.users[GM], CHAT, "/history"))
    assert screen is not None
    again = HistoryPress(c=campaign.id, t=-2).pack()
    await telegram.feed(telegram.press(telegram.users[GM], screen, again))
    assert len([p for p in _photos(await telegram.deliver(), CHAT) if "Стороны" in p.text]) == 1


async def test_a_won_campaign_is_summed_up_when_its_last_turn_resolves(
    store: Store, i18n: I18n
) -> None:
    campaign, played = await _played(store, 12, to_win=2)
    assert campaign.status is CampaignStatus.FINISHED, "the script's campaign should end"
    last = played[-1].resolved.resolution
    assert last is not None
    assert last.report.winner is not None
    queued = [m for m in await store.outbox_messages(campaign.id) if m.kind == "campaign_summary"]
    [summary] = queued
    assert summary.chat_id == CHAT
    post = await render(PostContext(store=store, i18n=i18n, bot_username="bot"), summary)
    assert post is not None
    assert post.photo is not None
    assert f"is over after {len(played)} turns: side «" in post.text
    assert "wins the campaign" in post.text


async def test_stats_counts_a_players_battles_over_the_groups_campaigns(
    store: Store, i18n: I18n
) -> None:
    first, _ = await _played(store, 2)
    await end_campaign(store, first, GM, at(3))
    second, _ = await _played(store, 1)
    clock = ManualClock(at(4))
    telegram = await _quiet(_table(store, clock, i18n))
    user = tactician("red")
    records = [await campaign_record(store, c) for c in (first, second)]
    tallies = [next(p.tally for p in r.players if p.user_id == user) for r in records]
    total = tallies[0].plus(tallies[1])
    me = telegram.users[user]
    answer = await telegram.feed(telegram.message(me, CHAT, "/stats"))
    assert answer is not None
    assert answer.text.startswith("Player 202: the record in this group's campaigns:")
    assert "In all: 2 campaigns, 0 won;" in answer.text
    assert f"{total.wins} win" in answer.text.splitlines()[-2]
    # A reply to someone's message asks for theirs.
    asked = telegram.users[tactician("blue")]
    theirs = await telegram.feed(
        telegram.message(
            me,
            CHAT,
            "/stats",
            reply_to_message=telegram.message(asked, CHAT, "gg").message,
        )
    )
    assert theirs is not None
    assert theirs.text.startswith("Player 302: the record")


GAPS = 3
"""The seed whose turn 1 lists three battles: the script disputes the second and leaves the
third unreported, and the GM forces the resolution."""

COUNTS = {
    "en": {
        "turn 1": "Turn 1 resolved.",
        "played": "11 battles were played.",
        "gaps": "Of them, 2 had no result and were counted as draws without losses.",
        "undecided": "disputed, not decided: counted as a draw without losses",
        "unreported": "no result reported: counted as a draw without losses",
        "side": "• «{side}»: {tally}; holds {held} of 4 sectors",
        "player": "• Player {user} («{side}»): {tally}",
    },
    "ru": {
        "turn 1": "Итоги хода 1 подведены.",
        "played": "Сыграно боёв: 11.",
        "gaps": "Из них без результата: 2 (каждому засчитана ничья без потерь).",
        "undecided": "оспорено, мастер не решил: засчитана ничья без потерь",
        "unreported": "результат не сообщён: засчитана ничья без потерь",
        "side": "• «{side}»: {tally}; удерживает {held} из 4 секторов",
        "player": "• Player {user} («{side}»): {tally}",
    },
}


def _tally_words(tally: Tally, language: str) -> str:
    if language == "ru":
        draws = f"ничьих: {tally.draws}"
        if tally.unreported:
            draws += f" (без результата: {tally.unreported})"
        return f"побед: {tally.wins}, {draws}, поражений: {tally.losses}"
    wins = f"{tally.wins} win" + ("" if tally.wins == 1 else "s")
    draws = f"{tally.draws} draw" + ("" if tally.draws == 1 else "s")
    if tally.unreported:
        draws += f" ({tally.unreported} without a result)"
    losses = f"{tally.losses} loss" + ("" if tally.losses == 1 else "es")
    return f"{wins}, {draws}, {losses}"


def _reports(played: list[PlayedTurn]) -> list[TurnReport]:
    reports = [turn.resolved.resolution.report for turn in played if turn.resolved.resolution]
    assert len(reports) == len(played)
    return reports


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_the_end_counts_every_battle_as_its_monday_did_and_holds_what_the_maps_held(
    store: Store, i18n: I18n, language: Language, monkeypatch: pytest.MonkeyPatch
) -> None:
    words = COUNTS[language]
    campaign = await new_campaign(store)
    await store.update_settings(campaign.id, CampaignSettings(language=language), GM, at(0, 0.5))
    await deploy(store, campaign.id)
    played = [
        await play_turn(store, campaign.id, 1, GAPS, unreported=1, disputed=1),
        await play_turn(store, campaign.id, 2, GAPS),
    ]
    first, second = _reports(played)
    assert (len(first.battles), first.unreported) == (3, (2, 3))
    clock = ManualClock(at(2, 1))
    telegram = _table(store, clock, i18n)
    [monday] = [
        p.text for p in _photos(await telegram.deliver(), CHAT) if words["turn 1"] in p.text
    ]
    # Monday said: battle 2 disputed and undecided, battle 3 unreported, each a draw.
    assert words["undecided"] in monday
    assert words["unreported"] in monday

    # Held: nothing at the start (the first map's «0 of 4»), then each Monday's captures.
    sides = await store.sides(campaign.id)
    names = {side.id: side.name for side in sides}
    views = []
    for turn in (1, 2, 3):
        state = await store.turn_start(campaign.id, turn)
        assert state is not None
        with i18n.context(), i18n.use_locale(language):
            views.append(await turn_map(store, campaign, state, sides, "T"))
    on_maps = {
        side: tuple(len((view.captured or {}).get(side, ())) for view in views) for side in names
    }
    assert all(counts[0] == 0 for counts in on_maps.values())
    assert any(counts[-1] for counts in on_maps.values())
    # /status (the board) counts them as the map of the turn does.
    status = await telegram.feed(telegram.message(telegram.users[GM], CHAT, "/status"))
    assert status is not None
    for side, counts in on_maps.items():
        held = words["side"].split("; ")[1].format(held=counts[-1])
        [line] = [line for line in status.text.splitlines() if f" {names[side]} (" in line]
        assert line.endswith(f"; {held}"), (line, held)

    charted: list[tuple[ChartSide, ...]] = []

    def chart(sides: Sequence[ChartSide], chart_words: ChartWords, goal: int | None) -> bytes:
        charted.append(tuple(sides))
        return held_chart(sides, chart_words, goal)

    monkeypatch.setattr(bot.posts.history, "held_chart", chart)
    current = await store.campaign(campaign.id)
    assert current is not None
    assert await end_campaign(store, current, GM, clock.now()) is not None
    [summary] = [p.text for p in _photos(await telegram.deliver(), CHAT) if "»: " in p.text]
    assert words["played"] in summary.splitlines()
    assert words["gaps"] in summary.splitlines()
    [drawn] = charted
    assert {line.name: line.held for line in drawn} == {
        names[side]: counts for side, counts in on_maps.items()
    }
    # Each side's and each player's battles as the Mondays counted them, a draw without a
    # result among the draws and said so; the unreported battle 3 credits no player.
    expected: dict[str, Tally] = {}
    credited: dict[int, tuple[str, Tally]] = {}
    for report in (first, second):
        for result in report.results:
            battle = report.battles[result.battle - 1]
            gap = Tally(unreported=1) if result.battle in report.unreported else Tally()
            for side in battle.participants():
                got = _outcome(side, result).plus(gap)
                expected[side] = expected.get(side, Tally()).plus(got)
                if report is not first or result.battle != 3:
                    user = tactician(side)
                    credited[user] = (side, credited.get(user, (side, Tally()))[1].plus(got))
    assert sum(tally.unreported for tally in expected.values()) == 4  # 2 battles, 2 sides each
    for side, tally in expected.items():
        line = words["side"].format(
            side=names[side], tally=_tally_words(tally, language), held=on_maps[side][-1]
        )
        assert line in summary.splitlines(), (line, summary)
    for user, (side, tally) in credited.items():
        line = words["player"].format(
            user=user, side=names[side], tally=_tally_words(tally, language)
        )
        assert line in summary.splitlines(), (line, summary)
    # /stats says the same of the player who reported the disputed battle.
    reporter = tactician(first.battles[1].attacker)
    speaker = telegram.user(reporter, f"Player {reporter}", language)
    answer = await telegram.feed(telegram.message(speaker, CHAT, "/stats"))
    assert answer is not None
    assert credited[reporter][1].unreported == 1
    assert _tally_words(credited[reporter][1], language) in answer.text.splitlines()[1]


WORDS = {
    "en": {
        "heading": "This group's 9 campaigns, newest first:",
        "newest": "• «Skirmish 11»: 23 Mar 2026 – 24 Mar 2026, 0 turns; no winner.",
        "page1": "Page 1 of 2.",
        "page2": "Page 2 of 2.",
        "older": "Older ▶",
        "newer": "◀ Newer",
        "played": "• «Siege of Planet Five»: 6 Jan 2026 – 26 Jan 2026, 2 turns; no winner.",
        "all": "◀ All campaigns",
        "private": "Your 9 campaigns, newest first:",
    },
    "ru": {
        "heading": "Кампании этой группы (9), сначала новые:",
        "newest": "• «Skirmish 11»: 23 марта 2026 – 24 марта 2026, 0 ходов; без победителя.",
        "page1": "Страница 1 из 2.",
        "page2": "Страница 2 из 2.",
        "older": "Более старые ▶",
        "newer": "◀ Более новые",
        "played": (
            "• «Siege of Planet Five»: 6 января 2026 – 26 января 2026, 2 хода; без победителя."
        ),
        "all": "◀ Все кампании",
        "private": "Ваши кампании (9), сначала новые:",
    },
}


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_history_pages_through_every_campaign_of_the_group_newest_first(
    store: Store, i18n: I18n, language: str
) -> None:
    played, _ = await _played(store, 2)
    assert await end_campaign(store, played, GM, at(3)) is not None
    # Eight more, each ended by its GM in deployment, in the reader's language: a group whose
    # campaigns are over reads in its latest campaign's language.
    for week in range(4, 12):
        quick = await store.create_campaign(
            NewCampaign(
                chat_id=CHAT,
                title=f"Skirmish {week}",
                time_zone="Europe/Moscow",
                language=language,
                created_by=GM,
                creator_name="Game Master",
            ),
            at(week),
        )
        ended = await store.set_status(
            quick.id, CampaignStatus.SETUP, CampaignStatus.FINISHED, GM, "ended", at(week, 24)
        )
        assert ended.applied
    words = WORDS[language]
    telegram = await _quiet(_table(store, ManualClock(at(12)), i18n))
    gm = telegram.user(GM, "Game Master", language)
    first = await telegram.feed(telegram.message(gm, CHAT, "/history"))
    assert first is not None
    lines = first.text.splitlines()
    assert lines[0] == words["heading"]
    assert lines[1] == words["newest"]
    assert words["page1"] in lines
    assert [text for text, _ in first.buttons()] == [
        *(f"📜 Skirmish {week}" for week in (11, 10, 9, 8, 7)),
        words["older"],
    ]
    await telegram.feed(telegram.press(gm, first, _data(first, words["older"])))
    [second] = [s for s in telegram.take() if isinstance(s.method, EditMessageText)]
    assert words["page2"] in second.text.splitlines()
    assert second.text.splitlines()[-3] == words["played"]
    assert [text for text, _ in second.buttons()] == [
        *(f"📜 Skirmish {week}" for week in (6, 5, 4)),
        "📜 Siege of Planet Five",
        words["newer"],
    ]
    await telegram.feed(telegram.press(gm, second, _data(second, "Siege of Planet Five")))
    [turns] = [s for s in telegram.take() if isinstance(s.method, EditMessageText)]
    labels = [text for text, _ in turns.buttons()]
    assert labels[-1] == words["all"]
    assert HistoryPress(c=played.id, t=-2).pack() in [data for _, data in turns.buttons()]
    await telegram.feed(telegram.press(gm, turns, _data(turns, words["all"])))
    [back] = [s for s in telegram.take() if isinstance(s.method, EditMessageText)]
    assert back.text == second.text
    # In private, the GM's own campaigns: the same nine.
    mine = await telegram.feed(telegram.message(gm, GM, "/history"))
    assert mine is not None
    assert mine.text.splitlines()[0] == words["private"]
    # A page that is not there shows the last one; another chat's list is its own.
    await telegram.feed(telegram.forged_press(gm, CHAT, HistoryList(p=99).pack()))
    [last] = [s for s in telegram.take() if isinstance(s.method, EditMessageText)]
    assert words["page2"] in last.text.splitlines()
    await telegram.feed(telegram.forged_press(gm, OTHER_CHAT, HistoryList(p=0).pack()))
    refused = telegram.take()
    assert not [s for s in refused if isinstance(s.method, EditMessageText)]


def _data(sent: Sent, label: str) -> str:
    [found] = [data for text, data in sent.buttons() if label in text]
    return found


async def test_a_campaign_ended_before_its_first_resolution_says_so(
    store: Store, i18n: I18n
) -> None:
    campaign = await new_campaign(store)
    record = CampaignRecord(
        campaign=campaign, turns=0, battles=0, sides={}, players=(), held={}, winner=None
    )
    sides = await store.sides(campaign.id)
    with i18n.context(), i18n.use_locale("ru"):
        first = summary_text(record, sides, 3).splitlines()[0]
    assert first == (
        f"Кампания «{campaign.title}» окончена: мастер завершил её до подведения итогов"
        " первого хода."
    )
