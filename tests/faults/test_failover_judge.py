"""The failover judge's classification (:func:`tests.faults.failover_monday.judge`) on
synthetic Mondays: no replica runs here. The extra time is judged only against a bound given
to the judge, as the benchmark does; these checks use made-up seconds, not measured ones."""

from __future__ import annotations

from typing import Any

from tests.faults.failover_monday import EXTRA_BOUND_SECONDS, Monday, judge

BOARD = "board:1"
RESULT = "result:1"


def _line(post: str, replica: int, method: str, at: float = 0.0) -> dict[str, Any]:
    return {"post": post, "replica": replica, "method": method, "at": at}


def _calm() -> Monday:
    journal = [
        _line(RESULT, 1, "SendMessage"),
        _line(BOARD, 1, "SendPhoto"),
        _line(BOARD, 1, "PinChatMessage"),
    ]
    return Monday(
        seconds=20.0,
        journal=journal,
        sent={RESULT: "sent", BOARD: "sent"},
        orders=["1:A:orders"],
        attempts={RESULT: 1, BOARD: 1},
    )


def _killed(
    seconds: float, board_edits: int = 0, board_claims: int = 1, start: float = 0.0
) -> Monday:
    journal = [
        _line(RESULT, 1, "SendMessage"),
        _line(BOARD, 1, "SendPhoto"),
        _line(BOARD, 1, "PinChatMessage"),
    ] + [_line(BOARD, 2, "EditMessageMedia", 5.0) for _ in range(board_edits)]
    return Monday(
        seconds=seconds,
        journal=journal,
        sent={RESULT: "sent", BOARD: "sent"},
        orders=["1:A:orders"],
        killed=0,
        kill_at=1.0,
        attempts={RESULT: 1, BOARD: board_claims},
        started=start,
    )


def test_extra_time_over_the_bound_fails_the_verdict_and_within_it_passes() -> None:
    calm = _calm()
    late = judge(calm, _killed(calm.seconds + EXTRA_BOUND_SECONDS + 0.5), EXTRA_BOUND_SECONDS)
    assert late.bound == EXTRA_BOUND_SECONDS
    assert late.extra_seconds == EXTRA_BOUND_SECONDS + 0.5
    assert not late.in_time
    assert not late.ok
    assert "OVER the 10 s bound" in late.line()
    timely = judge(calm, _killed(calm.seconds + EXTRA_BOUND_SECONDS - 0.5), EXTRA_BOUND_SECONDS)
    assert timely.in_time
    assert timely.ok
    assert "OVER" not in timely.line()


def test_without_a_bound_the_time_is_not_judged() -> None:
    calm = _calm()
    verdict = judge(calm, _killed(calm.seconds + 60.0))
    assert verdict.bound is None
    assert verdict.in_time
    assert verdict.ok


def test_one_more_edit_per_extra_claim_is_edited_again_not_doubled() -> None:
    calm = _calm()
    verdict = judge(calm, _killed(calm.seconds, board_edits=1, board_claims=2))
    assert verdict.edited_again == [BOARD]
    assert verdict.doubled == []
    assert verdict.ok
    twice_claimed_twice = judge(calm, _killed(calm.seconds, board_edits=2, board_claims=3))
    assert twice_claimed_twice.edited_again == [BOARD]
    assert twice_claimed_twice.doubled == []


def test_more_edits_than_extra_claims_are_doubled() -> None:
    calm = _calm()
    verdict = judge(calm, _killed(calm.seconds, board_edits=2, board_claims=2))
    assert verdict.edited_again == []
    assert verdict.doubled == [BOARD]
    assert not verdict.ok


def test_extra_edits_of_a_post_claimed_once_are_doubled() -> None:
    calm = _calm()
    verdict = judge(calm, _killed(calm.seconds, board_edits=1, board_claims=1))
    assert verdict.doubled == [BOARD]
    assert verdict.edited_again == []
