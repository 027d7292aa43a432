-- 0009: a live-stream connection's row may name the game whose events it
-- follows (game_id; NULL: the user's notifications). A game change
-- announces its events and notifications with a NOTIFY only to what a
-- connection follows (models.announce): a NOTIFY makes its commit take a
-- lock every notifying commit shares, and in a play-by-email game most
-- changes are followed by nobody live.

ALTER TABLE stream_presence ADD COLUMN game_id BIGINT;
CREATE INDEX stream_presence_game ON stream_presence (game_id) WHERE game_id IS NOT NULL;
