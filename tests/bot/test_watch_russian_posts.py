"""The Night Watch's group posts in Russian, read as a Russian speaker writes them: the
orders-open post, the battle list, the duel step posts and the Monday summary. Words agree with
«Иной» (masculine), never with a hero's name (Лариса); locations are called by their names."""

from __future__ import annotations

import pytest
from aiogram.methods import SendMessage, SendPhoto

from bot.modules.watch.duels import draft_play, run_duel_steps, submit_step
from bot.runtime.clock import ManualClock
from bot.services import dice
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import load
from storage import DuelPlay, Phase, Store
from tests.bot.private_campaign import GROUP, Table
from tests.bot.telegram import FakeTelegram
from tests.bot.test_watch_gm_tools import _watch_table

SEED = "c0ffee00c0ffee00c0ffee00c0ffee00"


async def _group_texts(table: Table) -> list[str]:
    sent = await table.telegram.deliver()
    return [
        s.text for s in sent if s.chat_id == GROUP and isinstance(s.method, SendMessage | SendPhoto)
    ]


async def _play(table: Table, store: Store, hero: str, side: str, plays: list[DuelPlay]) -> None:
    steps = await store.duel_steps(table.campaign.id, 1)
    step = next(s for s in steps if s.hero == hero)
    edits = step.edits
    for play in plays:
        drafted = await draft_play(store, step.id, side, edits, play)
        assert drafted.step is not None, drafted
        edits = drafted.step.edits
    closed = await submit_step(store, step.id, side, edits, bool(plays), 201, table.clock.now())
    assert closed.refusal is None, closed


async def test_the_night_watch_week_reads_as_written_in_russian(
    telegram: FakeTelegram, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fixed seed (Example A's): Лариса must hold an attack; a random deal gives none 1 in 11.
    monkeypatch.setattr(dice, "new_seed", lambda: SEED)
    table = await _watch_table(telegram, store, clock, "ru")
    opening = "\n".join(await _group_texts(table))
    assert "👤 Егор — в локации «Квартира Егора»." in opening
    await table.say(301, "герой Антон метро")
    await table.step()
    table.campaign = await table.now_campaign()
    assert table.campaign.phase is Phase.BATTLES
    await run_duel_steps(store, table.campaign.id, clock.now())
    listed = "\n".join(await _group_texts(table))
    assert (
        "👤 Маркер NPC стоит в локации «Квартира Егора».\n"
        "Перемещения Иных в порядке инициативы:\n"
        "1. Антон: «Кафе» → «Метро»\n"
        "Иные: Лариса — «Метро»; Андрей — «Метро»; Антон — «Метро».\n"
        "⚡ Поединок в локации «Метро»; шаги: Лариса, Андрей, Антон."
    ) in listed
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    larisa = load(state.modules[WATCH]).hero("h1")
    assert larisa is not None
    attacks = [card for card in larisa.hand if card.startswith("A")]
    assert attacks
    await _play(table, store, "h1", "red", [DuelPlay(card=c, target="h2") for c in attacks])
    await run_duel_steps(store, table.campaign.id, clock.now())
    first_step = await _group_texts(table)
    laid = ", ".join(f"Атака-{card[1:]} → Андрей" for card in attacks)
    _title, played, following = _step_post(first_step, "Лариса")
    assert played == f"Сыграно: {laid}."
    assert following == "Следующий шаг: Иной «Андрей»."
    await _play(table, store, "h2", "blue", [])
    await _play(table, store, "h3", "blue", [])
    await run_duel_steps(store, table.campaign.id, clock.now())
    later_steps = await _group_texts(table)
    _title, played, following = _step_post(later_steps, "Андрей")
    assert played == "Ничего не сыграно."
    assert "Антон" in following
    await table.step()
    monday = "\n".join(await _group_texts(table))
    spells = "; ".join(f"Атака-{card[1:]}, цель — «Андрей»" for card in attacks)
    assert f"🪄 Лариса: {spells}\n🪄 Андрей: без заклинаний\n🪄 Антон: без заклинаний" in monday
    wounds = sum(int(card[1:]) for card in attacks)
    assert f"🩸 Андрей: +{wounds} {_wounds(wounds)}" in monday
    fallen = "✝ «Андрей» выбывает из игры."
    assert (fallen in monday) is (wounds >= 4)
    for text in (opening, listed, *first_step, *later_steps, monday):
        assert "герой" not in text
        assert "metro" not in text
        assert "Лариса убита" not in text


def _step_post(texts: list[str], hero: str) -> tuple[str, str, str]:
    """The title, the cards and the next step's line of ``hero``'s step post. The title names
    the hero with «Иной» («шаг Иного «Лариса»»), never «герой»."""
    post = next(
        text for text in texts if text.startswith("⚔️ Поединок в локации «Метро», ход 1: шаг")
    )
    lines = post.splitlines()
    assert hero in lines[0]
    assert "Иного" in lines[0]
    following = lines[2] if len(lines) > 2 else ""
    assert not following or following.startswith("Следующ")
    return lines[0], lines[1], following


def _wounds(n: int) -> str:
    """«рана», «раны», «ран», as a Russian speaker counts them."""
    if n % 10 == 1 and n % 100 != 11:
        return "рана"
    if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14):
        return "раны"
    return "ран"
