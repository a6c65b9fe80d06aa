"""Members, one campaign per group topic, and an audit row for every GM action."""

import pytest

from bot.services.turns import publish_battle_list, undo_last_step
from rules import Attack, BattleResult, Outcome, SideOrders
from storage import (
    AuditAction,
    CampaignSettings,
    CampaignStatus,
    ChatHasActiveCampaignError,
    NewSide,
    Phase,
    Role,
    SettingsLockedError,
    Store,
    UnreportedPolicy,
    WriteOutcome,
)
from tests.storage.campaign_script import (
    CO_GM,
    GM,
    at,
    deploy,
    new_campaign,
    play_turn,
    strategist,
)


async def test_a_person_can_be_in_several_campaigns(store: Store) -> None:
    first = await new_campaign(store, chat_id=-1)
    second = await new_campaign(store, chat_id=-2)
    await store.put_member(second.id, 201, "Anna", frozenset({Role.CO_GM}), None, GM, at(0, 1))
    memberships = await store.memberships(201)
    assert [(m.campaign.id, m.member.side_id, m.member.roles) for m in memberships] == [
        (first.id, "red", frozenset({Role.STRATEGIST})),
        (second.id, None, frozenset({Role.CO_GM})),
    ]
    assert memberships[1].member.is_gm
    assert len(await store.memberships(GM)) == 2


async def test_one_unfinished_campaign_per_group_topic(store: Store) -> None:
    first = await new_campaign(store, chat_id=-5)
    with pytest.raises(ChatHasActiveCampaignError):
        await new_campaign(store, chat_id=-5)
    # A forum topic of the same group is a separate place.
    in_topic = await new_campaign(store, chat_id=-5, thread_id=42)
    assert await store.active_campaign(-5, 42) == in_topic
    assert await store.active_campaign(-5) == first
    ended = await store.transition(
        first.id,
        0,
        Phase.SETUP,
        0,
        Phase.FINISHED,
        GM,
        "abandoned",
        at(0, 1),
        new_status=CampaignStatus.FINISHED,
    )
    assert ended.applied
    assert await store.active_campaign(-5) is None
    third = await new_campaign(store, chat_id=-5)
    assert [c.id for c in await store.unfinished_campaigns()] == [in_topic.id, third.id]
    assert [c.id for c in await store.campaigns_in_chat(-5)] == [first.id, in_topic.id, third.id]
    # Undoing the finish of the first would make two active campaigns: refused loudly.
    with pytest.raises(ChatHasActiveCampaignError):
        await store.undo_last_step(first.id, 0, Phase.FINISHED, GM, "oops", at(0, 2))
    assert (await store.campaign(first.id)) == ended.campaign


async def test_player_roles_need_a_side(store: Store) -> None:
    campaign = await new_campaign(store)
    with pytest.raises(ValueError, match="side"):
        await store.put_member(campaign.id, 9, "X", frozenset({Role.TACTICIAN}), None, GM, at(0))
    with pytest.raises(ValueError, match="side"):
        await store.put_member(campaign.id, 9, "X", frozenset({Role.CO_GM}), "red", GM, at(0))


