"""A whole campaign through the real bot process, over HTTP, from /newcampaign to a winner.

A GM and six players on three sides (Red in English, Синие in Russian, Green mixed) play three
weekly turns against ``python -m bot`` on the local Bot API emulator: setup through the wizard
(with a typed ruleset), joining through the group's button and the private deep link,
deployment by buttons and by typed lines (one refused), orders by buttons and by typed lines in
both languages (some refused), two players who ask to join after deployment (the GM approves
one in private and refuses the other), battle results reported, confirmed, left unanswered (the
report stands), disputed with the other side's own account and decided by the GM in private, a
GM undo of a published battle list and a re-advance, and the map posted each Monday.
The week moves only when the test sets the bot's clock (``POST /clock``), never by sleeping.
In the middle of week 2 the process is killed with SIGKILL, a player writes while it is down,
and it is started again on the same database.

Then, from every request the bot made (recorded by a proxy) and from its database:
- no request to the group or to another side's member carried a side's secret orders before
  they were public (attacks until the orders closed, moves and reinforcements until the turn
  resolved);
- every post arrived once: no outbox post sent twice, none lost, no repeated message in a chat
  within a step, and exactly one map photo in the group each Monday;
- every stored turn replays through ``python -m rules resolve`` to the next stored turn-start
  state, and the last to the final state with the winner.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
from aiogram.utils.i18n import I18n

from bot.services.turns import game_for
from bot.texts.core import armies, describe_order
from bot.texts.i18n import build_i18n
from bot.texts.sectors import sector_label
from rules import Attack, Move, Reinforce, SideOrders
from rules.render import held_sectors
from storage import (
    CampaignStatus,
    OutboxMessage,
    OutboxState,
    Phase,
    SqliteCampaignStore,
    Store,
)
from tests.e2e.conftest import ROOT, BotService, RecordedRequest
from tests.e2e.harness import Chat, ScriptedTelegram, User
from tests.e2e.scenario import (
    AttackOrder,
    ClockClient,
    MoveOrder,
    Player,
    ReinforceOrder,
    Table,
    ask_to_join,
    confirm_result,
    create_campaign,
    deploy_by_buttons,
    deploy_typed,
    dispute_result,
    gm_advance,
    gm_answers_join,
    gm_decide,
    gm_undo,
    join,
    mark_ready,
    orders_by_buttons,
    orders_typed,
    report_result,
)
from tests.secrecy import assert_log_keeps, printed_forms

GROUP = Chat(id=-1003100, type="supergroup", title="Wargamers")
GM = Player(User(id=3100, first_name="Marta"))
ANNA = Player(User(id=3201, first_name="Anna"))  # Red, strategist, English
CARL = Player(User(id=3202, first_name="Carl"))  # Red, tactician, English
VERA = Player(User(id=3301, first_name="Вера"))  # Синие, strategist, chooses Russian
GLEB = Player(User(id=3302, first_name="Глеб"), "ru")  # Синие, tactician, Russian app
DORA = Player(User(id=3401, first_name="Dora"))  # Green, strategist, English
FEDOR = Player(User(id=3402, first_name="Фёдор"), "ru")  # Green, tactician, Russian app
HANNA = Player(User(id=3403, first_name="Hanna"))  # asks to join Green after deployment: approved
IGOR = Player(User(id=3501, first_name="Igor"))  # asks to join Red after deployment: refused
RED, BLUE, GREEN = "Red", "Синие", "Green"
SIDE_OF = {
    ANNA.chat_id: RED,
    CARL.chat_id: RED,
    VERA.chat_id: BLUE,
    GLEB.chat_id: BLUE,
    DORA.chat_id: GREEN,
    FEDOR.chat_id: GREEN,
    HANNA.chat_id: GREEN,
}
# What the orders and results below must give (worked out with ``python -m rules resolve``):
# the armies at the start of turns 2 and 3 and after turn 3, by side name; Red then holds
# 1 Equator and 4 North Pole, the two captured sectors this campaign's rules need to win.
EXPECTED_ARMIES = {
    2: {
        RED: {"1": 6, "2": 2, "4": 3},
        BLUE: {"1": 2, "3": 6, "5": 1},
        GREEN: {"2": 5, "3": 2, "5": 3},
    },
    3: {
        RED: {"1": 7, "2": 1, "4": 5},
        BLUE: {"1": 1, "3": 7, "5": 1},
        GREEN: {"2": 5, "3": 2, "5": 4},
    },
    4: {RED: {"1": 8, "2": 1, "4": 7}, BLUE: {"3": 8, "5": 1}, GREEN: {"2": 5, "3": 2, "5": 5}},
}


def utc(month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


# The campaign's week in Moscow (UTC+3): orders close Thursday 23:59, the battle list is posted
# Friday 12:00, the turn resolves Monday 12:00.
WEEKS = {
    1: {
        "close": utc(3, 5, 21),
        "list": utc(3, 6, 9),
        "play": utc(3, 7, 10),
        "monday": utc(3, 9, 9),
    },
    2: {
        "close": utc(3, 12, 21),
        "list": utc(3, 13, 9),
        "play": utc(3, 14, 10),
        "monday": utc(3, 16, 9),
    },
    3: {
        "close": utc(3, 19, 21),
        "list": utc(3, 20, 9),
        "play": utc(3, 21, 10),
        "monday": utc(3, 23, 9),
    },
}


@dataclass
class Marks:
    """Positions in the recorder's request log: where each step began and ended."""

    closed: dict[int, int] = field(default_factory=dict)  # orders of turn n closed (first time)
    resolved: dict[int, int] = field(default_factory=dict)  # turn n resolved
    windows: list[tuple[str, int, int]] = field(default_factory=list)  # (step, first, end)
    mondays: list[tuple[int, int]] = field(default_factory=list)
    restarted: int = 0  # the first request of the process started again after the crash


