-- 0019: replies to decision emails: whether a user answers by email (for
-- all their games, and per game), and the messages already received.

-- Whether the user's decision emails carry a reply address (true: replies
-- are moves).
ALTER TABLE users ADD COLUMN email_replies BOOLEAN NOT NULL DEFAULT TRUE;

-- A user's choice for one game, over email_replies; no row: email_replies.
CREATE TABLE game_email_replies (
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    enabled     BOOLEAN NOT NULL,
    PRIMARY KEY (user_id, game_id)
);

-- Every inbound message handled, by the SHA-256 of its Message-ID, so that
-- a message delivered twice is answered once. outcome is "applied",
-- "refused" or "dropped". Rows go after 30 days.
CREATE TABLE inbound_messages (
    id_hash     BYTEA PRIMARY KEY,
    user_id     BIGINT,
    game_id     BIGINT,
    outcome     TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX inbound_messages_received ON inbound_messages (received_at);
