"""``python -m storage copy sqlite:///... postgresql://...``: a club's file moved to PostgreSQL
with nothing lost, every table's count and checksum compared and printed."""

import subprocess
import sys
from pathlib import Path

from storage import NewOutboxMessage, PostgresCampaignStore, SqliteCampaignStore
from tests.postgres_server import PostgresServer, new_schema_url
from tests.storage.campaign_script import MONDAY, deploy, new_campaign, play_turn

ROOT = Path(__file__).resolve().parents[2]


def _copy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "storage", "copy", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


async def test_a_played_campaign_is_copied_with_nothing_lost(
    db_path: Path, postgres_server: PostgresServer
) -> None:
    club = await SqliteCampaignStore.open(db_path)
    campaign = await new_campaign(club)
    await deploy(club, campaign.id)
    await play_turn(club, campaign.id, 1, seed=3)
    await club.see_person(7, "Анна", "anna", "ru", True, MONDAY)
    await club.enqueue(
        NewOutboxMessage(
            campaign_id=campaign.id, chat_id=-1001, kind="text", payload={}, dedup_key="k"
        ),
        MONDAY,
    )
    exported = await club.export_campaign(campaign.id)
    audit = await club.audit_log(campaign.id)
    outbox = await club.outbox_messages(campaign.id)
    await club.close()
    url = await new_schema_url(postgres_server)

    done = _copy(f"sqlite://{db_path}", url)

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("campaigns ") and " 1 -> 1 " in line for line in lines)
    assert all(line.endswith("same") for line in lines)
    assert "every count and checksum the same" in done.stderr
    moved = await PostgresCampaignStore.open(url)
    try:
        assert await moved.export_campaign(campaign.id) == exported
        assert await moved.audit_log(campaign.id) == audit
        assert await moved.outbox_messages(campaign.id) == outbox
        person = await moved.person(7)
        assert person is not None
        assert person.display_name == "Анна"
        another = await new_campaign(moved, chat_id=-1002)
        assert another.id > campaign.id
    finally:
        await moved.close()

    again = _copy(f"sqlite://{db_path}", url)
    assert again.returncode == 2
    assert "not empty" in again.stderr


def test_the_copy_goes_from_sqlite_to_postgresql_only(tmp_path: Path) -> None:
    backwards = _copy("postgresql://nowhere/db", f"sqlite://{tmp_path}/x.sqlite3")
    assert backwards.returncode == 2
    assert "in that order" in backwards.stderr
    missing = _copy(f"sqlite://{tmp_path}/none.sqlite3", "postgresql://127.0.0.1:1/db")
    assert missing.returncode == 2
    assert "no SQLite database" in missing.stderr
