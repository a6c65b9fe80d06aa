-- Strategium storage, schema version 9: a seat left vacant and who took it (issue 23).
-- A seat is a player's place on a side (their strategist and tactician roles). A GM marks it
-- vacant with a reason: the player keeps their membership (the campaign's public history) but
-- loses the side at once; the group is told the side has an open seat. ``filled_by`` is the
-- newcomer the GM put in the seat (``closed_at`` set with it); a vacancy the GM withdraws is
-- closed with ``filled_by`` NULL. At most one open vacancy per side and player who left.
CREATE TABLE vacancies (
    id           INTEGER PRIMARY KEY,
    campaign_id  INTEGER NOT NULL REFERENCES campaigns (id),
    side_id      TEXT    NOT NULL,
    roles        TEXT    NOT NULL,
    left_user_id INTEGER NOT NULL,
    left_name    TEXT    NOT NULL,
    reason       TEXT    NOT NULL,
    opened_by    INTEGER NOT NULL,
    opened_at    TEXT    NOT NULL,
    filled_by    INTEGER,
    filled_name  TEXT,
    closed_by    INTEGER,
    closed_at    TEXT,
    CHECK ((filled_by IS NULL) OR (closed_at IS NOT NULL)),
    FOREIGN KEY (campaign_id, side_id) REFERENCES sides (campaign_id, id)
);
CREATE INDEX vacancies_open ON vacancies (campaign_id, side_id) WHERE closed_at IS NULL;
