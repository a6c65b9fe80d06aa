-- Strategium storage, schema version 6: the week bends on the wall clock, and the GM confirms.

-- How long the current phase entry has been paused in all, in seconds of the campaign's wall
-- clock: a pending orders opening moves with it, as the deadline did. A row from before counts
-- the resumes logged for its turn and phase since its anchor (elapsed seconds, as then counted).
ALTER TABLE campaign_clocks ADD COLUMN paused_seconds INTEGER NOT NULL DEFAULT 0
    CHECK (paused_seconds >= 0);
UPDATE campaign_clocks SET paused_seconds = COALESCE((
    SELECT SUM(json_extract(clock_log.detail_json, '$.paused_seconds'))
    FROM clock_log
    WHERE clock_log.campaign_id = campaign_clocks.campaign_id
        AND clock_log.kind = 'resumed'
        AND clock_log.turn = campaign_clocks.turn
        AND clock_log.phase = campaign_clocks.phase
        AND clock_log.at >= campaign_clocks.anchor
), 0);

-- An extension or a pause the GM asked for, shown with the dates it moves, waiting for the GM to
-- confirm it. ``entry_seq``, ``deadline`` and ``basis`` are the clock it was worked out on: once
-- any of them changed (the campaign moved on, the deadline moved) the dates shown are wrong and
-- the proposal is stale. ``request`` names the message or press that asked (the same one
-- delivered twice makes one proposal); ``outcome`` is set once, by the first answer.
CREATE TABLE clock_proposals (
    id          INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id),
    entry_seq   INTEGER NOT NULL,
    action      TEXT    NOT NULL CHECK (action IN ('extend', 'pause')),
    hours       INTEGER NOT NULL DEFAULT 0 CHECK (hours >= 0),
    deadline    TEXT,
    basis       TEXT    NOT NULL,
    proposed_by INTEGER NOT NULL,
    proposed_at TEXT    NOT NULL,
    request     TEXT UNIQUE,
    decided_by  INTEGER,
    decided_at  TEXT,
    outcome     TEXT CHECK (outcome IN ('confirmed', 'cancelled', 'stale', 'refused'))
);
CREATE INDEX clock_proposals_campaign ON clock_proposals (campaign_id);
