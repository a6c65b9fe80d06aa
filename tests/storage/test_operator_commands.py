"""``python -m storage backup|export`` as an operator runs them, on a stored campaign, on the
bot's SQLite file or its PostgreSQL database."""

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import asyncpg

from bot.services.turns import ResolveOutcome, resolve_and_store
from storage import SqliteCampaignStore, open_store
from tests.postgres_server import PostgresServer, new_schema_url
from tests.storage.campaign_script import deploy, new_campaign, play_turn
from tests.storage.siege_script import at, play_turn_one, siege_campaign
from tests.storage.siege_script import deploy as deploy_siege

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "storage", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


async def test_backup_and_export_commands(db_path: Path, tmp_path: Path) -> None:
    store = await SqliteCampaignStore.open(db_path)
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    await play_turn(store, campaign.id, 1, seed=3)
    await store.close()

    copy = tmp_path / "copy.sqlite3"
    done = _run("--database", str(db_path), "backup", str(copy))
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(copy) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM campaigns").fetchone() == (1,)

    exported = _run("--database", str(db_path), "export", str(campaign.id))
    assert exported.returncode == 0, exported.stderr
    assert len(json.loads(exported.stdout)["turns"]) == 1

    missing = _run("--database", str(db_path), "export", "999")
    assert missing.returncode == 2
    assert "999" in missing.stderr
    absent = _run("--database", str(tmp_path / "none.sqlite3"), "backup", str(copy))
    assert (absent.returncode, "no database" in absent.stderr) == (2, True)


def _run_with(
    environment: dict[str, str], *args: str, stdin: str | None = None, module: str = "storage"
) -> subprocess.CompletedProcess[str]:
    """``python -m <module> ARGS`` with only ``environment`` of the bot's database settings
    (an operator's shell in the bot's container)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")}
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env=base | environment,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


async def test_export_reads_database_url_and_its_rolls_verify(database_url: str) -> None:
    """With the bot's ``DATABASE_URL`` (PostgreSQL, or ``sqlite:///``) and no
    ``DATABASE_PATH``, ``export`` reads that database, as ``--database URL`` does, and
    ``python -m rules verify-rolls`` verifies the campaign's dice from it."""
    store = await open_store(database_url)
    campaign = await siege_campaign(store)
    await deploy_siege(store, campaign.id)
    await play_turn_one(store, campaign.id)
    resolved = await resolve_and_store(store, campaign.id, 1, None, at(1))
    assert resolved.outcome is ResolveOutcome.RESOLVED
    await store.close()

    exported = _run_with({"DATABASE_URL": database_url}, "export", str(campaign.id))
    assert exported.returncode == 0, exported.stderr
    assert 1 in {turn["turn"] for turn in json.loads(exported.stdout)["turns"]}
    given = _run_with({}, "--database", database_url, "export", str(campaign.id))
    assert (given.returncode, given.stdout) == (0, exported.stdout), given.stderr
    verified = _run_with({}, "verify-rolls", stdin=exported.stdout, module="rules")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["verified"] >= 1


async def test_operator_commands_on_postgresql_refuse_what_they_cannot_do(
    postgres_server: PostgresServer,
) -> None:
    """``backup`` points at pg_dump; a database without the bot's tables is refused, not
    filled; an unreachable one is named without its password."""
    empty = await new_schema_url(postgres_server)
    backup = _run_with({"DATABASE_URL": empty}, "backup", "copy.sqlite3")
    assert (backup.returncode, "pg_dump" in backup.stderr) == (2, True), backup.stderr
    refused = _run_with({"DATABASE_URL": empty}, "export", "1")
    assert refused.returncode == 2
    assert "no Strategium database at postgresql://" in refused.stderr
    conn = await asyncpg.connect(empty.split("?")[0])
    try:
        schema = empty.rsplit("=", 1)[1]
        tables = await conn.fetchval(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1", schema
        )
    finally:
        await conn.close()
    assert tables == 0
    gone = f"postgresql://postgres:sekrit@127.0.0.1:{postgres_server.port}/no_such_database"
    unreachable = _run_with({}, "--database", gone, "export", "1")
    assert unreachable.returncode == 2
    assert "postgresql://postgres@127.0.0.1" in unreachable.stderr
    assert "sekrit" not in unreachable.stderr
