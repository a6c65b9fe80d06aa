"""``python -m storage backup|export`` as an operator runs them, on a stored campaign."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from storage import SqliteCampaignStore
from tests.storage.campaign_script import deploy, new_campaign, play_turn

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
