"""The container check (issue 34): the project's ``Dockerfile`` built, and its image run as
shipped, on this machine. ``./test`` runs it; by hand: ``.venv/bin/python -m tests.container``.

1. **Tools**: Debian's ``podman``, ``buildah``, ``debootstrap`` and ``docker-compose`` (1.29, for
   ``config``), installed with ``apt-get`` when missing and this machine can (root). When it
   cannot, the check says it did NOT run, and why (exit 0; 1 with
   ``STRATEGIUM_CONTAINER_CHECK=required``). When it can, every failure fails.
   ``STRATEGIUM_CONTAINER_CHECK=skip`` skips it, saying so.
2. **The base image**: no image registry can be reached here, so ``python:3.11-slim`` is a
   stand-in made once: ``debootstrap --variant=minbase bookworm`` with ``python3``,
   ``python3-venv``, ``python-is-python3`` and ``ca-certificates`` (Debian's Python 3.11, in
   ``/usr/bin``; the official image's is in ``/usr/local/bin``, and the Dockerfile does not mind),
   trimmed as Debian's slim images are (no apt lists, documentation or translations), kept as a
   tarball in the cache folder (``$STRATEGIUM_CACHE``, else ``$XDG_CACHE_HOME/strategium``, else
   ``~/.cache/strategium``) and imported under the official name with the label
   ``org.strategium.stand-in``. A base already in podman's store (real or stand-in) is used as
   it is.
3. **Build**: ``podman build --format docker`` (HEALTHCHECK kept) ``--isolation chroot
   --network host --pull=never --layers=false`` (the OCI runtime is refused here: "cgroups in
   hybrid mode"), with this machine's pip configuration (``pip config list``, environment
   included, written as one ``/etc/pip.conf``) and every file or folder it names (CA bundle,
   find-links, local indexes, constraints) mounted read-only, so pip in the build reaches the
   same package index. The image is ``localhost/strategium:check-<8 hex of the checkout's path>``
   (two checkouts checking at once never share one), removed at the end (``--keep`` keeps it).
4. **Run**: ``podman run`` is refused here too (crun: setrlimit "Operation not permitted"), so
   ``buildah run --isolation chroot --network host`` runs the image's CMD as its user, with a
   folder chowned to that user as the ``/data`` volume, against the Bot API emulator
   (:mod:`tests.e2e.harness`). A Russian- and an English-speaking person's ``/start`` are
   answered with the greeting in their language (timed from the start: the first answered
   update); the image's HEALTHCHECK command passes; a language chosen with ``/lang`` is stored;
   SIGTERM to the CMD process (what ``docker stop`` sends to process 1) stops it, exit status 0,
   within 10 s. A new container of the image on the same volume answers in the stored
   language. The image has no pip, setuptools, compiler or build folder.
5. **Compose**: ``docker-compose config`` accepts ``compose.yaml`` and ``compose.replicas.yaml``
   with their variables set, and refuses them without (their ``${VAR:?}`` guards).
"""

from __future__ import annotations

import ast
import asyncio
import collections
import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bot.screens.callbacks import LanguageChoice
from tests.e2e.greeting import PEOPLE, expected_greeting, greetings, say_start
from tests.e2e.harness import (
    EmulatorError,
    ScriptedTelegram,
    install_emulator,
    new_bot_token,
    run_emulator,
)

ROOT = Path(__file__).resolve().parents[2]
# One tag per checkout: two worktrees checking at once never take each other's image.
IMAGE = f"localhost/strategium:check-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:8]}"
BASE = "docker.io/library/python:3.11-slim"
STAND_IN_LABEL = "org.strategium.stand-in"
SUITE = "bookworm"
BASE_PACKAGES = ("python3", "python3-venv", "python-is-python3", "ca-certificates")
TRIMMED = (
    "var/cache/apt/archives",
    "var/cache/apt/pkgcache.bin",
    "var/cache/apt/srcpkgcache.bin",
    "var/lib/apt/lists",
    "usr/share/doc",
    "usr/share/man",
    "usr/share/locale",
)
TOOLS = {  # command: Debian package
    "podman": "podman",
    "buildah": "buildah",
    "debootstrap": "debootstrap",
    "docker-compose": "docker-compose",
}
BARE_PACKAGES = frozenset({"docker-compose"})  # installed without their recommends
STOP_GRACE = 10.0  # docker stop's, before its SIGKILL
ANSWER_TIMEOUT = 120.0  # a start on a loaded 2-core machine
HEALTH_TIMEOUT = 60.0
COMMAND_TIMEOUT = 1800.0


