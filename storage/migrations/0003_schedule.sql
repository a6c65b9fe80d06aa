-- Strategium storage, schema version 3: the campaign's clock as the scheduler keeps it.
-- The database is the truth and the scheduler only a clock: the current phase's deadline, a
-- pause, the extension used, which reminders went to whom, and a log of every late run, overdue
-- alarm and GM time tool, so a restart neither skips, doubles nor shifts anything.

-- One row per campaign: the deadline of the phase entry ``entry_seq`` (phase_history.seq) names.
-- ``anchor`` is the moment the deadline was computed from (the scheduled moment of the step that
-- entered the phase, or the entry itself); ``deadline`` is NULL in manual mode and for phases
-- without one; ``basis`` is the schedule and time zone it was computed with (a settings change
-- recomputes it). ``paused_at`` / ``paused_status`` are set while the campaign is paused.
CREATE TABLE campaign_clocks (
    campaign_id     INTEGER PRIMARY KEY REFERENCES campaigns (id),
    entry_seq       INTEGER NOT NULL,
    turn            INTEGER NOT NULL,
    phase           TEXT    NOT NULL
        CHECK (phase IN ('setup', 'deployment', 'orders', 'battles', 'resolution', 'finished')),
    anchor          TEXT    NOT NULL,
    deadline        TEXT,
    basis           TEXT    NOT NULL,
    extension_hours INTEGER NOT NULL DEFAULT 0 CHECK (extension_hours >= 0),
    paused_at       TEXT,
    paused_status   TEXT CHECK (paused_status IN ('deployment', 'running')),
    updated_at      TEXT    NOT NULL
);

-- A reminder goes to a person at most once per (turn, phase, kind), across restarts.
CREATE TABLE reminders_sent (
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id),
    turn        INTEGER NOT NULL,
    phase       TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    user_id     INTEGER NOT NULL,
    sent_at     TEXT    NOT NULL,
    PRIMARY KEY (campaign_id, turn, phase, kind, user_id)
);

-- Late runs, overdue alarms, blocked steps, pauses, resumes, extensions, GM advances.
-- ``dedup`` (when set) makes a note once-only: a late run is noted once per deadline.
CREATE TABLE clock_log (
    id          INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id),
    at          TEXT    NOT NULL,
    actor       INTEGER,
    kind        TEXT    NOT NULL,
    turn        INTEGER NOT NULL,
    phase       TEXT    NOT NULL,
    deadline    TEXT,
    detail_json TEXT    NOT NULL DEFAULT '{}',
    dedup       TEXT UNIQUE
);
CREATE INDEX clock_log_by_campaign ON clock_log (campaign_id, id);
