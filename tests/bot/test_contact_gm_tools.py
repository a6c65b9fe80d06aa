"""The GM's and the players' finer tools in a contact campaign, through the real dispatcher: the
GM's result decision with the warlord mark, a refused warlord mark told in its own words, the
GM repairing ruined defences from the state editor (audited, announced, undone)."""

from __future__ import annotations

import pytest
from aiogram.utils.i18n import I18n

from bot.clock import ManualClock
from bot.handlers.private import screens
from bot.handlers.private.callbacks import ResultButton
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.services.orders import Refusal, report_result, seat_in
from rules import Outcome
from rules.modules.contact import NAME as CONTACT
from storage import Phase, Store
from tests.bot.private_campaign import GM, GROUP, Table, alert, open_table, screen
from tests.bot.telegram import FakeTelegram
from tests.bot.test_contact_week import CONTACT_RULES, PLACEMENTS
from tests.bot.test_fair_play import _battles as _fair_play_battles


async def _battles(telegram: FakeTelegram, store: Store, clock: ManualClock) -> Table:
    """Turn 1's battles: Red and Green both walk into Blue's 3 (a chain of two battles)."""
    table = await open_table(telegram, store, clock, CONTACT_RULES)
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    await table.say(201, "move 4 from 4 to 3")
    await table.say(401, "move 4 from 5 to 3")
    assert (await advance(store, table.campaign.id, 1, Phase.ORDERS, GM, now)).advanced
    await telegram.deliver()
    table.take()
    return table


async def test_the_gm_decides_a_result_with_a_slain_warlord(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _battles(telegram, store, clock)
    listing = screen(await table.say(GM, "/battles"))
    decision = screen(await table.tap(GM, listing, "Decide battle 1"))
    outcomes = screen(await table.tap(GM, decision, "Another outcome"))
    question = screen(await table.tap(GM, outcomes, "Синие: solid victory"))
    assert "Was a warlord slain? A slain warlord gives the other side 3 VP." in question.text
    assert "Both warlords were slain" in str(question.buttons())
    decided = await table.tap(GM, question, "The warlord of Red Legion was slain")
    assert alert(decided) == (
        "Decided: Синие: solid victory; warlord slain: Red Legion. Both sides and the group "
        "are told."
    )
    [report] = [r for r in await store.battle_reports(table.campaign.id, 1) if r.battle == 1]
    assert report.override is not None
    assert report.override.winner == "blue"
    assert report.override.modules == {CONTACT: {"warlord_slain": ["red"]}}
    group = "\n".join(s.text for s in await telegram.deliver() if s.chat_id == GROUP)
    assert "Синие: solid victory; warlord slain: Red Legion. It is final." in group


async def test_the_gm_sees_the_reported_warlord_mark_and_may_decide_without_one(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _battles(telegram, store, clock)
    listing = screen(await table.say(202, "/battles"))
    picked = screen(await table.tap(202, listing, "Report battle 1"))
    outcome = screen(await table.tap(202, picked, "solid"))
    question = screen(await table.tap(202, outcome, "Red Legion won"))
    assert alert(await table.tap(202, question, "The warlord of Синие was slain"))
    listing = screen(await table.say(GM, "/battles"))
    decision = screen(await table.tap(GM, listing, "Decide battle 1"))
    marks = screen(await table.tap(GM, decision, "As side «Red Legion» says"))
    labels = [text for text, _data in marks.buttons()]
    assert "• ☠ The warlord of Синие was slain" in labels
    decided = await table.tap(GM, marks, "No warlord was slain")
    assert alert(decided).startswith("Decided: Red Legion: solid victory. ")
    [report] = [r for r in await store.battle_reports(table.campaign.id, 1) if r.battle == 1]
    assert report.override is not None
    assert report.override.modules == {}


async def test_a_refused_warlord_mark_has_its_own_words(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await _battles(telegram, store, clock)
    campaign = await table.now_campaign()
    seat = await seat_in(store, 202, campaign.id)
    assert seat is not None
    stranger = await report_result(
        store,
        seat,
        1,
        1,
        Outcome.SOLID,
        "red",
        clock.now(),
        {CONTACT: {"warlord_slain": ["green"]}},
    )
    assert stranger.refusal is Refusal.BAD_WARLORD
    assert all(r.reported is None for r in await store.battle_reports(campaign.id, 1))
    with i18n.context(), i18n.use_locale("ru"):
        words = screens.refusal_words(Refusal.BAD_WARLORD, campaign)
    assert words.startswith("Правила не принимают эту отметку о военачальнике")


@pytest.mark.parametrize("mark", ["3", "1"])
async def test_a_forged_warlord_button_outside_contact_is_refused_in_its_own_words(
    telegram: FakeTelegram, store: Store, clock: ManualClock, mark: str
) -> None:
    table = await open_table(telegram, store, clock)
    await _fair_play_battles(table)
    data = ResultButton(
        campaign=table.campaign.id, turn=1, battle=1, action="wl", outcome=f"s.{mark}", winner=0
    ).pack()
    refused = await table.forged(202, data)
    assert alert(refused).startswith("The rules do not take that warlord mark")
    assert all(r.reported is None for r in await store.battle_reports(table.campaign.id, 1))
