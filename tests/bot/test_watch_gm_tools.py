"""The GM's Night Watch tools through the real dispatcher (MODULES.md W1, W7): the NPC marker
moved to an adjacent location while the orders are open (only neighbours offered; audited,
posted with the map, undone like any state edit), a hero added to the running campaign (it
enters at the next deal), the "-1" tokens on a laid card until the results deadline (posted,
counted by the resolution); in English and in Russian, refused to a player."""

from __future__ import annotations

import json
from typing import Any

from aiogram.methods import SendPhoto
from aiogram.utils.i18n import I18n

from bot.modules.watch import gm as watch_gm
from bot.modules.watch.duels import draft_play, run_duel_steps, submit_step
from bot.modules.watch.gm import laid_cards, lower_card
from bot.modules.watch.handlers.gm import WatchCardPress
from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.services.posting import group_post
from bot.services.state_edits import EditOutcome
from rules.modules.watch import NAME as WATCH
from rules.modules.watch import load
from storage import AuditAction, CampaignSettings, DuelPlay, Phase, Store
from tests.bot.private_campaign import GM, GROUP, Table, alert, open_table, screen
from tests.bot.telegram import FakeTelegram, Sent


def _hero(hero: str, side: str, name: str, initiative: int, start: str) -> dict[str, Any]:
    return {"id": hero, "side": side, "name": name, "initiative": initiative, "start": start}


WATCH_RULES: dict[str, Any] = {
    "modules": [WATCH],
    "module_settings": {
        WATCH: {
            "heroes": [
                _hero("h1", "red", "Лариса", 2, "metro"),
                _hero("h2", "blue", "Андрей", 4, "metro"),
                _hero("h3", "blue", "Антон", 7, "cafe"),
            ],
            "npc": {"name": "Егор", "start": "apartment"},
        }
    },
}
PLACEMENTS = {
    "red": {"hairdresser": 6, "cafe": 2, "roof": 2},
    "blue": {"entrance": 5, "apartment": 3, "metro": 2},
    "green": {"cafe": 4, "roof": 3, "metro": 3},
}


async def _watch_table(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: str = "en"
) -> Table:
    table = await open_table(telegram, store, clock, WATCH_RULES, "night-demo")
    now = clock.now()
    if language == "ru":
        await store.update_settings(table.campaign.id, CampaignSettings(language="ru"), GM, now)
        await store.see_person(GM, "Мастер", None, "ru", True, now)
        table.users[GM] = telegram.user(GM, "Мастер", "ru")
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    table.campaign = await table.now_campaign()
    return table


def _group(sent: list[Sent]) -> list[Sent]:
    return [s for s in sent if s.chat_id == GROUP]


async def _editor(table: Table, label: str) -> Sent:
    panel = screen(await table.say(GM, "/gm"))
    return screen(await table.tap(GM, panel, label))


async def test_the_gm_moves_the_npc_to_a_neighbour_and_undoes_it(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock)
    campaign_id = table.campaign.id
    before = await store.turn_start(campaign_id, 1)
    assert before is not None
    editor = await _editor(table, "Correct the state")
    assert "👤 Егор: Egor's Apartment" in editor.text
    assert "hand:" not in editor.text
    moves = screen(await table.tap(GM, editor, "Move Егор"))
    assert [text for text, _data in moves.buttons() if text.startswith("→")] == ["→ Entrance"]
    asked = screen(await table.tap(GM, moves, "→ Entrance"))
    assert "type the reason" in asked.text
    refused = await table.forged(301, moves.buttons()[0][1])
    assert alert(refused) in (
        "Эта кнопка больше не действует.",
        "Это может только мастер этой кампании. Попросите мастера или посмотрите /status.",
    )
    assert not [s for s in refused if s.chat_id == 301 and "причин" in s.text]
    done = screen(await table.say(GM, "Egor heard the shots"))
    assert done.text.startswith("Done:")
    after = await store.turn_start(campaign_id, 1)
    assert after is not None
    npc = load(after.modules[WATCH]).npc
    assert npc is not None
    assert npc.sector == "entrance"
    (entry,) = [
        e for e in await store.audit_log(campaign_id) if e.action is AuditAction.STATE_EDITED
    ]
    assert (entry.actor, entry.reason) == (GM, "Egor heard the shots")
    (post,) = [s for s in _group(await telegram.deliver()) if "edited the state" in s.text]
    assert isinstance(post.method, SendPhoto)
    assert "Reason: Egor heard the shots" in post.text
    assert "👤 The NPC marker moves to Entrance." in post.text

    editor = await _editor(table, "Correct the state")
    confirm = screen(await table.tap(GM, editor, "Undo the last edit"))
    await table.tap(GM, confirm, "Yes, undo it")
    assert await store.turn_start(campaign_id, 1) == before
    (undone,) = [s for s in _group(await telegram.deliver()) if "undid the edit" in s.text]
    assert "the move to Entrance is taken back" in undone.text


