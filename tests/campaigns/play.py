"""One random campaign from its script, the shrinker, and the replay command.

:func:`play` runs a :class:`~tests.campaigns.script.Script` on a fresh store: the wizard and
the joins, then one step per word, the invariants after each step, and the campaign's end
(the GM ends it after its last turn, or it ends by a victory). It returns an
:class:`Outcome`: the steps played, the checks made, the screens reached, and the first broken
invariant, if any, with its step, time and chat.

:func:`shrink` makes a failing script smaller while it still breaks the same invariant: the
settings' simpler variants first (fewer sides, no module, the planet map, UTC ...), then
the steps, dropping chunks of halving size (delta debugging). Every run is deterministic, so a
seed or a shrunk script replays exactly: ``python -m tests.campaigns SEED`` prints the
transcript (``--shrink`` shrinks first, ``--json FILE`` plays a kept script).
"""

from __future__ import annotations

import asyncio
import atexit
import random
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from unittest import mock

from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.services import dice
from bot.texts.i18n import build_i18n
from storage import SqliteCampaignStore, Store
from tests.campaigns.inline_sqlite import statements_in_the_loop
from tests.campaigns.invariants import Broken, Checks
from tests.campaigns.player import Player
from tests.campaigns.script import Script, script_for
from tests.campaigns.world import STEP, World, reading_the_log

_TEMPLATE: dict[str, Path] = {}
_I18N: list[I18n] = []


def catalogs() -> I18n:
    """The real catalogs, loaded once per process."""
    if not _I18N:
        _I18N.append(build_i18n())
    return _I18N[0]


async def sqlite_store(folder: Path) -> Store:
    """A store on a new SQLite file: a copy of one migrated once per process (migrating each
    file anew would cost more than a short campaign)."""
    template = _TEMPLATE.get("sqlite")
    if template is None or not template.exists():
        template = Path(tempfile.mkdtemp(prefix="campaign-template-", dir=_scratch()))
        atexit.register(shutil.rmtree, template, True)
        template /= "template.sqlite3"
        made = await SqliteCampaignStore.open(template)
        await made.close()
        _TEMPLATE["sqlite"] = template
    target = folder / "campaign.sqlite3"
    shutil.copyfile(template, target)
    return await SqliteCampaignStore.open(target)


