-- 0027: quiet hours. A player's quiet hours run from quiet_start to
-- quiet_end, minutes after midnight in their time zone (users.time_zone),
-- wrapping midnight when the end comes first (22:00 to 07:00: 1320, 420);
-- both NULL (the default): none. While they last, the emails and pushes
-- that are not urgent wait, and a deadline that would fall in them moves
-- to their end, unless the game's settings say otherwise.
ALTER TABLE users ADD COLUMN quiet_start INTEGER;
ALTER TABLE users ADD COLUMN quiet_end INTEGER;

-- The seats (comma-separated numbers, as games.winners) whose players'
-- quiet hours moved the game's deadline to their end; '' when the
-- deadline is as the game's clock set it.
ALTER TABLE games ADD COLUMN deadline_quiet TEXT NOT NULL DEFAULT '';
