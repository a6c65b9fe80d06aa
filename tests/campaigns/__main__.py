"""``python -m tests.campaigns --seed N --transcript``: play random campaigns, say what broke.

``--seed`` (repeatable) or positional seeds pick the campaigns; ``--transcript`` prints every
input and every request, in order, with the step and the test clock (always on for one seed);
an invariant that breaks is printed with its name, seed, step, time and chat. ``--shrink``
first makes a failing campaign as small as it goes and prints the shrunk script's JSON;
``--json FILE`` plays a script kept that way (the regression tests keep theirs inline).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from tests.campaigns.play import play, shrink
from tests.campaigns.script import Script, script_for


async def _main(arguments: argparse.Namespace) -> int:
    seeds = [*arguments.seeds, *arguments.seed] or [1]
    scripts = [script_for(seed) for seed in seeds]
    if arguments.json:
        scripts = [Script.from_json(Path(arguments.json).read_text(encoding="utf-8"))]
    printing = arguments.transcript or len(scripts) == 1
    failed = 0
    for chosen in scripts:
        script = chosen
        outcome = await play(script, transcript=printing)
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
            f" {dict(sorted(outcome.kinds.items()))}, contact chains {outcome.chains}"
        )
        if printing:
            print("phases (step, turn, phase, status):", outcome.phases)
        if outcome.broken is not None:
            failed += 1
            print(outcome.report())
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.campaigns", description=__doc__)
    parser.add_argument("seeds", nargs="*", type=int, help="seeds to play")
    parser.add_argument("--seed", type=int, action="append", default=[], help="a seed to play")
    parser.add_argument("--transcript", action="store_true", help="print every input and post")
    parser.add_argument("--shrink", action="store_true", help="shrink a failing campaign")
    parser.add_argument("--json", help="play the script kept in this JSON file")
    sys.exit(asyncio.run(_main(parser.parse_args())))


if __name__ == "__main__":
    main()
