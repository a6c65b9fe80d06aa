"""The property tests and the random campaigns with fresh seeds and larger budgets (issue 31).

CI checks the same examples every run (the ``ci`` profile's ``derandomize``, the campaigns'
fixed seeds): what it passed once it passes again. This bench draws new ones: every Hypothesis
test (each file of ``tests/`` with an ``@given``) under the ``fresh`` profile
(``tests/conftest.py``: ``derandomize`` off, every budget ``--scale`` times CI's, a test's own
``max_examples`` included) from a random ``--hypothesis-seed``, then ``--campaigns`` random
campaigns from a random first seed (``CAMPAIGN_SEED``). It prints the seeds, the examples run,
the time, and each failure with the command that reproduces it.

Run from the repository root: ``.venv/bin/python bench/properties_fresh.py [FILE ...]
[--seed S] [--campaign-seed C] [--scale K] [--campaigns N] [--workers W]
[--only-properties | --only-campaigns]``.
Exit status 1 if anything failed.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import _setup  # puts the repository root on sys.path

ROOT = Path(__file__).resolve().parents[1]
PASSING = re.compile(r"(\d+) passing, (\d+) failing, and (\d+) invalid")
GENERATING = re.compile(r"during generate phase \(([\d.]+) seconds\)")
TEST = re.compile(r"^(tests/\S+::\S+):$")


def property_files() -> list[str]:
    """Every test file with a Hypothesis ``@given``."""
    return sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("test_*.py")
        if "@given" in path.read_text(encoding="utf-8")
    )


def _pytest(
    arguments: list[str], env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """pytest's run, its wall and CPU seconds (of its processes)."""
    before = os.times()
    started = time.monotonic()
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            *arguments,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    after = os.times()
    cpu = (
        after.children_user - before.children_user + after.children_system - before.children_system
    )
    return ran, time.monotonic() - started, cpu


def _failures(output: str) -> list[str]:
    return [
        line.split(" ", 1)[1].split(" - ", 1)[0]
        for line in output.splitlines()
        if line.startswith(("FAILED ", "ERROR "))
    ]


def properties(seed: int, scale: int, workers: int, files: list[str]) -> bool:
    """The property tests of ``files`` from ``seed``; True when all passed."""
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env |= {"HYPOTHESIS_PROFILE": "fresh", "HYPOTHESIS_SCALE": str(scale)}
    print(f"properties: {len(files)} files, seed {seed}, budgets x{scale}", flush=True)
    ran, wall, cpu = _pytest(
        [f"--hypothesis-seed={seed}", "--hypothesis-show-statistics", "-n", str(workers), *files],
        env,
    )
    passing = failing = invalid = tests = 0
    slowest: list[tuple[float, str]] = []
    current, generating = "", False
    for line in ran.stdout.splitlines():
        if (named := TEST.match(line.strip())) is not None:
            current, generating = named.group(1), False
        if (phase := GENERATING.search(line)) is not None:
            generating = True
            tests += 1
            slowest.append((float(phase.group(1)), current))
        elif "phase" in line:
            generating = False
        if generating and (counted := PASSING.search(line)) is not None:
            passing += int(counted.group(1))
            failing += int(counted.group(2))
            invalid += int(counted.group(3))
    failed = _failures(ran.stdout)
    summary = ran.stdout.strip().splitlines()[-1:] if ran.stdout.strip() else [ran.stderr[-500:]]
    print(
        f"properties: {tests} property tests, {passing} passing examples generated,"
        f" {failing} failing, {invalid} invalid; {wall:.0f} s wall, {cpu:.0f} s CPU; {summary[0]}",
        flush=True,
    )
    for seconds, name in sorted(slowest, reverse=True)[:5]:
        print(f"  slowest: {name} {seconds:.0f} s generating", flush=True)
    for name in failed:
        print(
            f"  FAILED {name}: reproduce with HYPOTHESIS_PROFILE=fresh HYPOTHESIS_SCALE={scale}"
            f" .venv/bin/python -m pytest -p no:randomly --hypothesis-seed={seed} '{name}'",
            flush=True,
        )
    if failed:
        print(ran.stdout[-6000:], flush=True)
    return ran.returncode == 0


def campaigns(first: int, count: int, workers: int) -> bool:
    """``count`` random campaigns from seed ``first``; True when all kept every invariant."""
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env |= {"CAMPAIGN_SEED": str(first), "CAMPAIGNS": str(count)}
    print(f"campaigns: {count} from seed {first}", flush=True)
    ran, wall, cpu = _pytest(["-n", str(workers), "tests/campaigns/test_campaigns.py"], env)
    failed = _failures(ran.stdout)
    summary = ran.stdout.strip().splitlines()[-1:] if ran.stdout.strip() else [ran.stderr[-500:]]
    print(
        f"campaigns: {count} played, {len(failed)} broken; {wall:.0f} s wall, {cpu:.0f} s CPU"
        f" ({cpu / max(count, 1):.1f} s CPU each); {summary[0]}",
        flush=True,
    )
    for name in failed:
        seed = name.rsplit("[", 1)[-1].rstrip("]")
        print(
            f"  BROKEN {name}: replay with .venv/bin/python -m tests.campaigns --seed {seed}"
            " --transcript",
            flush=True,
        )
    if failed:
        print(ran.stdout[-6000:], flush=True)
    return ran.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", help="property test files (every one by default)")
    parser.add_argument("--seed", type=int, default=None, help="Hypothesis's seed (random)")
    parser.add_argument("--campaign-seed", type=int, default=None, help="first campaign's (random)")
    parser.add_argument("--scale", type=int, default=7, help="budgets times CI's (7: 300 -> 2,100)")
    parser.add_argument("--campaigns", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--only-properties", action="store_true")
    only.add_argument("--only-campaigns", action="store_true")
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.randrange(1 << 32)
    first = (
        arguments.campaign_seed
        if arguments.campaign_seed is not None
        else random.randrange(1 << 40)
    )
    print(_setup.machine_line(), flush=True)
    started = time.monotonic()
    passed = True
    if not arguments.only_campaigns:
        files = arguments.files or property_files()
        passed &= properties(seed, arguments.scale, arguments.workers, files)
    if not arguments.only_properties and arguments.campaigns > 0:
        passed &= campaigns(first, arguments.campaigns, arguments.workers)
    print(f"{'passed' if passed else 'FAILED'} in {(time.monotonic() - started) / 60:.1f} min")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
