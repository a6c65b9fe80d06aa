"""Operator commands on the campaign database, safe while the bot runs.

    python -m storage backup TARGET            # consistent online copy (SQLite backup API)
    python -m storage export CAMPAIGN_ID       # one campaign as JSON, replayable by python -m rules
    python -m storage copy sqlite:///FILE postgresql://...   # move a club to PostgreSQL

The database is the bot's: ``DATABASE_URL`` (``postgresql://...`` or ``sqlite:///FILE``), else
the SQLite file ``DATABASE_PATH``; or ``--database`` (a URL or a file). ``backup`` is for a
SQLite file; PostgreSQL is backed up with ``pg_dump`` (docs/deploy.md, «Backups»).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import asyncpg

from storage.copy import CopyRefusedError, copy_database
from storage.postgres import holds_campaigns, without_password
from storage.repository import (
    NotFoundError,
    SqlCampaignStore,
    SqliteCampaignStore,
    is_postgresql,
    open_store,
    sqlite_path,
)

DEFAULT_DATABASE = Path("data/strategium.sqlite3")


def default_database(environment: Mapping[str, str] = os.environ) -> str:
    """The bot's database, as the bot reads it: ``DATABASE_URL`` when set, else
    ``DATABASE_PATH``, else ``data/strategium.sqlite3``."""
    return (
        environment.get("DATABASE_URL") or environment.get("DATABASE_PATH") or str(DEFAULT_DATABASE)
    )


async def _backup(database: Path, target: Path) -> None:
    store = await SqliteCampaignStore.open(database)
    try:
        await store.backup(target)
    finally:
        await store.close()


async def _export(database: str, campaign_id: int) -> dict[str, object]:
    store: SqlCampaignStore = await open_store(database)
    try:
        return await store.export_campaign(campaign_id)
    finally:
        await store.close()


def _copy_command(source: str, target: str) -> int:
    if is_postgresql(source) or not is_postgresql(target):
        print(
            "python -m storage copy: from sqlite:///FILE to postgresql://..., in that order",
            file=sys.stderr,
        )
        return 2
    try:
        checks = asyncio.run(copy_database(sqlite_path(source), target))
    except (CopyRefusedError, OSError, asyncpg.PostgresError) as error:
        print(f"python -m storage copy: {error}", file=sys.stderr)
        return 2
    width = max(len(check.table) for check in checks)
    for check in checks:
        verdict = "same" if check.same else "DIFFERENT"
        print(
            f"{check.table:<{width}}  {check.source_rows:>7} -> {check.target_rows:<7}"
            f"  sha256 {check.source_sha256[:16]} -> {check.target_sha256[:16]}  {verdict}"
        )
    different = [check.table for check in checks if not check.same]
    if different:
        print(f"the copy differs in: {', '.join(different)}", file=sys.stderr)
        return 1
    print(f"copied {len(checks)} tables, every count and checksum the same", file=sys.stderr)
    return 0


def _database_command(command: str, database: str, args: argparse.Namespace) -> int:
    """``backup`` or ``export`` on ``database`` (a URL or a SQLite file)."""
    postgresql = is_postgresql(database)
    shown = without_password(database) if postgresql else database
    if command == "backup" and postgresql:
        print(
            f"python -m storage backup: {shown} is PostgreSQL: back it up with pg_dump "
            "(docs/deploy.md, «Backups»)",
            file=sys.stderr,
        )
        return 2
    try:
        if postgresql and not asyncio.run(holds_campaigns(database)):
            print(f"python -m storage: no Strategium database at {shown}", file=sys.stderr)
            return 2
        if not postgresql and not sqlite_path(database).exists():
            print(f"python -m storage: no database at {sqlite_path(database)}", file=sys.stderr)
            return 2
        if command == "backup":
            asyncio.run(_backup(sqlite_path(database), args.target))
            print(f"backed up {sqlite_path(database)} to {args.target}", file=sys.stderr)
        else:
            exported = asyncio.run(_export(database, args.campaign_id))
            json.dump(exported, sys.stdout, ensure_ascii=False, indent=2)
            sys.stdout.write("\n")
    except (NotFoundError, ValueError) as error:
        print(f"python -m storage {command}: {error}", file=sys.stderr)
        return 2
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        print(f"python -m storage {command}: cannot open {shown}: {error}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run one operator command; exit status 0 on success, 2 with a message otherwise."""
    parser = argparse.ArgumentParser(prog="python -m storage", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database",
        default=default_database(),
        help="the campaign database: postgresql://user:password@host:port/database, "
        "sqlite:///FILE or a file (default: $DATABASE_URL, else $DATABASE_PATH, else "
        f"{DEFAULT_DATABASE})",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    backup = commands.add_parser("backup", help="copy a SQLite database while the bot runs")
    backup.add_argument("target", type=Path)
    export = commands.add_parser("export", help="one campaign as JSON on standard output")
    export.add_argument("campaign_id", type=int)
    copy = commands.add_parser(
        "copy", help="copy a SQLite database into an empty PostgreSQL one, then compare them"
    )
    copy.add_argument("source", help="sqlite:///path/to/strategium.sqlite3")
    copy.add_argument("target", help="postgresql://user:password@host:port/database")
    args = parser.parse_args(argv)
    if args.command == "copy":
        return _copy_command(args.source, args.target)
    return _database_command(args.command, args.database, args)


if __name__ == "__main__":
    sys.exit(main())
