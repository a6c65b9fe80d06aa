"""A Monday summary fits its map's caption: one message per group instead of two."""

from __future__ import annotations

import json
from pathlib import Path

from aiogram import Bot
from aiogram.methods import SendPhoto
from aiogram.utils.i18n import I18n

from bot.posts.turns import fitting_caption
from bot.runtime.clock import ManualClock
from bot.screens.rendering import MapDrawer
from bot.services.outbox_sender import Limits, OutboxSender
from bot.texts.core import brief_report
from bot.texts.limits import CAPTION_LIMIT, telegram_length
from rules import BattleResult, resolve_turn
from rules.cli import load_turn_document
from tests.bot.telegram import FakeSession
from tests.bot.test_rate_limits import CAMPAIGNS, fast, monday_store
from tests.bot.test_russian_posts import FOUR, TURN
from tests.storage.campaign_script import at

BRIEF_RU = """\
Итоги хода 3 подведены.
Бой 1, сектор 1 «Экватор»: разгром в пользу стороны «Империум»
Бой 2, сектор 2 «Запад»: сокрушительная победа в пользу стороны «Империум»
Бой 3, сектор 3 «Восток»: ничья
Сторона «Империум»: новые армии +4; удерживает 1 «Экватор», 2 «Запад», 4 «Северный полюс»
Сторона «Орда»: потери в боях −1; новые армии +1
Сторона «Красные»: потери в боях −1
Сторона «Эльдар»: новые армии +2
У стороны «Красные» не осталось армий: она выбывает.
Победа в кампании за стороной «Империум»!"""

BRIEF_EN = """\
Turn 3 resolved.
Battle 1 in 1 Equator: Империум: slaughter
Battle 2 in 2 West: Империум: crushing victory
Battle 3 in 3 East: draw
Империум: new armies +4; holds 1 Equator, 2 West, 4 North Pole
Орда: losses in battles −1; new armies +1
Красные: losses in battles −1
Эльдар: new armies +2
Красные has no armies left and is out.
Империум wins the campaign!"""


def _brief(i18n: I18n, language: str) -> str:
    turn = load_turn_document(json.dumps(TURN))
    results = [BattleResult.model_validate(r) for r in turn.results]
    report = resolve_turn(turn.game, turn.state, turn.orders, results).report
    with i18n.context(), i18n.use_locale(language):
        return "\n".join(brief_report(report, turn.game.map, FOUR, language))


def test_the_brief_summary_gives_each_side_one_line_in_both_languages(i18n: I18n) -> None:
    assert _brief(i18n, "ru") == BRIEF_RU
    assert _brief(i18n, "en") == BRIEF_EN


def test_the_full_summary_is_kept_while_it_fits_a_caption() -> None:
    full = ["Turn 3 resolved.", "Battle 1 in 1 Equator: draw"]
    assert fitting_caption(full, ["Turn 3 resolved."]) == "\n".join(full)


def test_a_long_summary_gives_way_to_the_brief_one_when_that_fits() -> None:
    full = ["Turn 3 resolved.", *(f"Move {n}: " + "x" * 60 for n in range(20))]
    brief = ["Turn 3 resolved.", "Every line of the turn: /history"]
    assert telegram_length("\n".join(full)) > CAPTION_LIMIT
    assert fitting_caption(full, brief) == "Turn 3 resolved.\nEvery line of the turn: /history"


def test_when_neither_fits_the_full_summary_goes_as_caption_and_continuation() -> None:
    full = ["Turn 3 resolved.", *("y" * 80 for _ in range(20))]
    brief = ["Turn 3 resolved.", *("z" * 80 for _ in range(15))]
    assert fitting_caption(full, brief) == "\n".join(full)
    assert fitting_caption(full, []) == "\n".join(full)


def test_every_map_of_a_busy_monday_carries_its_whole_summary_in_one_caption(
    tmp_path: Path, i18n: I18n
) -> None:
    session = FakeSession({})
    fast(lambda: _send_everything(tmp_path / "monday.sqlite3", session, i18n))
    photos = [sent.method for sent in session.sent if isinstance(sent.method, SendPhoto)]
    captions = [
        photo.caption or ""
        for photo in photos
        if (photo.caption or "").startswith("Turn 1 resolved")
    ]
    assert len(captions) == CAMPAIGNS
    assert all("Turn 2 begins" in caption for caption in captions)
    assert all(telegram_length(caption) <= CAPTION_LIMIT for caption in captions)
    # Most of these weeks are too long in full: their captions are the brief summary.
    brief = [caption for caption in captions if "Every line of the turn: /history" in caption]
    assert len(brief) > CAMPAIGNS // 2


async def _send_everything(path: Path, session: FakeSession, i18n: I18n) -> None:
    store = await monday_store(path)
    try:
        bot = Bot("42:TEST", session=session)
        sender = OutboxSender(
            bot, store, ManualClock(at(1, 1)), i18n, limits=Limits(), maps=MapDrawer(0)
        )
        while (await sender.send_due()).sent:
            pass
    finally:
        await store.close()
