"""``python -m tests.campaigns SEED [SEED ...]``: play random campaigns and print what happened.

With one seed the whole transcript is printed (every input and every request, in order) and,
if an invariant broke, where; ``--shrink`` first makes the failing campaign as small as it
goes and prints the shrunk script's JSON (kept as a test in tests/campaigns/test_found.py);
``--json FILE`` plays a script kept that way.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from tests.campaigns.play import play, shrink
from tests.campaigns.script import Script, script_for


async def _main(arguments: argparse.Namespace) -> int:
    scripts = [script_for(seed) for seed in arguments.seeds]
    if arguments.json:
        scripts = [Script.from_json(Path(arguments.json).read_text(encoding="utf-8"))]
    failed = 0
    for script in scripts:
        outcome = await play(script, transcript=len(scripts) == 1)
        if outcome.broken is not None and arguments.shrink:
            script = await shrink(script, outcome.broken.name)
            outcome = await play(script, transcript=True)
            print("shrunk script:", script.to_json())
        for line in outcome.transcript:
            print(line)
        status = "ok" if outcome.broken is None else "BROKEN"
        print(
            f"seed {script.seed}: {status}; {outcome.steps} steps, {outcome.turns} turns"
            f" resolved, {outcome.checks} checks, {len(outcome.screens)} screens, kinds"
            f" {dict(sorted(outcome.kinds.items()))}"
        )
        print("phases (step, turn, phase, status):", outcome.phases)
        if outcome.broken is not None:
            failed += 1
            print(outcome.report())
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.campaigns", description=__doc__)
    parser.add_argument("seeds", nargs="*", type=int, default=[1])
    parser.add_argument("--shrink", action="store_true", help="shrink a failing campaign")
    parser.add_argument("--json", help="play the script kept in this JSON file")
    sys.exit(asyncio.run(_main(parser.parse_args())))


if __name__ == "__main__":
    main()