async def test_the_gm_adds_a_hero_who_enters_at_the_next_deal(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock)
    campaign_id = table.campaign.id
    editor = await _editor(table, "Correct the state")
    asked = screen(await table.tap(GM, editor, "Add a hero"))
    assert "name, side, initiative, start location" in asked.text
    wrong = screen(await table.say(GM, "Завулон, Purple, 9, Подъезд\nhe was always there"))
    assert (
        "There is no side «Purple» in play; a hero joins one of these: «Red Legion», «Синие», "
        "«Green Horde». Write the hero on the first line"
    ) in wrong.text
    assert "add the sides first" not in wrong.text
    taken = screen(await table.say(GM, "лариса, Red Legion, 9, Подъезд\nhe was always there"))
    assert "A hero is called «лариса» already" in taken.text
    done = screen(await table.say(GM, "Завулон, Red Legion, 9, Подъезд\nhe was always there"))
    assert done.text.startswith("Done:")
    state = await store.turn_start(campaign_id, 1)
    assert state is not None
    added = load(state.modules[WATCH]).hero("h4")
    assert added is not None
    assert (added.name, added.side, added.initiative, added.sector) == (
        "Завулон",
        "red",
        9,
        "entrance",
    )
    assert (added.enters_turn, added.hand) == (2, ())
    (post,) = [s for s in _group(await telegram.deliver()) if "edited the state" in s.text]
    assert "🧙 Завулон (side «Red Legion», initiative 9) joins the game: enters on turn 2" in (
        post.text
    )
    assert "dealt spells with the others" in post.text


async def _to_duels(table: Table, store: Store, clock: ManualClock) -> None:
    """Orders close: Лариса and Андрей stand in the Metro, one duel; Лариса's step is open."""
    await table.step()
    table.campaign = await table.now_campaign()
    assert table.campaign.phase is Phase.BATTLES
    await run_duel_steps(store, table.campaign.id, clock.now())


async def _larisa_plays(store: Store, table: Table) -> str:
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    hero = load(state.modules[WATCH]).hero("h1")
    assert hero is not None
    attack = hero.hand[0]  # an attack or a defence: either may be lowered
    steps = await store.duel_steps(table.campaign.id, 1)
    step = next(s for s in steps if s.hero == "h1")
    drafted = await draft_play(
        store, step.id, "red", step.edits, DuelPlay(card=attack, target="h2")
    )
    assert drafted.step is not None
    closed = await submit_step(
        store, step.id, "red", drafted.step.edits, True, 201, table.clock.now()
    )
    assert closed.refusal is None
    return attack


