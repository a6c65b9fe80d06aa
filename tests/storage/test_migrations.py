"""Schema migrations: every older version migrates to the latest; numbering is enforced."""

import asyncio
import json
import sqlite3
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from rules.edits import StateEdit, apply_edit
from rules.modules.contact import load as load_contact
from storage import (
    AuditAction,
    Database,
    MigrationError,
    Role,
    SqliteCampaignStore,
    UpdateTake,
    latest_version,
    load_migrations,
    migrate,
)
from storage.db import Migration, connect
from storage.dialect import Dialect, migration_script
from storage.postgres import migrate as postgres_migrate
from storage.postgres import schema_version
from tests.postgres_server import PostgresServer, new_schema_url
from tests.rules.contact_day_demo import contact_game, example_a_state

T = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def _schema(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"
        ).fetchall()
    return [(name, sql) for name, sql in rows]


def test_migration_files_are_numbered_consecutively_from_one() -> None:
    migrations = load_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    assert latest_version() == len(migrations) >= 1
    folder = Path(__file__).parents[2] / "storage" / "migrations"
    sql_files = sorted(p.name for p in folder.iterdir() if p.suffix == ".sql")
    assert sql_files == [m.name for m in migrations]


@pytest.mark.parametrize(
    ("names", "problem"),
    [
        (["0001_a.sql", "0003_c.sql"], "without gaps"),
        (["0001_a.sql", "0001_b.sql"], "without gaps"),
        (["0002_b.sql"], "without gaps"),
        (["0001_a.sql", "2_b.sql"], "NNNN_words"),
    ],
)
def test_a_badly_numbered_migration_is_refused(
    tmp_path: Path, names: list[str], problem: str
) -> None:
    for name in names:
        (tmp_path / name).write_text("SELECT 1;", encoding="utf-8")
    with pytest.raises(MigrationError, match=problem):
        load_migrations(tmp_path)


@pytest.mark.parametrize("version", range(latest_version()))
async def test_a_database_of_every_older_version_migrates_to_the_latest(
    tmp_path: Path, version: int
) -> None:
    old = tmp_path / f"v{version}.sqlite3"
    conn = await connect(old)
    try:
        assert await migrate(conn, target=version) == version
    finally:
        await conn.close()
    db = await Database.open(old)
    await db.close()
    fresh = tmp_path / "fresh.sqlite3"
    fresh_db = await Database.open(fresh)
    await fresh_db.close()
    with sqlite3.connect(old) as conn_check:
        assert conn_check.execute("PRAGMA user_version").fetchone()[0] == latest_version()
        assert conn_check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn_check.execute("PRAGMA foreign_key_check").fetchall() == []
    assert _schema(old) == _schema(fresh)


async def test_opening_twice_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "twice.sqlite3"
    for _ in range(2):
        db = await Database.open(path)
        await db.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()


async def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {latest_version() + 1}")
    with pytest.raises(MigrationError, match="newer"):
        await Database.open(path)


async def test_a_failing_migration_leaves_the_previous_version_intact(tmp_path: Path) -> None:
    steps = (
        Migration(1, "0001_a.sql", "CREATE TABLE a (x INTEGER);"),
        Migration(2, "0002_b.sql", "CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);"),
    )
    conn = await connect(tmp_path / "failing.sqlite3")
    try:
        with pytest.raises(sqlite3.OperationalError, match="nowhere"):
            await migrate(conn, migrations=steps)
        async with conn.execute("PRAGMA user_version") as cursor:
            row = await cursor.fetchone()
        assert row is not None
        assert row[0] == 1
        async with conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'") as cursor:
            tables = [r[0] for r in await cursor.fetchall()]
        assert tables == ["a"]
    finally:
        await conn.close()


async def test_connections_use_wal_full_sync_and_foreign_keys(tmp_path: Path) -> None:
    conn = await connect(tmp_path / "pragmas.sqlite3")
    try:
        values = {}
        for pragma in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout"):
            async with conn.execute(f"PRAGMA {pragma}") as cursor:
                row = await cursor.fetchone()
            assert row is not None
            values[pragma] = row[0]
    finally:
        await conn.close()
    assert values == {
        "journal_mode": "wal",
        "synchronous": 2,
        "foreign_keys": 1,
        "busy_timeout": 10_000,
    }