class NotRunError(Exception):
    """The check cannot run on this machine (the reason is the message)."""


class CheckFailedError(Exception):
    """The image or a compose file is not as shipped it should be (the message says how)."""


def say(text: str) -> None:
    print(f"   {text}", flush=True)


def _run(
    argv: Sequence[str],
    *,
    what: str,
    log: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = COMMAND_TIMEOUT,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run a command; CheckFailedError (with the end of its output) when it fails."""
    done = subprocess.run(
        list(argv),
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    if log is not None:
        log.write_text(done.stdout + done.stderr, encoding="utf-8")
    if check and done.returncode != 0:
        output = (done.stdout + done.stderr)[-3000:]
        raise CheckFailedError(
            f"{what} failed (exit {done.returncode}): {' '.join(argv)}\n{output}"
        )
    return done


# ---- 1. tools --------------------------------------------------------------------------------


def ensure_tools() -> str:
    """Install the missing tools with apt-get when this machine can (NotRunError when not);
    says what it did."""
    missing = [package for command, package in TOOLS.items() if shutil.which(command) is None]
    if not missing:
        return "tools present"
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise NotRunError(
            f"{', '.join(missing)} missing and not installable here (apt-get as root): "
            f"sudo apt-get install {' '.join(missing)}"
        )
    say(f"installing {' '.join(missing)} (apt-get)")
    started = time.monotonic()
    env = os.environ | {"DEBIAN_FRONTEND": "noninteractive"}
    # podman as Debian recommends it (netavark, its network backend, comes so); docker-compose
    # without: its recommends are Docker's daemon, containerd and runc.
    plain = [package for package in missing if package not in BARE_PACKAGES]
    bare = [package for package in missing if package in BARE_PACKAGES]
    updated = False
    for options, packages in (([], plain), (["--no-install-recommends"], bare)):
        if not packages:
            continue
        install = ["apt-get", "install", "-y", "-q", *options, *packages]
        if _run(install, what="apt-get install", env=env, check=False).returncode != 0:
            if not updated:
                _run(["apt-get", "update", "-q"], what="apt-get update", env=env)
                updated = True
            _run(install, what="apt-get install", env=env)
    return f"installed {' '.join(missing)} (apt-get) in {time.monotonic() - started:.0f} s"


# ---- 2. the base image -----------------------------------------------------------------------


def cache_dir() -> Path:
    """Where the base image's tarball is kept between runs (outside the checkout)."""
    if os.environ.get("STRATEGIUM_CACHE"):
        return Path(os.environ["STRATEGIUM_CACHE"])
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(home) / "strategium"


def _recipe() -> str:
    """What the stand-in is made of: its tarball's name changes with it."""
    recipe = f"{SUITE} minbase {','.join(BASE_PACKAGES)} trim {','.join(TRIMMED)}"
    return hashlib.sha256(recipe.encode()).hexdigest()[:12]


def _image_exists(name: str) -> bool:
    """Whether podman's store has the image (1: it has not; anything else is podman failing)."""
    done = _run(["podman", "image", "exists", name], what="podman image exists", check=False)
    if done.returncode not in (0, 1):
        raise CheckFailedError(f"podman image exists {name} failed: {done.stderr[-2000:]}")
    return done.returncode == 0


def ensure_base(workdir: Path) -> str:
    """``python:3.11-slim`` in podman's store; returns how it got there."""
    if _image_exists(BASE):
        return "present in podman's store"
    tarball = cache_dir() / f"python-3.11-slim-{SUITE}-{_recipe()}.tar"
    made = ""
    if not tarball.exists():
        started = time.monotonic()
        _debootstrap(tarball, workdir)
        made = f"made by debootstrap in {time.monotonic() - started:.0f} s, "
    started = time.monotonic()
    _run(
        [
            *("podman", "import"),
            *("--change", "ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin"),
            *("--change", "ENV LANG=C.UTF-8"),
            *("--change", 'CMD ["python3"]'),
            *("--change", f"LABEL {STAND_IN_LABEL}=debootstrap-{SUITE}"),
            *(str(tarball), BASE),
        ],
        what="podman import",
    )
    return f"stand-in {made}imported from {tarball} in {time.monotonic() - started:.0f} s"


def _debootstrap(tarball: Path, workdir: Path) -> None:
    """A minimal Debian with Python 3.11, trimmed, as a tarball in the cache."""
    tarball.parent.mkdir(parents=True, exist_ok=True)
    rootfs = workdir / "rootfs"
    mirror = os.environ.get("STRATEGIUM_DEBIAN_MIRROR", "http://deb.debian.org/debian")
    say(f"making the base: debootstrap {SUITE} ({mirror}); about 2 minutes, once")
    _run(
        [
            *("debootstrap", "--variant=minbase", f"--include={','.join(BASE_PACKAGES)}"),
            *(SUITE, str(rootfs), mirror),
        ],
        what="debootstrap",
        log=workdir / "debootstrap.log",
    )
    for trimmed in TRIMMED:
        target = rootfs / trimmed
        if target.is_dir():
            for child in target.iterdir():
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child)
                else:
                    child.unlink()
        else:
            target.unlink(missing_ok=True)
    partial = tarball.with_name(tarball.name + f".{os.getpid()}.partial")
    _run(["tar", "-C", str(rootfs), "-cf", str(partial), "."], what="tar")
    partial.replace(tarball)
    shutil.rmtree(rootfs)


