-- 0020: a live stream of a public game's board opened by someone signed in
-- nowhere (a spectator of the pages) has a presence row too, without a
-- user, so that the changes of that game announce their events on
-- Postgres even when no signed-in reader follows it.

ALTER TABLE stream_presence ALTER COLUMN user_id DROP NOT NULL;