async def _clock(
    table: Table, service: BotService, marks: Marks, name: str, when: datetime
) -> None:
    first = len(service.recorder.requests)
    await table.move_clock(when)
    marks.windows.append((name, first, len(service.recorder.requests)))


async def _week(
    table: Table, service: BotService, marks: Marks, turn: int, step: str
) -> tuple[int, int]:
    """Move the clock to the step of ``turn``'s week; the request-log window it covered."""
    first = len(service.recorder.requests)
    await _clock(table, service, marks, f"turn {turn}: {step}", WEEKS[turn][step])
    end = len(service.recorder.requests)
    if step == "close":
        marks.closed.setdefault(turn, first)
    if step == "monday":
        marks.resolved[turn] = first
        marks.mondays.append((first, end))
    return first, end


async def _pending_updates(telegram: ScriptedTelegram) -> int:
    info = await telegram.bot_api("getWebhookInfo")
    return int(info["pending_update_count"])


async def _play(table: Table, service: BotService, marks: Marks) -> int:
    """The campaign, as the people play it; the campaign's id."""
    telegram = table.telegram
    # ---- Sunday: setup, joining, deployment --------------------------------------------
    await table.command(GM, "/start")
    campaign_id = await create_campaign(
        table, "Siege of Vraks", [RED, BLUE, GREEN], rules="sectors_to_win=2"
    )
    await table.command(VERA, "/lang")
    await table.press(VERA, "Русский")
    for person, side, role in (
        (ANNA, RED, "strategist"),
        (CARL, RED, "tactician"),
        (VERA, BLUE, "strategist"),
        (GLEB, BLUE, "tactician"),
        (DORA, GREEN, "strategist"),
        (FEDOR, GREEN, "tactician"),
    ):
        await join(table, person, side, role)
    await deploy_by_buttons(table, ANNA, {"1": 4, "2": 3, "4": 3})
    refused = await table.say(VERA, "1:5 3:5")
    assert any("Займите ровно 3 сектора" in t for t in refused.texts(VERA.chat_id))
    await deploy_typed(table, VERA, "экватор:3 восток=5, 5:2")
    await deploy_typed(table, DORA, "West:4 East:3 South Pole:3")
    # Every side confirmed: deployment ends at once, the first map goes to the group.
    await table.wait_for_message(GROUP.id, lambda m: m.photo is not None, what="first map")

    # ---- week 1: orders by buttons and typed, in both languages --------------------------
    # The turn began on Sunday; its orders window opens Tuesday 00:00 (RULES.md 3.2).
    early = await table.say(ANNA, "reinforce 4")
    assert any(
        t.startswith("Orders for turn 1 open Tue 3 Mar, 00:00") for t in early.texts(ANNA.chat_id)
    ), early.texts(ANNA.chat_id)
    await _clock(table, service, marks, "turn 1: Tuesday", utc(3, 3, 8))
    # Deployment is over: a new player waits for the GM, who approves one and refuses one.
    asked = await ask_to_join(table, HANNA, GREEN, "tactician")
    assert any("is with the GM" in t for t in asked.texts(HANNA.chat_id))
    await ask_to_join(table, IGOR, RED, "strategist")
    approved = await gm_answers_join(table, HANNA, True, GREEN, "tactician")
    assert any("Approved: Hanna now plays" in t for t in approved.texts(GM.chat_id))
    await table.wait_for_text(HANNA.chat_id, "A GM approved: you play Green as tactician")
    refused = await gm_answers_join(table, IGOR, False)
    assert any("Refused: Igor does not join" in t for t in refused.texts(GM.chat_id))
    await table.wait_for_text(IGOR.chat_id, "A GM did not approve your request to play Red")
    await orders_by_buttons(
        table,
        ANNA,
        [
            MoveOrder("4", "1", 2),
            AttackOrder("1", BLUE),
            AttackOrder("1", BLUE),
            ReinforceOrder("4"),
        ],
    )
    typed = await orders_typed(table, VERA, "5 -> 3 x1\nатака green 3\nподкрепление 3\nатака red 4")
    assert any("✗ «атака red 4»" in t for t in typed.texts(VERA.chat_id))
    typed = await orders_typed(
        table, DORA, "attack red in 2\nattack синие in 5\nreinforce 2\nfortify 1"
    )
    assert any("✗ «fortify 1»" in t for t in typed.texts(DORA.chat_id))
    await _week(table, service, marks, 1, "close")
    await _week(table, service, marks, 1, "list")
    await _week(table, service, marks, 1, "play")
    await report_result(table, CARL, 1, "solid", RED)
    await confirm_result(table, GLEB, 1)
    await report_result(table, ANNA, 2, "crushing", RED)
    await dispute_result(table, VERA, 2, "draw")
    await gm_decide(table, 2, "draw")
    # Red never answers Green's report of battle 3: it stands.
    await report_result(table, DORA, 3, "solid", GREEN)
    await report_result(table, GLEB, 4, "bloody draw")
    await confirm_result(table, FEDOR, 4)
    await _week(table, service, marks, 1, "monday")
    monday = await table.wait_for_message(
        GROUP.id, lambda m: m.photo is not None and "Turn 1 resolved" in m.text, what="map"
    )
    assert "Green: solid victory (reported by side «Green», not disputed: stands)" in monday.text
    await table.wait_for_text(HANNA.chat_id, "turn 1 resolved: the summary for side «Green»")

    # ---- week 2: a crash in the middle, an undo ---------------------------------------
    await _clock(table, service, marks, "turn 2: Tuesday", utc(3, 10, 8))
    await orders_typed(table, ANNA, "attack синие in 1 x2\n2 -> 4 x1\nreinforce 1")
    await orders_by_buttons(
        table,
        VERA,
        [AttackOrder("3", GREEN), AttackOrder("3", GREEN), ReinforceOrder("3")],
    )
    await orders_by_buttons(table, DORA, [AttackOrder("2", RED)], ready=False)
    await table.telegram.wait_for(
        lambda: _pending_updates(telegram), lambda n: n == 0, what="updates confirmed"
    )
    await service.crash()
    # Dora writes while the bot is down; the update waits in Telegram until it is back.
    await telegram.send_message(DORA.user, "reinforce 5")
    marks.restarted = len(service.recorder.requests)
    await service.start()
    await table.wait_for_text(DORA.chat_id, "✓ orbital reinforcement to 5 South Pole")
    await mark_ready(table, DORA)
    await _week(table, service, marks, 2, "close")
    await _week(table, service, marks, 2, "list")
    # The GM takes the list back: Dora forgot an attack; the GM then closes the orders again.
    await gm_undo(table)
    await orders_typed(table, DORA, "attack синие in 5")
    await gm_advance(table)
    await _week(table, service, marks, 2, "play")
    await report_result(table, ANNA, 1, "solid", RED)
    await confirm_result(table, GLEB, 1)
    await _week(table, service, marks, 2, "monday")

    # ---- week 3: Red wins ------------------------------------------------------------
    await _clock(table, service, marks, "turn 3: Tuesday", utc(3, 17, 8))
    await orders_by_buttons(
        table, ANNA, [AttackOrder("1", BLUE), AttackOrder("1", BLUE), ReinforceOrder("4")]
    )
    await orders_typed(table, VERA, "подкрепление 3")
    await orders_typed(table, DORA, "reinforce 5")
    # The bot is down from Thursday to Friday noon: the orders close and the list goes out
    # when it is back, once, and the group is told the step ran late.
    await telegram.wait_for(
        lambda: _pending_updates(telegram), lambda n: n == 0, what="updates confirmed"
    )
    await service.crash()
    first = len(service.recorder.requests)
    marks.closed[3] = first
    await service.start(clock=WEEKS[3]["list"])
    await table.wait_for_message(
        GROUP.id, lambda m: "Turn 3: the battle list" in m.text, what="the late battle list"
    )
    await table.clock.settle()
    await table.collect()
    marks.windows.append(("turn 3: back after the deadline", first, len(service.recorder.requests)))
    await table.wait_for_text(GROUP.id, "The bot was offline at Thu 19 Mar, 23:59")
    await _week(table, service, marks, 3, "play")
    await report_result(table, CARL, 1, "crushing", RED)
    await confirm_result(table, GLEB, 1)
    await _week(table, service, marks, 3, "monday")

    return campaign_id


