"""Proof that the secrecy checks bite (issue 31): each mutation below makes the bot leak a
secret (a hand logged, a card posted, a side's orders told to another side); the script
applies it to a copy of the repository, runs the tests that must catch it, and says whether
they did. A mutation no test catches is a hole in the tests.

Run from the repository root: ``.venv/bin/python bench/secrecy_mutants.py [NAME ...]``
(every mutation by default; ``--campaigns N``: how many random campaigns join the tests, 40 by
default). It copies the committed tree (``git archive HEAD``) to a temporary folder, so the
working tree is never touched. Exit status 1 if any mutation survives.
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


MUTATIONS = (
    Mutation(
        "log a hand",
        "bot/handlers/private/orders.py",
        "    standing = await duels.heroes_now(store, campaign, state, clock.now())\n",
        "    standing = await duels.heroes_now(store, campaign, state, clock.now())\n"
        "    import logging\n\n"
        "    logging.getLogger(__name__).info(\n"
        '        "hands %s", [h.get("hand") for h in state.modules["watch"]["heroes"]]\n'
        "    )\n",
        ("tests/bot/test_watch_duels.py", "tests/bot/test_watch_map.py", "tests/campaigns"),
    ),
    Mutation(
        "tell another side's players its orders",
        "bot/services/orders.py",
        "        if m.side_id == side and Role.STRATEGIST in m.roles and m.user_id != editor\n",
        "        if Role.STRATEGIST in m.roles and m.user_id != editor\n",
        ("tests/bot/test_private_posts.py", "tests/campaigns"),
    ),
    Mutation(
        "show every hand to a player",
        "bot/handlers/private/orders.py",
        "    shown = [seat.side] if seat.side is not None else [s.id for s in sides] if seat.is_gm"
        " else []\n",
        "    shown = [s.id for s in sides]\n",
        ("tests/bot/test_watch_duels.py", "tests/bot/test_watch_map.py", "tests/campaigns"),
    ),
)


def _copy() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="mutant-"))
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def run(mutation: Mutation, campaigns: int) -> bool:
    """True when the tests caught ``mutation`` (some failed)."""
    folder = _copy()
    target = folder / mutation.path
    text = target.read_text(encoding="utf-8")
    if text.count(mutation.old) != 1:
        raise SystemExit(f"{mutation.name}: the code to mutate moved ({mutation.path})")
    target.write_text(text.replace(mutation.old, mutation.new), encoding="utf-8")
    env = {**os.environ, "CAMPAIGNS": str(campaigns)}
    started = time.monotonic()
    ran = subprocess.run(
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
            *mutation.tests,
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
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
    parser.add_argument("--campaigns", type=int, default=40)
    arguments = parser.parse_args()
    chosen = [m for m in MUTATIONS if not arguments.names or m.name in arguments.names]
    survived = [m.name for m in chosen if not run(m, arguments.campaigns)]
    print("survived:", survived or "none")
    sys.exit(1 if survived else 0)


if __name__ == "__main__":
    main()
