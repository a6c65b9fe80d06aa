"""Siege rewards at the campaign's end (MODULES.md S8) through the real dispatcher, in English
and Russian: the strategist of a side with VP picks items with +/- buttons (items repeat, the
budget holds), sends the claim once; the GM is told in private and chooses the variants with
one tap each; the group hears of the claim only after the last choice. Nobody else may claim
or choose."""

from __future__ import annotations

import pytest

from bot.modules.siege.gm import AdjustOutcome, adjust_turn_start
from bot.runtime.clock import ManualClock
from bot.services.campaigns import end_campaign
from rules.modules.siege import Adjustment, VpChange
from storage import AuditAction, Language, Store
from tests.bot.group_helpers import button, say, tap
from tests.bot.telegram import FakeTelegram, Sent
from tests.storage.siege_script import (
    BLUE,
    GM,
    RED,
    RED_TACTICIAN,
    deploy,
    siege_campaign,
)

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "invite": "🎁 «Midnight Siege» is over. Side «Red»: 14 siege VP to spend on rewards.",
        "picked": "Picked: 14 of 14 VP, 0 left. VP not spent lapse.",
        "not_strategist": "Only the side's strategist claims its rewards.",
        "claimed": "🎁 Claimed for 14 of 14 VP:",
        "final": "That is decided already: a claim and a GM's choice are final.",
        "gm": "🎁 «Midnight Siege»: side «Red» claims rewards for 14 of 14 VP.",
        "not_gm": "Only a GM of this campaign chooses the rewards' variants.",
        "pawn": "A pawn",
        "knight": "A knight",
        "done": "Everything is chosen; the group has been told.",
        "group": "🎁 Side «Red»: rewards for 14 of 14 siege VP.",
        "pawn_line": "• A pawn (the GM's choice) — 2 VP",
        "rook_line": "• A rook — 8 VP",
    },
    "ru": {
        "invite": "🎁 Кампания «Midnight Siege» окончена. Сторона «Red»: 14 ПО осады, их можно "
        "потратить на награды.",
        "picked": "Выбрано на 14 ПО из 14, осталось 0. Непотраченные ПО сгорают.",
        "not_strategist": "Забрать награды стороны может только её стратег.",
        "claimed": "🎁 Награды на 14 ПО из 14:",
        "final": "Это уже решено: заявку на награды и выбор мастера изменить нельзя.",
        "gm": "🎁 «Midnight Siege». Сторона «Red»: награды на 14 ПО из 14.",
        "not_gm": "Выбирать варианты наград может только мастер этой кампании.",
        "pawn": "Пешка",
        "knight": "Конь",
        "done": "Всё выбрано, группе сообщено.",
        "group": "🎁 Сторона «Red»: награды на 14 ПО осады из 14.",
        "pawn_line": "• Пешка (выбор мастера) — 2 ПО",
        "rook_line": "• Ладья — 8 ПО",
    },
}


def _to(sent: list[Sent], chat: int) -> list[Sent]:
    return [s for s in sent if s.chat_id == chat]


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_a_side_claims_its_rewards_and_the_gm_chooses_the_variants(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: Language
) -> None:
    words = WORDS[language]
    campaign = await siege_campaign(store, language)
    await deploy(store, campaign.id)
    now = clock.now()
    for user, name in ((GM, "Game Master"), (RED, "Rita"), (BLUE, "Bella"), (RED_TACTICIAN, "Tom")):
        await store.see_person(user, name, None, language, True, now)
    gm, rita, tom = (
        telegram.user(GM, "Game Master", language),
        telegram.user(RED, "Rita", language),
        telegram.user(RED_TACTICIAN, "Tom", language),
    )
    telegram.group(-1001, "Wargamers")
    current = await store.campaign(campaign.id)
    assert current is not None
    adjusted = await adjust_turn_start(
        store, current, Adjustment(vp=(VpChange(side="red", delta=14),), reason="test"), GM, now
    )
    assert adjusted.outcome is AdjustOutcome.APPLIED
    current = await store.campaign(campaign.id)
    assert current is not None
    assert await end_campaign(store, current, GM, now) is not None

    delivered = await telegram.deliver()
    invites = [s for s in delivered if words["invite"] in s.text]
    assert [s.chat_id for s in invites] == [RED]  # blue has no VP; the tactician does not claim
    screen = invites[0]
    refused = await tap(telegram, tom, screen, "➕ 8.")
    assert refused is not None
    assert refused.text == words["not_strategist"]

    for label in ("➕ 8.", "➕ 2.", "➕ 2.", "➖ 2", "➕ 4."):
        screen_or_none = await tap(telegram, rita, screen, label)
        assert screen_or_none is not None
        screen = screen_or_none
    assert words["picked"] in screen.text
    assert not [text for text, _data in screen.buttons() if text.startswith("➕")]
    claim_button = button(screen, "✅")
    sent = await tap(telegram, rita, screen, "✅")
    assert sent is not None
    assert sent.text.startswith(words["claimed"])
    again = await telegram.feed(telegram.press(rita, screen, claim_button))
    assert again is not None
    assert again.text == words["final"]
    claim = (await store.reward_claims(campaign.id))["red"]
    assert (claim.items, claim.total, claim.vp) == (("simple_cheque", "knight", "rook"), 14, 14)

    delivered = await telegram.deliver()
    assert not [s for s in _to(delivered, -1001) if words["group"] in s.text]
    [choice] = [s for s in _to(delivered, GM) if words["gm"] in s.text]
    assert len([text for text, _data in choice.buttons() if text.startswith("1.")]) == 3
    assert len([text for text, _data in choice.buttons() if text.startswith("2.")]) == 2
    not_gm = await telegram.feed(
        telegram.press(rita, choice, button(choice, "1. " + words["pawn"]))
    )
    assert not_gm is not None
    assert not_gm.text == words["not_gm"]
    first = await tap(telegram, gm, choice, "1. " + words["pawn"])
    assert first is not None
    assert [text for text, _data in first.buttons()] == [
        text for text, _data in choice.buttons() if text.startswith("2.")
    ]
    assert not [s for s in _to(await telegram.deliver(), -1001) if words["group"] in s.text]
    last = await tap(telegram, gm, first, "2. " + words["knight"])
    assert last is not None
    assert words["done"] in last.text
    assert (await store.reward_claims(campaign.id))["red"].choices == {0: 1, 1: 0}
    [announced] = [s for s in _to(await telegram.deliver(), -1001) if words["group"] in s.text]
    assert words["pawn_line"] in announced.text
    assert words["rook_line"] in announced.text
    chosen = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.REWARD_CHOSEN
    ]
    assert [e.actor for e in chosen] == [GM, GM]


