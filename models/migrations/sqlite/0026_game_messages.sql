-- 0026: table talk. The players' messages of a game: to the whole table
-- (to_seat NULL) or, in a game of 3 or 4, to one seat. They are part of
-- the game's record but not of its rules: no version, no engine. body is
-- the text as written (UTF-8, no NUL; the play path bounds its length).
CREATE TABLE game_messages (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    user_id     BIGINT NOT NULL REFERENCES users(id),
    seat        INTEGER NOT NULL,
    to_seat     INTEGER,
    body        TEXT NOT NULL,
    created_at  DATETIME NOT NULL
);
CREATE INDEX game_messages_game ON game_messages (game_id, id);

-- A player's messages of one game: muted (no notification of them on any
-- channel, none in emails) and the last message an email of the game
-- showed them (emailed_id; 0: none yet), so that the next email shows
-- only those after it. No row: not muted, nothing shown yet.
CREATE TABLE game_message_prefs (
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    muted       BOOLEAN NOT NULL DEFAULT FALSE,
    emailed_id  BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, game_id)
);
CREATE INDEX game_message_prefs_muted ON game_message_prefs (game_id) WHERE muted;
