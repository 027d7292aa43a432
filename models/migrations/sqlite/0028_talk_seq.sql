-- 0028: the table talk's sequence. It grows by one with every message
-- posted to the game and every player's mute or unmute of its messages,
-- in the transaction that makes the change, so that a read of the game
-- row tells whether a read of its talk made at an earlier value is still
-- current (the boards keep their talk by it). No version: the talk is
-- part of the game's record, not of its rules.
ALTER TABLE games ADD COLUMN talk_seq BIGINT NOT NULL DEFAULT 0;