def _write_transcript(table: Table, path: Path) -> None:
    """Everything seen, chat by chat in order (read it when the test fails)."""
    lines = [
        f"[{table.chat_name(seen.chat_id)}] {seen.who} {seen.action}: {seen.text}"
        for seen in table.transcript
    ]
    path.write_text("\n".join(lines) + "\n")


async def test_a_campaign_from_newcampaign_to_a_winner(
    telegram: ScriptedTelegram, bot_service: BotService, tmp_path: Path
) -> None:
    marks = Marks()
    await bot_service.start()
    async with aiohttp.ClientSession() as session:
        table = Table(telegram, ClockClient(bot_service.clock_url, session), GROUP, GM)
        try:
            campaign_id = await _play(table, bot_service, marks)
        finally:
            _write_transcript(table, tmp_path / "transcript.txt")

    bot_service.stop()
    requests = bot_service.recorder.requests
    history = await telegram.history()
    store = await SqliteCampaignStore.open(bot_service.database)
    try:
        campaign = await store.campaign(campaign_id)
        assert campaign is not None
        assert (campaign.status, campaign.phase) == (CampaignStatus.FINISHED, Phase.FINISHED)
        secrets = await _secret_phrases(store, campaign_id, build_i18n())
        printed = await _printed_orders(store, campaign_id)
        exported = await _assert_replays(store, campaign_id, winner_name=RED)
        await _assert_every_post_once(store, campaign_id, requests, marks)
        [summary] = [
            m for m in await store.outbox_messages(campaign_id) if m.kind == "campaign_summary"
        ]
        assert summary.state is OutboxState.SENT
        assert summary.chat_id == GROUP.id
        await _assert_mondays_show_their_week(store, campaign_id, requests, bot_service.map_record)
    finally:
        await store.close()
    _assert_secret(requests, history, secrets, marks)
    _assert_played_as_scripted(exported, requests, marks)
    log = bot_service.log_text()
    assert "Traceback" not in log
    assert " ERROR " not in log
    # The bot's own log (stderr, logfmt) never holds an order, worded or printed, in any turn.
    assert_log_keeps(log, {phrase for secret in secrets for phrase in secret.phrases} | printed)


