"""Proof that the secrecy checks bite (issue 31): each mutation below makes the bot leak a
secret (a hand logged or shown to the other side, a single card posted to the group, a sealed
spell logged, a side's orders logged, posted in the group or told to another side, a siege card
played after the battles posted in the group or logged); the script
applies it to a copy of the repository, runs the deterministic tests that must catch it, and
says whether they did, which test failed and how long it took. A mutation no test catches is a
hole in the tests. (Widening who gets the "orders changed" notice, ``_side_notices`` in
``bot/services/orders.py``, is no leak: the notice's renderer re-checks that the recipient is
on the side and drops it; so the mutation that tells another side's players sends them the
typed orders' echo instead.)

Run from the repository root: ``.venv/bin/python bench/secrecy_mutants.py [NAME ...]``
(every mutation by default; ``--campaigns N`` adds N random campaigns, ``tests/campaigns``, to
every mutation's tests; none by default, as each mutation must be caught by a regular test,
not by the luck of a random campaign). It copies the working tree's files (tracked and new,
not ignored) to a temporary folder, so the working tree is never touched, and first runs the
tests on the unchanged copy: a test that fails without a mutation proves nothing. Exit status
1 if any mutation survives.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    """Replace ``old`` (found exactly once) with ``new`` in ``path``; ``tests``: what must fail."""

    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


WATCH = (
    "tests/bot/test_watch_duels.py"
    "::test_no_hand_spell_or_order_reaches_the_log_the_group_or_the_other_side"
)
WEEK = (
    "tests/bot/test_private_week.py::test_a_full_week_in_private_and_no_order_reaches_another_chat"
)
SIEGE = (
    "tests/bot/test_private_siege_orders.py"
    "::test_a_card_after_the_battles_is_played_in_the_late_window"
)
LOGGING = "    import logging\n\n"
SAVED = '    await query.answer(_("Saved.") if result.changed else _("Nothing changed."))\n'

MUTATIONS = (
    Mutation(
        "log a hand",
        "bot/modules/watch/handlers/hand.py",
        "    standing = await duels.heroes_now(store, campaign, state, clock.now())\n",
        "    standing = await duels.heroes_now(store, campaign, state, clock.now())\n"
        + LOGGING
        + "    logging.getLogger(__name__).info(\n"
        '        "hands %s", [h.get("hand") for h in state.modules["watch"]["heroes"]]\n'
        "    )\n",
        (WATCH,),
    ),
    Mutation(
        "show every hand to a player",
        "bot/modules/watch/handlers/hand.py",
        "    shown = [seat.side] if seat.side is not None else [s.id for s in sides] if seat.is_gm"
        " else []\n",
        "    shown = [s.id for s in sides]\n",
        (WATCH,),
    ),
    Mutation(
        "post a single card to the group",
        "bot/modules/watch/handlers/duels.py",
        "                text, keyboard = target_screen(desk, data.k)\n",
        "                text, keyboard = target_screen(desk, data.k)\n"
        "                found = await store.campaign(step.campaign_id)\n"
        "                if found is not None and query.bot is not None:\n"
        "                    await query.bot.send_message(found.chat_id, text)\n",
        (WATCH,),
    ),
    Mutation(
        "log a sealed spell",
        "bot/modules/watch/duels.py",
        "    plays = found.plays[:-1] if play is None else (*found.plays, play)\n",
        "    plays = found.plays[:-1] if play is None else (*found.plays, play)\n"
        + LOGGING
        + '    logging.getLogger(__name__).info("draft %s", plays)\n',
        (WATCH,),
    ),
    Mutation(
        "log a side's orders",
        "bot/services/orders.py",
        "    editor = seat.member.user_id\n    notices = _side_notices(",
        "    editor = seat.member.user_id\n"
        + LOGGING
        + '    logging.getLogger(__name__).info("orders %s", orders)\n'
        "    notices = _side_notices(",
        (WATCH, WEEK),
    ),
    Mutation(
        "post a side's orders in the group",
        "bot/handlers/private/orders.py",
        "    report = screens.text_results(parsed, result, result.desk, names)\n",
        "    report = screens.text_results(parsed, result, result.desk, names)\n"
        "    if message.bot is not None:\n"
        '        await message.bot.send_message(seat.campaign.chat_id, "\\n".join(report))\n',
        (WATCH, WEEK),
    ),
    Mutation(
        "tell another side's players its orders",
        "bot/handlers/private/orders.py",
        "    report = screens.text_results(parsed, result, result.desk, names)\n",
        "    report = screens.text_results(parsed, result, result.desk, names)\n"
        "    for member in desk.snapshot.members:\n"
        "        if member.side_id != seat.side and message.bot is not None:\n"
        '            await message.bot.send_message(member.user_id, "\\n".join(report))\n',
        (WATCH, WEEK),
    ),
    Mutation(
        "post a card played after the battles in the group",
        "bot/modules/siege/handlers/late.py",
        SAVED,
        SAVED + "    if query.bot is not None and result.desk is not None:\n"
        "        text, _keyboard = late_screen(result.desk, names, language)\n"
        "        await query.bot.send_message(seat.campaign.chat_id, text)\n",
        (SIEGE,),
    ),
    Mutation(
        "log a card played after the battles",
        "bot/modules/siege/handlers/late.py",
        SAVED,
        SAVED + LOGGING + '    logging.getLogger(__name__).info("late %s", result.desk)\n',
        (SIEGE,),
    ),
)


def _copy() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="mutant-"))
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    files = [
        name for name in listed.stdout.split(b"\0") if name and (ROOT / name.decode()).is_file()
    ]
    packed = subprocess.run(
        ["tar", "-c", "--null", "-T", "-"],
        cwd=ROOT,
        input=b"\0".join(files),
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=packed.stdout, check=True)
    return folder


def _pytest(
    folder: Path, tests: tuple[str, ...], campaigns: int
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CAMPAIGNS": str(campaigns)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:randomly",
            "-n",
            "2",
            *tests,
            *(["tests/campaigns"] if campaigns else []),
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def control(tests: tuple[str, ...], campaigns: int) -> None:
    """The tests pass on the unchanged copy (or the script stops: a catch would prove nothing)."""
    folder = _copy()
    started = time.monotonic()
    ran = _pytest(folder, tests, campaigns)
    subprocess.run(["rm", "-rf", str(folder)], check=False)
    last = ran.stdout.splitlines()[-1:]
    if ran.returncode != 0:
        raise SystemExit(f"the tests fail without a mutation: {ran.stdout[-3000:]}")
    print(f"no mutation: passed in {time.monotonic() - started:.0f} s; {last}", flush=True)


def run(mutation: Mutation, campaigns: int) -> bool:
    """True when the tests caught ``mutation`` (some failed)."""
    folder = _copy()
    target = folder / mutation.path
    text = target.read_text(encoding="utf-8")
    if text.count(mutation.old) != 1:
        raise SystemExit(f"{mutation.name}: the code to mutate moved ({mutation.path})")
    target.write_text(text.replace(mutation.old, mutation.new), encoding="utf-8")
    started = time.monotonic()
    ran = _pytest(folder, mutation.tests, campaigns)
    failed = [line for line in ran.stdout.splitlines() if line.startswith("FAILED")]
    # pytest -x under xdist stops with "interrupted" (2) after the first failure.
    caught = bool(failed) and ran.returncode in (1, 2)
    print(
        f"{mutation.name}: {'caught' if caught else 'SURVIVED'} in"
        f" {time.monotonic() - started:.0f} s; {failed[:3] or ran.stdout.splitlines()[-1:]}",
        flush=True,
    )
    subprocess.run(["rm", "-rf", str(folder)], check=False)
    return caught


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="mutations to apply (all by default)")
    parser.add_argument("--campaigns", type=int, default=0)
    arguments = parser.parse_args()
    chosen = [m for m in MUTATIONS if not arguments.names or m.name in arguments.names]
    control(tuple(sorted({test for m in chosen for test in m.tests})), arguments.campaigns)
    survived = [m.name for m in chosen if not run(m, arguments.campaigns)]
    print("survived:", survived or "none")
    sys.exit(1 if survived else 0)


if __name__ == "__main__":
    main()
