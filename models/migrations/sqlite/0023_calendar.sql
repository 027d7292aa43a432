-- 0023: the calendar feeds of the players' deadlines (see the Postgres
-- migration).
ALTER TABLE games ADD COLUMN deadline_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN deadline_set_at DATETIME;

CREATE TABLE calendar_feeds (
    user_id    BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    token_hash BLOB NOT NULL UNIQUE,
    nonce      TEXT NOT NULL,
    created_at DATETIME NOT NULL
);
