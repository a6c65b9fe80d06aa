"""Issue 10: the bot is SIGKILLed at random points of a campaign week and restarted; the week
ends as an undisturbed one did.

A GM sets a campaign up in the group, three players join, two sides deploy, orders are given
on Tuesday, the list comes out on Friday, results are reported and confirmed, Monday resolves
the turn (:data:`tests.faults.sigkill_week.WEEK`). Each week runs in real bot processes (store
on a file, dispatcher, scheduler, outbox sender; Telegram is a journal that is fsynced before
it answers) that kill themselves at planned points: a store transaction before or after its
``COMMIT``, a Telegram request before or after Telegram has it. After each kill a new process
takes over from the database. What Telegram received and what the database holds are then
compared with the undisturbed week: :mod:`tests.faults.sigkill_judge` says what must be equal
and the only differences allowed. The targeted kills below are the places where it found
crash-atomicity bugs (all fixed: one transaction, or the post queued with the step).

``.venv/bin/python -m tests.faults.sigkill_judge 60`` plays more seeds, ``... kill committed
u23`` kills once where asked, ``... every`` kills once at every point of the week (minutes);
each prints the kills, what was allowed and what differed.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.sigkill_judge import Bench, Verdict, targeted_plan
from tests.faults.sigkill_week import GROUP, WEEK

SEEDS = range(16)
BATTLE_LIST = "o:campaign:1:step:4:battle_list"  # the Friday list: a map to the group
TYPED_ORDERS = next(i for i, step in enumerate(WEEK) if (step.text or "").startswith("attack blue"))
TITLE = next(i for i, step in enumerate(WEEK) if step.what == "Gina: Kill Week")
OPEN = next(i for i, step in enumerate(WEEK) if step.what == "Gina taps [Open deployment]")
SIDE = next(i for i, step in enumerate(WEEK) if step.what == "Gina: Red")
JOIN = next(i for i, step in enumerate(WEEK) if step.what == "Anna taps [strategist]")
# Where a kill once broke the week (now fixed): just after the step's last COMMIT, before its
# answer or its posts went out.
AFTER_COMMIT = {
    "title-saved": f"u{TITLE}",  # the campaign and the end of the wait for its name
    "side-saved": f"u{SIDE}",  # a side and the end of the wait for its name
    "deployment-opened": f"u{OPEN}",  # the step, with the «has begun! Join» post
    "join-saved": f"u{JOIN}",  # the ticket, the membership, the «joined» notices
}


@pytest.fixture(scope="module")
def bench() -> Iterator[Bench]:
    """The undisturbed week, on a memory file system when there is one (a process killed
    loses nothing the kernel has, so the fsyncs need no disk)."""
    shm = Path("/dev/shm")
    root = Path(tempfile.mkdtemp(prefix="sigkill-", dir=shm if shm.is_dir() else None))
    try:
        yield Bench.start(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def verdicts(bench: Bench) -> dict[str, Verdict]:
    """Every killed week of this module, played two at a time."""
    points = bench.points
    last = {
        origin: sum(kind == "committed" and named == origin for _step, kind, named in points) - 1
        for origin in AFTER_COMMIT.values()
    }
    plans = bench.seeds(SEEDS) | {
        "again": lambda _number, _first: None,
        **{
            name: targeted_plan(points, "committed", origin, last[origin])
            for name, origin in AFTER_COMMIT.items()
        },
        "list-accepted": targeted_plan(points, "sent", BATTLE_LIST),
        "list-marked": targeted_plan(points, "committed", BATTLE_LIST),
        "orders-cut": targeted_plan(points, "commit", f"u{TYPED_ORDERS}"),
    }
    return bench.judge_all(plans)


def _posts(verdict: Verdict, origin: str) -> list[dict[str, object]]:
    return [
        line
        for line in verdict.week.journal()
        if (line.get("origin") or {}).get("outbox") == origin.removeprefix("o:")
    ]


def test_the_undisturbed_week_plays_the_same_twice(
    bench: Bench, verdicts: dict[str, Verdict]
) -> None:
    again = verdicts["again"]
    assert (again.week.kills, again.differences, again.allowed) == ([], [], [])
    journal = bench.calm.journal()
    group = [line["text"] for line in journal if line["chat_id"] == GROUP]
    assert any(text.startswith("Turn 1: the battle list.") for text in group)
    assert any(text.startswith("Turn 1 resolved.") for text in group)
    assert len(journal) > 100


def test_a_post_telegram_took_before_mark_sent_goes_out_again(verdicts: dict[str, Verdict]) -> None:
    verdict = verdicts["list-accepted"]
    assert [kill["kind"] for kill in verdict.week.kills] == ["sent"]
    assert not verdict.differences, verdict.report()
    sent = _posts(verdict, BATTLE_LIST)
    assert [(line["method"], line["chat_id"], line["incarnation"]) for line in sent] == [
        ("SendPhoto", GROUP, 0),
        ("SendPhoto", GROUP, 1),
    ]
    assert sent[0]["text"] == sent[1]["text"]
    assert sent[0]["photo"] == sent[1]["photo"]
    again = [line for line in verdict.allowed if "went out again" in line]
    assert len(again) == 1
    assert BATTLE_LIST in again[0]


def test_a_post_marked_sent_before_the_kill_goes_out_once(verdicts: dict[str, Verdict]) -> None:
    verdict = verdicts["list-marked"]
    assert [(kill["kind"], kill["transaction"]) for kill in verdict.week.kills] == [
        ("committed", "mark_sent")
    ]
    assert not verdict.differences, verdict.report()
    assert len(_posts(verdict, BATTLE_LIST)) == 1
    assert not [line for line in verdict.allowed if "went out again" in line]


def test_an_update_cut_before_its_commit_is_handled_again_as_if_once(
    verdicts: dict[str, Verdict],
) -> None:
    verdict = verdicts["orders-cut"]
    assert [(kill["kind"], kill["step"]) for kill in verdict.week.kills] == [
        ("commit", TYPED_ORDERS)
    ]
    assert not verdict.differences, verdict.report()
    assert len(verdict.allowed) == 1
    assert "handled again, the undisturbed answers" in verdict.allowed[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_killed_at_seeded_points_the_week_ends_as_undisturbed(
    verdicts: dict[str, Verdict], seed: int
) -> None:
    verdict = verdicts[f"seed-{seed}"]
    assert 1 <= len(verdict.week.kills) <= 3
    assert verdict.week.processes == len(verdict.week.kills) + 1
    assert not verdict.differences, verdict.report()


@pytest.mark.parametrize("name", AFTER_COMMIT)
def test_killed_after_a_step_committed_the_week_ends_as_undisturbed(
    verdicts: dict[str, Verdict], name: str
) -> None:
    verdict = verdicts[name]
    assert [kill["kind"] for kill in verdict.week.kills] == ["committed"]
    assert verdict.week.kills[0]["step"] == int(AFTER_COMMIT[name].removeprefix("u"))
    assert not verdict.differences, verdict.report()
