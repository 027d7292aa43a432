-- 0005: who is connected to the live stream, in any server process. One
-- row per open stream connection, kept alive by its process's heartbeat
-- and deleted when the connection closes; the row of a process that died
-- expires. While a user has a row that has not expired, their "your turn"
-- and prompt emails are not sent.

CREATE TABLE stream_presence (
    conn_id    TEXT PRIMARY KEY,
    process_id TEXT NOT NULL,
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expires_at DATETIME NOT NULL
);
CREATE INDEX stream_presence_user ON stream_presence (user_id, expires_at);
CREATE INDEX stream_presence_process ON stream_presence (process_id);

-- Deadlines are kept by scheduled jobs alone; nothing looks games up by
-- their deadline any more, and the index cost a write on every turn.
DROP INDEX IF EXISTS games_deadline;
