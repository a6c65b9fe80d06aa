"""Operator commands on the campaign database, safe while the bot runs.

    python -m storage backup TARGET            # consistent online copy (SQLite backup API)
    python -m storage export CAMPAIGN_ID       # one campaign as JSON, replayable by python -m rules

The database is ``DATABASE_PATH`` (as for the bot) or ``--database``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from storage.repository import NotFoundError, SqliteCampaignStore

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
    args = parser.parse_args(argv)
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