# ---- the map tells the week ---------------------------------------------------------------


async def _assert_mondays_show_their_week(
    store: Store, campaign_id: int, requests: list[RecordedRequest], record: Path
) -> None:
    """Each Monday map photo in the group (found by its bytes among the maps the bot recorded
    drawing) shows its turn's moves, battles with outcome and losses, and new captures."""
    drawn = {}
    for line in record.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        drawn[entry["sha256"]] = entry["view"]
    mondays = []
    for request in requests:
        if request.method != "sendPhoto" or not request.ok or request.chat_id != GROUP.id:
            continue
        caption = request.params.get("caption", "")
        if " resolved" not in caption:
            continue
        (data,) = request.files.values()
        mondays.append(drawn[hashlib.sha256(data).hexdigest()])
    assert [view["week"]["turn"] for view in mondays] == [1, 2, 3]
    # What the deployment holds by the capture rule is not "new" on the first Monday.
    deployment = await store.turn_start(campaign_id, 1)
    assert deployment is not None
    held_before = {s: list(held) for s, held in held_sectors(deployment, 3).items()}
    for view in mondays:
        turn = view["week"]["turn"]
        (resolution, *_) = await store.resolutions(campaign_id, turn)
        report = resolution.report
        week = view["week"]
        moves = [(m["side"], m["source"], m["to"], m["count"]) for m in week["moves"]]
        assert moves == [(a.side, a.source, a.to, a.count) for a in report.arrivals], turn
        results = {r.battle: r for r in report.results}
        fought = [b for b in report.battles if b.id not in report.unplayed]
        assert [b["id"] for b in week["battles"]] == [b.id for b in fought], turn
        for mark in week["battles"]:
            # A battle without a result (counted as a draw without losses) shows no outcome.
            result = None if mark["id"] in report.unreported else results.get(mark["id"])
            outcome = None if result is None else result.outcome.value
            assert (mark["outcome"], mark["winner"]) == (
                outcome,
                None if result is None else result.winner,
            ), (turn, mark)
        lost = sum(n for mark in week["battles"] for n in mark["losses"].values())
        assert lost == sum(c.declared for c in report.casualties), turn
        assert view["captured"] == {s: list(held) for s, held in report.captured.items()}
        new = {
            s: [x for x in held if x not in held_before.get(s, [])]
            for s, held in report.captured.items()
        }
        assert week["new"] == {s: held for s, held in new.items() if held}, turn
        held_before = view["captured"]
        assert (week["game_over"], week["winner"]) == (report.game_over, report.winner)
    assert mondays[-1]["week"]["game_over"]
    assert sum(len(view["week"]["battles"]) for view in mondays) >= 5
    assert any(view["week"]["moves"] for view in mondays)