async def test_version_6_counts_the_time_already_paused_in_the_current_phase(
    tmp_path: Path,
) -> None:
    """A clock row from before version 6 gets ``paused_seconds`` from the resumes logged for
    its turn and phase since its anchor; earlier phases' pauses do not count."""
    path = tmp_path / "v4.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=4) == 4
        await conn.execute(
            "INSERT INTO campaigns (id, chat_id, title, time_zone, schedule_json, map_name,"
            " unreported_policy, status, phase, turn, created_by, created_at, updated_at)"
            " VALUES (1, -1, 'Siege', 'UTC', '{}', 'planet-5', 'draw', 'running', 'orders', 2,"
            " 100, '2026-03-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')"
        )
        await conn.execute(
            "INSERT INTO campaign_clocks (campaign_id, entry_seq, turn, phase, anchor, deadline,"
            " basis, updated_at) VALUES (1, 5, 2, 'orders', '2026-03-09T12:00:00.000000+00:00',"
            " '2026-03-13T02:59:00.000000+00:00', 'UTC|{}', '2026-03-10T00:00:00+00:00')"
        )
        for at, turn, phase, seconds in (
            ("2026-03-05T10:00:00.000000+00:00", 1, "orders", 999),  # turn 1: not this phase
            ("2026-03-10T10:00:00.000000+00:00", 2, "orders", 3600),
            ("2026-03-11T10:00:00.000000+00:00", 2, "orders", 7200),
        ):
            await conn.execute(
                "INSERT INTO clock_log (campaign_id, at, actor, kind, turn, phase, detail_json)"
                " VALUES (1, ?, 100, 'resumed', ?, ?, ?)",
                (at, turn, phase, f'{{"reason": "", "paused_seconds": {seconds}}}'),
            )
        await conn.commit()
    finally:
        await conn.close()
    db = await Database.open(path)
    await db.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT paused_seconds FROM campaign_clocks").fetchall() == [(10800,)]
        assert raw.execute("SELECT COUNT(*) FROM clock_proposals").fetchone() == (0,)


async def test_version_9_adds_vacant_seats_and_keeps_the_members(tmp_path: Path) -> None:
    """A campaign from before version 9 keeps its members; a seat vacated after the migration
    is kept with its side, roles and reason, and its member row stays (without the side)."""
    path = tmp_path / "v8.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=8) == 8
        await conn.execute(
            "INSERT INTO campaigns (id, chat_id, title, time_zone, schedule_json, map_name,"
            " unreported_policy, status, phase, turn, created_by, created_at, updated_at)"
            " VALUES (1, -1, 'Siege', 'UTC', '{}', 'planet-5', 'draw', 'running', 'orders', 2,"
            " 100, '2026-03-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')"
        )
        await conn.execute(
            "INSERT INTO sides (campaign_id, id, name, colour, position)"
            " VALUES (1, 'red', 'Red', '#cc0000', 0)"
        )
        await conn.execute(
            "INSERT INTO members (campaign_id, user_id, display_name, side_id, joined_at)"
            " VALUES (1, 7, 'Boris', 'red', '2026-03-01T00:00:00+00:00')"
        )
        await conn.execute(
            "INSERT INTO member_roles (campaign_id, user_id, role) VALUES (1, 7, 'strategist')"
        )
        await conn.commit()
    finally:
        await conn.close()
    store = await SqliteCampaignStore.open(path)
    try:
        vacancy = await store.vacate_seat(1, 7, "silent", 100, T)
        assert vacancy is not None
        assert (vacancy.side_id, vacancy.roles, vacancy.reason) == (
            "red",
            frozenset({Role.STRATEGIST}),
            "silent",
        )
        member = await store.member(1, 7)
        assert member is not None
        assert (member.side_id, member.roles) == (None, frozenset())
        assert await store.vacate_seat(1, 7, "again", 100, T) is None
        filled = await store.fill_seat(vacancy.id, 8, "Vera", 100, T)
        assert filled is not None
        assert (filled.side_id, filled.roles) == ("red", frozenset({Role.STRATEGIST}))
        assert await store.fill_seat(vacancy.id, 9, "Gleb", 100, T) is None  # taken already
        assert await store.withdraw_vacancy(vacancy.id, 100, T) is None  # filled: stays so
        # Vera's seat falls vacant too, and the GM withdraws it: closed, given to nobody.
        again = await store.vacate_seat(1, 8, "moved away", 100, T)
        assert again is not None
        withdrawn = await store.withdraw_vacancy(again.id, 100, T)
        assert withdrawn is not None
        assert (withdrawn.is_open, withdrawn.filled_by, withdrawn.closed_by) == (False, None, 100)
        assert await store.vacancy(again.id) == withdrawn
        assert await store.vacancies(1) == []
        assert await store.withdraw_vacancy(again.id, 100, T) is None  # only once
        assert await store.fill_seat(again.id, 9, "Gleb", 100, T) is None
        actions = [entry.action for entry in await store.audit_log(1)]
        assert actions == [
            AuditAction.SEAT_VACATED,
            AuditAction.SEAT_FILLED,
            AuditAction.SEAT_VACATED,
            AuditAction.SEAT_WITHDRAWN,
        ]
    finally:
        await store.close()