def _scratch() -> str | None:
    """Where campaign files go: memory (``/dev/shm``) where there is one, as every commit is
    fsynced (``synchronous=FULL``) and a disk's fsync is most of a short campaign's time."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() else None


@dataclass
class Outcome:
    """What one campaign did and found."""

    script: Script
    steps: int = 0
    checks: int = 0
    turns: int = 0
    finished: bool = False
    screens: set[str] = field(default_factory=set)
    kinds: dict[str, int] = field(default_factory=dict)
    broken: Broken | None = None
    transcript: list[str] = field(default_factory=list)
    phases: list[tuple[int, int, str, str]] = field(default_factory=list)
    chains: dict[str, int] = field(default_factory=dict)

    def report(self) -> str:
        """The failure as the test prints it: the invariant, where, and how to replay."""
        assert self.broken is not None
        b = self.broken
        return (
            f"invariant «{b.name}» broken in campaign seed {self.script.seed}, step {b.step}"
            f" ({b.at:%a %d %b %Y %H:%M} UTC), chat {b.chat}:\n{b.message}\n"
            f"campaign: {self.script.describe()}\n"
            f"replay with the transcript: python -m tests.campaigns --seed {self.script.seed}"
            " --transcript"
        )


StoreFactory = Callable[[Path], Awaitable[Store]]


async def play(
    script: Script,
    *,
    make_store: StoreFactory = sqlite_store,
    transcript: bool = False,
    real_maps: int = 0,
    threads: bool = False,
) -> Outcome:
    """Play ``script`` to its end or its first broken invariant (``threads``: SQLite on
    aiosqlite's own thread, else in the loop's: :mod:`tests.campaigns.inline_sqlite`)."""
    with turn_seeds_of(script.seed):
        if threads or make_store is not sqlite_store:
            return await _play_on(script, make_store, transcript, real_maps)
        with statements_in_the_loop():
            return await _play_on(script, make_store, transcript, real_maps)


@contextmanager
def turn_seeds_of(seed: int) -> Iterator[None]:
    """The turns' dice seeds drawn from the campaign's ``seed``: the bot makes them with
    ``secrets`` (players must not foresee them), so without this the same script rolled other
    dice, dealt other spells and took another path on every run. A string seeds ``Random``
    through SHA-512, not ``hash()``, so ``PYTHONHASHSEED`` changes nothing."""
    rng = random.Random(f"turn seeds of campaign {seed}")

    def new_seed() -> str:
        return rng.randbytes(dice.SEED_BYTES).hex()

    with mock.patch.object(dice, "new_seed", new_seed):
        yield


async def _play_on(
    script: Script, make_store: StoreFactory, transcript: bool, real_maps: int
) -> Outcome:
    outcome = Outcome(script)
    with tempfile.TemporaryDirectory(prefix="campaign-", dir=_scratch()) as folder:
        store = await make_store(Path(folder))
        try:
            with reading_the_log() as log:
                world = World(store, ManualClock(script.setup.start), catalogs())
                world.maps.real_every = real_maps
                checks = Checks(world, log, script)
                try:
                    await _play(world, checks, script, outcome)
                except Broken as broken:
                    outcome.broken = broken
                finally:
                    outcome.checks = checks.count
                    outcome.screens = checks.screens
                    outcome.phases = checks.phases
                    outcome.chains = checks.chain.as_dict()
                    if transcript:
                        outcome.transcript = [
                            f"[{line.step} {line.at:%a %d %b %H:%M}] {line.text}"
                            for line in world.transcript
                        ]
        finally:
            await store.close()
    return outcome


async def _play(world: World, checks: Checks, script: Script, outcome: Outcome) -> None:
    player = Player(world, script)
    world.say_line(f"campaign {script.describe()}")
    STEP.set(0)
    await player.set_up()
    await checks.after_step("set up", player)
    for index, word in enumerate(script.steps, start=1):
        world.step = index
        STEP.set(index)
        kind = await player.step(word)
        outcome.kinds[kind] = outcome.kinds.get(kind, 0) + 1
        outcome.steps = index
        await checks.after_step(kind, player)
        campaign = await player._campaign()
        if campaign is None or checks.finished:
            break
        if checks.resolved_turns >= script.setup.turns:
            break
    world.step = len(script.steps) + 1
    STEP.set(world.step)
    await player.end(player.rng)
    await world.sweep()
    await checks.after_step("end", player)
    await checks.at_the_end(player)
    outcome.turns = checks.resolved_turns
    outcome.finished = checks.finished


def run(script: Script, **kwargs: object) -> Outcome:
    """:func:`play` in a new event loop."""
    return asyncio.run(play(script, **kwargs))  # type: ignore[arg-type]


def fails_the_same(outcome: Outcome, name: str) -> bool:
    """The outcome broke the invariant ``name``."""
    return outcome.broken is not None and outcome.broken.name == name


async def shrink(script: Script, name: str, *, budget: int = 200) -> Script:
    """A smaller script that still breaks the invariant ``name`` (at most ``budget`` runs)."""
    runs = 0

    async def still_fails(candidate: Script) -> bool:
        nonlocal runs
        runs += 1
        return fails_the_same(await play(candidate), name)

    changed = True
    while changed and runs < budget:
        changed = False
        for candidate in _simpler(script):
            if runs >= budget:
                break
            if await still_fails(candidate):
                script, changed = candidate, True
                break
    chunk = max(1, len(script.steps) // 2)
    while chunk >= 1 and runs < budget:
        start, dropped = 0, False
        while start < len(script.steps) and runs < budget:
            steps = script.steps[:start] + script.steps[start + chunk :]
            candidate = replace(script, steps=steps)
            if await still_fails(candidate):
                script, dropped = candidate, True
            else:
                start += chunk
        if not dropped:
            chunk //= 2
    return replace(script, note=f"shrunk from seed {script.seed} in {runs} runs")


def _simpler(script: Script) -> list[Script]:
    from tests.campaigns.script import simpler  # noqa: PLC0415 (kept beside the setup)

    found = simpler(script)
    if script.setup.turns > 1:
        found.append(replace(script, setup=replace(script.setup, turns=script.setup.turns - 1)))
    return found


def script_of(seed: int) -> Script:
    """The script of ``seed``."""
    return script_for(seed)
