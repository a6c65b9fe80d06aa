"""Fair play (RULES.md 3.4): a report nobody disputes stands, every dispute reaches the GMs at
once and holds the resolution until they decide, and every player hears the turn's outcome in
private in their own language. Through the real dispatcher and the outbox as it is sent."""

from __future__ import annotations

import unicodedata

from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.services.clockwork import AdvanceOutcome, BlockReason, advance
from bot.services.posting import private_post
from rules import Attack, BattleResult, Outcome, SideOrders
from storage import AuditAction, Phase, Role, Store
from storage.names import JOINERS
from tests.bot.private_campaign import GM, GROUP, Table, alert, open_table, screen
from tests.bot.telegram import FakeTelegram, Sent

PLACEMENTS = {
    "red": {"1": 4, "2": 3, "4": 3},
    "blue": {"1": 3, "3": 5, "5": 2},
    "green": {"2": 4, "3": 3, "5": 3},
}


async def battles_listed(table: Table) -> None:
    """Every side deploys; Red attacks Blue in sector 1 (battle 1); the list is out."""
    campaign = table.campaign
    for side, placement in PLACEMENTS.items():
        await table.store.save_placement(campaign.id, side, placement, True, GM, table.clock.now())
    await table.step()  # turn 1, orders
    attack = SideOrders(attacks=(Attack(sector="1", target="blue"),))
    await table.store.save_orders(campaign.id, 1, "red", attack, True, 201, table.clock.now())
    await table.step()  # battles
    await table.telegram.deliver()
    table.take()


async def _dispute_solid_blue(table: Table) -> None:
    """Глеб (Blue's tactician) disputes battle 1 with his account: a solid Blue victory."""
    listing = screen(await table.say(302, "/battles"))
    account = screen(await table.tap(302, listing, "Оспорить"))
    winner = screen(await table.tap(302, account, "Уверенная победа"))
    disputed = await table.tap(302, winner, "Синие")
    assert alert(disputed) == "Оспорено: обе версии у мастера, он решит."


def _to(sent: list[Sent], chat_id: int) -> list[Sent]:
    return [s for s in sent if s.chat_id == chat_id]


def _text(sent: list[Sent]) -> str:
    return "\n".join(s.text for s in sent)


async def _report_crushing_red(table: Table) -> None:
    """Carl (Red's tactician) reports battle 1 as a crushing Red victory."""
    listing = screen(await table.say(202, "/battles"))
    outcome = screen(await table.tap(202, listing, "Report battle 1"))
    winner = screen(await table.tap(202, outcome, "Crushing"))
    reported = await table.tap(202, winner, "Red Legion won")
    assert alert(reported).startswith("Reported. The other side may confirm or dispute it")


