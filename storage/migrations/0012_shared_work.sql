-- Strategium storage, schema version 12: several bot processes on one PostgreSQL database
-- share the work (issue 22). On SQLite the tables exist and stay small: one process serves a
-- file (its lock file keeps a second one out).

-- Telegram's updates taken: a webhook update that reaches two processes (Telegram sends it
-- again when the first answer was late) is handled once. Pruned after a day.
CREATE TABLE seen_updates (
    update_id INTEGER NOT NULL,
    seen_at TEXT NOT NULL,
    CONSTRAINT seen_updates_once PRIMARY KEY (update_id)
);
CREATE INDEX seen_updates_by_time ON seen_updates (seen_at);

-- Telegram's sending limits, shared by every process: per window (the bot's, a chat's), the
-- times of its latest requests in the database's clock (seconds, a JSON list of at most the
-- window's limit), locked while a sender reserves a place.
CREATE TABLE send_windows (
    scope TEXT NOT NULL PRIMARY KEY,
    times_json TEXT NOT NULL DEFAULT '[]',
    last_at TEXT NOT NULL
);
CREATE INDEX send_windows_by_time ON send_windows (last_at);
