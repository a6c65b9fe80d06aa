"""A contact chain counted for the sides that really fought it: Red beats Blue in battle 1, so
battle 2 is Green against Red (its list names Blue, battle 1's defender, until that result is
in), and nobody reports battle 2 (a draw without losses). The players' Monday summaries, the
Monday map and the end summary all say so, and none counts battle 2 for Blue."""

from __future__ import annotations

import pytest
from aiogram.methods import SendPhoto
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.screens.map_views import turn_map
from bot.services import campaigns
from bot.services.campaigns import end_campaign
from bot.services.clockwork import advance
from rules import BattleResult, Outcome
from storage import CampaignSettings, CampaignStatus, Language, Phase, Store
from tests.bot.private_campaign import GM, GROUP, open_table
from tests.bot.telegram import FakeTelegram, Sent
from tests.bot.test_contact_week import CONTACT_RULES, PLACEMENTS

SUMMARY = {
    "en": [
        "2 battles were played.",
        "Of them, 1 had no result and was counted as a draw without losses.",
        "• «Red Legion»: 1 win, 1 draw (1 without a result), 0 losses; holds {red} of 3 sectors",
        "• «Синие»: 0 wins, 0 draws, 1 loss; holds {blue} of 3 sectors",
        "• «Green Horde»: 0 wins, 1 draw (1 without a result), 0 losses; "
        "holds {green} of 3 sectors",
    ],
    "ru": [
        "Сыграно боёв: 2.",
        "Из них без результата: 1 (засчитана ничья без потерь).",
        "• «Red Legion»: побед: 1, ничьих: 1 (без результата: 1), поражений: 0; "
        "удерживает {red} из 3 секторов",
        "• «Синие»: побед: 0, ничьих: 0, поражений: 1; удерживает {blue} из 3 секторов",
        "• «Green Horde»: побед: 0, ничьих: 1 (без результата: 1), поражений: 0; "
        "удерживает {green} из 3 секторов",
    ],
}


def _said(sent: list[Sent], chat: int) -> list[str]:
    return [line for s in sent if s.chat_id == chat for line in s.text.splitlines()]


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_a_chain_battle_counts_for_the_sides_that_fought_it(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n, language: Language
) -> None:
    table = await open_table(telegram, store, clock, CONTACT_RULES)
    campaign_id = table.campaign.id
    await store.update_settings(campaign_id, CampaignSettings(language=language), GM, clock.now())
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    await telegram.deliver()
    await table.say(201, "move 4 from 4 to 3")
    await table.say(401, "move 4 from 5 to 3")
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, now)).advanced
    listed = await store.battle_list(campaign_id, 1)
    assert listed is not None
    first, second = listed.battles
    assert (first.attacker, first.defender) == ("red", "blue")
    assert (second.attacker, second.defender, second.defender_from) == ("green", "blue", 1)
    won = BattleResult(battle=1, outcome=Outcome.SOLID, winner="red")
    await store.report_result(campaign_id, 1, won, 202, now)
    await store.confirm_result(campaign_id, 1, won, 302, now)
    await telegram.deliver()
    table.take()

    assert (await advance(store, campaign_id, 1, Phase.BATTLES, GM, now)).advanced
    monday = await telegram.deliver()
    red, blue, green = _said(monday, 201), _said(monday, 301), _said(monday, 401)
    assert (
        "Battle 2 in 3 East against side «Green Horde»: no result: counted as a draw "
        + ("without losses")
        in red
    )
    assert (
        "Battle 2 in 3 East against side «Red Legion»: no result: counted as a draw "
        + ("without losses")
        in green
    )
    assert [line for line in blue if line.startswith("Бой ")] == [
        "Бой 1, сектор 3 «Восток», противник — сторона «Red Legion»: уверенная победа в пользу "
        "стороны «Red Legion» — сообщила сторона «Red Legion», подтверждено"
    ]
    start = await store.turn_start(campaign_id, 2)
    assert start is not None
    sides = await store.sides(campaign_id)
    with i18n.context(), i18n.use_locale(language):
        view = await turn_map(store, table.campaign, start, sides, "W", week=True)
    assert view.week is not None
    assert [(m.id, m.attacker, m.defender, m.outcome) for m in view.week.battles] == [
        (1, "red", "blue", Outcome.SOLID),
        (2, "green", "red", None),
    ]

    campaign = await store.campaign(campaign_id)
    assert campaign is not None
    if campaign.status is not CampaignStatus.FINISHED:
        assert await end_campaign(store, campaign, GM, now) is not None
    sent = await telegram.deliver()
    [summary] = [s.text for s in sent if isinstance(s.method, SendPhoto) and s.chat_id == GROUP]
    # Held as the Monday map counts it.
    held = {side.id: len((view.captured or {}).get(side.id, ())) for side in sides}
    assert held["red"] == 1
    for line in SUMMARY[language]:
        assert line.format(**held) in summary.splitlines(), (line, summary)
