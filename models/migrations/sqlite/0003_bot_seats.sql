-- 0003: seats the service plays (bot seats from the start, and seats taken
-- over after repeated timeouts) and each seat's run of consecutive timeouts.

CREATE TABLE bot_seats (
    game_id    BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat_no    INTEGER NOT NULL,
    reason     TEXT NOT NULL,
    created_at DATETIME NOT NULL,
    PRIMARY KEY (game_id, seat_no)
);

CREATE TABLE seat_timeouts (
    game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat_no     INTEGER NOT NULL,
    consecutive INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat_no)
);