# ---- secrecy -------------------------------------------------------------------------------


@dataclass
class Secret:
    """Words of one side's orders in one turn, and until when they are secret."""

    turn: int
    side: str
    public_at: str  # "start" (placements), "close" (attacks), "resolution" (the other orders)
    phrases: set[str]


async def _secret_phrases(store: Store, campaign_id: int, i18n: I18n) -> list[Secret]:
    """Every order a side saved in any turn (drafts and undone sets included), worded as the bot
    words it, in English and in Russian."""
    campaign = await store.campaign(campaign_id)
    assert campaign is not None
    sides = await store.sides(campaign_id)
    names = {side.id: side.name for side in sides}
    game_map = game_for(campaign).map
    found: list[Secret] = []
    for side in sides:
        placements = [e.placement for e in await store.order_edits(campaign_id, 0, side.id)]
        phrases = set()
        for language in ("en", "ru"):
            with i18n.context(), i18n.use_locale(language):
                for placement in placements:
                    for sector, count in (placement or {}).items():
                        label = sector_label(game_map, sector, language)
                        phrases.add(f"{label}: {armies(count)}")
        found.append(Secret(0, side.name, "start", phrases))
    for turn in range(1, campaign.turn + 1):
        for side in sides:
            saved = [e.orders for e in await store.order_edits(campaign_id, turn, side.id)]
            sets = [orders for orders in saved if isinstance(orders, SideOrders)]
            attacks: list[Attack] = [a for orders in sets for a in orders.attacks]
            quiet: list[Move | Reinforce] = [m for orders in sets for m in orders.moves]
            quiet += [Reinforce(sector=o.reinforce) for o in sets if o.reinforce is not None]
            for public_at, orders in (("close", attacks), ("resolution", quiet)):
                phrases = set()
                for language in ("en", "ru"):
                    with i18n.context(), i18n.use_locale(language):
                        for order in orders:
                            phrases.add(describe_order(order, game_map, names, language))
                if phrases:
                    found.append(Secret(turn, names[side.id], public_at, phrases))
    assert {(s.turn, s.public_at) for s in found} >= {(0, "start"), (1, "close"), (1, "resolution")}
    return found


async def _printed_orders(store: Store, campaign_id: int) -> set[str]:
    """Every placement and order any side saved, as code would print them."""
    campaign = await store.campaign(campaign_id)
    assert campaign is not None
    orders: list[Move | Attack | Reinforce] = []
    placements: list[dict[str, int]] = []
    for turn in range(campaign.turn + 1):
        for side in await store.sides(campaign_id):
            for edit in await store.order_edits(campaign_id, turn, side.id):
                placements += [edit.placement] if edit.placement else []
                if edit.orders is not None:
                    orders += [*edit.orders.moves, *edit.orders.attacks]
                    if edit.orders.reinforce is not None:
                        orders.append(Reinforce(sector=edit.orders.reinforce))
    assert orders
    assert placements
    return printed_forms(orders, placements)


def _recipient(request: RecordedRequest, pressed_by: dict[str, int]) -> int | None:
    """Who sees what a request carries: its chat, or the person who pressed for an answer."""
    if request.method == "answerCallbackQuery":
        return pressed_by.get(request.params.get("callback_query_id", ""))
    return request.chat_id