async def test_version_10_keeps_older_adjustments_and_sides_as_they_were(tmp_path: Path) -> None:
    """A card's effect stored before version 10 stays a module adjustment (no states kept: the
    GM's undo of edits does not take it), and every side still plays."""
    path = tmp_path / "v9.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=9) == 9
        await conn.execute(
            "INSERT INTO campaigns (id, chat_id, title, time_zone, schedule_json, map_name,"
            " unreported_policy, status, phase, turn, created_by, created_at, updated_at)"
            " VALUES (1, -1, 'Siege', 'UTC', '{}', 'planet-5', 'draw', 'running', 'orders', 2,"
            " 100, '2026-03-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')"
        )
        await conn.execute(
            "INSERT INTO sides (campaign_id, id, name, colour, position)"
            " VALUES (1, 'red', 'Red', '#cc0000', 1)"
        )
        await conn.execute(
            "INSERT INTO state_adjustments (campaign_id, turn, adjustment_json, made_by, made_at)"
            " VALUES (1, 2, '{\"armies\": []}', 100, '2026-03-02T00:00:00+00:00')"
        )
        await conn.commit()
    finally:
        await conn.close()
    store = await SqliteCampaignStore.open(path)
    try:
        (kept,) = await store.adjustments(1, 2)
        assert (kept.before, kept.after, kept.adjustment) == (None, None, {"armies": []})
        assert await store.state_edit(kept.id) is None
        assert [side.retired for side in await store.sides(1)] == [False]
    finally:
        await store.close()


async def test_postgresql_migrates_from_the_same_files_step_by_step(
    postgres_server: PostgresServer,
) -> None:
    """The numbered files take a PostgreSQL database from each version to the next, with the
    version in ``schema_version``, the per-engine lines of 0007 and the BIGINT ids."""
    url = await new_schema_url(postgres_server)
    raw = await asyncpg.connect(url)
    try:
        for version in range(1, latest_version() + 1):
            assert await postgres_migrate(raw, target=version) == version
            assert await schema_version(raw) == version
        assert await postgres_migrate(raw) == latest_version()
        kinds = await raw.fetchval(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE conname = 'order_sets_kind_check'"
        )
        assert "'late'" in kinds
        chat_type = await raw.fetchval(
            "SELECT data_type FROM information_schema.columns"
            " WHERE table_name = 'campaigns' AND column_name = 'chat_id'"
            " AND table_schema = current_schema()"
        )
        assert chat_type == "bigint"
        await raw.execute("UPDATE schema_version SET version = version + 1")
        with pytest.raises(MigrationError, match="newer than this code"):
            await postgres_migrate(raw)
    finally:
        await raw.close()