# ---- 3. build --------------------------------------------------------------------------------


def pip_settings(listed: str) -> dict[str, dict[str, str]]:
    """pip's settings by section from what ``pip config list`` prints, as pip resolves them
    (it lists them in its order of precedence: the later wins; the environment's ``PIP_*``,
    listed as ``:env:``, belong to ``global``)."""
    settings: dict[str, dict[str, str]] = {}
    for line in listed.splitlines():
        key, found, value = line.partition("=")
        section, _, name = key.rpartition(".")
        if not found or not name:
            continue
        section = "global" if section == ":env:" else section
        settings.setdefault(section, {})[name] = str(ast.literal_eval(value))
    return settings


def pip_build_mounts(settings: dict[str, dict[str, str]], workdir: Path) -> list[str]:
    """``-v`` options that give pip in the build these settings: one ``/etc/pip.conf`` and every
    local file or folder they name, read-only at the same path."""
    config = workdir / "pip.conf"
    config.write_text(
        "".join(
            f"[{section}]\n" + "".join(f"{name} = {value}\n" for name, value in values.items())
            for section, values in settings.items()
        ),
        encoding="utf-8",
    )
    named: set[Path] = set()
    for values in settings.values():
        for value in values.values():
            for word in value.split():
                location = Path(word.removeprefix("file://"))
                # A local index (…/simple) links to its files beside it: its whole folder.
                if location.name == "simple":
                    location = location.parent
                if location.is_absolute() and location.exists():
                    named.add(location)
    kept = sorted(path for path in named if not any(other in path.parents for other in named))
    mounts = [f"{config}:/etc/pip.conf:ro", *(f"{path}:{path}:ro" for path in kept)]
    return [option for mount in mounts for option in ("-v", mount)]


def machine_pip_settings() -> dict[str, dict[str, str]]:
    """This machine's pip settings (this environment's pip, so its configuration files and the
    ``PIP_*`` environment)."""
    listed = _run([sys.executable, "-m", "pip", "config", "list"], what="pip config list")
    return pip_settings(listed.stdout)


def _image_id(name: str) -> str | None:
    done = _run(
        ["podman", "image", "inspect", "--format", "{{.Id}}", name], what="podman", check=False
    )
    return done.stdout.strip() or None if done.returncode == 0 else None


