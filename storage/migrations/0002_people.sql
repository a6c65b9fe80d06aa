-- Strategium storage, schema version 2: what the bot keeps about people and its own messages,
-- so nothing a conversation depends on lives only in memory.

-- Everyone the bot has seen. ``private_started_at`` is set once the person has opened a private
-- chat with the bot: only then can the bot write to them (Telegram's rule).
CREATE TABLE people (
    user_id             INTEGER PRIMARY KEY,
    display_name        TEXT    NOT NULL,
    username            TEXT,
    telegram_language   TEXT,
    language            TEXT CHECK (language IN ('en', 'ru')),
    private_started_at  TEXT,
    current_campaign_id INTEGER REFERENCES campaigns (id),
    updated_at          TEXT    NOT NULL
);

-- The language of a campaign's group posts, and its pinned status message.
ALTER TABLE campaigns ADD COLUMN language TEXT NOT NULL DEFAULT 'en'
    CHECK (language IN ('en', 'ru'));
ALTER TABLE campaigns ADD COLUMN status_message_id INTEGER;

-- Someone pressed "join" in the group and has not finished joining in the private chat yet.
CREATE TABLE join_requests (
    campaign_id  INTEGER NOT NULL REFERENCES campaigns (id),
    user_id      INTEGER NOT NULL,
    display_name TEXT    NOT NULL,
    requested_at TEXT    NOT NULL,
    PRIMARY KEY (campaign_id, user_id)
);

-- Someone a GM removed from a campaign: they cannot ask to join it again (nor join a side)
-- until a GM lets them back in, which deletes the row.
CREATE TABLE removed_members (
    campaign_id  INTEGER NOT NULL REFERENCES campaigns (id),
    user_id      INTEGER NOT NULL,
    display_name TEXT    NOT NULL,
    removed_by   INTEGER NOT NULL,
    removed_at   TEXT    NOT NULL,
    PRIMARY KEY (campaign_id, user_id)
);

-- What the bot waits for a person to type in a chat (a step of a dialogue), one per chat and
-- person, so a restart in the middle of a dialogue loses nothing.
CREATE TABLE prompts (
    chat_id     INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    campaign_id INTEGER REFERENCES campaigns (id),
    field       TEXT    NOT NULL,
    data_json   TEXT    NOT NULL DEFAULT '{}',
    message_id  INTEGER,
    created_at  TEXT    NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);

-- A bot message a person's screen is built on (e.g. the orders board, edited in place).
CREATE TABLE ui_messages (
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id),
    user_id     INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    chat_id     INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    updated_at  TEXT    NOT NULL,
    PRIMARY KEY (campaign_id, user_id, kind)
);
