-- 0023: the calendar feeds of the players' deadlines (see docs/calendar.md).
-- A game keeps how many times its deadline was set or moved
-- (deadline_seq, the feed's SEQUENCE) and when that last happened
-- (deadline_set_at, its DTSTAMP), written with the deadline itself.
ALTER TABLE games ADD COLUMN deadline_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN deadline_set_at TIMESTAMPTZ;

-- A player's feed, one at most: the SHA-256 of its token, never the token.
-- The token is an HMAC of the user and the nonce under the server's key,
-- so the settings can show the feed's address again; a new nonce renews
-- it (the old address stops working), deleting the row revokes it.
CREATE TABLE calendar_feeds (
    user_id    BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    token_hash BYTEA NOT NULL UNIQUE,
    nonce      TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