def _leaks(
    requests: list[RecordedRequest],
    history: list[dict[str, Any]],
    secrets: list[Secret],
    marks: Marks,
) -> tuple[list[tuple[int, str, str, int]], int]:
    """Requests to the group or to another side's member that carried a side's order words
    before they were public: (turn, side, words, chat) each; and how many requests were looked
    at. The GM sees every side's orders; a side's own chats see its own."""
    pressed_by = {
        str(entry["callbackId"]): int(entry["callbackQuery"]["from"]["id"])
        for entry in history
        if "callbackQuery" in entry
    }
    # Turn 1 begins with the first map of the deployed armies.
    started = next(r.seq for r in requests if r.method == "sendPhoto" and r.chat_id == GROUP.id)
    public = {"start": {0: started}, "close": marks.closed, "resolution": marks.resolved}
    leaks = []
    checked = 0
    for secret in secrets:
        for request in requests[: public[secret.public_at][secret.turn]]:
            chat = _recipient(request, pressed_by)
            if chat is None or chat == GM.chat_id or SIDE_OF.get(chat) == secret.side:
                continue
            # The same words may be the recipient's own order (both reinforce sector 3).
            theirs = set().union(
                *(
                    s.phrases
                    for s in secrets
                    if s.turn == secret.turn and chat in SIDE_OF and s.side == SIDE_OF[chat]
                )
            )
            words = request.words()
            leaks += [
                (secret.turn, secret.side, phrase, chat)
                for phrase in secret.phrases - theirs
                if phrase in words
            ]
            checked += 1
    return leaks, checked


def _photo_leaks(requests: list[RecordedRequest]) -> list[tuple[int, int]]:
    """A picture first sent to one side's private chat (its secret orders map) and then to the
    group or to another side's member: (first chat, later chat) each."""
    first_seen: dict[bytes, int] = {}
    leaks = []
    for request in requests:
        if request.method != "sendPhoto" or not request.ok or request.chat_id is None:
            continue
        for data in request.files.values():
            owner = first_seen.setdefault(data, request.chat_id)
            side = SIDE_OF.get(owner)
            shown_to = request.chat_id
            if side is not None and shown_to != GM.chat_id and SIDE_OF.get(shown_to) != side:
                leaks.append((owner, shown_to))
    assert len(first_seen) > 10  # the pictures were seen (maps, private and public)
    return leaks


def _assert_secret(
    requests: list[RecordedRequest],
    history: list[dict[str, Any]],
    secrets: list[Secret],
    marks: Marks,
) -> None:
    leaks, checked = _leaks(requests, history, secrets, marks)
    assert not leaks
    assert not _photo_leaks(requests)
    assert checked > 200
    assert any(r.chat_id == GROUP.id for r in requests[: marks.closed[1]])


def test_the_secrecy_check_finds_a_leak() -> None:
    """The check itself: an attack shown to the other side before the close, a move shown to
    the group before the resolution are found; the same words after, or to the side's own
    people or the GM, or as the recipient's own order, are not."""
    attack, move = "attack Синие in 1 Equator", "move 2 armies from 4 North Pole to 1 Equator"
    secrets = [
        Secret(1, RED, "close", {attack}),
        Secret(1, RED, "resolution", {move, "orbital reinforcement to 3 East"}),
        Secret(1, BLUE, "resolution", {"orbital reinforcement to 3 East"}),
    ]

    def sent(chat: int, text: str) -> RecordedRequest:
        return RecordedRequest(0, "sendMessage", {"chat_id": str(chat), "text": text}, {})

    requests = [
        RecordedRequest(0, "sendPhoto", {"chat_id": str(GROUP.id), "caption": "Turn 1"}, {}),
        sent(VERA.chat_id, f"Red: {attack}"),
        sent(GROUP.id, f"board: {move}"),
        sent(CARL.chat_id, f"{attack}; {move}"),
        sent(GM.chat_id, f"{attack}; {move}"),
        sent(GLEB.chat_id, "✓ orbital reinforcement to 3 East"),
        sent(VERA.chat_id, f"Battle 1: {attack}"),  # after the close
        sent(GROUP.id, f"Turn 1 resolved: {move}"),  # after the resolution
    ]
    for seq, request in enumerate(requests):
        request.seq = seq
    leaks, _checked = _leaks(requests, [], secrets, Marks(closed={1: 6}, resolved={1: 7}))
    assert leaks == [(1, RED, attack, VERA.chat_id), (1, RED, move, GROUP.id)]


# ---- every post once ----------------------------------------------------------------------


def _content(request: RecordedRequest) -> str:
    """What a sent message shows: its text or caption, and a photo's bytes by their length."""
    text = request.params.get("text") or request.params.get("caption") or ""
    photos = [len(data) for data in request.files.values()]
    return f"{text}|{photos}"


SENDS = ("sendMessage", "sendPhoto", "sendDocument")