def build_image(workdir: Path) -> float:
    """Build the Dockerfile as ``IMAGE``; returns the seconds it took."""
    previous = _image_id(IMAGE)
    started = time.monotonic()
    _run(
        [
            *("podman", "build", "--format", "docker", "--layers=false"),
            *("--isolation", "chroot", "--network", "host", "--pull=never"),
            *pip_build_mounts(machine_pip_settings(), workdir),
            *("-t", IMAGE, str(ROOT)),
        ],
        what="podman build",
        log=workdir / "build.log",
    )
    seconds = time.monotonic() - started
    if previous is not None and previous != _image_id(IMAGE):
        _run(["podman", "rmi", previous], what="podman rmi", check=False)
    return seconds


@dataclass(frozen=True)
class ImageFacts:
    """What the image says of itself."""

    size: int
    base_size: int
    base_label: str | None
    user: str
    command: list[str]
    healthcheck: list[str]


def image_facts() -> ImageFacts:
    inspected = json.loads(_run(["podman", "image", "inspect", IMAGE], what="inspect").stdout)[0]
    base = json.loads(_run(["podman", "image", "inspect", BASE], what="inspect").stdout)[0]
    config = inspected["Config"]
    test = (inspected.get("Healthcheck") or config.get("Healthcheck") or {}).get("Test") or []
    if not test or test[0] not in ("CMD", "CMD-SHELL"):
        raise CheckFailedError(f"the image has no HEALTHCHECK command: {test!r}")
    healthcheck = test[1:] if test[0] == "CMD" else ["/bin/sh", "-c", test[1]]
    return ImageFacts(
        size=int(inspected["Size"]),
        base_size=int(base["Size"]),
        base_label=(base.get("Labels") or {}).get(STAND_IN_LABEL),
        user=str(config.get("User") or "root"),
        command=list(config.get("Cmd") or []),
        healthcheck=healthcheck,
    )


# ---- 4. run ----------------------------------------------------------------------------------


@dataclass
class Container:
    """A buildah container of ``IMAGE`` (removed when done), its ``/data`` a host folder."""

    name: str
    data: Path
    environment: dict[str, str]
    log_dir: Path
    runs: int = 0
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def _run_argv(self, command: Sequence[str]) -> list[str]:
        settings = [f"--env={key}={value}" for key, value in self.environment.items()]
        return [
            *("buildah", "run", "--isolation", "chroot", "--network", "host"),
            *settings,
            *("-v", f"{self.data}:/data", self.name, "--", *command),
        ]

    def execute(self, command: Sequence[str]) -> subprocess.CompletedProcess[str]:
        """Run a command in the container (as its user) to its end."""
        return _run(self._run_argv(command), what="buildah run", check=False, timeout=120)

    @property
    def log_path(self) -> Path:
        return self.log_dir / f"{self.name}-{self.runs}.log"

    def start(self, command: Sequence[str]) -> None:
        """Start ``command`` (the image's CMD) in the background."""
        self.runs += 1
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                self._run_argv(command), stdin=subprocess.DEVNULL, stdout=log, stderr=log
            )

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def check_alive(self) -> None:
        if self.process is not None and self.process.poll() is not None:
            raise CheckFailedError(
                f"the bot exited ({self.process.returncode}):\n{self.log_text()[-3000:]}"
            )

    def command_pid(self, command: Sequence[str]) -> int:
        """The CMD's own process (under buildah's chroot helpers): SIGTERM goes to it, as
        ``docker stop`` sends it to a container's process 1 (buildah run itself would SIGKILL
        it)."""
        if self.process is None:
            raise RuntimeError("not started")
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                    children.setdefault(parent, []).append(int(entry.name))
        wanted = list(command[1:])
        queue = collections.deque([self.process.pid])  # the shallowest: its children come later
        while queue:
            pid = queue.popleft()
            queue.extend(children.get(pid, []))
            with contextlib.suppress(OSError):
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]
                if (
                    len(argv) == len(command)
                    and argv[1:] == wanted
                    and Path(argv[0]).name == Path(command[0]).name
                ):
                    return pid
        raise CheckFailedError(f"no process {' '.join(command)} under buildah run")

    def stop(self, command: Sequence[str]) -> tuple[float, int]:
        """SIGTERM to the CMD's process; seconds until it ended and the exit status."""
        if self.process is None:
            raise RuntimeError("not started")
        pid = self.command_pid(command)
        started = time.monotonic()
        os.kill(pid, signal.SIGTERM)
        try:
            code = self.process.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            tail = self.log_text()[-3000:]
            raise CheckFailedError(
                f"SIGTERM did not stop the bot within {STOP_GRACE:.0f} s:\n{tail}"
            ) from None
        self.process = None
        return time.monotonic() - started, code

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


