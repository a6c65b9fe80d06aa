"""Random whole campaigns in ``./test`` (issue 31): each plays one seeded campaign through the
real dispatcher (:mod:`tests.campaigns.play`) and fails with the first broken invariant, its
seed, step, time and chat, and the command that replays it with the transcript.

The seeds are fixed (CI checks the same campaigns every run, as Hypothesis's ``derandomize``
does); ``bench/campaign_fuzz.py`` plays fresh ones. ``CAMPAIGNS`` (a number) plays that many
instead of the default, ``CAMPAIGN_SEED`` (a number) starts from another seed.
"""

from __future__ import annotations

import os

import pytest

from tests.campaigns.play import play
from tests.campaigns.script import script_for

# 56 campaigns of 1 to 6 turns (mostly 1-3; 30 to 192 steps), about 3.5-4.2 s of CPU each.
# The budget of 4 minutes of 2 cores (480 s) would hold about 120, but the whole ./test
# must stay under 20 minutes of CI. It played 80 until the player learned to end deployment and
# bring contact sides together: its campaigns then resolve more turns, and the suite took
# 18 min 27 s on a clean clone with 80 and 18 min 9 s with 64 (CI runs 100-110 s over a local
# run), so 48 (docs/performance.md, "The whole suite's time"). Since the player's clock sweeps
# as the bot does, the chain defect is first found at seed 56 (seeds 4 and 33 did before), so
# 56: each of the three put-back defects is found here; the bench plays more.
COUNT = int(os.environ.get("CAMPAIGNS", "56"))
FIRST = int(os.environ.get("CAMPAIGN_SEED", "1"))


@pytest.mark.parametrize("seed", range(FIRST, FIRST + COUNT))
async def test_a_random_campaign_keeps_every_invariant(seed: int) -> None:
    outcome = await play(script_for(seed))
    assert outcome.broken is None, outcome.report()
    assert outcome.checks > outcome.steps  # every step was checked
