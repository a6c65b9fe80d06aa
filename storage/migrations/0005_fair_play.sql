-- Strategium storage, schema version 5: fair play.
-- ``counter_json``: a disputed battle's other account (the disputing side's own result), so
-- the GMs decide with both reports side by side.
ALTER TABLE battle_reports ADD COLUMN counter_json TEXT;

-- Who may join a campaign by themselves, and when a GM approves instead (JoiningPolicy).
ALTER TABLE campaigns ADD COLUMN joining TEXT NOT NULL DEFAULT 'open_then_approval'
    CHECK (joining IN ('open_then_approval', 'approval', 'open_then_closed'));

-- A join request that waits for a GM's approval names the side and role asked for.
ALTER TABLE join_requests ADD COLUMN side_id TEXT;
ALTER TABLE join_requests ADD COLUMN role TEXT CHECK (role IN ('strategist', 'tactician'));
ALTER TABLE join_requests ADD COLUMN asked_at TEXT;
