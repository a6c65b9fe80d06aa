"""A throwaway PostgreSQL server for the tests: the machine's PostgreSQL binaries, a new cluster
in a temporary folder, a free port on 127.0.0.1, stopped and removed at the end.

As root (CI, these machines) ``initdb`` and ``pg_ctl`` refuse to run, so they run as the
``postgres`` user (``runuser``) in a folder it owns; as anyone else they run directly. Durability
is off (``fsync``, ``synchronous_commit``, ``full_page_writes``): the data lives as long as the
test session. Each test gets its own schema (``search_path`` in its URL), migrated on open.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

INSTALL_HINT = (
    "PostgreSQL 15's server binaries (initdb, pg_ctl) are needed by the storage tests: "
    "apt-get install postgresql-15 (Debian), or set PG_BINDIR to the folder that has them"
)


class PostgresMissingError(RuntimeError):
    """The machine has no PostgreSQL server binaries."""


def postgres_bindir() -> Path:
    """Where ``initdb`` and ``pg_ctl`` are: ``$PG_BINDIR``, ``pg_config --bindir`` (Debian puts
    them there, off the PATH), or the PATH."""
    candidates: list[Path] = []
    if os.environ.get("PG_BINDIR"):
        candidates.append(Path(os.environ["PG_BINDIR"]))
    pg_config = shutil.which("pg_config")
    if pg_config:
        found = subprocess.run(
            [pg_config, "--bindir"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if found:
            candidates.append(Path(found))
    candidates.extend(sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True))
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for folder in candidates:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    raise PostgresMissingError(INSTALL_HINT)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class PostgresServer:
    """A running server: ``url(schema)`` names a fresh schema of its ``strategium`` database."""

    folder: Path
    port: int
    bindir: Path
    as_postgres: bool
    _schemas: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def _run(self, *command: str) -> None:
        argv = list(command)
        if self.as_postgres:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        result = subprocess.run(argv, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {result.stdout}{result.stderr}")

    def database_url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_schema_url(self) -> str:
        """A URL whose ``search_path`` is a schema no test used yet (created on first use)."""
        return f"{self.database_url('strategium')}?search_path=t{next(self._schemas)}"

    @classmethod
    def start(cls) -> PostgresServer:
        bindir = postgres_bindir()
        as_postgres = os.geteuid() == 0
        folder = Path(tempfile.mkdtemp(prefix="strategium-pg-"))
        server = cls(folder=folder, port=_free_port(), bindir=bindir, as_postgres=as_postgres)
        if as_postgres:
            owner = pwd.getpwnam("postgres")
            os.chown(folder, owner.pw_uid, owner.pw_gid)
        server._run(
            str(bindir / "initdb"),
            "-D",
            str(server.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        options = (
            f"-p {server.port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off"
        )
        server._run(
            str(bindir / "pg_ctl"),
            "-D",
            str(server.data),
            "-o",
            options,
            "-l",
            str(folder / "server.log"),
            "-w",
            "start",
        )
        return server

    def create_database(self, name: str) -> None:
        """``CREATE DATABASE name`` (through psql: this runs before any event loop)."""
        result = subprocess.run(
            [
                str(self.bindir / "psql"),
                *("-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"),
                *("-v", "ON_ERROR_STOP=1", "-c", f'CREATE DATABASE "{name}"'),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"CREATE DATABASE {name} failed: {result.stderr}")

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


async def new_schema_url(server: PostgresServer) -> str:
    """A URL of a new, empty schema of the ``strategium`` database (one per test)."""
    url = server.new_schema_url()
    schema = url.rsplit("=", 1)[1]
    conn = await asyncpg.connect(server.database_url("strategium"))
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
    finally:
        await conn.close()
    return url


if __name__ == "__main__":
    try:
        print(f"PostgreSQL binaries: {postgres_bindir()}")
    except PostgresMissingError as missing:
        raise SystemExit(str(missing)) from None