def _post_problems(
    outbox: list[OutboxMessage], requests: list[RecordedRequest], marks: Marks
) -> list[str]:
    """Posts lost or doubled: an outbox post never sent (or whose message is not one the bot
    sent or edited), an outbox post's content sent again without an outbox row pointing at it
    (a resend), a message repeated in a chat within one step, a Monday without exactly one map
    map photo in the group."""
    problems = [
        f"outbox {m.id} ({m.kind}) left {m.state.value}"
        for m in outbox
        if m.state not in (OutboxState.SENT, OutboxState.CANCELLED)
    ]
    sends = [r for r in requests if r.method in SENDS and r.ok]
    posted = {
        (m.chat_id, m.telegram_message_id)
        for m in outbox
        if m.state is OutboxState.SENT and m.telegram_message_id is not None
    }
    by_id = {(r.chat_id, r.result["message_id"]): r for r in sends}
    edited = {
        (r.chat_id, int(r.params["message_id"]))
        for r in requests
        if r.method.startswith("edit") and r.ok and "message_id" in r.params
    }
    problems += [f"outbox message {key} was never sent" for key in posted - set(by_id) - edited]
    outbox_content = {(key[0], _content(by_id[key])) for key in posted if key in by_id}
    problems += [
        f"sent again in {r.chat_id}: {_content(r)[:80]}"
        for key, r in by_id.items()
        if key not in posted and (r.chat_id, _content(r)) in outbox_content
    ]
    for step, first, end in marks.windows:
        seen = Counter((r.chat_id, _content(r)) for r in sends if first <= r.seq < end)
        problems += [
            f"{step}: twice in {key[0]}: {key[1][:80]}" for key, n in seen.items() if n > 1
        ]
    # The end-of-campaign summary is a photo too (its chart), not a map.
    summaries = {(m.chat_id, m.telegram_message_id) for m in outbox if m.kind == "campaign_summary"}
    for first, end in marks.mondays:
        maps = [
            r
            for r in sends
            if first <= r.seq < end
            and r.method == "sendPhoto"
            and r.chat_id == GROUP.id
            and (r.chat_id, r.result["message_id"]) not in summaries
        ]
        if len(maps) != 1:
            problems.append(f"{len(maps)} map photos in the group on the Monday at {first}")
    return problems


async def _assert_every_post_once(
    store: Store, campaign_id: int, requests: list[RecordedRequest], marks: Marks
) -> None:
    outbox = await store.outbox_messages(campaign_id)
    assert not _post_problems(outbox, requests, marks)
    per_chat = Counter(r.chat_id for r in requests if r.method in SENDS and r.ok)
    assert per_chat[GROUP.id] > 10
    assert all(per_chat[chat] > 0 for chat in SIDE_OF)
    assert len([m for m in outbox if m.state is OutboxState.SENT]) > 50


def test_the_once_check_finds_a_lost_or_doubled_post() -> None:
    """The check itself: a post sent again after a crash, a pending post, a repeat within a
    step and a Monday with two maps are found; a post sent once is not."""

    def row(row_id: int, message_id: int | None, state: OutboxState) -> OutboxMessage:
        return OutboxMessage(
            id=row_id,
            campaign_id=1,
            chat_id=GROUP.id,
            thread_id=0,
            kind="map",
            payload={},
            dedup_key=f"k{row_id}",
            state=state,
            attempts=1,
            created_at=utc(3, 9, 9),
            not_before=utc(3, 9, 9),
            lease_until=None,
            claim_token=None,
            telegram_message_id=message_id,
            sent_at=None,
            last_error=None,
        )

    def sent(seq: int, message_id: int, text: str, method: str = "sendMessage") -> RecordedRequest:
        request = RecordedRequest(seq, method, {"chat_id": str(GROUP.id), "caption": text}, {})
        request.status, request.answer = 200, {"ok": True, "result": {"message_id": message_id}}
        return request

    requests = [
        sent(0, 10, "Turn 1 resolved", "sendPhoto"),
        sent(1, 11, "Turn 1 resolved", "sendPhoto"),  # the same post once more: a resend
        sent(2, 12, "Anna joined Red"),
        sent(3, 13, "hello"),
        sent(4, 14, "hello"),
    ]
    outbox = [
        row(1, 10, OutboxState.SENT),
        row(2, 12, OutboxState.SENT),
        row(3, None, OutboxState.PENDING),
        row(4, None, OutboxState.CANCELLED),
    ]
    marks = Marks(windows=[("one step", 3, 5)], mondays=[(0, 2)])
    assert _post_problems(outbox, requests, marks) == [
        "outbox 3 (map) left pending",
        f"sent again in {GROUP.id}: Turn 1 resolved|[]",
        f"one step: twice in {GROUP.id}: hello|[]",
        "2 map photos in the group on the Monday at 0",
    ]
    assert _post_problems(outbox[:2], requests[:1] + requests[2:4], Marks()) == []


# ---- replay -------------------------------------------------------------------------------


