"""The GM's and the players' finer tools in a contact campaign, through the real dispatcher: the
GM's result decision with the warlord mark, a refused warlord mark told in its own words, the
GM repairing ruined defences from the state editor (audited, announced, undone)."""

from __future__ import annotations

import pytest
from aiogram.methods import SendPhoto
from aiogram.utils.i18n import I18n

from bot.handlers.group.gm_state import describe_edit_problem
from bot.handlers.private import screens
from bot.handlers.private.callbacks import ResultButton
from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.services.orders import Refusal, report_result, seat_in
from bot.services.state_edits import EditOutcome, edit_state
from bot.services.turns import apply_adjustments, game_for
from rules import Outcome
from rules.edits import ArmySet, EditError, EditProblemCode, StateEdit, apply_edit
from rules.modules.contact import NAME as CONTACT
from rules.modules.contact import DefencesSet, defences_edit
from rules.modules.contact import load as load_contact
from storage import AuditAction, Phase, Store
from tests.bot.private_campaign import GM, GROUP, Table, alert, open_table, screen
from tests.bot.telegram import FakeTelegram
from tests.bot.test_contact_week import CONTACT_RULES, PLACEMENTS
from tests.bot.test_fair_play import battles_listed


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
    outcome = screen(await table.tap(202, picked, "Solid"))
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
    await battles_listed(table)
    data = ResultButton(
        campaign=table.campaign.id, turn=1, battle=1, action="wl", outcome=f"s.{mark}", winner=0
    ).pack()
    refused = await table.forged(202, data)
    assert alert(refused).startswith("The rules do not take that warlord mark")
    assert all(r.reported is None for r in await store.battle_reports(table.campaign.id, 1))


async def _turn_one(telegram: FakeTelegram, store: Store, clock: ManualClock) -> Table:
    """Turn 1 with its orders open: Blue's barricade in 3, Red's in 4, Green's blockpost in 5."""
    table = await open_table(telegram, store, clock, CONTACT_RULES)
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    await telegram.deliver()
    table.take()
    return table


async def _set_defences(table: Table, sector: str, level: str, owner: str, reason: str) -> str:
    """The GM sets the defences in ``sector`` from the state editor; the reply to the reason."""
    panel = screen(await table.say(GM, "/gm"))
    editor = screen(await table.tap(GM, panel, "Correct the state"))
    listing = screen(await table.tap(GM, editor, "Repair defences"))
    levels = screen(await table.tap(GM, listing, sector))
    owners = screen(await table.tap(GM, levels, level))
    asked = screen(await table.tap(GM, owners, owner))
    assert "Type the reason for the group" in asked.text
    return screen(await table.say(GM, reason)).text


async def _defences(store: Store, campaign_id: int) -> dict[str, tuple[int, str | None, bool]]:
    state = await store.turn_start(campaign_id, 1)
    assert state is not None
    return {
        item.sector: (item.level, item.owner, item.ruined)
        for item in load_contact(state.modules[CONTACT]).defences
    }


