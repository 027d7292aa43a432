-- 0009: a live-stream connection's row may name the game whose events it
-- follows (see the Postgres migration).

ALTER TABLE stream_presence ADD COLUMN game_id INTEGER;
