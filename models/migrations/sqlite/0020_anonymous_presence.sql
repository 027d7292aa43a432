-- 0020: a live stream of a public game's board opened by someone signed in
-- nowhere (a spectator of the pages) has a presence row too, without a
-- user. SQLite cannot drop a NOT NULL: the table, whose rows live only as
-- long as their connections (and which one process never reads), is made
-- anew.

DROP TABLE stream_presence;
CREATE TABLE stream_presence (
    conn_id    TEXT PRIMARY KEY,
    process_id TEXT NOT NULL,
    user_id    BIGINT REFERENCES users(id) ON DELETE CASCADE,
    game_id    INTEGER,
    expires_at DATETIME NOT NULL
);
CREATE INDEX stream_presence_user ON stream_presence (user_id, expires_at);
CREATE INDEX stream_presence_process ON stream_presence (process_id);
