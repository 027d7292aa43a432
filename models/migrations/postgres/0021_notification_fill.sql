-- 0021: a notification stored by a game change's transaction holds what
-- the change said; what it shows of the game (the recipient's board, hand
-- and prompts) is built from the game's state when it is first read, and
-- fill names that state (game, version, seat) until then. NULL or '': the
-- body is whole.

ALTER TABLE notifications ADD COLUMN fill TEXT;
