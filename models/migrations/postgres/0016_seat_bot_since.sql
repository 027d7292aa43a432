-- 0016: the version at which the service's bot took a seat over (0: it
-- plays no seat taken over), so that a player who takes the seat back is
-- told what the bot did since.

ALTER TABLE seats ADD COLUMN bot_since BIGINT NOT NULL DEFAULT 0;