async def test_postgresql_replicas_starting_at_once_migrate_a_new_database_once(
    postgres_server: PostgresServer,
) -> None:
    """Three webhook replicas started together on an empty database (compose's first start;
    found by bench/proxy_drill.py): one migrates, the others wait and find the schema done,
    instead of creating the same tables at once and failing."""
    url = await new_schema_url(postgres_server)
    connections = [await asyncpg.connect(url) for _ in range(3)]
    try:
        versions = await asyncio.gather(*(postgres_migrate(raw) for raw in connections))
        assert versions == [latest_version()] * 3
        assert await schema_version(connections[0]) == latest_version()
    finally:
        for raw in connections:
            await raw.close()


def test_a_migration_file_keeps_each_engines_lines_apart() -> None:
    script = "A INTEGER;\n-- sqlite only:\nB;\n-- postgresql only:\nC;\n-- both:\nD;\n"
    assert migration_script(script, Dialect.SQLITE) == "A INTEGER;\n\nB;\n\nD;\n"
    assert migration_script(script, Dialect.POSTGRESQL) == "A BIGINT;\n\nC;\n\nD;\n"


async def test_version_12_adds_the_shared_work_tables_and_keeps_the_outbox(
    tmp_path: Path,
) -> None:
    """Updates taken and send windows start empty; what was queued before stays queued."""
    path = tmp_path / "v11.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=11) == 11
        await conn.execute(
            "INSERT INTO outbox (chat_id, kind, payload_json, dedup_key, state, not_before,"
            " created_at) VALUES (-1, 'notice', '{}', 'k', 'pending',"
            " '2026-03-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')"
        )
        await conn.commit()
    finally:
        await conn.close()
    store = await SqliteCampaignStore.open(path)
    try:
        moment = datetime(2026, 3, 1, tzinfo=UTC)
        (queued,) = await store.claim_due(moment, 10, 60)
        assert queued.dedup_key == "k"
        assert await store.take_update(1, moment, timedelta(seconds=30)) is UpdateTake.TAKEN
        assert await store.take_update(1, moment, timedelta(seconds=30)) is UpdateTake.HELD
    finally:
        await store.close()


async def test_version_13_leases_updates_and_drops_retries_of_those_taken_before(
    tmp_path: Path,
) -> None:
    """An update taken under version 12 was handled (or lost with its process, as it was
    then): a retry of it is dropped. New ones are leased."""
    path = tmp_path / "v12.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=12) == 12
        await conn.execute(
            "INSERT INTO seen_updates (update_id, seen_at) VALUES (5, '2026-03-01T00:00:00+00:00')"
        )
        await conn.commit()
    finally:
        await conn.close()
    store = await SqliteCampaignStore.open(path)
    try:
        moment = datetime(2026, 3, 1, 0, 1, tzinfo=UTC)
        lease = timedelta(seconds=30)
        assert await store.take_update(5, moment, lease) is UpdateTake.DONE
        assert await store.take_update(6, moment, lease) is UpdateTake.TAKEN
        assert await store.take_update(6, moment + lease, lease) is UpdateTake.TAKEN
    finally:
        await store.close()


async def test_version_14_adds_duel_steps_and_keeps_the_battle_lists(tmp_path: Path) -> None:
    """A database of version 13 gets an empty duel steps table; its lists stay as they were."""
    path = tmp_path / "v13.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=13) == 13
        async with conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'") as cursor:
            assert "duel_steps" not in {row[0] for row in await cursor.fetchall()}
    finally:
        await conn.close()
    store = await SqliteCampaignStore.open(path)
    try:
        assert await store.campaigns_with_duel_steps() == []
    finally:
        await store.close()
    assert ("duel_steps_by_campaign",) in {(name,) for name, _sql in _schema(path)}


async def test_version_15_adds_the_defender_a_report_was_given_against(tmp_path: Path) -> None:
    """A database of version 14 gets ``reported_against`` and ``override_against`` on its
    reports, empty for the reports it has (they count for whoever defends now)."""
    path = tmp_path / "v14.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=14) == 14
        async with conn.execute("PRAGMA table_info(battle_reports)") as cursor:
            before = {row[1] for row in await cursor.fetchall()}
        assert "reported_against" not in before
    finally:
        await conn.close()
    store = await SqliteCampaignStore.open(path)
    await store.close()
    conn = await connect(path)
    try:
        async with conn.execute("PRAGMA table_info(battle_reports)") as cursor:
            after = {row[1] for row in await cursor.fetchall()}
    finally:
        await conn.close()
    assert {"reported_against", "override_against"} <= after - before