async def test_the_gm_lowers_a_laid_card_and_the_resolution_counts_it(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await _watch_table(telegram, store, clock)
    panel = screen(await table.say(GM, "/gm"))
    assert "Lower a played spell" not in str(panel.buttons())
    await _to_duels(table, store, clock)
    attack = await _larisa_plays(store, table)
    panel = screen(await table.say(GM, "/gm"))
    cards = screen(await table.tap(GM, panel, "Lower a played spell"))
    spell = f"{'attack' if attack[0] == 'A' else 'defence'} {attack[1:]}"
    assert cards.buttons()[0][0] == f"Лариса: {spell} → Андрей"
    refused = await table.forged(301, cards.buttons()[0][1])
    assert alert(refused) in (
        "Эта кнопка больше не действует.",
        "Это может только мастер этой кампании. Попросите мастера или посмотрите /status.",
    )
    amounts = screen(await table.tap(GM, cards, "Лариса"))
    assert f"Лариса: {spell} on Андрей" in amounts.text
    pressed = await table.tap(GM, amounts, "−1")
    assert alert(pressed).startswith("Done:")
    power = int(attack[1:]) - 1
    assert screen(pressed).buttons()[0][0] == f"Лариса: {spell} −1 → Андрей"
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    (modifier,) = load(state.modules[WATCH]).modifiers
    assert (modifier.hero, modifier.play, modifier.lowered_by) == ("h1", 0, 1)
    (post,) = [s for s in _group(await telegram.deliver()) if "🃏" in s.text]
    assert f"the GM lowers Лариса's spell, {spell} on Андрей, by 1: it counts {power}" in post.text
    adjusted = [
        e
        for e in await store.audit_log(table.campaign.id)
        if e.action is AuditAction.STATE_ADJUSTED
    ]
    assert [entry.reason for entry in adjusted] == [f"-1 x1: Лариса (h1), spell 1 ({attack})"]

    await table.step()  # the results deadline: the duel is resolved
    resolutions = await store.resolutions(table.campaign.id, 1)
    report = json.loads(json.dumps(resolutions[-1].report.modules[WATCH]))
    assert report["steps"][0]["plays"][0]["power"] == power
    monday = [s.text for s in _group(await telegram.deliver()) if "🪄 Лариса" in s.text]
    assert any(f"{spell} (GM's −1: counts {power}) on Андрей" in text for text in monday)


async def test_a_russian_gm_moves_egor_and_lowers_a_card(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _watch_table(telegram, store, clock, "ru")
    editor = await _editor(table, "Исправить положение")
    moves = screen(await table.tap(GM, editor, "Переместить маркер «Егор»"))
    assert "перемещается на одну локацию за ход" in moves.text
    screen(await table.tap(GM, moves, "→ «Подъезд»"))
    done = screen(await table.say(GM, "Егор услышал выстрелы"))
    assert done.text.startswith("Готово")
    (post,) = [s for s in _group(await telegram.deliver()) if "Егор услышал" in s.text]
    assert "👤 Маркер NPC перемещается в локацию «Подъезд»." in post.text
    await _to_duels(table, store, clock)
    attack = await _larisa_plays(store, table)
    panel = screen(await table.say(GM, "/gm"))
    cards = screen(await table.tap(GM, panel, "Ослабить сыгранное заклинание"))
    amounts = screen(await table.tap(GM, cards, "Лариса"))
    await table.tap(GM, amounts, "−1")
    power = int(attack[1:]) - 1
    spell = f"{'Атака' if attack[0] == 'A' else 'Защита'}-{attack[1:]}"
    (post,) = [s for s in _group(await telegram.deliver()) if "🃏" in s.text]
    assert (
        f"мастер ослабил на 1 заклинание Иного «Лариса» ({spell}, цель — «Андрей»): "
        f"при расчёте ран его сила — {power}"
    ) in post.text


async def test_sealed_spells_are_lowered_only_after_the_reveal(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """In sealed mode a closed step's spells are secret until the last step closes: the "-1"
    tool lists none and lowers none, and a queued token post says nothing, until the reveal;
    over every request, neither the group nor Night's chats see the spell before it."""
    sealed = {**WATCH_RULES["module_settings"][WATCH], "duel_mode": "sealed"}
    rules = {**WATCH_RULES, "module_settings": {WATCH: sealed}}
    table = await open_table(telegram, store, clock, rules, "night-demo")
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, clock.now())
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, clock.now())).advanced
    table.campaign = await table.now_campaign()
    await _to_duels(table, store, clock)
    attack = await _larisa_plays(store, table)
    spell = f"{'attack' if attack[0] == 'A' else 'defence'} {attack[1:]}"
    campaign = await table.now_campaign()

    panel = screen(await table.say(GM, "/gm"))
    listed = screen(await table.tap(GM, panel, "Lower a played spell"))
    assert "sealed duels are not shown yet" in listed.text
    assert not [text for text, _data in listed.buttons() if "Лариса" in text]
    forged = await table.forged(GM, WatchCardPress(c=campaign.id, t=1, h="h1", i=0).pack())
    assert "sealed duels are not shown yet" in alert(forged)
    assert not (await laid_cards(store, campaign))
    refused = await lower_card(store, campaign, "h1", 0, 1, GM, clock.now())
    assert refused.outcome is EditOutcome.CLOSED
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    assert load(state.modules[WATCH]).modifiers == ()
    await store.enqueue(
        group_post(
            campaign,
            "watch_card_lowered",
            "turn:1:watch-card:test",
            turn=1,
            hero="h1",
            play=0,
            lowered=1,
        ),
        clock.now(),
    )
    await telegram.deliver()
    table.take()
    hidden = [s for s in table.log if s.chat_id in (GROUP, 301, 302)]
    assert hidden
    for sent in hidden:
        assert "🃏" not in sent.text, sent.text
        assert f"{spell} → Андрей" not in sent.text, sent.text
        assert f"{spell} on Андрей" not in sent.text, sent.text
        if sent.chat_id == GROUP:
            assert spell not in sent.text, sent.text

    andrey = next(s for s in await store.duel_steps(campaign.id, 1) if s.hero == "h2")
    closed = await submit_step(store, andrey.id, "blue", andrey.edits, False, 301, clock.now())
    assert closed.refusal is None
    revealed = [s.text for s in _group(await telegram.deliver())]
    assert any(spell in text.casefold() for text in revealed), revealed
    panel = screen(await table.say(GM, "/gm"))
    cards = screen(await table.tap(GM, panel, "Lower a played spell"))
    assert cards.buttons()[0][0] == f"Лариса: {spell} → Андрей"
    amounts = screen(await table.tap(GM, cards, "Лариса"))
    assert alert(await table.tap(GM, amounts, "−1")).startswith("Done:")
    (post,) = [s for s in _group(await telegram.deliver()) if "🃏" in s.text]
    assert f"the GM lowers Лариса's spell, {spell} on Андрей, by 1" in post.text


