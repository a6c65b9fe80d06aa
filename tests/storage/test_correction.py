"""Correcting a battle result of the latest resolved turn re-resolves it from stored inputs."""

import pytest

from bot.services.turns import correct_result, game_for, publish_battle_list
from rules import Battle, BattleResult, Outcome, ResultsError, resolve_turn
from storage import (
    AuditAction,
    BattleReport,
    CorrectionOutcome,
    OutboxState,
    RetiredReason,
    Store,
    standing_results,
)
from tests.storage.campaign_script import GM, at, deploy, new_campaign, play_turn


def _different(result: BattleResult, winner: str) -> BattleResult:
    if result.outcome is Outcome.SLAUGHTER:
        return BattleResult(battle=result.battle, outcome=Outcome.DRAW)
    return BattleResult(battle=result.battle, outcome=Outcome.SLAUGHTER, winner=winner)


async def test_correction_re_resolves_stores_audits_and_queues_a_corrected_map(
    store: Store,
) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    played = await play_turn(store, campaign.id, 1, seed=5)
    old = (await store.resolutions(campaign.id, 1))[0]
    battle = old.report.battles[0]
    fixed = _different(old.results[0], battle.defender)
    # The orders of turn 2 already given stay; they are checked again when the list is built.
    await store.save_orders(campaign.id, 2, "red", old.orders["red"], False, 201, at(1, 1))

    corrected = await correct_result(
        store, campaign.id, 1, [fixed], GM, "battle 1 was misreported", at(1, 2)
    )

    assert corrected.outcome is CorrectionOutcome.APPLIED
    expected_results = (fixed, *played.results[1:])
    expected = resolve_turn(game_for(campaign), old.state, played.orders, expected_results)
    assert corrected.resolution is not None
    assert corrected.resolution.revision == 2
    assert corrected.resolution.results == expected_results
    assert corrected.resolution.state_after == expected.state
    assert await store.turn_start(campaign.id, 2) == expected.state
    assert await store.effective_results(campaign.id, 1) == list(expected_results)
    revisions = await store.resolutions(campaign.id, 1, include_retired=True)
    assert [(r.revision, r.retired_reason) for r in revisions] == [
        (1, RetiredReason.SUPERSEDED),
        (2, None),
    ]
    assert revisions[0].state_after == old.state_after
    assert await store.orders(campaign.id, 2, "red") is not None
    audit = [
        a for a in await store.audit_log(campaign.id) if a.action is AuditAction.TURN_CORRECTED
    ]
    assert len(audit) == 1
    assert (audit[0].actor, audit[0].at, audit[0].reason) == (
        GM,
        at(1, 2),
        "battle 1 was misreported",
    )
    assert isinstance(audit[0].before, dict)
    assert isinstance(audit[0].after, dict)
    assert audit[0].before["revision"] == 1
    assert audit[0].after["revision"] == 2
    after_results = audit[0].after["results"]
    assert isinstance(after_results, list)
    assert after_results[0] == fixed.model_dump(mode="json")
    outbox = await store.outbox_messages(campaign.id)
    first_map = next(m for m in outbox if m.dedup_key.endswith("resolution:1:map"))
    assert first_map.state is OutboxState.CANCELLED  # never sent: the corrected one replaces it
    corrected_map = next(m for m in outbox if m.kind == "corrected_map")
    assert corrected_map.state is OutboxState.PENDING
    assert corrected_map.payload == {"campaign_id": campaign.id, "turn": 2, "corrects": 1}

    stale = await store.supersede_resolution(
        campaign.id,
        1,
        1,
        [fixed],
        await store.turn_inputs(campaign.id, 1),
        expected,
        GM,
        "double click",
        at(1, 3),
    )
    assert stale.outcome is CorrectionOutcome.STALE_REVISION
    assert len(await store.resolutions(campaign.id, 1, include_retired=True)) == 2


async def test_only_the_latest_resolved_turn_can_be_corrected(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    played = await play_turn(store, campaign.id, 1, seed=5)
    await publish_battle_list(store, campaign.id, 2, None, at(1, 96))
    first = played.results[0]
    result = await correct_result(
        store, campaign.id, 1, [_different(first, first.winner or "red")], GM, "", at(1, 97)
    )
    assert result.outcome is CorrectionOutcome.NOT_LATEST_TURN
    assert "undo first" in result.message
    assert len(await store.resolutions(campaign.id, 1, include_retired=True)) == 1


async def test_a_result_outside_the_battle_list_is_refused(store: Store) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    await play_turn(store, campaign.id, 1, seed=5)
    with pytest.raises(ResultsError):
        await correct_result(
            store,
            campaign.id,
            1,
            [BattleResult(battle=99, outcome=Outcome.DRAW)],
            GM,
            "",
            at(1, 2),
        )


def _report(battle: int, result: BattleResult | None, against: str | None) -> BattleReport:
    return BattleReport(
        campaign_id=1,
        turn=1,
        battle=battle,
        reported=result,
        reported_by=None if result is None else 7,
        reported_at=None,
        confirmed_by=None,
        confirmed_at=None,
        disputed_by=None,
        disputed_at=None,
        override=None,
        override_by=None,
        override_at=None,
        reported_against=against,
    )


def test_a_report_counts_only_against_the_defender_it_was_given_against() -> None:
    """Chain battle 2 (MODULES.md C6) was reported while red defended it; battle 1 now says
    blue won, so blue defends it and that report no longer counts. A report from before the
    defender was recorded (``None``) counts for whoever defends."""
    battles = [
        Battle(
            id=number,
            sector="3",
            attacker=attacker,
            defender="blue",
            armies={"blue": 6, "red": 4, "green": 4},
            fortified=None,
            foc={},
            points=1000,
            module="contact",
            kind="chain",
            defender_from=1 if number == 2 else None,
        )
        for number, attacker in ((1, "red"), (2, "green"))
    ]
    first = _report(1, BattleResult(battle=1, outcome=Outcome.SOLID, winner="blue"), "blue")
    second = _report(2, BattleResult(battle=2, outcome=Outcome.SOLID, winner="green"), "red")
    standing = standing_results(battles, [first, second])
    assert standing.current(second) is None
    assert sorted(standing.results) == [1]
    assert standing.fought(battles[1]).defender == "blue"
    legacy = second.model_copy(update={"reported_against": None})
    assert standing_results(battles, [first, legacy]).current(legacy) == legacy
    assert sorted(standing_results(battles, [first, legacy]).results) == [1, 2]