# A GM's edits as the code before version 16 wrote them (StateEdit.model_dump_json()): a repair
# of contact's defences kept as "defences", and every edit carrying the list, empty or not.
_OLD_REPAIR = (
    '{"kind":"edit","armies":[],"defences":[{"sector":"hb","level":2,"owner":"party",'
    '"ruined":false}],"retire":null,"reason":"A card"}'
)
_OLD_ARMIES = (
    '{"kind":"edit","armies":[{"side":"bees","sector":"ph","count":2}],"defences":[],'
    '"retire":null,"reason":"Typo"}'
)
_WATCH_CHANGE = '{"kind":"watch","change":"npc","to":"ph","origin":"hb","reason":"Egor"}'
_SIEGE_CARD = '{"armies":[],"vp":[{"side":"bees","delta":1}],"weather_steps":0,"reason":"Card"}'
_OLD_ADJUSTMENTS = (_OLD_REPAIR, _OLD_ARMIES, _WATCH_CHANGE, _SIEGE_CARD)
_CAMPAIGN_ROW = (
    "INSERT INTO campaigns (id, chat_id, title, time_zone, schedule_json, map_name,"
    " unreported_policy, status, phase, turn, created_by, created_at, updated_at)"
    " VALUES (1, -1, 'Contact', 'UTC', '{}', 'planet-5', 'draw', 'running', 'orders', 2,"
    " 100, '2026-03-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')"
)
_ADJUSTMENT_ROW = (
    "INSERT INTO state_adjustments (campaign_id, turn, adjustment_json, made_by, made_at)"
    " VALUES (1, 2, {}, 100, '2026-03-02T00:00:00+00:00')"
)


_REPAIRED = {"sector": "hb", "level": 2, "owner": "party", "ruined": False}


def _assert_module_edits(stored: Sequence[Mapping[str, object]]) -> None:
    """The old edits in the new form (a module's part under "modules"), the module
    adjustments as they were; the repair applies again to a contact state."""
    repair, armies, watch, siege = stored
    assert repair == {
        "kind": "edit",
        "armies": [],
        "modules": {"contact": {"defences": [_REPAIRED]}},
        "retire": None,
        "reason": "A card",
    }
    assert armies == {
        "kind": "edit",
        "armies": [{"side": "bees", "sector": "ph", "count": 2}],
        "modules": {},
        "retire": None,
        "reason": "Typo",
    }
    assert (watch, siege) == (json.loads(_WATCH_CHANGE), json.loads(_SIEGE_CARD))
    game = contact_game()
    state = example_a_state(game)
    edited = apply_edit(game, state, StateEdit.model_validate(repair), ["bikers", "party", "bees"])
    hive = load_contact(edited.modules["contact"]).defences_in("hb")
    assert hive is not None
    assert (hive.level, hive.owner, hive.ruined) == (2, "party", False)
    assert apply_edit(game, state, StateEdit.model_validate(armies), ["bees"]).armies["bees"] == {
        "ph": 2,
        "hb": 4,
    }


async def test_version_16_keeps_a_modules_part_of_an_edit_under_modules(tmp_path: Path) -> None:
    """An edit stored before version 16 (contact's repair as "defences") is rewritten to the
    form read now and replays; the modules' own adjustments are left as they were."""
    path = tmp_path / "v15.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=15) == 15
        await conn.execute(_CAMPAIGN_ROW)
        for data in _OLD_ADJUSTMENTS:
            await conn.execute(_ADJUSTMENT_ROW.format("?"), (data,))
        await conn.commit()
    finally:
        await conn.close()
    store = await SqliteCampaignStore.open(path)
    try:
        _assert_module_edits([record.adjustment for record in await store.adjustments(1, 2)])
    finally:
        await store.close()


