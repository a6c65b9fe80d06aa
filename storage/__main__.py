"""Operator commands on the campaign database, safe while the bot runs.

    python -m storage backup TARGET            # consistent online copy (SQLite backup API)
    python -m storage export CAMPAIGN_ID       # one campaign as JSON, replayable by python -m rules
    python -m storage copy sqlite:///FILE postgresql://...   # move a club to PostgreSQL

The database is ``DATABASE_PATH`` (as for the bot) or ``--database``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

import asyncpg

from storage.copy import CopyRefusedError, copy_database
from storage.repository import NotFoundError, SqliteCampaignStore, is_postgresql, sqlite_path

DEFAULT_DATABASE = Path("data/strategium.sqlite3")


async def _backup(database: Path, target: Path) -> None:
    store = await SqliteCampaignStore.open(database)
    try:
        await store.backup(target)
    finally:
        await store.close()


async def _export(database: Path, campaign_id: int) -> dict[str, object]:
    store = await SqliteCampaignStore.open(database)
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


def main(argv: list[str] | None = None) -> int:
    """Run one operator command; exit status 0 on success, 2 with a message otherwise."""
    parser = argparse.ArgumentParser(prog="python -m storage", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database",
        type=Path,
        default=Path(os.environ.get("DATABASE_PATH", DEFAULT_DATABASE)),
        help="the campaign database (default: $DATABASE_PATH or data/strategium.sqlite3)",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    backup = commands.add_parser("backup", help="copy the database while the bot runs")
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
    if not args.database.exists():
        print(f"python -m storage: no database at {args.database}", file=sys.stderr)
        return 2
    try:
        if args.command == "backup":
            asyncio.run(_backup(args.database, args.target))
            print(f"backed up {args.database} to {args.target}", file=sys.stderr)
        else:
            exported = asyncio.run(_export(args.database, args.campaign_id))
            json.dump(exported, sys.stdout, ensure_ascii=False, indent=2)
            sys.stdout.write("\n")
    except (NotFoundError, ValueError) as error:
        print(f"python -m storage {args.command}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
