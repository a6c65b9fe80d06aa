"""Seed 002's score-margin table: a tactician types a battle's final scores, the bot suggests
the outcome by the campaign's table and reports it with one tap; the GM's own table counts."""

from __future__ import annotations

from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from rules import Attack, Outcome, SideOrders
from rules.table import ScoreMargins
from storage import CampaignSettings, Phase, Store
from tests.bot.private_campaign import GM, alert, open_table, screen
from tests.bot.telegram import FakeTelegram

PLACEMENT = {"1": 4, "2": 3, "3": 3}


async def test_scores_suggest_the_outcome_and_report_it(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    campaign_id = table.campaign.id
    now = clock.now()
    for side in ("red", "blue", "green"):
        await campaigns.place_side(store, table.campaign, side, PLACEMENT, GM, now)
    await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, now)
    attack = SideOrders(attacks=(Attack(sector="1", target="blue"),))
    await store.save_orders(campaign_id, 1, "red", attack, True, 201, now)
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, None, now)).advanced

    pick = "\n".join(s.text for s in await table.say(202, "/battles"))
    assert "Battle 1" in pick
    suggested = screen(await table.say(202, "1: 1450 1210"))
    assert "Battle 1: Red Legion 1450, Синие 1210; margin 240." in suggested.text
    assert "from 10 a slaughter" in suggested.text
    assert "Suggested result: Red Legion won, slaughter." in suggested.text
    reported = await table.tap(202, suggested, "Report")
    assert alert(reported)
    [report] = await store.battle_reports(campaign_id, 1)
    assert report.reported is not None
    assert (report.reported.outcome, report.reported.winner) == (Outcome.SLAUGHTER, "red")

    await store.update_settings(
        campaign_id,
        CampaignSettings(score_margins=ScoreMargins(solid=100, crushing=300, slaughter=500)),
        GM,
        now,
    )
    russian = screen(await table.say(302, "бой 1 1210 - 1450"))
    assert "Предлагаемый результат: уверенная победа в пользу стороны «Синие»." in russian.text
    assert "перевес 240" in russian.text
    assert "от 100 — уверенная победа" in russian.text
    unknown = "\n".join(s.text for s in await table.say(202, "7: 10 2"))
    assert "There is no such battle" in unknown
    # Spaces and lines around the scores are read past; a long text is not scores.
    padded = screen(await table.say(202, "\n" * 2000 + " 1: 1450 1210 " + " " * 2000))
    assert "Suggested result: Red Legion won, solid victory." in padded.text
    long = "\n".join(s.text for s in await table.say(202, "1: 1450 1210 " + "1 " * 2000))
    assert "Suggested result" not in long
