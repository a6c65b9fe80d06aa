-- Strategium storage, schema version 1. Times are UTC ISO 8601 text with microseconds and
-- "+00:00", so text order is time order. JSON columns hold the rules core's models.
-- Nothing is deleted by undo or correction: old revisions get retired_at / undone_at.

CREATE TABLE campaigns (
    id                INTEGER PRIMARY KEY,
    chat_id           INTEGER NOT NULL,
    thread_id         INTEGER NOT NULL DEFAULT 0,
    title             TEXT    NOT NULL,
    time_zone         TEXT    NOT NULL,
    schedule_json     TEXT    NOT NULL,
    ruleset_json      TEXT    NOT NULL DEFAULT '{}',
    map_name          TEXT,
    map_json          TEXT,
    unreported_policy TEXT    NOT NULL CHECK (unreported_policy IN ('draw', 'wait_for_gm')),
    status            TEXT    NOT NULL
        CHECK (status IN ('setup', 'deployment', 'running', 'paused', 'finished')),
    phase             TEXT    NOT NULL
        CHECK (phase IN ('setup', 'deployment', 'orders', 'battles', 'resolution', 'finished')),
    turn              INTEGER NOT NULL DEFAULT 0 CHECK (turn >= 0),
    created_by        INTEGER NOT NULL,
    created_at        TEXT    NOT NULL,
    updated_at        TEXT    NOT NULL,
    CHECK ((map_name IS NULL) <> (map_json IS NULL))
);
-- One campaign at a time per group chat and forum topic, until it is finished.
CREATE UNIQUE INDEX campaigns_one_active_per_chat
    ON campaigns (chat_id, thread_id) WHERE status <> 'finished';

CREATE TABLE sides (
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id),
    id          TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    colour      TEXT    NOT NULL,
    position    INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, id),
    UNIQUE (campaign_id, name)
);

CREATE TABLE members (
    campaign_id  INTEGER NOT NULL REFERENCES campaigns (id),
    user_id      INTEGER NOT NULL,
    display_name TEXT    NOT NULL,
    side_id      TEXT,
    joined_at    TEXT    NOT NULL,
    PRIMARY KEY (campaign_id, user_id),
    FOREIGN KEY (campaign_id, side_id) REFERENCES sides (campaign_id, id)
);
CREATE INDEX members_by_user ON members (user_id);

CREATE TABLE member_roles (
    campaign_id INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    role        TEXT    NOT NULL CHECK (role IN ('gm', 'co_gm', 'strategist', 'tactician')),
    PRIMARY KEY (campaign_id, user_id, role),
    FOREIGN KEY (campaign_id, user_id) REFERENCES members (campaign_id, user_id) ON DELETE CASCADE
);

-- Every entry into a (turn, phase). The current position is the last entry not undone.
CREATE TABLE phase_history (
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id),
    seq         INTEGER NOT NULL,
    turn        INTEGER NOT NULL,
    phase       TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    entered_at  TEXT    NOT NULL,
    actor       INTEGER,
    reason      TEXT    NOT NULL DEFAULT '',
    undone_at   TEXT,
    undone_by   INTEGER,
    PRIMARY KEY (campaign_id, seq)
);

CREATE TABLE battle_lists (
    id             INTEGER PRIMARY KEY,
    campaign_id    INTEGER NOT NULL REFERENCES campaigns (id),
    turn           INTEGER NOT NULL,
    revision       INTEGER NOT NULL,
    battles_json   TEXT    NOT NULL,
    rejected_json  TEXT    NOT NULL,
    published_at   TEXT    NOT NULL,
    published_by   INTEGER,
    retired_at     TEXT,
    retired_by     INTEGER,
    retired_reason TEXT CHECK (retired_reason IN ('undone', 'superseded')),
    UNIQUE (campaign_id, turn, revision)
);
CREATE UNIQUE INDEX battle_lists_current
    ON battle_lists (campaign_id, turn) WHERE retired_at IS NULL;

CREATE TABLE resolutions (
    id               INTEGER PRIMARY KEY,
    campaign_id      INTEGER NOT NULL REFERENCES campaigns (id),
    turn             INTEGER NOT NULL,
    revision         INTEGER NOT NULL,
    battle_list_id   INTEGER REFERENCES battle_lists (id),
    state_json       TEXT    NOT NULL,
    orders_json      TEXT    NOT NULL,
    results_json     TEXT    NOT NULL,
    report_json      TEXT    NOT NULL,
    state_after_json TEXT    NOT NULL,
    created_at       TEXT    NOT NULL,
    created_by       INTEGER,
    retired_at       TEXT,
    retired_by       INTEGER,
    retired_reason   TEXT CHECK (retired_reason IN ('undone', 'superseded')),
    UNIQUE (campaign_id, turn, revision)
);
CREATE UNIQUE INDEX resolutions_current
    ON resolutions (campaign_id, turn) WHERE retired_at IS NULL;