@contextlib.contextmanager
def container(
    name: str, data: Path, environment: dict[str, str], log_dir: Path
) -> Iterator[Container]:
    """A new container of ``IMAGE``; always removed (its process killed first if running)."""
    _run(["buildah", "rm", name], what="buildah rm", check=False)
    _run(["buildah", "from", "--pull-never", "--name", name, IMAGE], what="buildah from")
    # buildah run gives a path the image declares a VOLUME an anonymous folder of its own
    # whatever -v says (buildah 1.28): the declaration goes from this container, so /data is
    # the folder given, as docker run -v makes it.
    _run(["buildah", "config", "--volume", "/data-", name], what="buildah config")
    made = Container(name, data, environment, log_dir)
    try:
        yield made
    finally:
        made.kill()
        _run(["buildah", "rm", name], what="buildah rm", check=False)


@dataclass
class RunFigures:
    first_answer: float = 0.0
    stops: list[tuple[float, int]] = field(default_factory=list)


async def _wait_healthy(box: Container, healthcheck: Sequence[str]) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT
    while True:
        box.check_alive()
        done = await asyncio.to_thread(box.execute, healthcheck)
        if done.returncode == 0:
            return
        if time.monotonic() >= deadline:
            raise CheckFailedError(
                f"the HEALTHCHECK {' '.join(healthcheck)} failed for {HEALTH_TIMEOUT:.0f} s: "
                f"{(done.stdout + done.stderr)[-1000:]}"
            )
        await asyncio.sleep(0.5)


async def _choose_english(telegram: ScriptedTelegram) -> None:
    """The Russian-speaking person chooses English with ``/lang`` (stored in the database)."""
    anna = PEOPLE[0]
    before = len(await telegram.bot_messages(anna.id))
    await telegram.send_command(anna, "/lang")
    menu = (await telegram.wait_for_bot_messages(anna.id, before + 1, timeout=ANSWER_TIMEOUT))[-1]
    await telegram.press_button(anna, menu, LanguageChoice(language="en").pack())
    await telegram.wait_for(
        lambda: telegram.bot_messages(anna.id),
        lambda messages: str(messages[before].get("text", "")).startswith("Language: English"),
        timeout=ANSWER_TIMEOUT,
        what="the language stored",
    )


async def run_checks(facts: ImageFacts, workdir: Path) -> RunFigures:
    """Step 4: the image's CMD against the emulator, in two containers on one volume."""
    install_emulator()
    data = workdir / "data"
    data.mkdir()
    figures = RunFigures()
    name = f"strategium-check-{os.getpid()}"
    with run_emulator(workdir / "emulator.log") as emulator:
        async with aiohttp.ClientSession() as session:
            telegram = emulator.scripted(session, new_bot_token())
            environment = {"BOT_TOKEN": telegram.token, "BOT_API_BASE": emulator.base_url}
            with container(f"{name}-1", data, environment, workdir) as box:
                os.chown(data, _user_id(box, facts), -1)  # as Docker makes a new volume
                _no_build_tools(box)
                await say_start(telegram)
                started = time.monotonic()
                box.start(facts.command)
                await _answered(box, greetings(telegram, PEOPLE, timeout=ANSWER_TIMEOUT))
                figures.first_answer = time.monotonic() - started
                await _wait_healthy(box, facts.healthcheck)
                await _answered(box, _choose_english(telegram))
                figures.stops.append(box.stop(facts.command))
                _logged_cleanly(box)
            with container(f"{name}-2", data, environment, workdir) as box:
                await _answered_in_english_after_restart(box, facts, telegram)
                await _wait_healthy(box, facts.healthcheck)
                figures.stops.append(box.stop(facts.command))
                _logged_cleanly(box)
    for seconds, code in figures.stops:
        if code != 0:
            raise CheckFailedError(f"the bot exited {code} on SIGTERM (after {seconds:.1f} s)")
    return figures