async def test_a_claim_without_choices_is_announced_at_once(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign = await siege_campaign(store)
    await deploy(store, campaign.id)
    now = clock.now()
    for user in (GM, RED):
        await store.see_person(user, f"Player {user}", None, "en", True, now)
    rita = telegram.user(RED, "Rita")
    telegram.group(-1001, "Wargamers")
    current = await store.campaign(campaign.id)
    assert current is not None
    await adjust_turn_start(
        store, current, Adjustment(vp=(VpChange(side="red", delta=9),)), GM, now
    )
    current = await store.campaign(campaign.id)
    assert current is not None
    await end_campaign(store, current, GM, now)
    [screen] = [s for s in await telegram.deliver() if "9 siege VP to spend" in s.text]
    screen_or_none = await tap(telegram, rita, screen, "➕ 8.")
    assert screen_or_none is not None
    done = await tap(telegram, rita, screen_or_none, "✅")
    assert done is not None
    assert "The GM and the group have been told." in done.text
    [announced] = [s for s in await telegram.deliver() if s.chat_id == -1001 and "🎁" in s.text]
    assert announced.text == "\n".join(
        ["🎁 Side «Red»: rewards for 8 of 9 siege VP.", "• A rook — 8 VP", "1 VP lapse."]
    )


@pytest.mark.parametrize(
    ("language", "typed", "unknown", "over"),
    [
        ("en", "claim 8, 2x2", "There is no item 11: the list has items 1 to 10.", "claim 9 9"),
        ("ru", "награды 8 2х2", "Награды 11 нет: в списке награды с 1 по 10.", "забрать 9 9"),
    ],
)
async def test_a_typed_claim_fills_the_screen_to_send(
    telegram: FakeTelegram,
    store: Store,
    clock: ManualClock,
    language: Language,
    typed: str,
    unknown: str,
    over: str,
) -> None:
    campaign = await siege_campaign(store, language)
    await deploy(store, campaign.id)
    now = clock.now()
    for user in (GM, RED, RED_TACTICIAN):
        await store.see_person(user, f"Player {user}", None, language, True, now)
    rita = telegram.user(RED, "Rita", language)
    tom = telegram.user(RED_TACTICIAN, "Tom", language)
    current = await store.campaign(campaign.id)
    assert current is not None
    await adjust_turn_start(
        store, current, Adjustment(vp=(VpChange(side="red", delta=12),)), GM, now
    )
    current = await store.campaign(campaign.id)
    assert current is not None
    await end_campaign(store, current, GM, now)
    filled = await say(telegram, rita, RED, typed)
    assert filled is not None
    picked = {"en": "Picked: 12 of 12 VP, 0 left.", "ru": "Выбрано на 12 ПО из 12, осталось 0."}
    assert picked[language] in filled.text
    assert await store.reward_claims(campaign.id) == {}  # shown to check, not sent
    wrong = await say(telegram, rita, RED, typed.replace("8", "11"))
    assert wrong is not None
    assert wrong.text == unknown
    too_dear = await say(telegram, rita, RED, over)
    assert too_dear is not None
    costs = {
        "en": "That costs more than the side's 12 VP: take something off.",
        "ru": "Это дороже, чем позволяют ПО стороны (12): уберите что-нибудь.",
    }
    assert too_dear.text == costs[language]
    not_claiming = await say(telegram, tom, RED_TACTICIAN, typed)
    assert not_claiming is not None
    assert picked[language] not in not_claiming.text  # a tactician claims nothing
    sent = await tap(telegram, rita, filled, "✅")
    assert sent is not None
    claim = (await store.reward_claims(campaign.id))["red"]
    assert claim.items == ("simple_cheque", "simple_cheque", "rook")
