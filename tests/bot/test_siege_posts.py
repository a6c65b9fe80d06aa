"""The posts of a siege campaign's dice, in English and Russian: the seeds' commitment as the
orders open, the weather choice, and the Monday summary revealing the roll seed (its map is
drawn on a siege campaign without trouble)."""

from __future__ import annotations

import pytest
from aiogram.utils.i18n import I18n

from bot.posts import Post, PostContext, render
from bot.services.turns import ChoiceOutcome, make_choice, resolve_and_store
from rules import commitment
from rules.modules.siege import SiegePlan
from storage import Language, Store
from tests.storage.siege_script import BLUE, at, deploy, play_turn_one, siege_campaign

WORDS = {
    "en": ("the dice are sealed", "starting weather", "roll seed is revealed", "East"),
    "ru": ("кубы запечатаны", "Начальную погоду", "Раскрываем зерно бросков", "Восток"),
}
LIST_WORDS = {
    "en": (
        "🌬 Weather in force: East.",
        "🏰 Red assaults fortification F1 in 2 West: strength 6 + roll {roll} = {total} "
        "against 10: {verdict}.",
        "🎲 Assault on F1 by side «Red»: d6 = {roll}",
        {True: "it falls", False: "it holds"},
    ),
    "ru": (
        "🌬 Погода сейчас: Восток.",
        "🏰 Сторона «Red» штурмует укрепление F1 в секторе 2 «Запад»: сила 6 + бросок {roll} = "
        "{total} против 10: {verdict}.",
        "🎲 Штурм F1 стороной «Red»: к6 = {roll}",
        {True: "падает", False: "держится"},
    ),
}
MONDAY_WORDS = {
    "en": {
        True: "🏰 Fortification F1 in 2 West fell to Red: +1 VP.",
        False: "🏰 Fortification F1 in 2 West held against Red. Red loses 1 army there.",
    },
    "ru": {
        True: "🏰 Укрепление F1 в секторе 2 «Запад» пало под штурмом стороны «Red»: +1 ПО.",
        False: "🏰 Укрепление F1 в секторе 2 «Запад» устояло: штурм стороны «Red» отбит. "
        "Сторона «Red» теряет там 1 армию.",
    },
}


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_siege_dice_posts_render_in_both_languages(
    store: Store, i18n: I18n, language: Language
) -> None:
    sealed, choose, revealed, east = WORDS[language]
    campaign = await siege_campaign(store, language)
    await deploy(store, campaign.id, weather=None)
    context = PostContext(store=store, i18n=i18n, bot_username="strategium_bot")
    texts: dict[str, str] = {}
    for message in await store.outbox_messages(campaign.id):
        post = await render(context, message)
        if post is not None and message.chat_id < 0:
            texts[message.kind] = post.text
    seeds = await store.turn_seeds(campaign.id, 1)
    assert seeds is not None
    assert sealed in texts["seeds_committed"]
    assert commitment(seeds.roll) in texts["seeds_committed"]
    assert seeds.roll not in texts["seeds_committed"]
    assert choose in texts["module_choice_news"]

    await deploy_weather(store, campaign.id)
    await play_turn_one(store, campaign.id)
    await resolve_and_store(store, campaign.id, 1, None, at(1))
    rendered: dict[str, list[Post]] = {}
    for message in await store.outbox_messages(campaign.id):
        post = await render(context, message)
        if post is not None and message.chat_id < 0:
            rendered.setdefault(message.kind, []).append(post)
    assert any(east in post.text for post in rendered["module_choice_made"])
    listed = await store.battle_list(campaign.id, 1)
    assert listed is not None
    [roll] = listed.rolls
    falls = SiegePlan.model_validate(listed.modules["siege"]).assaults[0].falls
    assert falls is (6 + roll.value > 10)  # MODULES.md S5: the total must beat the strength
    weather_line, assault_line, roll_line, verdicts = LIST_WORDS[language]
    battle_list = rendered["battle_list"][-1].text
    assert weather_line in battle_list
    expected = assault_line.format(roll=roll.value, total=6 + roll.value, verdict=verdicts[falls])
    assert expected in battle_list
    assert roll_line.format(roll=roll.value) in battle_list
    assert "t1/siege" not in battle_list  # the roll's label is the export's, not the group's
    monday = rendered["map"][-1]
    assert monday.photo is not None
    assert monday.photo.startswith(b"\x89PNG")
    assert revealed in monday.text
    assert seeds.roll in monday.text
    assert MONDAY_WORDS[language][falls] in monday.text.splitlines()


async def deploy_weather(store: Store, campaign_id: int) -> None:
    """Blue picks East (state 2)."""
    made = await make_choice(store, campaign_id, "siege", {"weather": 2}, BLUE, at(0, 13))
    assert made is ChoiceOutcome.MADE
