-- Strategium storage, schema version 8: no-shows (issue 23): what happens to a side that gave no
-- orders by the deadline, players' vacations, and one side's orders reopened by a GM.

-- A side with no orders at the deadline: 'hold' (every sector fortified, as before), 'repeat'
-- (last turn's orders entered again, each checked against the new state) or 'wait_for_gm' (the
-- orders do not close until a GM reopens the side's orders or closes them anyway).
ALTER TABLE campaigns ADD COLUMN no_show_policy TEXT NOT NULL DEFAULT 'hold'
    CHECK (no_show_policy IN ('hold', 'repeat', 'wait_for_gm'));

-- A player's absence, dates in the campaign's time zone, both days included; cancelled rows are
-- kept (``cancelled_at``) so teammates' notices and the audit stay explained.
CREATE TABLE vacations (
    id           INTEGER PRIMARY KEY,
    campaign_id  INTEGER NOT NULL REFERENCES campaigns (id),
    user_id      INTEGER NOT NULL,
    first_day    TEXT    NOT NULL,
    last_day     TEXT    NOT NULL,
    set_at       TEXT    NOT NULL,
    cancelled_at TEXT,
    CHECK (first_day <= last_day)
);
CREATE INDEX vacations_by_campaign ON vacations (campaign_id, user_id);

-- A GM reopened one side's orders for the orders phase entry ``entry_seq``: only that side may
-- change its orders, until ``deadline``; ``list_at`` is when the battle list was due to be posted
-- (it keeps that moment when the short deadline ends before it). One reopening per entry.
CREATE TABLE orders_reopenings (
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id),
    entry_seq   INTEGER NOT NULL,
    turn        INTEGER NOT NULL,
    side_id     TEXT    NOT NULL,
    hours       INTEGER NOT NULL CHECK (hours > 0),
    deadline    TEXT    NOT NULL,
    list_at     TEXT,
    reopened_by INTEGER NOT NULL,
    reopened_at TEXT    NOT NULL,
    PRIMARY KEY (campaign_id, entry_seq),
    FOREIGN KEY (campaign_id, side_id) REFERENCES sides (campaign_id, id)
);
