"""The package as pip installs it, run from a read-only site-packages (a container's, a
distribution's): the build compiled the catalogs into it, so the bot starts, answers a person's
``/start`` in Russian and in English, passes its health check and stops on SIGTERM, without
writing a byte into its package.

The project is copied without any ``.mo`` and installed by pip (``--no-deps``, its build isolated
as any ``pip install`` builds it) into a new virtual environment; the dependencies are this
environment's, seen through a ``.pth`` line (none of that folder's own ``.pth`` files run, so
this checkout's editable install stays out of sight). As root (CI) both folders are bind-mounted
read-only in a mount namespace of the bot's own (``unshare -m``): permissions do not stop root.
Anyone else gets them ``chmod a-w``.
"""

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from tests.e2e.greeting import PEOPLE, greetings, say_start
from tests.e2e.harness import EmulatorError, ScriptedTelegram

ROOT = Path(__file__).resolve().parents[2]
PROJECT_FILES = ("pyproject.toml", "setup.py", "README.md")
PACKAGES = ("bot", "rules", "storage")
T = TypeVar("T")
INSTALL_TIMEOUT = 300.0
STOP_TIMEOUT = 10.0
START_TIMEOUT = 60.0  # importing aiogram alone takes half of it on a loaded 2-core machine


def install_copy(workdir: Path) -> tuple[Path, Path]:
    """The project (no ``.mo``, no caches) installed into a new environment under
    ``workdir``; returns its python and its site-packages."""
    source = workdir / "source"
    source.mkdir()
    for name in PROJECT_FILES:
        shutil.copy2(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            source / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.mo", "*.tmp"),
        )
    venv = workdir / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    installed = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"),
            *("--disable-pip-version-check", "--target", str(site), str(source)),
        ],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    (site / "strategium-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return python, site


@contextmanager
def read_only(folders: tuple[Path, ...]) -> Iterator[list[str]]:
    """The command prefix that runs a program with ``folders`` read-only."""
    if os.geteuid() == 0:
        mounts = " && ".join(
            f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} {folder}"
            for folder in folders
        )
        namespace = ["unshare", "--mount", "--propagation", "private"]
        yield [*namespace, "sh", "-c", f'{mounts} && exec "$@"', "sh"]
        return
    for folder in folders:
        subprocess.run(["chmod", "-R", "a-w", str(folder)], check=True)
    try:
        yield []
    finally:
        for folder in folders:
            subprocess.run(["chmod", "-R", "u+w", str(folder)], check=True)


async def _while_running(
    process: "subprocess.Popen[bytes]", log: Path, waiting: Coroutine[Any, Any, T]
) -> T:
    """Await ``waiting``; EmulatorError with the bot's log at once if the bot exits first."""
    task = asyncio.ensure_future(waiting)
    while not task.done():
        await asyncio.wait({task}, timeout=0.5)
        if not task.done() and process.poll() is not None:
            task.cancel()
            tail = log.read_text(errors="replace")[-3000:]
            raise EmulatorError(f"the bot exited ({process.returncode}):\n{tail}")
    return task.result()


def _files(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


async def test_the_installed_package_runs_from_a_read_only_site_packages(
    telegram: ScriptedTelegram, tmp_path: Path
) -> None:
    python, site = install_copy(tmp_path)
    catalogs = sorted(str(p.relative_to(site)) for p in (site / "bot" / "locales").rglob("*.mo"))
    assert catalogs == [
        "bot/locales/en/LC_MESSAGES/strategium.mo",
        "bot/locales/ru/LC_MESSAGES/strategium.mo",
    ]
    installed = _files(site)
    workdir = tmp_path / "run"
    workdir.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("BOT_", "DATABASE_", "HEARTBEAT_", "WEBHOOK_", "TEST_", "PYTHON"))
    } | {
        "BOT_TOKEN": telegram.token,
        "BOT_API_BASE": telegram.base_url,
        "DATABASE_PATH": str(tmp_path / "data" / "strategium.sqlite3"),
        "LOG_LEVEL": "INFO",
    }
    log = tmp_path / "bot.log"
    dependencies = Path(sysconfig.get_path("purelib"))
    with read_only((site, dependencies)) as prefix:

        def run(*args: str) -> "subprocess.CompletedProcess[str]":
            return subprocess.run(
                [*prefix, str(python), *args],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )

        probe = run("-c", f"open({str(site / 'bot' / 'probe')!r}, 'w')")
        assert "Read-only file system" in probe.stderr or "Permission denied" in probe.stderr
        where = run("-c", "import bot, rules, storage; print(bot.__file__, storage.__file__)")
        assert where.stdout.split() == [
            str(site / "bot" / "__init__.py"),
            str(site / "storage" / "__init__.py"),
        ], where.stderr
        await say_start(telegram)
        with log.open("wb") as output:
            process = subprocess.Popen(
                [*prefix, str(python), "-m", "bot"],
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        try:
            answers = await _while_running(
                process, log, greetings(telegram, PEOPLE, timeout=START_TIMEOUT)
            )
            healthy = await telegram.wait_for(
                lambda: asyncio.to_thread(run, "-m", "bot.runtime.health"),
                lambda done: done.returncode == 0,
                timeout=START_TIMEOUT,
                what="a passing health check",
            )
            process.send_signal(signal.SIGTERM)
            code = await asyncio.to_thread(process.wait, STOP_TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    text = log.read_text(errors="replace")
    assert sorted(answers) == ["en", "ru"]
    assert healthy.stderr == ""
    assert code == 0, text[-3000:]
    assert "compiled in memory" not in text
    assert "Traceback" not in text, text[-3000:]
    assert _files(site) == installed