async def test_the_npc_moves_one_location_a_turn_however_often_the_gm_moves_him(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Егор goes from the Apartment to the Entrance; the GM's second move of the turn is
    measured from the Apartment again: only back there, never on to the Metro or the Roof."""
    table = await _watch_table(telegram, store, clock)
    editor = await _editor(table, "Correct the state")
    moves = screen(await table.tap(GM, editor, "Move Егор"))
    screen(await table.tap(GM, moves, "→ Entrance"))
    assert screen(await table.say(GM, "Egor heard the shots")).text.startswith("Done:")
    editor = await _editor(table, "Correct the state")
    again = screen(await table.tap(GM, editor, "Move Егор"))
    assert [text for text, _data in again.buttons() if text.startswith("→")] == [
        "→ Egor's Apartment"
    ]
    metro = moves.buttons()[0][1].rsplit(":", 1)[0] + ":0"  # the Metro, first on the map
    assert alert(await table.forged(GM, metro)) == "That button is not valid any more."
    refused = await watch_gm.move_npc_now(
        store, await table.now_campaign(), "roof", "on", GM, clock.now()
    )
    assert refused.outcome is EditOutcome.REFUSED
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    npc = load(state.modules[WATCH]).npc
    assert npc is not None
    assert npc.sector == "entrance"
    screen(await table.tap(GM, again, "→ Egor's Apartment"))
    assert screen(await table.say(GM, "he went home")).text.startswith("Done:")
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    npc = load(state.modules[WATCH]).npc
    assert npc is not None
    assert npc.sector == "apartment"


async def test_no_hero_joins_past_the_most_a_campaign_has(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """A running campaign with 24 heroes (the setup's most): one more is refused in words,
    nothing is added; the rules refuse it with their own code too."""
    sides = ("red", "blue", "green")
    heroes = [_hero(f"h{n:02d}", sides[n % 3], f"Иной {n}", n, "metro") for n in range(1, 25)]
    full = {**WATCH_RULES["module_settings"][WATCH], "heroes": heroes}
    table = await open_table(
        telegram, store, clock, {**WATCH_RULES, "module_settings": {WATCH: full}}, "night-demo"
    )
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, clock.now())
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, clock.now())).advanced
    table.campaign = await table.now_campaign()
    before = await store.turn_start(table.campaign.id, 1)
    editor = await _editor(table, "Correct the state")
    await table.tap(GM, editor, "Add a hero")
    refused = "\n".join(
        s.text for s in await table.say(GM, "Завулон, Red Legion, 9, Подъезд\nhe came")
    )
    assert "Nothing was changed:" in refused
    assert "A campaign has at most 24 heroes, the fallen included: no more can join." in refused
    assert await store.turn_start(table.campaign.id, 1) == before