async def _answered_in_english_after_restart(
    box: Container, facts: ImageFacts, telegram: ScriptedTelegram
) -> None:
    """A new container on the same volume: the Russian-speaking person who chose English is
    greeted in English (the database survived)."""
    anna = PEOPLE[0]
    before = len(await telegram.bot_messages(anna.id))
    await telegram.send_command(anna, "/start")
    box.start(facts.command)
    greetings_seen = (expected_greeting("en"), expected_greeting("ru"))

    def greeted(messages: list[dict[str, Any]]) -> bool:
        return any(str(m.get("text", "")).startswith(greetings_seen) for m in messages[before:])

    messages = await _answered(
        box,
        telegram.wait_for(
            lambda: telegram.bot_messages(anna.id),
            greeted,
            timeout=ANSWER_TIMEOUT,
            what="the greeting after the restart",
        ),
    )
    text = next(
        str(m.get("text", ""))
        for m in messages[before:]
        if str(m.get("text", "")).startswith(greetings_seen)
    )
    if not text.startswith(greetings_seen[0]):
        raise CheckFailedError(
            f"a new container on the same volume lost the stored language: {text[:200]!r}"
        )


async def _answered(box: Container, waiting: Any) -> Any:
    """Await ``waiting`` (an answer in the emulator) while watching the bot process."""
    task = asyncio.ensure_future(waiting)
    while not task.done():
        await asyncio.wait({task}, timeout=0.5)
        if not task.done() and box.process is not None and box.process.poll() is not None:
            task.cancel()
            box.check_alive()
    try:
        return task.result()
    except EmulatorError as error:
        raise CheckFailedError(f"{error}\n{box.log_text()[-3000:]}") from error


def _user_id(box: Container, facts: ImageFacts) -> int:
    """The numeric id of the image's user; never root."""
    done = box.execute(["id", "-u"])
    if done.returncode != 0 or not done.stdout.strip().isdigit():
        raise CheckFailedError(f"cannot read the user of the image: {done.stderr}")
    uid = int(done.stdout.strip())
    if uid == 0:
        raise CheckFailedError(f"the image runs as root (USER {facts.user!r})")
    return uid


def _no_build_tools(box: Container) -> None:
    """Nothing of the build stage is left in the image."""
    probe = (
        "import importlib.util, os, shutil; "
        "print(*[n for n in ('pip', 'setuptools') if importlib.util.find_spec(n)], "
        "*[t for t in ('gcc', 'cc', 'make', 'pip', 'pip3') if shutil.which(t)], "
        "*[p for p in ('/src',) if os.path.exists(p)])"
    )
    done = box.execute(["python", "-c", probe])
    if done.returncode != 0 or done.stdout.strip():
        raise CheckFailedError(f"build tools left in the image: {done.stdout}{done.stderr}")


def _logged_cleanly(box: Container) -> None:
    text = box.log_text()
    for sign in ("Traceback", "level=error", "compiled in memory"):
        if sign in text:
            raise CheckFailedError(f"the bot's log has {sign!r}:\n{text[-3000:]}")
    if "SIGTERM received: stopping" not in text:
        raise CheckFailedError(f"the bot did not log its SIGTERM:\n{text[-2000:]}")


# ---- 5. compose ------------------------------------------------------------------------------

COMPOSE_FILES = {  # the variables each needs; the first is left out to see it refused
    "compose.yaml": {"BOT_TOKEN": "123456:check"},
    "compose.replicas.yaml": {
        "POSTGRES_PASSWORD": "check",
        "BOT_TOKEN": "123456:check",
        "DOMAIN": "bot.example.org",
        "WEBHOOK_SECRET": "check",
    },
}