async def test_postgresql_version_16_keeps_a_modules_part_of_an_edit_under_modules(
    postgres_server: PostgresServer,
) -> None:
    url = await new_schema_url(postgres_server)
    raw = await asyncpg.connect(url)
    try:
        assert await postgres_migrate(raw, target=15) == 15
        await raw.execute(_CAMPAIGN_ROW)
        for data in _OLD_ADJUSTMENTS:
            await raw.execute(_ADJUSTMENT_ROW.format("$1"), data)
        assert await postgres_migrate(raw) == latest_version()
        rows = await raw.fetch("SELECT adjustment_json FROM state_adjustments ORDER BY id")
    finally:
        await raw.close()
    _assert_module_edits([json.loads(row["adjustment_json"]) for row in rows])


_STATUS_ROWS = [
    # (id, status, phase, turn): stuck in a paused setup; a deployment resumed as «running»;
    # a paused turn and a finished deployment, which stay as they are.
    (1, "paused", "setup", 0),
    (2, "running", "deployment", 0),
    (3, "paused", "orders", 2),
    (4, "finished", "deployment", 0),
]
_STATUS_INSERT = (
    "INSERT INTO campaigns (id, chat_id, title, time_zone, schedule_json, map_name,"
    " unreported_policy, status, phase, turn, created_by, created_at, updated_at)"
    " VALUES ({id}, {chat}, 'Old', 'UTC', '{{}}', 'planet-5', 'draw', '{status}', '{phase}',"
    " {turn}, 100, '2026-03-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')"
)
_PAUSED_CLOCK = (
    "INSERT INTO campaign_clocks (campaign_id, entry_seq, turn, phase, anchor, deadline, basis,"
    " updated_at, paused_at, paused_status) VALUES ({id}, 2, 0, 'deployment',"
    " '2026-03-01T00:00:00.000000+00:00', NULL, 'UTC|{{}}', '2026-03-02T00:00:00+00:00',"
    " '2026-03-02T00:00:00.000000+00:00', 'deployment')"
)
_STATUSES_AFTER = [
    (1, "setup", "setup"),
    (2, "deployment", "deployment"),
    (3, "paused", "orders"),
    (4, "finished", "deployment"),
]


def _status_rows() -> list[str]:
    rows = [
        _STATUS_INSERT.format(id=i, chat=-i, status=status, phase=phase, turn=turn)
        for i, status, phase, turn in _STATUS_ROWS
    ]
    return [*rows, _PAUSED_CLOCK.format(id=1), _PAUSED_CLOCK.format(id=3)]


async def test_version_17_gives_each_campaign_a_status_its_phase_has(tmp_path: Path) -> None:
    """A campaign an undo left «in setup, paused» (nothing could open it again) is in setup
    with no pause; one resumed into a «running» deployment is in deployment; a paused turn
    keeps its pause (found by the random campaigns, seed 19)."""
    path = tmp_path / "v16.sqlite3"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=16) == 16
        for row in _status_rows():
            await conn.execute(row)
        await conn.commit()
    finally:
        await conn.close()
    db = await Database.open(path)
    await db.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT id, status, phase FROM campaigns ORDER BY id").fetchall() == (
            _STATUSES_AFTER
        )
        paused = raw.execute("SELECT campaign_id, paused_at IS NOT NULL FROM campaign_clocks")
        assert sorted(paused.fetchall()) == [(1, 0), (3, 1)]


async def test_postgresql_version_17_gives_each_campaign_a_status_its_phase_has(
    postgres_server: PostgresServer,
) -> None:
    url = await new_schema_url(postgres_server)
    raw = await asyncpg.connect(url)
    try:
        assert await postgres_migrate(raw, target=16) == 16
        for row in _status_rows():
            await raw.execute(row)
        assert await postgres_migrate(raw) == latest_version()
        campaigns = await raw.fetch("SELECT id, status, phase FROM campaigns ORDER BY id")
        clocks = await raw.fetch(
            "SELECT campaign_id, paused_at IS NOT NULL AS paused FROM campaign_clocks"
            " ORDER BY campaign_id"
        )
    finally:
        await raw.close()
    assert [tuple(row) for row in campaigns] == _STATUSES_AFTER
    assert [tuple(row) for row in clocks] == [(1, False), (3, True)]
