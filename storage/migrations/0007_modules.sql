-- Strategium storage, schema version 7: rule modules (MODULES.md A2.14) and auditable dice (G4).

-- Each turn's two seeds (secrets.token_hex(16)), made when the turn starts (or earlier, at a
-- /roll before turn 1), their SHA-256 posted in the group before any order exists. One row per
-- (campaign, turn) that undo and correction never replace: the same seeds replay the same
-- rolls. The roll seed is revealed in the turn's Monday summary (``roll_revealed_at``), the
-- deal seed when the campaign finishes; the export leaves both out until then.
CREATE TABLE turn_seeds (
    campaign_id      INTEGER NOT NULL REFERENCES campaigns (id),
    turn             INTEGER NOT NULL CHECK (turn >= 1),
    roll_seed        TEXT    NOT NULL,
    deal_seed        TEXT    NOT NULL,
    created_at       TEXT    NOT NULL,
    roll_revealed_at TEXT,
    PRIMARY KEY (campaign_id, turn)
);

-- What a module's begin_turn drew when the turn started (a dealt hand); none for siege.
ALTER TABLE turn_starts ADD COLUMN rolls_json TEXT NOT NULL DEFAULT '[]';

-- The list's rolls (label, sides, value) and what each module shows with it (siege: the
-- weather in force, each assault's roll or guards, the "before" cards in activation order).
ALTER TABLE battle_lists ADD COLUMN rolls_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE battle_lists ADD COLUMN modules_json TEXT NOT NULL DEFAULT '{}';

-- The late orders a resolution used (siege's "after" cards), by side.
ALTER TABLE resolutions ADD COLUMN late_json TEXT NOT NULL DEFAULT '{}';

-- Order sets gain kind 'late': module orders given between the battle list and the resolution,
-- one current set per (turn, side, kind). SQLite cannot change a CHECK, so the table is rebuilt
-- with its rows and ids (order_edits keep pointing at them). PostgreSQL changes the CHECK.
-- sqlite only:
CREATE TABLE order_sets_new (
    id          INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL,
    turn        INTEGER NOT NULL,
    side_id     TEXT    NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('orders', 'placement', 'late')),
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
INSERT INTO order_sets_new (id, campaign_id, turn, side_id, kind, body_json, ready, updated_by,
    updated_at, edits, retired_at, retired_by)
    SELECT id, campaign_id, turn, side_id, kind, body_json, ready, updated_by, updated_at, edits,
        retired_at, retired_by
    FROM order_sets;
DROP TABLE order_sets;
ALTER TABLE order_sets_new RENAME TO order_sets;
-- postgresql only:
ALTER TABLE order_sets DROP CONSTRAINT order_sets_kind_check;
ALTER TABLE order_sets ADD CONSTRAINT order_sets_kind_check
    CHECK (kind IN ('orders', 'placement', 'late'));
DROP INDEX order_sets_current;
-- both:
CREATE UNIQUE INDEX order_sets_current
    ON order_sets (campaign_id, turn, side_id, kind) WHERE retired_at IS NULL;

-- Dice asked for at the table (/roll, seed 002's helper): drawn from the turn's roll seed, die i
-- of the k-th roll of a context under t<turn>/roll/<context>/<k>/<i>; ``context`` is "group" or
-- a battle's number.
CREATE TABLE table_rolls (
    id          INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id),
    turn        INTEGER NOT NULL CHECK (turn >= 1),
    context     TEXT    NOT NULL,
    k           INTEGER NOT NULL CHECK (k >= 1),
    expression  TEXT    NOT NULL,
    rolls_json  TEXT    NOT NULL,
    rolled_by   INTEGER NOT NULL,
    rolled_at   TEXT    NOT NULL,
    UNIQUE (campaign_id, turn, context, k)
);

-- A GM's change of a turn's start state (siege: a card's effect carried out, MODULES.md S7),
-- applied to the current turn start, which is replaced; kept to be applied again when a
-- correction resolves the turn before anew, and retired with that turn start by an undo.
CREATE TABLE state_adjustments (
    id              INTEGER PRIMARY KEY,
    campaign_id     INTEGER NOT NULL REFERENCES campaigns (id),
    turn            INTEGER NOT NULL,
    adjustment_json TEXT    NOT NULL,
    made_by         INTEGER NOT NULL,
    made_at         TEXT    NOT NULL,
    retired_at      TEXT,
    retired_by      INTEGER,
    retired_reason  TEXT CHECK (retired_reason IN ('undone', 'superseded'))
);
CREATE INDEX state_adjustments_by_turn ON state_adjustments (campaign_id, turn);

-- A side's claim of rewards with its siege VP when the campaign has finished (MODULES.md S8):
-- the items by id (repeats allowed), their total, who claimed. One claim per side.
CREATE TABLE reward_claims (
    campaign_id INTEGER NOT NULL,
    side_id     TEXT    NOT NULL,
    items_json  TEXT    NOT NULL,
    total       INTEGER NOT NULL CHECK (total >= 0),
    vp          INTEGER NOT NULL CHECK (vp >= 0),
    claimed_by  INTEGER NOT NULL,
    claimed_at  TEXT    NOT NULL,
    PRIMARY KEY (campaign_id, side_id),
    FOREIGN KEY (campaign_id, side_id) REFERENCES sides (campaign_id, id)
);

-- The campaign's score-margin table (seed 002's helper: a margin of points suggests the
-- outcome); NULL: the defaults (1 solid, 5 crushing, 10 slaughter).
ALTER TABLE campaigns ADD COLUMN score_margins_json TEXT;