async def test_a_report_the_loser_leaves_unanswered_stands(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    await battles_listed(table)
    await _report_crushing_red(table)
    sent = await telegram.deliver()
    to_glebs = _to(sent, 302)  # Blue's tactician, in Russian
    assert len(to_glebs) == 1
    assert "сокрушительная победа в пользу стороны «Red Legion»; сообщила" in to_glebs[0].text
    assert "Будет засчитан, если его не оспорят до" in to_glebs[0].text
    assert [label for label, _ in to_glebs[0].buttons()] == [
        "👍 Подтвердить бой 1",
        "⚠ Оспорить",
    ]
    # Stored: it counts now, and stays unanswered.
    [report] = await store.battle_reports(table.campaign.id, 1)
    assert report.awaiting_answer
    assert await store.effective_results(table.campaign.id, 1) == [report.reported]
    # The reminder before the deadline names the battle, the result and the deadline.
    reminder = private_post(
        table.campaign, 301, "reminder", "test:reminder", turn=1, phase="battles", reminder="day"
    )
    await store.enqueue(reminder, clock.now())
    [to_vera] = _to(await telegram.deliver(), 301)
    assert "другая сторона сообщила «сокрушительная победа в пользу стороны" in to_vera.text
    assert "если вы не оспорите его до" in to_vera.text
    # Red, whose report waits, is not reminded of it.
    await store.enqueue(
        private_post(
            table.campaign, 201, "reminder", "test:reminder", turn=1, phase="battles", reminder="d"
        ),
        clock.now(),
    )
    assert _to(await telegram.deliver(), 201) == []
    await table.step()  # Monday: the resolution
    monday = await telegram.deliver()
    summary = _text(_to(monday, GROUP))
    assert (
        "Battle 1 in 1 Equator: Red Legion: crushing victory "
        "(reported by side «Red Legion», not disputed: stands)"
    ) in summary
    assert "no result" not in summary
    resolved = await store.resolutions(table.campaign.id, 1)
    assert resolved[-1].results == (BattleResult(battle=1, outcome=Outcome.CRUSHING, winner="red"),)
    # Each player hears the turn in private, in their own language.
    anna = _text(_to(monday, 201))
    assert "«Siege», turn 1 resolved: the summary for side «Red Legion»." in anna
    assert "Battle 1 in 1 Equator against side «Синие»: Red Legion: crushing victory" in anna
    assert "Held: " in anna
    vera = _text(_to(monday, 301))
    assert "«Siege», итоги хода 1 для стороны «Синие»." in vera
    assert "Потери: 2 армии, сектор 1 «Экватор»" in vera
    dora = _text(_to(monday, 401))  # Green fought no battle
    assert "No losses." in dora
    assert "Battle 1" not in dora


async def test_the_board_shows_a_report_waiting_and_a_dispute(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await battles_listed(table)
    await _report_crushing_red(table)
    boards = [s for s in await telegram.deliver() if s.chat_id == GROUP]
    assert "Battle 1: reported by side «Red Legion», not disputed: it stands." in boards[-1].text
    await _dispute_solid_blue(table)
    boards = [s for s in await telegram.deliver() if s.chat_id == GROUP]
    assert "⚠️ Disputed, the GM decides: battle 1." in boards[-1].text


async def test_a_dispute_reaches_the_gms_at_once_and_their_decision_is_told(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await battles_listed(table)
    await _report_crushing_red(table)
    await telegram.deliver()
    listing = screen(await table.say(302, "/battles"))
    account = screen(await table.tap(302, listing, "Оспорить"))
    assert "Чем, по версии вашей стороны, закончился бой 1?" in account.text
    winner = screen(await table.tap(302, account, "Уверенная победа"))
    disputed = await table.tap(302, winner, "Синие")
    assert alert(disputed) == "Оспорено: обе версии у мастера, он решит."
    sent = await telegram.deliver()
    [to_gm] = _to(sent, GM)
    assert to_gm.text.startswith("A result is disputed and waits for your decision.")
    assert (
        "Report of side «Red Legion»: Red Legion: crushing victory. "
        "Account of side «Синие»: Синие: solid victory. The GM decides."
    ) in to_gm.text
    assert [label for label, _ in to_gm.buttons()] == [
        "As side «Red Legion» says: Red Legion: crushing victory",
        "As side «Синие» says: Синие: solid victory",
        "Draw without losses",
        "Another outcome…",
    ]
    # Red's players see the other account and may accept it; nobody else hears of it.
    to_carl = _text(_to(sent, 202))
    assert "Accept the account of side «Синие»" in str(_to(sent, 202)[0].buttons())
    assert "Синие: solid victory" in to_carl
    assert _to(sent, 401) == []
    # A player cannot decide; the GM can, with one tap.
    refused = await table.forged(302, to_gm.buttons()[0][1])
    assert alert(refused) == "Результаты решают только мастера кампании."
    decided = await table.tap(GM, to_gm, "As side «Синие» says")
    assert alert(decided) == "Decided: Синие: solid victory. Both sides and the group are told."
    [report] = await store.battle_reports(table.campaign.id, 1)
    assert report.override == BattleResult(battle=1, outcome=Outcome.SOLID, winner="blue")
    [entry] = [
        e
        for e in await store.audit_log(table.campaign.id)
        if e.action is AuditAction.RESULT_OVERRIDDEN
    ]
    assert (entry.actor, entry.reason) == (GM, "dispute decided by the GM")
    told = await telegram.deliver()
    assert (
        "Battle 1 of turn 1, the GM's decision (Game Master): Синие: solid victory. It is final."
        in _text(_to(told, GROUP))
    )
    final = "Результат (решение мастера, окончательное): уверенная победа в пользу"
    assert final in _text(_to(told, 302))
    assert "Result (GM's decision, final): Синие: solid victory" in _text(_to(told, 202))
    # The dispute message's buttons refuse now (another GM's copy too): nothing changes.
    again = await table.tap(GM, to_gm, "Draw without losses")
    assert alert(again).startswith("This dispute is settled already: Синие: solid victory.")
    [report] = await store.battle_reports(table.campaign.id, 1)
    assert report.override == BattleResult(battle=1, outcome=Outcome.SOLID, winner="blue")
    # From /battles, «Decide» changes a decision on purpose.
    view = screen(await table.say(GM, "/battles"))
    decide = screen(await table.tap(GM, view, "Decide battle 1"))
    changed = await table.tap(GM, decide, "Draw without losses")
    assert alert(changed) == "Decided: draw. Both sides and the group are told."


async def test_a_side_may_accept_the_other_account_and_end_the_dispute(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await battles_listed(table)
    await _report_crushing_red(table)
    await _dispute_solid_blue(table)
    red_view = screen(await table.say(202, "/battles"))
    accepted = await table.tap(202, red_view, "Accept the account of side «Синие»")
    assert alert(accepted) == "Confirmed: the result is agreed."
    [report] = await store.battle_reports(table.campaign.id, 1)
    assert not report.disputed
    assert report.effective() == BattleResult(battle=1, outcome=Outcome.SOLID, winner="blue")
    # The GM's dispute message, if it is still on its way, is not sent any more.
    assert _to(await telegram.deliver(), GM) == []


async def test_an_open_dispute_holds_the_resolution_until_the_gm_decides_or_forces(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    await battles_listed(table)
    await _report_crushing_red(table)
    await _dispute_solid_blue(table)
    campaign = await table.now_campaign()
    held = await advance(store, campaign.id, 1, Phase.BATTLES, None, clock.now())
    assert held.outcome is AdvanceOutcome.BLOCKED
    assert (held.reason, held.battles, held.disputed) == (
        BlockReason.RESULTS_DISPUTED,
        (1,),
        (1,),
    )
    assert (await table.now_campaign()).phase is Phase.RESOLUTION
    # Forced by the GM: the dispute counts by the unreported policy, and the audit says so.
    forced = await advance(store, campaign.id, 1, Phase.RESOLUTION, GM, clock.now(), force=True)
    assert forced.advanced
    [entry] = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.TURN_RESOLVED
    ]
    assert entry.reason == ("forced by the GM: disputed battles 1 counted as draws without losses")
    monday = _text(_to(await telegram.deliver(), GROUP))
    assert "Battle 1 in 1 Equator: disputed, not decided: counted as a draw without losses" in (
        monday
    )


async def test_names_with_bidi_and_invisible_characters_break_no_post(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Every post that shows a person's name: the GM's decision, the result notes, the board,
    the turn's summary; with a GM and a player whose Telegram names carry a right-to-left
    override and zero-width characters."""
    table = await open_table(telegram, store, clock)
    await store.see_person(GM, "Game\u202eMaster\u200b", None, "en", True, clock.now())
    await store.put_member(
        table.campaign.id, GM, "Game\u202eMaster\u200b", frozenset({Role.GM}), None, GM, clock.now()
    )
    await store.see_person(202, "Ca\u2067rl\u200d", None, "en", True, clock.now())
    await store.put_member(
        table.campaign.id, 202, "Ca\u2067rl", frozenset({Role.TACTICIAN}), "red", GM, clock.now()
    )
    await battles_listed(table)
    await _report_crushing_red(table)
    await _dispute_solid_blue(table)
    sent = await telegram.deliver()
    [to_gm] = _to(sent, GM)
    await table.tap(GM, to_gm, "Draw without losses")
    sent += table.log
    sent += await telegram.deliver()
    await table.step()
    sent += await telegram.deliver()
    decision = _text(_to(sent, GROUP))
    assert "the GM's decision (GameMaster)" in decision
    members = [m.display_name for m in await store.members(table.campaign.id)]
    assert "Carl" in members
    for message in sent:
        words = message.text + " ".join(label for label, _ in message.buttons())
        hidden = [c for c in words if unicodedata.category(c) == "Cf" and c not in JOINERS]
        assert hidden == [], (message.chat_id, message.text)
