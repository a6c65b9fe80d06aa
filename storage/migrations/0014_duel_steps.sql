-- Strategium storage, schema version 14: the duel steps of rule module `watch` (issue 19,
-- MODULES.md W6). Each hero in a duel plays one step; a step has its own deadline, kept here so
-- the scheduler acts on it after a restart. A step belongs to one published battle list: when
-- the list is retired (undone, superseded) its steps are no longer current.
--
-- ``state``: 'pending' (not yet opened: in `initiative` mode the steps after the first wait for
-- the one before), 'open' (its side may play until ``deadline``), 'closed'. ``plays_json`` is the
-- side's draft while open and what was played once closed (secret until posted). ``closed_by``:
-- 'submit' (the side played, or chose to play nothing), 'timeout' (its deadline passed),
-- 'deadline' (the results deadline came first), 'gm' (a GM closed it, audited).
CREATE TABLE duel_steps (
    id           INTEGER PRIMARY KEY,
    campaign_id  INTEGER NOT NULL REFERENCES campaigns (id),
    turn         INTEGER NOT NULL,
    list_id      INTEGER NOT NULL REFERENCES battle_lists (id),
    mode         TEXT    NOT NULL CHECK (mode IN ('initiative', 'sealed')),
    sector       TEXT    NOT NULL,
    step_index   INTEGER NOT NULL CHECK (step_index >= 0),
    hero         TEXT    NOT NULL,
    side_id      TEXT    NOT NULL,
    state        TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'open', 'closed')),
    opens_at     TEXT,
    deadline     TEXT,
    reminded_at  TEXT,
    closed_at    TEXT,
    closed_by    TEXT CHECK (closed_by IN ('submit', 'timeout', 'deadline', 'gm')),
    closed_actor INTEGER,
    plays_json   TEXT    NOT NULL DEFAULT '[]',
    edits        INTEGER NOT NULL DEFAULT 0,
    UNIQUE (list_id, sector, step_index),
    UNIQUE (list_id, hero)
);
CREATE INDEX duel_steps_by_campaign ON duel_steps (campaign_id, state);
