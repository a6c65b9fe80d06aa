"""A process killed (SIGKILL) while writing orders leaves a sound database that holds every
order whose save returned."""

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from storage import SqliteCampaignStore, Store
from tests.storage.campaign_script import deploy, new_campaign, strategist
from tests.storage.order_writer import orders_number

ROOT = Path(__file__).parents[2]


def _errors(child: "subprocess.Popen[str]") -> str:
    child.wait()
    return child.stderr.read() if child.stderr is not None else ""


def _run_until(db_path: Path, campaign_id: int, saves: int) -> int:
    """Start the writer, kill it after it reported ``saves`` saves; the last number reported."""
    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.storage.order_writer",
            str(db_path),
            str(campaign_id),
            "red",
            str(strategist("red")),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        if child.stdout is None:
            raise RuntimeError("no pipe to the writer")
        try:
            if child.stdout.readline().strip() != "opened":
                raise RuntimeError(f"writer did not start: {_errors(child)}")
            last = 0
            while last < saves:
                line = child.stdout.readline()
                if not line:
                    raise RuntimeError(f"writer stopped by itself: {_errors(child)}")
                last = int(line.split()[1])
            child.send_signal(signal.SIGKILL)
            # Saves finished after the last line read may be printed too: count them.
            for line in child.stdout:
                last = max(last, int(line.split()[1]))
        finally:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    return last


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("saves", [0, 1, 7, 40])
async def test_killed_writer_leaves_every_returned_order(
    store: Store, db_path: Path, saves: int
) -> None:
    campaign = await new_campaign(store)
    await deploy(store, campaign.id)
    await store.close()

    reported = _run_until(db_path, campaign.id, saves)
    assert reported >= saves

    with sqlite3.connect(db_path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert raw.execute("PRAGMA foreign_key_check").fetchall() == []
    reopened = await SqliteCampaignStore.open(db_path)
    try:
        edits = await reopened.order_edits(campaign.id, 1, "red")
        current = await reopened.orders(campaign.id, 1, "red")
    finally:
        await reopened.close()
    numbers = [e.seq for e in edits]
    # Every save that returned is there, in order, with nothing torn in between; at most the
    # one save in flight when the kill came may be there as well (it committed, unreported).
    assert numbers == list(range(1, len(numbers) + 1))
    assert reported <= len(numbers) <= reported + 1
    assert [e.orders for e in edits] == [orders_number(n) for n in numbers]
    if numbers:
        assert current is not None
        assert current.edits == numbers[-1]
        assert current.orders == orders_number(numbers[-1])
        assert current.ready == (numbers[-1] % 2 == 0)
    else:
        assert current is None