async def test_every_gm_action_is_in_the_audit_log(store: Store) -> None:
    campaign = await new_campaign(store)
    await store.update_settings(
        campaign.id,
        CampaignSettings(unreported_policy=UnreportedPolicy.WAIT_FOR_GM),
        CO_GM,
        at(0, 0.5),
        "we wait for results",
    )
    await store.update_side(
        campaign.id, NewSide(id="red", name="Crimson", colour="#aa0000"), GM, at(0, 0.6)
    )
    await deploy(store, campaign.id)
    with pytest.raises(SettingsLockedError):
        await store.update_settings(
            campaign.id, CampaignSettings(ruleset_overrides={}), GM, at(0, 13)
        )
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    gm_orders = SideOrders(reinforce=next(iter(state.armies["green"])))
    saved = await store.save_orders(campaign.id, 1, "green", gm_orders, True, GM, at(0, 14))
    assert saved.outcome is WriteOutcome.SAVED
    await store.set_status(
        campaign.id, CampaignStatus.RUNNING, CampaignStatus.PAUSED, GM, "pause", at(0, 15)
    )
    await store.set_status(
        campaign.id, CampaignStatus.PAUSED, CampaignStatus.RUNNING, GM, "resume", at(0, 16)
    )
    played = await play_turn(store, campaign.id, 1, seed=5, unreported=1)
    assert played.resolved.outcome.value == "waiting_for_results"
    battle_list = await store.battle_list(campaign.id, 1)
    assert battle_list is not None
    last = battle_list.battles[-1]
    override = BattleResult(battle=last.id, outcome=Outcome.SOLID, winner=last.defender)
    written = await store.override_result(
        campaign.id, 1, last.id, override, CO_GM, "GM saw the game", at(1, 1)
    )
    assert written.report is not None
    assert written.report.effective() == override
    await undo_last_step(store, campaign.id, 1, Phase.RESOLUTION, GM, "reopen reports", at(1, 2))
    await store.remove_member(campaign.id, 402, GM, at(1, 3))

    log = await store.audit_log(campaign.id)
    actions = [entry.action for entry in log]
    for action in (
        AuditAction.CAMPAIGN_CREATED,
        AuditAction.SIDE_ADDED,
        AuditAction.MEMBER_SET,
        AuditAction.SETTINGS_CHANGED,
        AuditAction.SIDE_CHANGED,
        AuditAction.PHASE_CHANGED,
        AuditAction.ORDERS_SET_BY_GM,
        AuditAction.STATUS_CHANGED,
        AuditAction.BATTLES_PUBLISHED,
        AuditAction.RESULT_OVERRIDDEN,
        AuditAction.UNDONE,
        AuditAction.MEMBER_REMOVED,
    ):
        assert action in actions, action
    # Players' own orders are in the order history, not the audit log.
    assert actions.count(AuditAction.ORDERS_SET_BY_GM) == 1
    by_action = {entry.action: entry for entry in log}
    settings = by_action[AuditAction.SETTINGS_CHANGED]
    assert (settings.actor, settings.at, settings.reason) == (
        CO_GM,
        at(0, 0.5),
        "we wait for results",
    )
    assert isinstance(settings.before, dict)
    assert isinstance(settings.after, dict)
    assert (settings.before["unreported_policy"], settings.after["unreported_policy"]) == (
        "draw",
        "wait_for_gm",
    )
    side = by_action[AuditAction.SIDE_CHANGED]
    assert isinstance(side.before, dict)
    assert isinstance(side.after, dict)
    assert (side.before["name"], side.after["name"]) == ("Red Legion", "Crimson")
    gm_write = by_action[AuditAction.ORDERS_SET_BY_GM]
    assert gm_write.after == {
        "side": "green",
        "body": gm_orders.model_dump(mode="json"),
        "ready": True,
    }
    overridden = by_action[AuditAction.RESULT_OVERRIDDEN]
    assert overridden.actor == CO_GM
    assert isinstance(overridden.before, dict)
    assert isinstance(overridden.after, dict)
    assert overridden.before["override"] is None
    assert overridden.after["override"] == override.model_dump(mode="json")
    removed = by_action[AuditAction.MEMBER_REMOVED]
    assert removed.after is None
    assert isinstance(removed.before, dict)
    assert removed.before["user_id"] == 402
    assert all(entry.at.tzinfo is not None for entry in log)


