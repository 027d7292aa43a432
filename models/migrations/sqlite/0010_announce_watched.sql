-- 0010: a live-stream connection's row may name the game it follows (see
-- the Postgres migration; SQLite has no NOTIFY to spare).

ALTER TABLE stream_presence ADD COLUMN game_id INTEGER;