-- The state at the start of each turn (turn 1 from deployment, turn n+1 from resolution n).
CREATE TABLE turn_starts (
    id             INTEGER PRIMARY KEY,
    campaign_id    INTEGER NOT NULL REFERENCES campaigns (id),
    turn           INTEGER NOT NULL,
    state_json     TEXT    NOT NULL,
    resolution_id  INTEGER REFERENCES resolutions (id),
    created_at     TEXT    NOT NULL,
    created_by     INTEGER,
    retired_at     TEXT,
    retired_by     INTEGER,
    retired_reason TEXT CHECK (retired_reason IN ('undone', 'superseded'))
);
CREATE UNIQUE INDEX turn_starts_current
    ON turn_starts (campaign_id, turn) WHERE retired_at IS NULL;

-- A side's current orders for a turn (kind 'orders', turn >= 1) or its deployment
-- (kind 'placement', turn 0); every save is also appended to order_edits.
CREATE TABLE order_sets (
    id          INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL,
    turn        INTEGER NOT NULL,
    side_id     TEXT    NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('orders', 'placement')),
    body_json   TEXT    NOT NULL,
    ready       INTEGER NOT NULL CHECK (ready IN (0, 1)),
    updated_by  INTEGER NOT NULL,
    updated_at  TEXT    NOT NULL,
    edits       INTEGER NOT NULL,
    retired_at  TEXT,
    retired_by  INTEGER,
    CHECK ((kind = 'placement') = (turn = 0)),
    FOREIGN KEY (campaign_id, side_id) REFERENCES sides (campaign_id, id)
);
CREATE UNIQUE INDEX order_sets_current
    ON order_sets (campaign_id, turn, side_id) WHERE retired_at IS NULL;

CREATE TABLE order_edits (
    order_set_id INTEGER NOT NULL REFERENCES order_sets (id),
    seq          INTEGER NOT NULL,
    body_json    TEXT    NOT NULL,
    ready        INTEGER NOT NULL CHECK (ready IN (0, 1)),
    edited_by    INTEGER NOT NULL,
    edited_at    TEXT    NOT NULL,
    PRIMARY KEY (order_set_id, seq)
);

-- Reports hang on one battle list revision: an undone list keeps its reports as history, and a
-- republished identical battle gets a copy ('carried_over' event).
CREATE TABLE battle_reports (
    battle_list_id  INTEGER NOT NULL REFERENCES battle_lists (id),
    battle          INTEGER NOT NULL,
    reported_json   TEXT,
    reported_by     INTEGER,
    reported_at     TEXT,
    confirmed_by    INTEGER,
    confirmed_at    TEXT,
    disputed_by     INTEGER,
    disputed_at     TEXT,
    override_json   TEXT,
    override_by     INTEGER,
    override_at     TEXT,
    PRIMARY KEY (battle_list_id, battle)
);

CREATE TABLE battle_report_events (
    id             INTEGER PRIMARY KEY,
    battle_list_id INTEGER NOT NULL REFERENCES battle_lists (id),
    battle         INTEGER NOT NULL,
    kind           TEXT    NOT NULL
        CHECK (kind IN ('report', 'confirm', 'dispute', 'override', 'carried_over')),
    result_json    TEXT,
    actor          INTEGER,
    at             TEXT    NOT NULL
);

CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id),
    at          TEXT    NOT NULL,
    actor       INTEGER,
    action      TEXT    NOT NULL,
    turn        INTEGER NOT NULL,
    phase       TEXT    NOT NULL,
    before_json TEXT    NOT NULL,
    after_json  TEXT    NOT NULL,
    reason      TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_by_campaign ON audit_log (campaign_id, id);

-- Messages that must reach Telegram. phase_seq / resolution_id name the step that queued a
-- message, so undoing or superseding that step cancels it if it has not been sent yet.
CREATE TABLE outbox (
    id                  INTEGER PRIMARY KEY,
    campaign_id         INTEGER REFERENCES campaigns (id),
    chat_id             INTEGER NOT NULL,
    thread_id           INTEGER NOT NULL DEFAULT 0,
    kind                TEXT    NOT NULL,
    payload_json        TEXT    NOT NULL,
    dedup_key           TEXT    NOT NULL UNIQUE,
    state               TEXT    NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'sending', 'sent', 'dead', 'cancelled')),
    attempts            INTEGER NOT NULL DEFAULT 0,
    created_at          TEXT    NOT NULL,
    not_before          TEXT    NOT NULL,
    lease_until         TEXT,
    claim_token         TEXT,
    telegram_message_id INTEGER,
    sent_at             TEXT,
    last_error          TEXT,
    phase_seq           INTEGER,
    resolution_id       INTEGER REFERENCES resolutions (id)
);
CREATE INDEX outbox_unsent_by_chat ON outbox (chat_id, id) WHERE state IN ('pending', 'sending');