def _resolve_with_cli(document: dict[str, Any]) -> dict[str, Any]:
    answer = subprocess.run(
        [sys.executable, "-m", "rules", "resolve"],
        input=json.dumps(document),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        timeout=60,
    )
    parsed: dict[str, Any] = json.loads(answer.stdout)
    return parsed


async def _assert_replays(store: Store, campaign_id: int, winner_name: str) -> dict[str, Any]:
    """Each exported turn, replayed by ``python -m rules resolve``, gives the next stored
    turn-start state; the last gives the final state and the winner."""
    exported: dict[str, Any] = json.loads(json.dumps(await store.export_campaign(campaign_id)))
    turns = exported["turns"]
    assert [t["turn"] for t in turns] == [1, 2, 3]
    first = await store.turn_start(campaign_id, 1)
    assert first is not None
    assert turns[0]["state"] == {"turn": 1, "armies": first.armies}
    answer: dict[str, Any] = {}
    for turn in turns:
        answer = _resolve_with_cli(turn["document"])
        assert answer["state"] == turn["state_after"]
        assert answer["battles"] == turn["battles"]
        stored_next = await store.turn_start(campaign_id, turn["turn"] + 1)
        if stored_next is not None:
            assert answer["state"] == {"turn": stored_next.turn, "armies": stored_next.armies}
    winner_id = {side["name"]: side["id"] for side in exported["sides"]}[winner_name]
    assert answer["winner"] == winner_id == turns[-1]["winner"]
    assert exported["campaign"]["status"] == "finished"
    return exported


def _assert_played_as_scripted(
    exported: dict[str, Any], requests: list[RecordedRequest], marks: Marks
) -> None:
    """The game the bot stored is the one the people played: the armies each Monday, the
    GM's override of the disputed battle, the attack given after the undo, the order typed
    while the bot was down (answered once), and the winner announced with the last map."""
    ids = {side["name"]: side["id"] for side in exported["sides"]}
    by_turn = {turn["turn"]: turn for turn in exported["turns"]}
    for turn, armies_by_name in EXPECTED_ARMIES.items():
        expected = {ids[name]: placed for name, placed in armies_by_name.items()}
        assert by_turn[turn - 1]["state_after"] == {"turn": turn, "armies": expected}
    red, blue, green = ids[RED], ids[BLUE], ids[GREEN]
    assert by_turn[1]["results"] == [
        {"battle": 1, "outcome": "solid", "winner": red},
        {"battle": 2, "outcome": "draw", "winner": None},  # disputed; the GM's word
        {"battle": 3, "outcome": "solid", "winner": green},  # never answered: it stands
        {"battle": 4, "outcome": "bloody_draw", "winner": None},
    ]
    assert by_turn[1]["unreported"] == [5]
    battles = [(b["sector"], b["attacker"], b["defender"]) for b in by_turn[2]["battles"]]
    assert battles[-1] == ("5", green, blue)  # given after the GM took the first list back
    assert by_turn[2]["orders"][green]["reinforce"] == "5"  # typed while the bot was down
    group_photos = [
        r.params.get("caption", "")
        for r in requests
        if r.method == "sendPhoto" and r.chat_id == GROUP.id and r.ok
    ]
    lists = Counter(caption.split(".")[0] for caption in group_photos if "battle list" in caption)
    # Turn 2's list twice: published, taken back by the GM's undo, published again.
    assert lists == {
        "Turn 1: the battle list": 1,
        "Turn 2: the battle list": 2,
        "Turn 3: the battle list": 1,
    }
    # The final map, then the campaign's summary with its chart.
    assert "Red wins the campaign!" in group_photos[-2]
    assert "is over after 3 turns: side «Red» wins the campaign." in group_photos[-1]
    assert "Sides (battles won, drawn and lost):" in group_photos[-1]
    answers = [
        r
        for r in requests[marks.restarted : marks.closed[2]]
        if r.chat_id == DORA.chat_id and "✓ orbital reinforcement to 5" in r.params.get("text", "")
    ]
    assert len(answers) == 1


# ---- a GM undo ------------------------------------------------------------------------------


async def test_a_gm_undo_is_announced_once(
    telegram: ScriptedTelegram, bot_service: BotService
) -> None:
    await bot_service.start()
    async with aiohttp.ClientSession() as session:
        table = Table(telegram, ClockClient(bot_service.clock_url, session), GROUP, GM)
        await create_campaign(table, "Short Siege", [RED, GREEN])
        before = len(await table.bot_messages(GROUP.id))
        await gm_undo(table)
        await table.clock.settle()
        after = (await table.bot_messages(GROUP.id))[before:]
    undo_posts = [m.text for m in after if "undid" in m.text]
    assert len(undo_posts) == 1, undo_posts