async def test_the_gm_repairs_ruined_defences_audited_announced_and_undone(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _turn_one(telegram, store, clock)
    campaign_id = table.campaign.id
    done = await _set_defences(table, "3 East", "Ruined barricade", "Синие", "Burnt by a card")
    assert done.startswith("Done:")
    assert (await _defences(store, campaign_id))["3"] == (1, "blue", True)
    await telegram.deliver()

    panel = screen(await table.say(GM, "/gm"))
    editor = screen(await table.tap(GM, panel, "Correct the state"))
    listing = screen(await table.tap(GM, editor, "Repair defences"))
    labels = [text for text, _data in listing.buttons()]
    assert labels[0] == "🏚 3 East: barricade, «Синие»"
    assert "🧱 5 South Pole: blockpost, «Green Horde»" in labels
    done = await _set_defences(
        table, "3 East", "Blockpost (+2), standing", "Green Horde", "Green rebuilt it"
    )
    assert done.startswith("Done:")
    assert (await _defences(store, campaign_id))["3"] == (2, "green", False)
    posts = [s for s in await telegram.deliver() if s.chat_id == GROUP]
    [edited] = [s for s in posts if "edited the state" in s.text]
    assert isinstance(edited.method, SendPhoto)
    assert "Reason: Green rebuilt it" in edited.text
    assert (
        "🧱 3 East: ruined barricade (+1) of side «Синие» → blockpost (+2) of side "
        "«Green Horde»" in edited.text
    )
    edits = [e for e in await store.audit_log(campaign_id) if e.action is AuditAction.STATE_EDITED]
    assert [(e.actor, e.reason) for e in edits] == [
        (GM, "Burnt by a card"),
        (GM, "Green rebuilt it"),
    ]

    panel = screen(await table.say(GM, "/gm"))
    editor = screen(await table.tap(GM, panel, "Correct the state"))
    confirm = screen(await table.tap(GM, editor, "Undo the last edit"))
    assert "Green rebuilt it" in confirm.text
    await table.tap(GM, confirm, "Yes, undo it")
    assert (await _defences(store, campaign_id))["3"] == (1, "blue", True)
    posts = [s for s in await telegram.deliver() if s.chat_id == GROUP]
    [undone] = [s for s in posts if "undid the edit" in s.text]
    assert "🧱 3 East: blockpost (+2) of side «Green Horde» → ruined barricade" in undone.text


async def test_a_repair_is_kept_when_the_turn_start_is_made_again(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await _turn_one(telegram, store, clock)
    await _set_defences(table, "4 North Pole", "Ruined barricade", "Red Legion", "A card")
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    game = game_for(await table.now_campaign())
    [record] = await store.adjustments(table.campaign.id, 1)
    assert record.before is not None
    assert load_contact(record.before.modules[CONTACT]).defences_in("4") is not None
    again, dropped = apply_adjustments(game, game.upgraded(record.before), [record.adjustment])
    assert dropped == 0
    assert again == state


async def test_the_defences_editor_in_russian_and_refused_without_defences(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await _turn_one(telegram, store, clock)
    game = game_for(await table.now_campaign())
    state = await store.turn_start(table.campaign.id, 1)
    assert state is not None
    nowhere = StateEdit(modules=defences_edit(DefencesSet(sector="1", level=1)), reason="x")
    with pytest.raises(EditError) as refused:
        apply_edit(game, game.upgraded(state), nowhere, ["red", "blue", "green"])
    [problem] = refused.value.problems
    assert problem.code is EditProblemCode.MODULE_RULE
    assert problem.params == {"module": CONTACT, "rule": "no_defences", "sector": "1"}
    with i18n.context(), i18n.use_locale("ru"):
        words = describe_edit_problem(problem, game.map, {}, "ru")
    assert words.startswith("В секторе 1 «Экватор» нет заграждений: мастер чинит")
    stranger = StateEdit(modules=defences_edit(DefencesSet(sector="3", level=1, owner="grey")))
    with pytest.raises(EditError) as refused:
        apply_edit(game, game.upgraded(state), stranger, ["red", "blue", "green"])
    assert [p.code for p in refused.value.problems] == [EditProblemCode.UNKNOWN_SIDE]
    same = StateEdit(modules=defences_edit(DefencesSet(sector="3", level=1, owner="blue")))
    with pytest.raises(EditError) as refused:
        apply_edit(game, game.upgraded(state), same, ["red", "blue", "green"])
    assert [p.code for p in refused.value.problems] == [EditProblemCode.NO_CHANGE]
    unplayed = StateEdit(modules={"siege": {}})
    with pytest.raises(EditError) as refused:
        apply_edit(game, game.upgraded(state), unplayed, ["red", "blue", "green"])
    [problem] = refused.value.problems
    with i18n.context(), i18n.use_locale("ru"):
        words = describe_edit_problem(problem, game.map, {}, "ru")
    assert words == "Правила этой кампании не допускают такого исправления."
    with i18n.context(), i18n.use_locale("en"):
        words = describe_edit_problem(problem, game.map, {}, "en")
    assert words == "This campaign's rules allow no such edit."


async def test_a_battle_whose_defender_a_draw_wiped_out_cannot_be_reported(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Blue holds 3 with 1 army (the GM's edit); Red and Green walk in. Battle 1 is a bloody
    draw: Blue has no armies left, so battle 2 is not played and Green stands in 3."""
    table = await _turn_one(telegram, store, clock)
    campaign = await table.now_campaign()
    edit = StateEdit(armies=(ArmySet(side="blue", sector="3", count=1),), reason="test")
    edited = await edit_state(store, campaign, edit, GM, clock.now())
    assert edited.outcome is EditOutcome.APPLIED
    await table.say(201, "move 4 from 4 to 3")
    await table.say(401, "move 4 from 5 to 3")
    assert (await advance(store, table.campaign.id, 1, Phase.ORDERS, GM, clock.now())).advanced
    await telegram.deliver()
    table.take()
    red = await seat_in(store, 202, campaign.id)
    green = await seat_in(store, 401, campaign.id)
    assert red is not None
    assert green is not None
    drawn = await report_result(store, red, 1, 1, Outcome.BLOODY_DRAW, None, clock.now())
    assert drawn.refusal is None
    refused = await report_result(store, green, 1, 2, Outcome.SOLID, "green", clock.now())
    assert refused.refusal is Refusal.NOT_PLAYABLE
    listing = screen(await table.say(401, "/battles"))
    assert (
        "✖ Not played: Синие has no armies left after battle 1; Green Horde stands in the "
        "sector unopposed." in listing.text
    )
    assert "Report battle 2" not in str(listing.buttons())