async def test_reports_confirmations_and_disputes(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    # Red (4) attacks Blue (3) in sector 1: one battle.
    attack = SideOrders(attacks=(Attack(sector="1", target="blue"),))
    await store.save_orders(campaign.id, 1, "red", attack, True, 201, at(0, 20))
    early = await store.report_result(
        campaign.id, 1, BattleResult(battle=1, outcome=Outcome.DRAW), 202, at(0, 21)
    )
    assert early.outcome is WriteOutcome.PHASE_CLOSED
    await publish_battle_list(store, campaign.id, 1, None, at(0, 96))
    battle_list = await store.battle_list(campaign.id, 1)
    assert battle_list is not None
    assert len(battle_list.battles) == 1
    battle = battle_list.battles[0]
    win = BattleResult(battle=battle.id, outcome=Outcome.CRUSHING, winner=battle.attacker)
    draw = BattleResult(battle=battle.id, outcome=Outcome.DRAW)
    await store.report_result(campaign.id, 1, win, 202, at(1, 100))
    # Not confirmed, not disputed: the report stands (RULES.md 3.4).
    assert await store.effective_results(campaign.id, 1) == [win]
    changed = await store.report_result(campaign.id, 1, draw, 302, at(1, 101))
    assert changed.report is not None
    assert changed.report.reported == draw
    stale = await store.confirm_result(campaign.id, 1, win, 302, at(1, 102))
    assert stale.outcome is WriteOutcome.REPORT_CHANGED
    confirmed = await store.confirm_result(campaign.id, 1, draw, 202, at(1, 103))
    assert confirmed.outcome is WriteOutcome.SAVED
    assert await store.effective_results(campaign.id, 1) == [draw]
    stale_dispute = await store.dispute_result(campaign.id, 1, win, win, 302, at(1, 104))
    assert stale_dispute.outcome is WriteOutcome.REPORT_CHANGED
    disputed = await store.dispute_result(campaign.id, 1, draw, win, 302, at(1, 104))
    assert disputed.report is not None
    assert disputed.report.disputed_by == 302
    assert disputed.report.counter == win
    assert disputed.report.disputed
    assert disputed.report.confirmed_by is None
    assert await store.effective_results(campaign.id, 1) == []
    inputs = await store.turn_inputs(campaign.id, 1)
    assert inputs.disputed == (battle.id,)
    await store.override_result(campaign.id, 1, battle.id, win, GM, "settled", at(1, 105))
    assert await store.effective_results(campaign.id, 1) == [win]
    assert (await store.turn_inputs(campaign.id, 1)).disputed == ()
    missing = await store.report_result(
        campaign.id, 1, BattleResult(battle=999, outcome=Outcome.DRAW), 202, at(1, 106)
    )
    assert missing.outcome is WriteOutcome.NO_SUCH_BATTLE


async def test_confirming_the_other_account_ends_a_dispute(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    attack = SideOrders(attacks=(Attack(sector="1", target="blue"),))
    await store.save_orders(campaign.id, 1, "red", attack, True, 201, at(0, 20))
    await publish_battle_list(store, campaign.id, 1, None, at(0, 96))
    win = BattleResult(battle=1, outcome=Outcome.CRUSHING, winner="red")
    loss = BattleResult(battle=1, outcome=Outcome.SOLID, winner="blue")
    await store.report_result(campaign.id, 1, win, 202, at(1, 100))
    await store.dispute_result(campaign.id, 1, win, loss, 302, at(1, 101))
    again = await store.dispute_result(campaign.id, 1, win, loss, 302, at(1, 101.5))
    assert again.report is not None
    assert again.report.disputed_at == at(1, 101)  # the same dispute twice changes nothing
    accepted = await store.confirm_result(campaign.id, 1, loss, 202, at(1, 102))
    assert accepted.outcome is WriteOutcome.SAVED
    report = accepted.report
    assert report is not None
    assert (report.reported, report.reported_by, report.confirmed_by) == (loss, 302, 202)
    assert not report.disputed
    assert report.counter is None
    assert await store.effective_results(campaign.id, 1) == [loss]


async def test_a_join_request_waits_for_a_gm_and_is_settled_once(store: Store) -> None:
    campaign = await new_campaign(store)
    assert await store.ask_to_join(campaign.id, 501, "red", Role.STRATEGIST, at(0, 1)) is None
    await store.request_join(campaign.id, 501, "Boris", at(0, 1))
    asked = await store.ask_to_join(campaign.id, 501, "red", Role.STRATEGIST, at(0, 2))
    assert asked is not None
    assert asked.awaits_gm
    assert (asked.side_id, asked.role, asked.asked_at) == ("red", Role.STRATEGIST, at(0, 2))
    again = await store.ask_to_join(campaign.id, 501, "blue", Role.TACTICIAN, at(0, 3))
    assert again is not None
    assert (again.side_id, again.role, again.asked_at) == ("blue", Role.TACTICIAN, at(0, 2))
    await store.request_join(campaign.id, 502, "Vera", at(0, 4))
    assert await store.settle_join_request(campaign.id, 502, True, GM, at(0, 5)) is None
    settled = await store.settle_join_request(campaign.id, 501, False, GM, at(0, 6))
    assert settled == again
    assert await store.settle_join_request(campaign.id, 501, True, GM, at(0, 7)) is None
    assert await store.join_request(campaign.id, 501) is None
    log = await store.audit_log(campaign.id)
    refused = [entry for entry in log if entry.action is AuditAction.JOIN_REFUSED]
    assert len(refused) == 1
    assert refused[0].actor == GM
    assert isinstance(refused[0].before, dict)
    assert refused[0].before["side_id"] == "blue"
    assert not [entry for entry in log if entry.action is AuditAction.JOIN_APPROVED]


async def test_people_names_are_cleaned_of_invisible_and_bidi_characters(
    store: Store,
) -> None:
    person = await store.see_person(601, "Ev\u202eil\u200b Name\n2", None, None, True, at(0, 1))
    assert person.display_name == "Evil Name 2"
    campaign = await new_campaign(store)
    request = await store.request_join(campaign.id, 601, "\u202e\u200b", at(0, 2))
    assert request.display_name == "?"


async def test_settings_that_change_nothing_are_not_audited(store: Store) -> None:
    campaign = await new_campaign(store)
    renamed = CampaignSettings(title="The same title twice")
    first = await store.update_settings(campaign.id, renamed, GM, at(0, 0.25))
    again = await store.update_settings(campaign.id, renamed, GM, at(0, 0.5))
    assert again == first
    assert again.updated_at == at(0, 0.25)
    log = await store.audit_log(campaign.id)
    assert [e.action for e in log].count(AuditAction.SETTINGS_CHANGED) == 1


async def test_a_vacant_seat_is_filled_or_withdrawn_once_and_audited(store: Store) -> None:
    campaign = await new_campaign(store, chat_id=-9)
    red, blue = strategist("red"), strategist("blue")
    first = await store.vacate_seat(campaign.id, red, "silent", GM, at(0, 1))
    second = await store.vacate_seat(campaign.id, blue, "moved away", GM, at(0, 2))
    assert first is not None
    assert second is not None
    assert await store.fill_seat(first.id, 901, "Vera", GM, at(0, 3)) is not None
    assert await store.withdraw_vacancy(first.id, GM, at(0, 4)) is None  # filled: stays so
    withdrawn = await store.withdraw_vacancy(second.id, CO_GM, at(0, 5))
    assert withdrawn is not None
    assert (withdrawn.is_open, withdrawn.filled_by, withdrawn.closed_by) == (False, None, CO_GM)
    assert withdrawn.closed_at == at(0, 5)
    assert await store.vacancy(second.id) == withdrawn
    assert await store.withdraw_vacancy(second.id, GM, at(0, 6)) is None  # only once
    assert await store.fill_seat(second.id, 902, "Gleb", GM, at(0, 6)) is None
    assert await store.vacancies(campaign.id) == []
    entries = [e for e in await store.audit_log(campaign.id) if e.action.startswith("seat_")]
    assert [(e.action, e.actor, e.reason) for e in entries] == [
        (AuditAction.SEAT_VACATED, GM, "silent"),
        (AuditAction.SEAT_VACATED, GM, "moved away"),
        (AuditAction.SEAT_FILLED, GM, "silent"),
        (AuditAction.SEAT_WITHDRAWN, CO_GM, "moved away"),
    ]