def check_compose(workdir: Path) -> str:
    """``docker-compose config`` on each compose file: valid with its variables, refused
    without the first. Returns docker-compose's version."""
    empty = workdir / "empty.env"
    empty.write_text("")
    base = {
        key: value
        for key, value in os.environ.items()
        if key not in {name for needed in COMPOSE_FILES.values() for name in needed}
    }
    for filename, needed in COMPOSE_FILES.items():
        argv = [
            *("docker-compose", "--env-file", str(empty), "--project-directory", str(ROOT)),
            *("-f", str(ROOT / filename), "config", "-q"),
        ]
        _run(argv, what=f"docker-compose config {filename}", env=base | needed)
        for name in needed:
            refused = _run(argv, what="docker-compose", env=base | needed | {name: ""}, check=False)
            if refused.returncode == 0 or f"set {name}" not in refused.stderr:
                raise CheckFailedError(f"{filename} is accepted without {name}: {refused.stderr}")
    version = _run(["docker-compose", "version", "--short"], what="docker-compose").stdout
    return version.strip()


# ---- the whole check -------------------------------------------------------------------------


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.0f} MB"


def check(*, build: bool = True, keep: bool = False, run: bool = True) -> list[str]:
    """Every step; returns the figures, one line each. The image is removed at the end unless
    ``keep`` (a checkout in a new folder each time would otherwise leave one per run).
    Without ``run`` only the tools, the compose files, the base and the build (the image kept
    for a later run without ``build``)."""
    tools = ensure_tools()
    workdir = Path(tempfile.mkdtemp(prefix="strategium-container-"))
    keep = keep or not run
    try:
        lines = [tools, f"compose files valid (docker-compose {check_compose(workdir)})"]
        base = ensure_base(workdir)
        lines.append(f"base {BASE}: {base}")
        if build:
            seconds = build_image(workdir)
            lines.append(f"built {IMAGE} in {seconds:.0f} s")
        elif _image_id(IMAGE) is None:
            raise CheckFailedError(f"no image {IMAGE} to run: build it first (without --no-build)")
        if not run:
            return lines
        facts = image_facts()
        lines.append(
            f"image {_megabytes(facts.size)} (base {_megabytes(facts.base_size)}"
            + (f", a stand-in: {facts.base_label}" if facts.base_label else "")
            + f"), user {facts.user}, CMD {' '.join(facts.command)}"
        )
        figures = asyncio.run(run_checks(facts, workdir))
        lines.append(
            f"/start answered in ru and en {figures.first_answer:.1f} s after the start; "
            f"HEALTHCHECK ({' '.join(facts.healthcheck)}) passed"
        )
        lines.append(
            "SIGTERM: stopped in "
            + ", ".join(f"{seconds:.1f} s (exit {code})" for seconds, code in figures.stops)
            + "; the volume kept the database for a new container"
        )
    except BaseException:
        print(f"   the check's files are kept in {workdir}", flush=True)
        raise
    finally:
        if not keep:
            _run(["podman", "rmi", "--force", IMAGE], what="podman rmi", check=False)
    shutil.rmtree(workdir, ignore_errors=True)
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tests.container [--keep] [--no-build] [--prepare]``: 0 when the image works
    (or the check could not run here, said so), 1 when it does not. ``--keep`` keeps the image
    for a look (``buildah from``) or a later ``--no-build`` run, which checks the kept image
    again. ``--prepare`` installs the tools, checks the compose files and builds the image
    (kept), without running it: ``./test`` prepares beside pytest, whose tests wait on
    processes and the network more than on the CPU, and runs the image (``--no-build``) once
    pytest is done, so the timed start and stop are not measured on a machine busy with tests."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    build = "--no-build" not in arguments
    keep = "--keep" in arguments
    run = "--prepare" not in arguments
    wanted = os.environ.get("STRATEGIUM_CONTAINER_CHECK", "")
    if wanted == "skip":
        print("== container: SKIPPED (STRATEGIUM_CONTAINER_CHECK=skip)", flush=True)
        return 0
    started = time.monotonic()
    try:
        lines = check(build=build, keep=keep, run=run)
    except NotRunError as reason:
        print(f"== container: NOT RUN: {reason}", flush=True)
        return 1 if wanted == "required" else 0
    except CheckFailedError as failure:
        print(f"== container: FAILED: {failure}", file=sys.stderr, flush=True)
        return 1
    for line in lines:
        say(line)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    done = "container check passed" if run else "container image prepared"
    say(f"{done} in {time.monotonic() - started:.0f} s (load average {load})")
    return 0
