"""Child process of the kill test: saves one side's orders in a loop until it is killed.

``python -m tests.storage.order_writer DB CAMPAIGN SIDE USER`` prints ``opened`` once the store
is open, then ``saved N`` after each save of edit N has returned (flushed at once), so the
parent knows which writes the database promised to keep.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rules import ModuleOrder, SideOrders
from storage import SqliteCampaignStore, WriteOutcome

START = datetime(2026, 1, 6, tzinfo=UTC)


def orders_number(n: int) -> SideOrders:
    """The orders of edit ``n``: distinct per edit, so each can be recognised afterwards."""
    return SideOrders(extra=(ModuleOrder(module="kill-test", data={"n": n}),))


async def write_forever(path: Path, campaign_id: int, side: str, user: int) -> None:
    """Save edit 1, 2, 3, ... and report each one after it returned."""
    store = await SqliteCampaignStore.open(path)
    print("opened", flush=True)
    n = 0
    while True:
        n += 1
        saved = await store.save_orders(
            campaign_id, 1, side, orders_number(n), n % 2 == 0, user, START + timedelta(seconds=n)
        )
        if saved.outcome is not WriteOutcome.SAVED:
            raise RuntimeError(f"save {n} refused: {saved.outcome}")
        print(f"saved {n}", flush=True)


if __name__ == "__main__":
    asyncio.run(write_forever(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])))
