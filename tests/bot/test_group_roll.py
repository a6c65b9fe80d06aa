"""``/roll`` in the group: a member's dice are drawn from the turn's roll seed by label and
recorded; anyone can re-draw them once the seed is revealed (the export verifies); a stranger
and bad dice are refused with how to do it, in English and Russian."""

from __future__ import annotations

import json

from bot.services.turns import resolve_and_store
from rules.table import DiceExpression, roll_table_dice
from rules.verify import verify_export
from storage import Store
from tests.bot.group_helpers import say
from tests.bot.telegram import FakeTelegram
from tests.storage.siege_script import RED, at, deploy, play_turn_one, siege_campaign


async def test_a_member_rolls_and_the_roll_verifies(telegram: FakeTelegram, store: Store) -> None:
    campaign = await siege_campaign(store)
    await deploy(store, campaign.id)
    group = telegram.group(-1001, "Wargamers")
    rita = telegram.user(RED, "Rita")
    stranger = telegram.user(999, "Stranger")
    answer = await say(telegram, rita, group, "/roll 2d6")
    assert answer is not None
    seeds = await store.turn_seeds(campaign.id, 1)
    assert seeds is not None
    expected = roll_table_dice(seeds.roll, 1, None, 1, DiceExpression(count=2, faces=6))
    values = ", ".join(str(die.value) for die in expected.dice)
    assert f"🎲 2d6: {values} (total {expected.total})." in answer.text
    assert seeds.roll not in answer.text
    second = await say(telegram, rita, group, "/roll д20")
    assert second is not None
    assert "t1/roll/group/2" in second.text
    [first, again] = await store.table_rolls(campaign.id, 1)
    assert [die.label for die in first.rolls] == ["t1/roll/group/1/1", "t1/roll/group/1/2"]
    assert (again.expression, again.rolled_by) == ("1d20", RED)

    refused = await say(telegram, stranger, group, "/roll 2d6")
    assert refused is not None
    assert "Only the campaign's players and GMs roll dice here." in refused.text
    bad = await say(telegram, rita, group, "/roll 30d6")
    assert bad is not None
    assert "At most 20 dice at once." in bad.text
    assert len(await store.table_rolls(campaign.id)) == 2

    await play_turn_one(store, campaign.id)
    await resolve_and_store(store, campaign.id, 1, None, at(1))
    answer_json = verify_export(json.dumps(await store.export_campaign(campaign.id)))
    assert answer_json["failed"] == []
    assert answer_json["verified"] >= 4  # the assault's roll and the three table dice


async def test_bad_dice_are_explained_in_russian(telegram: FakeTelegram, store: Store) -> None:
    campaign = await siege_campaign(store, "ru")
    await deploy(store, campaign.id)
    group = telegram.group(-1001, "Варгеймеры")
    rita = telegram.user(RED, "Рита", language="ru")
    bad = await say(telegram, rita, group, "/roll кубик")
    assert bad is not None
    assert bad.text.startswith("Такие кубы я бросить не могу.")
